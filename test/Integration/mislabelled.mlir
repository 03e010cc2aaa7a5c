// The dynamic counterpart of vx-verify-semantics: a prefix sum mislabelled
// parallel is refused; forced past the checker with allow-races, its numbers
// change under reverse-parallel (every correct test kernel's do not).
// RUN: not vx-opt %s --vx-to-llvm 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: vx-opt %s --vx-to-llvm="allow-races=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s --check-prefix=FORWARD
// RUN: vx-opt %s --vx-to-llvm="allow-races=true reverse-parallel=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s --check-prefix=REVERSE
// RUN: vx-opt %s --vx-to-llvm="allow-races=true via-gpu=true reverse-parallel=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s --check-prefix=REVERSE
// detect-races stops the run at the first race, on any path:
// RUN: vx-opt %s --vx-to-llvm="allow-races=true detect-races=true" 2>/dev/null | not %mlir_runner -e main 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: vx-opt %s --vx-to-llvm="allow-races=true detect-races=true reverse-parallel=true openmp=true" 2>/dev/null | not %mlir_runner -e main 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: vx-opt %s --vx-to-llvm="allow-races=true detect-races=true via-gpu=true threads-per-block=4" 2>/dev/null | not %mlir_runner -e main 2>&1 | FileCheck %s --check-prefix=RACE

// REFUSED: error: read of memory that the spawn writes
// FORWARD: [1,  2,  3,  4,  5,  6,  7,  8,  9]
// REVERSE: [1,  2,  2,  2,  2,  2,  2,  2,  2]
// RACE: vx: data race in the spawn at {{.*}}mislabelled.mlir:[[@LINE+10]]:3 on element [{{[1-8]}}] of argument 0 of @prefix:
// RACE-NEXT: instance ({{[0-7]}}) {{reads|writes}} it ('memref.{{load|store}}' at {{.*}}mislabelled.mlir:{{[0-9]+}}:{{[0-9]+}})
// RACE-NEXT: instance ({{[0-7]}}) {{reads|writes}} it ('memref.{{load|store}}' at {{.*}}mislabelled.mlir:{{[0-9]+}}:{{[0-9]+}})
// RACE-NEXT: instances that differ in a parallel dimension must not touch an element that one of them writes
// RACE-NOT: [1,

func.func private @printMemrefI64(memref<*xi64>)

func.func @prefix(%a: memref<9xi64>) {
  %c1 = arith.constant 1 : index
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %j = arith.addi %i, %c1 : index
    %x = memref.load %a[%i] : memref<9xi64>
    %y = memref.load %a[%j] : memref<9xi64>
    %s = arith.addi %x, %y : i64
    memref.store %s, %a[%j] : memref<9xi64>
  }
  return
}

func.func @main() {
  %one = arith.constant 1 : i64
  %a = memref.alloc() : memref<9xi64>
  linalg.fill ins(%one : i64) outs(%a : memref<9xi64>)
  call @prefix(%a) : (memref<9xi64>) -> ()
  %u = memref.cast %a : memref<9xi64> to memref<*xi64>
  call @printMemrefI64(%u) : (memref<*xi64>) -> ()
  memref.dealloc %a : memref<9xi64>
  return
}

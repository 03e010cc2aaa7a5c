// Dynamic grid sizes of 0 or less run no instance on every route, the GPU
// mapping included (clamped at 0 before its unsigned block counts and
// bounds guards), at several threads per block with ragged last blocks.
// Each instance adds its row-major linear index plus one at out[linear
// index]; @report prints sum and count, total * (total + 1) / 2 and total
// for total = max(n, 0) * max(m, 0).
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=3" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=4" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=32 reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=128" | %mlir_runner -e main | FileCheck %s
//
// A product of parallel sizes over 2^63-1 cannot be counted by the folded
// launch grid: the program stops (cf.assert: the message on stdout, then
// abort) and launches nothing.
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true" | not --crash stdbuf -oL %mlir_runner -e overflow 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=32" | not --crash stdbuf -oL %mlir_runner -e overflow 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: vx.spawn at <stdin>:[[# @LINE + 5]]:3: the product of the parallel grid sizes exceeds 2^63-1, so the GPU mapping cannot count its instances; nothing is launched
// OVERFLOW-NOT: launched

func.func @grid2(%out: memref<?xi64>, %n: index, %m: index) {
  %one = arith.constant 1 : i64
  vx.spawn on tensor_core grid [%n, %m] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %row = arith.muli %i, %m : index
    %lin = arith.addi %row, %j : index
    %iv = arith.index_cast %lin : index to i64
    %x = memref.load %out[%lin] : memref<?xi64>
    %v0 = arith.addi %iv, %one : i64
    %v = arith.addi %x, %v0 : i64
    memref.store %v, %out[%lin] : memref<?xi64>
  }
  return
}

func.func @grid1(%out: memref<?xi64>, %n: index) {
  %one = arith.constant 1 : i64
  vx.spawn on tensor_core grid [%n] semantics [parallel] {
    %i = vx.grid_index 0
    %iv = arith.index_cast %i : index to i64
    %x = memref.load %out[%i] : memref<?xi64>
    %v0 = arith.addi %iv, %one : i64
    %v = arith.addi %x, %v0 : i64
    memref.store %v, %out[%i] : memref<?xi64>
  }
  return
}

// A static parallel size between two dynamic ones, and an arbitrary
// dimension that may be empty while the parallel ones are not.
func.func @mixed(%out: memref<?xi64>, %n: index, %m: index, %k: index) {
  %one = arith.constant 1 : i64
  vx.spawn on tensor_core grid [%n, 3, %k, %m]
      semantics [parallel, parallel, arbitrary, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %l = vx.grid_index 3
    %c3 = arith.constant 3 : index
    %a = arith.muli %i, %c3 : index
    %b = arith.addi %a, %j : index
    %c = arith.muli %b, %m : index
    %lin = arith.addi %c, %l : index
    %iv = arith.index_cast %lin : index to i64
    %v = arith.addi %iv, %one : i64
    // Every arbitrary step stores the same value: one store's worth.
    memref.store %v, %out[%lin] : memref<?xi64>
  }
  return
}

func.func @main() {
  %cm3 = arith.constant -3 : index
  %cm2 = arith.constant -2 : index
  %cm1 = arith.constant -1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c33 = arith.constant 33 : index
  %c65 = arith.constant 65 : index
  %size = arith.constant 1000 : index
  %zero = arith.constant 0 : i64
  %out = memref.alloc(%size) : memref<?xi64>
  %outu = memref.cast %out : memref<?xi64> to memref<*xi64>
  call @make_device_visible_i64(%outu) : (memref<*xi64>) -> ()
  linalg.fill ins(%zero : i64) outs(%out : memref<?xi64>)

  // [-2, -3], [-1, 5], [5, -1], [0, 7], [-1, -1]: nothing runs.
  // CHECK: 0
  // CHECK-NEXT: 0
  call @grid2(%out, %cm2, %cm3) : (memref<?xi64>, index, index) -> ()
  call @grid2(%out, %cm1, %c5) : (memref<?xi64>, index, index) -> ()
  call @grid2(%out, %c5, %cm1) : (memref<?xi64>, index, index) -> ()
  call @grid2(%out, %c0, %c7) : (memref<?xi64>, index, index) -> ()
  call @grid2(%out, %cm1, %cm1) : (memref<?xi64>, index, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // [-2], [-1], [0]: nothing runs.
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  call @grid1(%out, %cm2) : (memref<?xi64>, index) -> ()
  call @grid1(%out, %cm1) : (memref<?xi64>, index) -> ()
  call @grid1(%out, %c0) : (memref<?xi64>, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // [1, 1]: one instance.
  // CHECK-NEXT: 1
  // CHECK-NEXT: 1
  call @grid2(%out, %c1, %c1) : (memref<?xi64>, index, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // [1]: one instance.
  // CHECK-NEXT: 1
  // CHECK-NEXT: 1
  call @grid1(%out, %c1) : (memref<?xi64>, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // [7, 5] (ragged for 3, 4, 32 and 128 threads): 35 instances.
  // CHECK-NEXT: 630
  // CHECK-NEXT: 35
  call @grid2(%out, %c7, %c5) : (memref<?xi64>, index, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // [3, 33]: 99 instances.
  // CHECK-NEXT: 4950
  // CHECK-NEXT: 99
  call @grid2(%out, %c3, %c33) : (memref<?xi64>, index, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // [65]: 65 instances.
  // CHECK-NEXT: 2145
  // CHECK-NEXT: 65
  call @grid1(%out, %c65) : (memref<?xi64>, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // [-1, 3, 2, 5] and [5, 3, 2, -2]: nothing runs.
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  call @mixed(%out, %cm1, %c5, %c3) : (memref<?xi64>, index, index, index) -> ()
  call @mixed(%out, %c5, %cm2, %c3) : (memref<?xi64>, index, index, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // [5, 3, -1, 7]: the arbitrary dimension is empty, nothing runs.
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  call @mixed(%out, %c5, %c7, %cm1) : (memref<?xi64>, index, index, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // [5, 3, 3, 7]: 105 parallel points.
  // CHECK-NEXT: 5565
  // CHECK-NEXT: 105
  call @mixed(%out, %c5, %c7, %c3) : (memref<?xi64>, index, index, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  memref.dealloc %out : memref<?xi64>
  return
}

// 2^62 * 2^40 parallel instances.
func.func @overflow() {
  %c2e40 = arith.constant 1099511627776 : index
  %huge = arith.constant 4611686018427387904 : index
  %c1 = arith.constant 1 : index
  %out = memref.alloc(%c1) : memref<?xi64>
  call @grid2(%out, %huge, %c2e40) : (memref<?xi64>, index, index) -> ()
  vector.print str "launched\n"
  memref.dealloc %out : memref<?xi64>
  return
}

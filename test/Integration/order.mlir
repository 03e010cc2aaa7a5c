// Arbitrary dims run in lexicographic order for each parallel point; the
// result is the same whatever order the parallel dims run in.
// RUN: vx-opt %s --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true threads-per-block=3 openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true via-gpu=true threads-per-block=3 openmp=true" | %mlir_runner -e main | FileCheck %s

func.func private @printMemrefI64(memref<*xi64>)

// out[p] = fold over (a, b) in lexicographic order of h = h * 7 + (a * 3 + b),
// which differs for any other order; p is the parallel dim in the middle.
func.func @ordered(%out: memref<?xi64>, %np: index) {
  %c7 = arith.constant 7 : i64
  %c3 = arith.constant 3 : index
  vx.spawn on tensor_core grid [2, %np, 3] semantics [arbitrary, parallel, arbitrary] {
    %a = vx.grid_index 0
    %p = vx.grid_index 1
    %b = vx.grid_index 2
    %h = memref.load %out[%p] : memref<?xi64>
    %a3 = arith.muli %a, %c3 : index
    %ab = arith.addi %a3, %b : index
    %pab = arith.addi %ab, %p : index
    %v = arith.index_cast %pab : index to i64
    %h7 = arith.muli %h, %c7 : i64
    %hn = arith.addi %h7, %v : i64
    memref.store %hn, %out[%p] : memref<?xi64>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i64
  %out = memref.alloc(%c4) : memref<?xi64>
  linalg.fill ins(%zero : i64) outs(%out : memref<?xi64>)
  func.call @ordered(%out, %c4) : (memref<?xi64>, index) -> ()
  %u = memref.cast %out : memref<?xi64> to memref<*xi64>
  // h over k = 0..5 of h * 7 + (k + p), computed independently in Python.
  // CHECK: [3267, 22875, 42483, 62091]
  func.call @printMemrefI64(%u) : (memref<*xi64>) -> ()
  // A dynamic size of 0 runs no instance.
  func.call @ordered(%out, %c0) : (memref<?xi64>, index) -> ()
  // CHECK: [3267, 22875, 42483, 62091]
  func.call @printMemrefI64(%u) : (memref<*xi64>) -> ()
  memref.dealloc %out : memref<?xi64>
  return
}

// 4096 instances with a 64 KB private scratch each: 256 MB if every
// instance's scratch stayed on the stack. The CPU routes release it at the
// end of each instance (vx-scope-loop-allocas), so this runs.
// RUN: vx-opt %s --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true threads-per-block=64" | %mlir_runner -e main | FileCheck %s

func.func @fill(%out: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %last = arith.constant 16383 : index
  vx.spawn on tensor_core grid [4096] semantics [parallel] {
    %buffer = vx.scratch : memref<16384xf32>
    %i = vx.grid_index 0
    %ii = arith.index_cast %i : index to i64
    %x = arith.sitofp %ii : i64 to f32
    memref.store %x, %buffer[%last] : memref<16384xf32>
    %y = memref.load %buffer[%last] : memref<16384xf32>
    memref.store %y, %out[%i] : memref<4096xf32>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<4096xf32>
  func.call @fill(%out) : (memref<4096xf32>) -> ()
  // The sum of 0 .. 4095.
  %sum = scf.for %i = %c0 to %c4096 step %c1 iter_args(%s = %zero) -> f32 {
    %x = memref.load %out[%i] : memref<4096xf32>
    %n = arith.addf %s, %x : f32
    scf.yield %n : f32
  }
  // CHECK: sum: 8.38656e+06
  vector.print str "sum: "
  vector.print %sum : f32
  memref.dealloc %out : memref<4096xf32>
  return
}

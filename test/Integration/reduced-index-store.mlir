// A once-per-instance store at the index a thread-loop reduction found,
// inside an scf.for, on a CTA of 32 threads (the reduction is a warp
// shuffle): detect-races used to wrap the store's check in an scf.if on
// that index, whose condition the CTA mapping cannot prove uniform, so its
// barrier was "in divergent control flow" (the check is now one op with an
// in_bounds flag). Every route runs to the same numbers.
// RUN: vx-opt %s --vx-to-llvm 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true via-gpu=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true via-gpu=true reverse-parallel=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true via-gpu=true threads-per-block=3" 2>/dev/null | %mlir_runner -e main | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)

// For each row p and round k: the first t with a[p, k, t] > 0 (16 when
// there is none) gets out[p, k, t] = k + 1.
func.func @first_positive(%a: memref<2x3x16xf32>, %out: memref<2x3x17xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 32 {
    %p = vx.grid_index 0
    scf.for %k = %c0 to %c3 step %c1 {
      %first = scf.parallel (%t) = (%c0) to (%c16) step (%c1) init (%c16) -> index {
        %v = memref.load %a[%p, %k, %t] : memref<2x3x16xf32>
        %positive = arith.cmpf ogt, %v, %zero : f32
        %candidate = arith.select %positive, %t, %c16 : index
        scf.reduce(%candidate : index) {
        ^bb0(%x: index, %y: index):
          %m = arith.minui %x, %y : index
          scf.reduce.return %m : index
        }
      }
      %k1 = arith.addi %k, %c1 : index
      %ki = arith.index_cast %k1 : index to i64
      %kf = arith.sitofp %ki : i64 to f32
      memref.store %kf, %out[%p, %k, %first] : memref<2x3x17xf32>
    }
  }
  return
}

// a[p, k, t] = 1 from t = (5 p + 5 k + 6) mod 17 on, else -1.
// CHECK: [0,   0,   0,   0,   0,   0,   1,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0]
// CHECK: [0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   2,   0,   0,   0,   0,   0]
// CHECK: [0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   3]
// CHECK: [0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   1,   0,   0,   0,   0,   0]
// CHECK: [0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   2]
// CHECK: [0,   0,   0,   0,   3,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0]
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %c17 = arith.constant 17 : index
  %one = arith.constant 1.0 : f32
  %minus = arith.constant -1.0 : f32
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<2x3x16xf32>
  %out = memref.alloc() : memref<2x3x17xf32>
  scf.for %p = %c0 to %c2 step %c1 {
    scf.for %k = %c0 to %c3 step %c1 {
      %pk = arith.addi %p, %k : index
      %five = arith.muli %pk, %c5 : index
      %shifted = arith.addi %five, %c6 : index
      %from = arith.remui %shifted, %c17 : index
      scf.for %t = %c0 to %c16 step %c1 {
        %on = arith.cmpi uge, %t, %from : index
        %v = arith.select %on, %one, %minus : f32
        memref.store %v, %a[%p, %k, %t] : memref<2x3x16xf32>
      }
      scf.for %t = %c0 to %c17 step %c1 {
        memref.store %zero, %out[%p, %k, %t] : memref<2x3x17xf32>
      }
    }
  }
  call @first_positive(%a, %out) : (memref<2x3x16xf32>, memref<2x3x17xf32>) -> ()
  %printed = memref.cast %out : memref<2x3x17xf32> to memref<*xf32>
  call @printMemrefF32(%printed) : (memref<*xf32>) -> ()
  memref.dealloc %a : memref<2x3x16xf32>
  memref.dealloc %out : memref<2x3x17xf32>
  return
}

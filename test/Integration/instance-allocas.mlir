// Allocas outside the thread loops of a CTA body are memory of the whole
// instance (docs/design.md, "The per-thread memory model"): thread loops
// that communicate through one see each other's writes, and a flag that a
// thread loop sets is the same on every thread, so the CTA reduction under
// it is reached by all of them. Every route prints the CPU's numbers; the
// GPU mapping used to keep such an alloca per thread (garbage, and a
// reduction reached by one thread: a hang on hardware).
// RUN: vx-opt %s --vx-to-llvm 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true threads-per-block=3" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true threads-per-block=3 reverse-parallel=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true via-gpu=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true via-gpu=true reverse-parallel=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)

// out[p, i] = a[p, 7 - i]: the second thread loop reads what another
// iteration (another thread) of the first wrote.
func.func @reverse_rows(%a: memref<2x8xf32>, %out: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %buf = memref.alloca() : memref<8xf32>
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %v = memref.load %a[%p, %i] : memref<2x8xf32>
      memref.store %v, %buf[%i] : memref<8xf32>
    }
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %j = arith.subi %c7, %i : index
      %v = memref.load %buf[%j] : memref<8xf32>
      memref.store %v, %out[%p, %i] : memref<2x8xf32>
    }
  }
  return
}

// out[p] = sum of a[p, :] where a[p, 3] > 0 (else out[p] stays): the flag
// is cleared once per instance, set by iteration 3 of a thread loop and
// tested once per instance around a CTA reduction.
func.func @sum_if_flag(%a: memref<2x64xf32>, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %false = arith.constant false
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 64 {
    %p = vx.grid_index 0
    %flag = memref.alloca() : memref<1xi1>
    memref.store %false, %flag[%c0] : memref<1xi1>
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %is3 = arith.cmpi eq, %i, %c3 : index
      scf.if %is3 {
        %v = memref.load %a[%p, %i] : memref<2x64xf32>
        %positive = arith.cmpf ogt, %v, %zero : f32
        memref.store %positive, %flag[%c0] : memref<1xi1>
      }
    }
    %set = memref.load %flag[%c0] : memref<1xi1>
    scf.if %set {
      %s = scf.parallel (%i) = (%c0) to (%c64) step (%c1) init (%zero) -> f32 {
        %v = memref.load %a[%p, %i] : memref<2x64xf32>
        scf.reduce(%v : f32) {
        ^bb0(%x: f32, %y: f32):
          %r = arith.addf %x, %y : f32
          scf.reduce.return %r : f32
        }
      }
      memref.store %s, %out[%p] : memref<2xf32>
    }
  }
  return
}

// out[p, i] = 2 a[p, i] + 1 through an alloca that each iteration owns
// (each thread keeps its part): filled once per instance, updated by one
// thread loop and read by the next at the same element. The alloca sits in
// an scf.for outside the thread loops: one per instance and step.
func.func @owned_steps(%a: memref<2x8xf32>, %out: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    scf.for %step = %c0 to %c2 step %c1 {
      %acc = memref.alloca() : memref<8xf32>
      scf.for %k = %c0 to %c8 step %c1 {
        memref.store %one, %acc[%k] : memref<8xf32>
      }
      scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
        %v = memref.load %a[%p, %i] : memref<2x8xf32>
        %x = memref.load %acc[%i] : memref<8xf32>
        %y = arith.addf %x, %v : f32
        %z = arith.addf %y, %v : f32
        memref.store %z, %acc[%i] : memref<8xf32>
      }
      scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
        %x = memref.load %acc[%i] : memref<8xf32>
        memref.store %x, %out[%p, %i] : memref<2x8xf32>
      }
    }
  }
  return
}

// out[p, i] = (7 - i)^2 + p from a table that only code outside thread
// loops writes (n entries): each thread keeps its own copy.
func.func @table(%out: memref<2x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 4 {
    %p = vx.grid_index 0
    %squares = memref.alloca() : memref<8xf32>
    scf.for %k = %c0 to %n step %c1 {
      %kp = arith.muli %k, %k : index
      %v = arith.addi %kp, %p : index
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f32
      memref.store %vf, %squares[%k] : memref<8xf32>
    }
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %j = arith.subi %c7, %i : index
      %x = memref.load %squares[%j] : memref<8xf32>
      memref.store %x, %out[%p, %i] : memref<2x8xf32>
    }
  }
  return
}

// CHECK: [7,   6,   5,   4,   3,   2,   1,   0]
// CHECK: [15,   14,   13,   12,   11,   10,   9,   8]
// CHECK: [2016,  -1]
// CHECK: [1,   3,   5,   7,   9,   11,   13,   15]
// CHECK: [17,   19,   21,   23,   25,   27,   29,   31]
// CHECK: [49,   36,   25,   16,   9,   4,   1,   0]
// CHECK: [50,   37,   26,   17,   10,   5,   2,   1]
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %ten = arith.constant 10.0 : f32
  %minus = arith.constant -1.0 : f32
  // a8[p, i] = 8 p + i.
  %a8 = memref.alloc() : memref<2x8xf32>
  %out8 = memref.alloc() : memref<2x8xf32>
  scf.for %p = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %c8 step %c1 {
      %p8 = arith.muli %p, %c8 : index
      %k = arith.addi %p8, %i : index
      %ki = arith.index_cast %k : index to i64
      %kf = arith.sitofp %ki : i64 to f32
      memref.store %kf, %a8[%p, %i] : memref<2x8xf32>
    }
  }
  call @reverse_rows(%a8, %out8) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
  %u8 = memref.cast %out8 : memref<2x8xf32> to memref<*xf32>
  call @printMemrefF32(%u8) : (memref<*xf32>) -> ()

  // a64[p, i] = i - 10 p: a64[0, 3] > 0, a64[1, 3] < 0.
  %a64 = memref.alloc() : memref<2x64xf32>
  %sums = memref.alloc() : memref<2xf32>
  scf.for %p = %c0 to %c2 step %c1 {
    memref.store %minus, %sums[%p] : memref<2xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      %ii = arith.index_cast %i : index to i64
      %pi = arith.index_cast %p : index to i64
      %if = arith.sitofp %ii : i64 to f32
      %pf = arith.sitofp %pi : i64 to f32
      %offset = arith.mulf %pf, %ten : f32
      %v = arith.subf %if, %offset : f32
      memref.store %v, %a64[%p, %i] : memref<2x64xf32>
    }
  }
  call @sum_if_flag(%a64, %sums) : (memref<2x64xf32>, memref<2xf32>) -> ()
  %us = memref.cast %sums : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()

  call @owned_steps(%a8, %out8) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
  call @printMemrefF32(%u8) : (memref<*xf32>) -> ()

  call @table(%out8, %c8) : (memref<2x8xf32>, index) -> ()
  call @printMemrefF32(%u8) : (memref<*xf32>) -> ()
  return
}

// vx-prepare-openmp leaves the outermost reduction-free scf.parallel to
// convert-scf-to-openmp and runs the others sequentially: nested loops, and
// loops with reductions, which become scf.for nests with the reduction
// applied in order.
// RUN: vx-opt %s --vx-prepare-openmp | FileCheck %s

// CHECK-LABEL: func @nested
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NOT: scf.parallel
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%[[I]], %[[K]]]
// CHECK: %[[M:.*]] = arith.mulf %[[ACC]], %[[X]] : f32
// CHECK: %[[N:.*]] = arith.maximumf %[[M]], %[[ACC]] : f32
// CHECK: scf.yield %[[N]] : f32
// CHECK: memref.store %[[R]]
func.func @nested(%x: memref<8x8xf32>, %y: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %r = scf.parallel (%k) = (%c0) to (%c8) step (%c1) init (%one) -> f32 {
      %x0 = memref.load %x[%i, %k] : memref<8x8xf32>
      scf.reduce(%x0 : f32) {
      ^bb0(%l: f32, %v: f32):
        %m = arith.mulf %l, %v : f32
        %n = arith.maximumf %m, %l : f32
        scf.reduce.return %n : f32
      }
    }
    memref.store %r, %y[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// A top-level loop with a reduction is sequential too.
// CHECK-LABEL: func @reducing
// CHECK-NOT: scf.parallel
// CHECK: scf.for {{.*}} -> (i32)
func.func @reducing(%x: memref<8xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  %r = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> i32 {
    %v = memref.load %x[%i] : memref<8xi32>
    scf.reduce(%v : i32) {
    ^bb0(%l: i32, %w: i32):
      %s = arith.addi %l, %w : i32
      scf.reduce.return %s : i32
    }
  }
  return %r : i32
}

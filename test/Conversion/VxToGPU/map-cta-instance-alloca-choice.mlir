// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-plan-launch --vx-map-cta | FileCheck %s

// A store outside thread loops through a memref that may be an instance
// alloca or private scratch: the mapping places the alloca first, and its
// placement decides who makes the store. Owned (each iteration keeps to its
// own elements), the alloca becomes private scratch and every thread makes
// the store in its own copy: not under `tid == 0`, where the other threads'
// copies would miss it.
// CHECK-LABEL: func.func @private_alloca_or_private
// CHECK: %[[STAGED:.*]] = vx.scratch private : memref<8xf32>
// CHECK: %[[EITHER:.*]] = arith.select %{{.*}}, %{{.*}}, %[[STAGED]] : memref<8xf32>
// CHECK-NEXT: memref.store %{{.*}}, %[[EITHER]][%{{.*}}] : memref<8xf32>
func.func @private_alloca_or_private(%flag: i1, %out: memref<2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 8 {
    %g = vx.grid_index 0
    // expected-remark @below {{private scratch keeps a whole copy per thread of the 8-thread CTA: 'arith.select' uses it}}
    %staged = memref.alloca() : memref<8xf32>
    // expected-remark @below {{private scratch keeps a whole copy per thread of the 8-thread CTA: 'arith.select' uses it}}
    %private = vx.scratch : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      memref.store %one, %staged[%t] : memref<8xf32>
      memref.store %one, %private[%t] : memref<8xf32>
      scf.reduce
    }
    %either = arith.select %flag, %private, %staged : memref<8xf32>
    memref.store %one, %either[%c0] : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %staged[%t] : memref<8xf32>
      %y = memref.load %private[%t] : memref<8xf32>
      %at = arith.addi %t, %c8 : index
      memref.store %x, %out[%g, %t] : memref<2x16xf32>
      memref.store %y, %out[%g, %at] : memref<2x16xf32>
      scf.reduce
    }
  }
  return
}

// -----

// Fuzzer finding @k68289 (seed 10000, batch 68200): the alloca is read by
// code outside thread loops, so it is placed in smem, and the memref carried
// by the scf.for may be it (the initial value) or the private scratch (the
// select). The store was put under `tid == 0` as a write of shared memory,
// so only thread 0's copy of the private scratch got it and thread 1 later
// read its own stale element: wrong numbers on via-gpu, no diagnostic. It is
// refused, as vx-verify-semantics refuses it
// (test/Transforms/verify-memory-roots.mlir).
func.func @shared_alloca_or_private_through_iter_args(%value: f32,
                                                      %out: memref<2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %true = arith.constant true
  vx.spawn on tensor_core grid [2] semantics [arbitrary] threads 12 {
    %g = vx.grid_index 0
    // expected-note @below {{so the threads share it (it is placed in smem)}}
    %staged = memref.alloca() : memref<8xf32>
    %private = vx.scratch : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      memref.store %value, %staged[%t] : memref<8xf32>
      memref.store %value, %private[%t] : memref<8xf32>
      scf.reduce
    }
    %last = scf.for %i = %c0 to %c1 step %c1 iter_args(%carried = %staged) -> (memref<8xf32>) {
      // expected-note @below {{the memref is chosen here}}
      %chosen = arith.select %true, %private, %carried : memref<8xf32>
      // expected-error @below {{'memref.store' op outside thread loops writes through a memref that may be memory each thread has its own copy of (the scratch at}}
      memref.store %value, %chosen[%g] : memref<8xf32>
      scf.yield %chosen : memref<8xf32>
    }
    scf.for %i = %c0 to %c8 step %c1 {
      %x = memref.load %staged[%i] : memref<8xf32>
      memref.store %x, %out[%g, %i] : memref<2x16xf32>
    }
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %y = memref.load %private[%t] : memref<8xf32>
      %at = arith.addi %t, %c8 : index
      memref.store %y, %out[%g, %at] : memref<2x16xf32>
      scf.reduce
    }
  }
  return
}

// RUN: vx-opt %s --vx-plan-launch --vx-map-cta -split-input-file | FileCheck %s

// An alloca outside the thread loops of a CTA body is memory of the whole
// instance (docs/design.md, "The per-thread memory model"). Thread loops
// that communicate through it get it as smem scratch, with a barrier
// between them.
// CHECK-LABEL: func.func @communicate
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 8
// CHECK-NEXT: %[[BUF:.*]] = vx.scratch smem : memref<8xf32>
// CHECK-NOT: memref.alloca
// CHECK: memref.store %{{.*}}, %[[BUF]][%[[TID]]]
// CHECK-NEXT: gpu.barrier
// CHECK: %[[J:.*]] = arith.subi %{{.*}}, %[[TID]]
// CHECK-NEXT: memref.load %[[BUF]][%[[J]]]
func.func @communicate(%a: memref<2x8xf32>, %out: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 8 {
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

// -----

// A flag cleared once per instance, set by one iteration and tested once
// per instance: in smem, cleared by thread 0, read by every thread after a
// barrier, so every thread takes the same branch to the reduction.
// CHECK-LABEL: func.func @flag
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 64
// CHECK-NEXT: %[[FLAG:.*]] = vx.scratch smem : memref<1xi1>
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: memref.store %false, %[[FLAG]]
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[FLAG]]
// CHECK: gpu.barrier
// CHECK-NEXT: %[[SET:.*]] = memref.load %[[FLAG]]
// CHECK-NEXT: scf.if %[[SET]] {
// CHECK: gpu.shuffle
func.func @flag(%a: memref<2x64xf32>, %out: memref<2xf32>) {
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

// -----

// An alloca in an scf.for outside the thread loops, whose elements each
// belong to one iteration, becomes private scratch split into the thread's
// part (two rounds of one element); an alloca inside a thread loop stays
// one per iteration.
// CHECK-LABEL: func.func @owned
// CHECK: gpu.thread_id x upper_bound 32
// CHECK-NEXT: %[[PART:.*]] = vx.scratch private : memref<2x1xf32>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[PART]]
// CHECK: %[[OWN:.*]] = memref.alloca() : memref<1xf32>
// CHECK-NEXT: arith.constant 0
// CHECK-NEXT: %[[X:.*]] = memref.load %[[PART]]
// CHECK-NEXT: memref.store %[[X]], %[[OWN]]
func.func @owned(%a: memref<2x64xf32>, %out: memref<2x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 32 {
    %p = vx.grid_index 0
    scf.for %k = %c0 to %c2 step %c1 {
      %acc = memref.alloca() : memref<64xf32>
      scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
        %v = memref.load %a[%p, %i] : memref<2x64xf32>
        memref.store %v, %acc[%i] : memref<64xf32>
      }
      scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
        %own = memref.alloca() : memref<1xf32>
        %x = memref.load %acc[%i] : memref<64xf32>
        memref.store %x, %own[%c0] : memref<1xf32>
        %y = memref.load %own[%c0] : memref<1xf32>
        memref.store %y, %out[%p, %i] : memref<2x64xf32>
      }
    }
  }
  return
}

// -----

// An alloca that only code outside thread loops writes stays one per
// thread (every thread writes its copy alike), also with a dynamic shape:
// no scratch, no thread-0 guard, no barrier.
// CHECK-LABEL: func.func @table
// CHECK: %[[T:.*]] = memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK-NOT: vx.scratch
// CHECK-NOT: gpu.barrier
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %[[T]]
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %[[T]]
func.func @table(%out: memref<2x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 4 {
    %p = vx.grid_index 0
    %squares = memref.alloca(%n) : memref<?xf32>
    scf.for %k = %c0 to %n step %c1 {
      %kp = arith.muli %k, %k : index
      %vi = arith.index_cast %kp : index to i64
      %vf = arith.sitofp %vi : i64 to f32
      memref.store %vf, %squares[%k] : memref<?xf32>
    }
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %j = arith.subi %c7, %i : index
      %x = memref.load %squares[%j] : memref<?xf32>
      memref.store %x, %out[%p, %i] : memref<2x8xf32>
    }
  }
  return
}

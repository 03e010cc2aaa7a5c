// Barriers the CTA mapping places, each with its reason as an analysis
// remark (--remarks-filter=vx-barriers), and none where the dependence model
// proves the threads that meet are one.
// RUN: vx-opt %s --vx-plan-launch --vx-map-cta --remarks-filter=vx-barriers -split-input-file -verify-diagnostics | FileCheck %s

// A write outside thread loops runs on thread 0 alone: the thread loop's
// iteration 0, on thread 0 too, is the only one that touches hist[0] (a
// barrier here until issue 30).
// CHECK-LABEL: func.func @thread_zero_store
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK-NOT: gpu.barrier
// CHECK: } {vx.launch_plan
func.func @thread_zero_store(%a: memref<2x64xf32>, %out: memref<2x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 64 {
    %hist = vx.scratch smem : memref<64xf32>
    %p = vx.grid_index 0
    memref.store %zero, %hist[%c0] : memref<64xf32>
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %x = memref.load %a[%p, %i] : memref<2x64xf32>
      memref.store %x, %hist[%i] : memref<64xf32>
    }
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %x = memref.load %hist[%i] : memref<64xf32>
      memref.store %x, %out[%p, %i] : memref<2x64xf32>
    }
  }
  return
}

// -----

// Each step writes last[0] on thread 0, which the previous step's write on
// thread 0 is ordered with: no barrier across the steps (one until issue
// 30).
// CHECK-LABEL: func.func @thread_zero_across_steps
// CHECK-NOT: gpu.barrier
// CHECK: } {vx.launch_plan
func.func @thread_zero_across_steps(%a: memref<2x4x64xf32>, %out: memref<2x4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  vx.spawn on tensor_core grid [2, 4] semantics [parallel, arbitrary] threads 64 {
    %last = vx.scratch smem : memref<1xindex>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %x = memref.load %a[%p, %k, %i] : memref<2x4x64xf32>
      memref.store %x, %out[%p, %k, %i] : memref<2x4x64xf32>
    }
    memref.store %k, %last[%c0] : memref<1xindex>
  }
  return
}

// -----

// A read outside thread loops runs on every thread: it needs the barrier
// after thread 0's write.
// CHECK-LABEL: func.func @read_by_every_thread
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK: gpu.barrier
// CHECK-NEXT: memref.load
func.func @read_by_every_thread(%out: memref<2x64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 64 {
    %scale = vx.scratch smem : memref<1xf32>
    %p = vx.grid_index 0
    memref.store %v, %scale[%c0] : memref<1xf32>
    // expected-remark @below {{'memref.load' (line 78) may read an element that 'memref.store' (line 76) wrote on another thread (RAW, thread 0 then thread}}
    %s = memref.load %scale[%c0] : memref<1xf32>
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      memref.store %s, %out[%p, %i] : memref<2x64xf32>
    }
  }
  return
}

// -----

// Bounds that move with an enclosing loop (j to j + 8) still give the
// thread loop 8 iterations per row, so the second loop's iteration reads
// what the same iteration of the first wrote, on the same thread: no
// barrier between them (one until issue 30). The next iteration of j
// writes elements this one read on other threads: a barrier at its head.
// CHECK-LABEL: func.func @moving_bounds
// CHECK: scf.for
// CHECK-NEXT: arith.addi
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: } {vx.launch_plan
func.func @moving_bounds(%a: memref<2x16xf32>, %out: memref<2x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 64 {
    %s = vx.scratch smem : memref<8x12xf32>
    %p = vx.grid_index 0
    scf.for %j = %c0 to %c4 step %c1 {
      %ub = arith.addi %j, %c8 : index
      // expected-remark @below {{'memref.store' (line 112) may write an element that 'memref.store' (line 112) wrote on another thread in an earlier iteration of 'scf.for' (line 107) (WAW, thread}}
      scf.parallel (%u, %v) = (%c0, %j) to (%c8, %ub) step (%c1, %c1) {
        %x = memref.load %a[%p, %v] : memref<2x16xf32>
        memref.store %x, %s[%u, %v] : memref<8x12xf32>
      }
      scf.parallel (%u, %v) = (%c0, %j) to (%c8, %ub) step (%c1, %c1) {
        %x = memref.load %s[%u, %v] : memref<8x12xf32>
        memref.store %x, %out[%p, %u, %v] : memref<2x8x16xf32>
      }
    }
  }
  return
}

// RUN: vx-opt %s --vx-plan-launch --vx-map-cta -split-input-file | FileCheck %s

// vx-map-cta rewrites a body with thread loops into what each thread of
// the CTA runs, still inside the spawn: a thread id bounded by the plan's
// threads, the CTA's copy of a transfer into shared memory marked as such,
// a barrier between it and the thread loop that reads it, and the loop's
// 1024 iterations in 16 rounds of 64 threads. The plan is marked mapped.
// CHECK-LABEL: func.func @transfer
// CHECK: vx.spawn on tensor_core grid [2] semantics [parallel] threads 64 {
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id x upper_bound 64
// CHECK: %[[TILE:.*]] = vx.scratch smem : memref<1024xf32>
// CHECK: %[[T:.*]] = vx.transfer_async %{{.*}} to %[[TILE]] {vx.copy_threads = 64 : i64}
// CHECK-NEXT: vx.await %[[T]]
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for %[[ROUND:.*]] = %{{.*}} to %c16 step
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[ROUND]], %c64
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[BASE]], %[[TID]]
// CHECK: memref.load %[[TILE]]
// CHECK-NOT: scf.parallel
// CHECK: } {vx.launch_plan = #vx.launch_plan<kernel = "transfer_kernel", threads = 64, cooperative = true, mapped = true>}
func.func @transfer(%a: memref<2x1024xf32>, %out: memref<2x1024xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 64 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1023 = arith.constant 1023 : index
    %c1024 = arith.constant 1024 : index
    %tile = vx.scratch smem : memref<1024xf32>
    %row = memref.subview %a[%p, 0] [1, 1024] [1, 1] : memref<2x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %row to %tile : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
    vx.await %t
    scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
      %j = arith.subi %c1023, %i : index
      %x = memref.load %tile[%j] : memref<1024xf32>
      memref.store %x, %out[%p, %i] : memref<2x1024xf32>
    }
  }
  return
}

// -----

// Code outside thread loops that writes memory other threads see runs on
// thread 0; affine ops are lowered first. A body without thread loops is
// only marked mapped (each thread runs its own instance).
// CHECK-LABEL: func.func @once
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}}
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store
// CHECK: } {vx.launch_plan = #vx.launch_plan<kernel = "once_kernel", threads = 32, cooperative = true, mapped = true>}
// CHECK: vx.spawn on tensor_core grid [64] semantics [parallel] {
// CHECK-NOT: gpu.
// CHECK-NOT: affine.
// CHECK: arith.muli
// CHECK: } {vx.launch_plan = #vx.launch_plan<kernel = "once_kernel_0", threads = 256, cooperative = false, mapped = true>}
func.func @once(%a: memref<64xf32>, %b: memref<128xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %a[%c0] : memref<64xf32>
    scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
      %x = memref.load %a[%i] : memref<64xf32>
      memref.store %x, %a[%i] : memref<64xf32>
    }
  }
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %j = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
    %x = memref.load %b[%j] : memref<128xf32>
    memref.store %x, %b[%j] : memref<128xf32>
  }
  return
}

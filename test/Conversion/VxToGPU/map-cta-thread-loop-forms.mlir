// RUN: vx-opt %s --vx-plan-launch --vx-map-cta -split-input-file | FileCheck %s

// A body whose only thread loops are affine.parallel ops is cooperative:
// both loops are spread over the CTA's threads, with a barrier between the
// one that writes the shared tile and the one that reads another thread's
// element.
// CHECK-LABEL: func.func @affine_parallel_only
// CHECK: vx.spawn on tensor_core grid [4] semantics [parallel] threads 32 {
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id x upper_bound 32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<96xf32>
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<96xf32>
// CHECK-NOT: scf.parallel
// CHECK: } {vx.launch_plan = #vx.launch_plan<kernel = "affine_parallel_only_kernel", threads = 32, cooperative = true, mapped = true>}
func.func @affine_parallel_only(%a: memref<4x96xf32>, %out: memref<4x96xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 32 {
    %p = vx.grid_index 0
    %tile = vx.scratch smem : memref<96xf32>
    affine.parallel (%i) = (0) to (96) {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      memref.store %x, %tile[%i] : memref<96xf32>
    }
    affine.parallel (%i) = (0) to (96) {
      %j = affine.apply affine_map<(d0) -> (95 - d0)>(%i)
      %x = memref.load %tile[%j] : memref<96xf32>
      memref.store %x, %out[%p, %i] : memref<4x96xf32>
    }
  }
  return
}

// -----

// A transfer awaited in its own thread-loop iteration stays the thread's
// (no vx.copy_threads), with no barrier after its await; the next thread
// loop reads rows other threads copied, after a barrier.
// CHECK-LABEL: func.func @transfer_in_iteration
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 4
// CHECK: scf.for
// CHECK: %[[T:.*]] = vx.transfer_async %{{.*}} to %{{.*}} : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
// CHECK-NEXT: vx.await %[[T]]
// CHECK-NOT: gpu.barrier
// CHECK: }
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: } {vx.launch_plan = #vx.launch_plan<kernel = "transfer_in_iteration_kernel", threads = 4, cooperative = true, mapped = true>}
func.func @transfer_in_iteration(%a: memref<4x8x16xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 4 {
    %p = vx.grid_index 0
    %tile = vx.scratch smem : memref<8x16xf32>
    scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
      %src = memref.subview %a[%p, %r, 0] [1, 1, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %dst = memref.subview %tile[%r, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %t = vx.transfer_async %src to %dst : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
      vx.await %t
    }
    scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
      %q = arith.subi %c7, %r : index
      %x = memref.load %tile[%q, %c0] : memref<8x16xf32>
      memref.store %x, %out[%p, %r] : memref<4x8xf32>
    }
  }
  return
}

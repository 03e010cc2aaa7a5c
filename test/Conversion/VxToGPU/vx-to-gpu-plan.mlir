// RUN: vx-opt %s --convert-vx-to-gpu -split-input-file | FileCheck %s

// convert-vx-to-gpu reads the plan a spawn has (here written by hand: 32
// instances per CTA, a kernel of its own name) and runs only the steps
// whose results are missing.
// CHECK-LABEL: func.func @planned
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2,
// CHECK-SAME: threads({{.*}}) in ({{.*}} = %[[C32]],
// CHECK-SAME: module(@mine) function(@mine)
// CHECK-NOT: vx.launch_plan
func.func @planned(%a: memref<64xf32>) {
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<64xf32>
    memref.store %x, %a[%i] : memref<64xf32>
  } {vx.launch_plan = #vx.launch_plan<kernel = "mine", threads = 32, cooperative = false>}
  return
}

// -----

// A plan that says the body is mapped and its transfers are pipelined is
// taken at its word: the transfer keeps its await, as with stages=1.
// CHECK-LABEL: func.func @done
// CHECK: gpu.launch
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
func.func @done(%a: memref<4x64xf32>) {
  vx.spawn on tensor_core grid [4, 8] semantics [parallel, arbitrary] {
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %c8 = arith.constant 8 : index
    %o = arith.muli %k, %c8 : index
    %tile = vx.scratch smem : memref<1x8xf32>
    %src = memref.subview %a[%p, %o] [1, 8] [1, 1] : memref<4x64xf32> to memref<1x8xf32, strided<[64, 1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<1x8xf32, strided<[64, 1], offset: ?>> to memref<1x8xf32>
    vx.await %t
  } {vx.launch_plan = #vx.launch_plan<kernel = "done_kernel", threads = 1, cooperative = false, mapped = true, stages = 1>}
  return
}

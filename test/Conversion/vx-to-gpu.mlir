// RUN: vx-opt %s --convert-vx-to-gpu | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-gpu="threads-per-block=32" | FileCheck %s --check-prefix=TPB

// Private scratch is an alloca at the top of the kernel; smem scratch a
// workgroup attribution seen through a memory-space cast, so its users keep
// their types. A transfer from global memory into smem scratch becomes
// cp.async chunks (here one 16-byte chunk per row) committed as one group,
// and its await a wait for that group where the await was; memref.copy
// becomes a loop copy in the kernel.
// CHECK-LABEL: func @scratch
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in ({{.*}}) workgroup(%[[WG:.*]] : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[TILE:.*]] = memref.memory_space_cast %[[WG]] : memref<4xf32, #gpu.address_space<workgroup>> to memref<4xf32>
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<4xf32>
// CHECK: scf.for %[[K:.*]] =
// CHECK: %[[SRC:.*]] = memref.subview
// CHECK: %[[WGTILE:.*]] = memref.memory_space_cast %[[TILE]] : memref<4xf32> to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[E:.*]] =
// CHECK-NEXT: nvgpu.device_async_copy %[[SRC]][%[[E]]], %[[WGTILE]][%[[E]]], 4 {bypassL1} : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[GROUP:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT: nvgpu.device_async_wait %[[GROUP]] {numGroups = 0 : i32}
// CHECK-NOT: vx.await
// CHECK: scf.for %[[F:.*]] =
// CHECK-NEXT: %[[Y:.*]] = memref.load %[[TILE]][%[[F]]]
// CHECK-NEXT: memref.store %[[Y]], %[[ACC]][%[[F]]]
// CHECK-NOT: memref.copy
// CHECK: gpu.terminator

// With threads-per-block > 1 every thread has its own 16-byte aligned slice.
// TPB-LABEL: func @scratch
// TPB: workgroup(%[[WG:.*]] : memref<512xi8, #gpu.address_space<workgroup>>)
// TPB-DAG: %[[C16:.*]] = arith.constant 16 : index
// TPB-DAG: %[[SHIFT:.*]] = arith.muli %{{.*}}, %[[C16]] : index
// TPB: %[[VIEW:.*]] = memref.view %[[WG]][%[[SHIFT]]][] : memref<512xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
// TPB: memref.memory_space_cast %[[VIEW]] : memref<4xf32, #gpu.address_space<workgroup>> to memref<4xf32>
func.func @scratch(%a: memref<64x16xf32>) {
  vx.spawn on tensor_core grid [64, 4] semantics [parallel, arbitrary] {
    %i = vx.grid_index 0
    %k = vx.grid_index 1
    %tile = vx.scratch smem : memref<4xf32>
    %acc = vx.scratch : memref<4xf32>
    %c4 = arith.constant 4 : index
    %off = arith.muli %k, %c4 : index
    %src = memref.subview %a[%i, %off] [1, 4] [1, 1] : memref<64x16xf32> to memref<4xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
    vx.await %t
    memref.copy %tile, %acc : memref<4xf32> to memref<4xf32>
  }
  return
}

// Host spawns, and their transfers, are left to convert-vx-to-scf.
// CHECK-LABEL: func @host
// CHECK: vx.spawn on host
// CHECK: vx.transfer_async
// CHECK: vx.await
// CHECK: memref.copy
func.func @host(%a: memref<4xf32>, %b: memref<4xf32>) {
  vx.spawn on host grid [2] semantics [arbitrary] {
    %tile = vx.scratch : memref<4xf32>
    %t = vx.transfer_async %a to %tile : memref<4xf32> to memref<4xf32>
    vx.await %t
    memref.copy %tile, %b : memref<4xf32> to memref<4xf32>
  }
  return
}

// One instance per CTA (threads-per-block=1), 32 instances, and the default
// CTA size of 256 threads.
// RUN: vx-opt %s --convert-vx-to-gpu="threads-per-block=1" | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-gpu | FileCheck %s --check-prefix=DEFAULT
// RUN: vx-opt %s --convert-vx-to-gpu="threads-per-block=32" | FileCheck %s --check-prefix=TPB

// Private scratch is a 16-byte aligned alloca at the top of the kernel; smem
// scratch a view of the launch's dynamic shared memory seen through a
// memory-space cast, so its users keep their types. The kernel assumes that
// captured buffers are 16-byte aligned. A transfer from global memory into smem
// scratch becomes cp.async chunks (here one 16-byte chunk per row) committed
// as one group, and its await a wait for that group where the await was;
// memref.copy becomes a loop copy in the kernel.
// DEFAULT-LABEL: func @scratch
// DEFAULT: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.*}} = %c256, {{.*}}) dynamic_shared_memory_size %c4096_i32
// CHECK-LABEL: func @scratch
// CHECK: %[[BYTES:.*]] = arith.constant 16 : i32
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in ({{.*}}) dynamic_shared_memory_size %[[BYTES]]
// CHECK: %[[SHARED:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[VIEW:.*]] = memref.view %[[SHARED]][%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[CAST:.*]] = memref.memory_space_cast %[[VIEW]] : memref<4xf32, #gpu.address_space<workgroup>> to memref<4xf32>
// CHECK: %[[TILE:.*]] = memref.assume_alignment %[[CAST]], 128 : memref<4xf32>
// CHECK: %[[ACC:.*]] = memref.alloca() {alignment = 16 : i64} : memref<4xf32>
// CHECK: %[[A:.*]] = memref.assume_alignment %arg0, 16 : memref<64x16xf32>
// CHECK: scf.for %[[K:.*]] =
// CHECK: %[[SRC:.*]] = memref.subview %[[A]]
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
// TPB: %[[BYTES:.*]] = arith.constant 512 : i32
// TPB: dynamic_shared_memory_size %[[BYTES]]
// TPB: %[[SHARED:.*]] = gpu.dynamic_shared_memory
// TPB-DAG: %[[C16:.*]] = arith.constant 16 : index
// TPB-DAG: %[[SHIFT:.*]] = arith.muli %{{.*}}, %[[C16]] : index
// TPB: %[[VIEW:.*]] = memref.view %[[SHARED]][%[[SHIFT]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
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

// Several smem buffers, of any byte-sized element type and of vectors: each
// starts at a multiple of 16 bytes (the widest access, a cp.async chunk),
// or of a wider vector element; with threads, the buffers of all threads of
// one scratch lie together, and the next scratch follows them.
// CHECK-LABEL: func @buffers
// 3 bytes + 8 * 16 bytes + 2 * 32 bytes, each rounded up to 32, each
// buffer at a multiple of 128 bytes.
// CHECK: %[[BYTES:.*]] = arith.constant 320 : i32
// CHECK: dynamic_shared_memory_size %[[BYTES]]
// CHECK: %[[SHARED:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[SHARED]][%[[C0]]][] : {{.*}} to memref<3xi8, #gpu.address_space<workgroup>>
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: memref.view %[[SHARED]][%[[C128]]][] : {{.*}} to memref<8xvector<4xf32>, #gpu.address_space<workgroup>>
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: memref.view %[[SHARED]][%[[C256]]][] : {{.*}} to memref<2xvector<8xf32>, #gpu.address_space<workgroup>>
// TPB-LABEL: func @buffers
// TPB: %[[BYTES:.*]] = arith.constant 7168 : i32
// TPB: dynamic_shared_memory_size %[[BYTES]]
// TPB: %[[SHARED:.*]] = gpu.dynamic_shared_memory
// TPB: %[[S0:.*]] = arith.muli %[[T:.*]], %{{.*}} : index
// TPB: memref.view %[[SHARED]][%[[S0]]][] : {{.*}} to memref<3xi8, #gpu.address_space<workgroup>>
// TPB-DAG: %[[C128:.*]] = arith.constant 128 : index
// TPB-DAG: %[[C1024:.*]] = arith.constant 1024 : index
// TPB-DAG: %[[S1:.*]] = arith.muli %[[T]], %[[C128]] : index
// TPB: %[[O1:.*]] = arith.addi %[[C1024]], %[[S1]] : index
// TPB: memref.view %[[SHARED]][%[[O1]]][] : {{.*}} to memref<8xvector<4xf32>, #gpu.address_space<workgroup>>
// TPB: %[[C5120:.*]] = arith.constant 5120 : index
// TPB: %[[O2:.*]] = arith.addi %[[C5120]], %{{.*}} : index
// TPB: memref.view %[[SHARED]][%[[O2]]][] : {{.*}} to memref<2xvector<8xf32>, #gpu.address_space<workgroup>>
func.func @buffers(%out: memref<64xf32>) {
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %bytes = vx.scratch smem : memref<3xi8>
    %quads = vx.scratch smem : memref<8xvector<4xf32>>
    %octs = vx.scratch smem : memref<2xvector<8xf32>>
    %c0 = arith.constant 0 : index
    %q = memref.load %quads[%c0] : memref<8xvector<4xf32>>
    %o = memref.load %octs[%c0] : memref<2xvector<8xf32>>
    %b = memref.load %bytes[%c0] : memref<3xi8>
    %x = vector.extract %q[0] : f32 from vector<4xf32>
    %y = vector.extract %o[7] : f32 from vector<8xf32>
    %z = arith.uitofp %b : i8 to f32
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %z : f32
    memref.store %t, %out[%i] : memref<64xf32>
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

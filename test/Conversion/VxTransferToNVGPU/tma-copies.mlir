// The TMA building blocks (Vx/Conversion/VxTransferToNVGPU/TMA.h), driven by
// the test pass on copies into workgroup memory: the tensor map encoded on
// the host before the launch, one mbarrier per copy made and initialized at
// the top of the body by thread (0, 0, 0) and published by a barrier, the
// bytes announced and the load issued by that thread where the copy was,
// and a wait by every thread for the phase of the copy.
// RUN: vx-opt %s --test-vx-tma-copies | FileCheck %s
// Lowered to NVVM, the host calls libvx_cuda_runtime for the map, a pointer that
// the kernel receives, and the device issues cp.async.bulk.tensor (the PTX
// assembles: tma-copies-ptx.mlir).
// RUN: vx-opt %s --test-vx-tma-copies --vx-to-nvvm="chip=sm_90a" | FileCheck %s --check-prefix=NVVM
// NVVM: %[[MAP:[0-9]+]] = llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
// NVVM: gpu.launch_func @rows_kernel::@rows_kernel {{.*}}%[[MAP]] : !llvm.ptr
// NVVM: llvm.func @rows_kernel(
// NVVM: mbarrier.init.shared.b64
// NVVM: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// NVVM-NEXT: nvvm.prefetch tensormap
// NVVM: nvvm.barrier0
// NVVM: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// NVVM: mbarrier.arrive.expect_tx.shared.b64
// NVVM: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// NVVM: mbarrier.try_wait.parity.shared.b64
// NVVM: llvm.func @heads_kernel(
// NVVM: cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes

// CHECK-LABEL: func.func @rows(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<64x32xf32>
// CHECK: %[[UNRANKED:[a-z0-9_]+]] = memref.cast %[[A]] : memref<64x32xf32> to memref<*xf32>
// CHECK-DAG: %[[C16:[a-z0-9_]+]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:[a-z0-9_]+]] = arith.constant 32 : index
// CHECK: %[[MAP:[a-z0-9_]+]] = nvgpu.tma.create.descriptor %[[UNRANKED]] box[%[[C16]], %[[C32]]] : memref<*xf32> -> <tensor = memref<16x32xf32, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{.*}}, %{{.*}}) in {{.*}} threads(%[[TX:[a-z0-9_]+]], %[[TY:[a-z0-9_]+]], %[[TZ:[a-z0-9_]+]]) in {{.*}} workgroup(%[[TILE:[a-z0-9_]+]] : memref<16x32xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[X0:[a-z0-9_]+]] = arith.cmpi eq, %[[TX]], %[[ZERO:[a-z0-9_]+]] : index
// CHECK: %[[Y0:[a-z0-9_]+]] = arith.cmpi eq, %[[TY]], %[[ZERO]] : index
// CHECK: %[[XY0:[a-z0-9_]+]] = arith.andi %[[X0]], %[[Y0]] : i1
// CHECK: %[[Z0:[a-z0-9_]+]] = arith.cmpi eq, %[[TZ]], %[[ZERO]] : index
// CHECK: %[[ELECTED:[a-z0-9_]+]] = arith.andi %[[XY0]], %[[Z0]] : i1
// CHECK: %[[BARRIERS:[a-z0-9_]+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>>
// CHECK: nvgpu.mbarrier.init %[[BARRIERS]][%{{.*}}], %{{.*}}, predicate = %[[ELECTED]]
// The elected thread fences the barriers' initialization and prefetches the
// tensor map before the barrier; again, once, before each load.
// CHECK-NEXT: scf.if %[[ELECTED]] {
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvgpu.tma.prefetch.descriptor %[[MAP]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: %[[ROW:[a-z0-9_]+]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK: scf.if %[[ELECTED]] {
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: }
// CHECK: %[[BYTES:[a-z0-9_]+]] = arith.constant 2048 : index
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[BARRIERS]][%[[INDEX:[a-z0-9_]+]]], %[[BYTES]], predicate = %[[ELECTED]]
// CHECK: %[[COL:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK: nvgpu.tma.async.load %[[MAP]][%[[COL]], %[[ROW]]], %[[BARRIERS]][%[[INDEX]]] to %[[TILE]], predicate = %[[ELECTED]]
// CHECK: %[[PHASE:[a-z0-9_]+]] = arith.constant false
// CHECK: nvgpu.mbarrier.try_wait.parity %[[BARRIERS]][%[[INDEX]]], %[[PHASE]], %{{.*}}
// CHECK-NOT: memref.copy
// CHECK: memref.load %[[TILE]]
func.func @rows(%a: memref<64x32xf32>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
      workgroup(%tile : memref<16x32xf32, #gpu.address_space<workgroup>>) {
    %row = arith.muli %bx, %c16 : index
    %src = memref.subview %a[%row, 0] [16, 32] [1, 1] : memref<64x32xf32> to memref<16x32xf32, strided<[32, 1], offset: ?>>
    memref.copy %src, %tile : memref<16x32xf32, strided<[32, 1], offset: ?>> to memref<16x32xf32, #gpu.address_space<workgroup>>
    %x = memref.load %tile[%c0, %tx] : memref<16x32xf32, #gpu.address_space<workgroup>>
    memref.store %x, %out[%row, %tx] : memref<64x32xf32>
    gpu.terminator
  }
  return
}

// A tile of a 4-D tensor through a rank-reducing view and a view of that:
// the box has the dropped dimensions as 1s, the destination is expanded to
// the box, the offsets of both views add up, innermost first.
// CHECK-LABEL: func.func @heads(
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<*xf32> -> <tensor = memref<1x1x16x32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.launch blocks(%[[B:[a-z0-9_]+]], %[[H:[a-z0-9_]+]], %{{.*}}) in
// CHECK: %[[Q:[a-z0-9_]+]] = arith.muli
// CHECK: arith.constant 2048 : index
// CHECK: %[[COL:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK: %[[ROW:[a-z0-9_]+]] = arith.addi %[[Q]], %{{.*}} : index
// CHECK: %[[BOX:[a-z0-9_]+]] = memref.expand_shape %{{.*}} {{\[}}[0, 1, 2], [3]] output_shape [1, 1, 16, 32] : memref<16x32xf32, #gpu.address_space<workgroup>> into memref<1x1x16x32xf32, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.async.load %{{.*}}[%[[COL]], %[[ROW]], %[[H]], %[[B]]], %{{.*}}[%{{.*}}] to %[[BOX]]
func.func @heads(%k: memref<2x3x64x32xf32>, %out: memref<2x3xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%b, %h, %bz) in (%gx = %c2, %gy = %c3, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1)
      workgroup(%tile : memref<16x32xf32, #gpu.address_space<workgroup>>) {
    %q = arith.muli %b, %c16 : index
    %head = memref.subview %k[%b, %h, %q, 0] [1, 1, 32, 32] [1, 1, 1, 1] : memref<2x3x64x32xf32> to memref<32x32xf32, strided<[32, 1], offset: ?>>
    %src = memref.subview %head[%c8, 0] [16, 32] [1, 1] : memref<32x32xf32, strided<[32, 1], offset: ?>> to memref<16x32xf32, strided<[32, 1], offset: ?>>
    memref.copy %src, %tile : memref<16x32xf32, strided<[32, 1], offset: ?>> to memref<16x32xf32, #gpu.address_space<workgroup>>
    %x = memref.load %tile[%tx, %tx] : memref<16x32xf32, #gpu.address_space<workgroup>>
    memref.store %x, %out[%b, %h] : memref<2x3xf32>
    gpu.terminator
  }
  return
}

// Two copies in a loop: a barrier each, and the k-th iteration waits for
// the phase of parity k mod 2.
// CHECK-LABEL: func.func @steps(
// CHECK-COUNT-2: nvgpu.tma.create.descriptor
// CHECK: %[[BARRIERS:[a-z0-9_]+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// CHECK: %[[ZERO:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK: nvgpu.mbarrier.init %[[BARRIERS]][%[[ZERO]]]
// CHECK: %[[ONE:[a-z0-9_]+]] = arith.constant 1 : index
// CHECK: nvgpu.mbarrier.init %[[BARRIERS]][%[[ONE]]]
// CHECK: scf.for %[[K:[a-z0-9_]+]] = %[[LB:[a-z0-9_]+]] to %{{.*}} step %[[STEP:[a-z0-9_]+]] {
// CHECK: nvgpu.tma.async.load %{{.*}}, %[[BARRIERS]][%[[FIRST:[a-z0-9_]+]]] to
// CHECK: %[[ITERATION:[a-z0-9_]+]] = arith.subi %[[K]], %[[LB]] : index
// CHECK: %[[COUNT:[a-z0-9_]+]] = arith.divui %[[ITERATION]], %[[STEP]] : index
// CHECK: %[[PARITY:[a-z0-9_]+]] = arith.index_cast %[[COUNT]] : index to i1
// CHECK: nvgpu.mbarrier.try_wait.parity %[[BARRIERS]][%[[FIRST]]], %[[PARITY]]
// CHECK: nvgpu.tma.async.load %{{.*}}, %[[BARRIERS]][%[[SECOND:[a-z0-9_]+]]] to
// CHECK: nvgpu.mbarrier.try_wait.parity %[[BARRIERS]][%[[SECOND]]]
// CHECK: gpu.barrier
func.func @steps(%a: memref<64x32xf32>, %b: memref<32x64xi32>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
      workgroup(%ta : memref<8x32xf32, #gpu.address_space<workgroup>>,
                %tb : memref<8x4xi32, #gpu.address_space<workgroup>>) {
    scf.for %k = %c0 to %c64 step %c8 {
      %sa = memref.subview %a[%k, 0] [8, 32] [1, 1] : memref<64x32xf32> to memref<8x32xf32, strided<[32, 1], offset: ?>>
      memref.copy %sa, %ta : memref<8x32xf32, strided<[32, 1], offset: ?>> to memref<8x32xf32, #gpu.address_space<workgroup>>
      %sb = memref.subview %b[0, %k] [8, 4] [1, 1] : memref<32x64xi32> to memref<8x4xi32, strided<[64, 1], offset: ?>>
      memref.copy %sb, %tb : memref<8x4xi32, strided<[64, 1], offset: ?>> to memref<8x4xi32, #gpu.address_space<workgroup>>
      %x = memref.load %ta[%c0, %tx] : memref<8x32xf32, #gpu.address_space<workgroup>>
      memref.store %x, %out[%tx] : memref<32xf32>
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// The stages that fit: the most, up to the requested, whose slots fit the
// shared memory the chip leaves beside the scratch (232320 bytes of dynamic
// shared memory on sm_90), with a remark when fewer are used; and the copy
// that carries them.
// RUN: vx-opt %s --convert-vx-to-gpu="stages=4 chip=sm_90 threads-per-block=4" -split-input-file -verify-diagnostics | FileCheck %s

// 64 KiB tiles, TMA loads on sm_90: 4 slots need 3 x 65536 more bytes and
// (no padding: the buffer starts 128-byte aligned), 166784 are left, and 3 slots fit.
// CHECK-LABEL: func.func @three_of_four
// CHECK: dynamic_shared_memory_size %c196608_i32
// CHECK: nvgpu.mbarrier.try_wait.parity
func.func @three_of_four(%in: memref<128x1024xf32>) {
  %c128 = arith.constant 128 : index
  // expected-remark @below {{pipelines its transfers in 3 stages instead of 4: 4 slots of 65536 bytes need 196608 bytes of shared memory more than the scratch, and the CTA has 166784 left}}
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<128x128xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c128 : index
    %src = memref.subview %in[0, %col] [128, 128] [1, 1] : memref<128x1024xf32> to memref<128x128xf32, strided<[1024, 1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<128x128xf32, strided<[1024, 1], offset: ?>> to memref<128x128xf32>
    vx.await %t
  }
  return
}

// -----

// 128 KiB tiles: not even 2 slots fit; one, loaded by TMA, with the room
// to align it.
// CHECK-LABEL: func.func @none
// CHECK: dynamic_shared_memory_size %c131072_i32
// CHECK: nvgpu.mbarrier.try_wait.parity
func.func @none(%in: memref<256x1024xf32>) {
  %c128 = arith.constant 128 : index
  // expected-remark @below {{does not pipeline its transfers (4 stages requested): 4 slots of 131072 bytes need 393216 bytes of shared memory more than the scratch, and the CTA has 101248 left}}
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<256x128xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c128 : index
    %src = memref.subview %in[0, %col] [256, 128] [1, 1] : memref<256x1024xf32> to memref<256x128xf32, strided<[1024, 1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<256x128xf32, strided<[1024, 1], offset: ?>> to memref<256x128xf32>
    vx.await %t
  }
  return
}

// -----

// Each of the 4 instances of a CTA (threads-per-block=4) has its own
// slots: 3 of 16 KiB fit where 4 would not. Spawns without parallel
// dimensions above have one instance per CTA.
// CHECK-LABEL: func.func @instances
// CHECK: dynamic_shared_memory_size %c196608_i32
func.func @instances(%in: memref<8x32x1024xf32>) {
  %c128 = arith.constant 128 : index
  // expected-remark @below {{pipelines its transfers in 3 stages instead of 4: 4 slots of 16384 bytes for each of 4 instances per CTA need 196608 bytes of shared memory more than the scratch, and the CTA has 166784 left}}
  vx.spawn on tensor_core grid [8, 8] semantics [parallel, arbitrary] {
    %tile = vx.scratch smem : memref<32x128xf32>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c128 : index
    %src = memref.subview %in[%p, 0, %col] [1, 32, 128] [1, 1, 1] : memref<8x32x1024xf32> to memref<32x128xf32, strided<[1024, 1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<32x128xf32, strided<[1024, 1], offset: ?>> to memref<32x128xf32>
    vx.await %t
  }
  return
}

// -----

// A tile TMA does not carry on sm_90 is pipelined with cp.async.
// CHECK-LABEL: func.func @row_tiles
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
func.func @row_tiles(%in: memref<1024xf32>) {
  %c128 = arith.constant 128 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<128xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c128 : index
    %src = memref.subview %in[%col] [128] [1] : memref<1024xf32> to memref<128xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is pipelined with cp.async, not TMA: TMA carries tiles of 2 or more dimensions here}}
    %t = vx.transfer_async %src to %tile : memref<128xf32, strided<[1], offset: ?>> to memref<128xf32>
    vx.await %t
  }
  return
}

// -----

// The mbarriers of TMA (8 bytes per slot) are static shared memory; the
// limit leaves 128 bytes of it (up to 16 slots), and the pipeline counts
// the rest: 450 slots of 512 bytes need 450 x 512 + 112 - 512 bytes more
// than the scratch and 3584 of mbarriers beyond the 128, 447 fit (453
// without the mbarriers), and 447 are used. They leave one CTA of one
// thread per SM, where 12 would keep the 32 KiB in flight that hide the
// memory latency with 32 CTAs per SM: a second remark says so.
// CHECK-LABEL: func.func @many_barriers
// CHECK: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 447>
func.func @many_barriers(%in: memref<8x16384xf32>) {
  %c16 = arith.constant 16 : index
  // expected-remark @below {{pipelines its transfers in 447 stages instead of 450: 450 slots of 512 bytes need 233472 bytes of shared memory more than the scratch, and the CTA has 231808 left}}
  // expected-remark @below {{pipelines its transfers in 447 stages at a cost in occupancy on 'sm_90': its CTAs of 232320 bytes of shared memory fit 1 per SM, where `stages 12` would fit 32 (CTAs of 6144 bytes) and keep 180224 bytes of transfers in flight per SM, at least the 32768 that hide the memory latency}}
  vx.spawn on tensor_core grid [1024] semantics [arbitrary] threads 1 stages 450 {
    %tile = vx.scratch smem : memref<8x16xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c16 : index
    %src = memref.subview %in[0, %col] [8, 16] [1, 1] : memref<8x16384xf32> to memref<8x16xf32, strided<[16384, 1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<8x16xf32, strided<[16384, 1], offset: ?>> to memref<8x16xf32>
    vx.await %t
  }
  return
}

// The requested stages stay whenever their slots fit (VX_SPEC 2.2), and a
// remark says what they cost in occupancy where fewer would occupy an SM
// better: the stages, up to the requested, that keep the most bytes of
// transfers in flight per SM up to the chip's need (32 KiB on sm_90, 16
// KiB on sm_80), then the most threads per SM up to 512, then the most
// stages. An 8 KiB tile in CTAs of 64 threads, 4 stages: on sm_90 they
// fit 6 CTAs per SM where 3 stages fit 9; on sm_80 4 where 2 fit 9. With
// 2 stages (@rows_two) nothing better exists: no remark. Without a
// `threads` clause (@weighted_rows, the kernel of issue 30), the 3 stages
// requested are kept by running fewer instances per CTA. The remarks are
// verified on sm_90 and checked on sm_80.
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90" -verify-diagnostics | FileCheck %s --check-prefix=SM90
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=SM80

// SM90-LABEL: func.func @rows(
// SM90: dynamic_shared_memory_size %c32768_i32
// SM90: nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// SM90-LABEL: func.func @rows_two
// SM90: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// SM90-LABEL: func.func @weighted_rows
// SM90: threads({{.*}}) in (%{{.*}} = %c32, {{.*}} dynamic_shared_memory_size %c196608_i32
// SM90: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// SM80: remark: runs 8 instances per CTA instead of 64 so that its transfers pipeline in 3 stages (3 requested, 2048 bytes per slot) and occupy an SM of 'sm_80' best: 24 threads per SM, in CTAs of 49152 bytes of shared memory, 3 per SM
// SM80: remark: pipelines its transfers in 4 stages at a cost in occupancy on 'sm_80': its CTAs of 32768 bytes of shared memory fit 4 per SM, where `stages 2` would fit 9 (CTAs of 16384 bytes) and keep 73728 bytes of transfers in flight per SM, at least the 16384 that hide the memory latency
// SM80-NOT: stages at a cost
// SM80: remark: pipelines its transfers in 3 stages at a cost in occupancy on 'sm_80': its CTAs of 49152 bytes of shared memory fit 3 per SM, where `stages 2` would fit 4 (CTAs of 32768 bytes) and keep 65536 bytes of transfers in flight per SM, at least the 16384 that hide the memory latency
// SM80-LABEL: func.func @rows(
// SM80: dynamic_shared_memory_size %c32768_i32
// SM80: nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// SM80-LABEL: func.func @rows_two
// SM80: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// SM80-LABEL: func.func @weighted_rows
// SM80: threads({{.*}}) in (%{{.*}} = %c8, {{.*}} dynamic_shared_memory_size %c49152_i32
// SM80: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}

func.func @rows(%in: memref<64x8192xf32>, %out: memref<64x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  // expected-remark @below {{pipelines its transfers in 4 stages at a cost in occupancy on 'sm_90': its CTAs of 32768 bytes of shared memory fit 6 per SM, where `stages 3` would fit 9 (CTAs of 24576 bytes) and keep 147456 bytes of transfers in flight per SM, at least the 32768 that hide the memory latency}}
  vx.spawn on tensor_core grid [64, 4] semantics [parallel, arbitrary] threads 64 stages 4 {
    %tile = vx.scratch smem : memref<2048xf32>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c2048 : index
    %src = memref.subview %in[%p, %col] [1, 2048] [1, 1] : memref<64x8192xf32> to memref<2048xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is pipelined with cp.async, not TMA}}
    %tok = vx.transfer_async %src to %tile : memref<2048xf32, strided<[1], offset: ?>> to memref<2048xf32>
    vx.await %tok
    scf.parallel (%i) = (%c0) to (%c2048) step (%c1) {
      %x = memref.load %tile[%i] : memref<2048xf32>
      %o = memref.load %out[%p, %i] : memref<64x2048xf32>
      %s = arith.addf %o, %x : f32
      memref.store %s, %out[%p, %i] : memref<64x2048xf32>
      scf.reduce
    }
  }
  return
}

func.func @rows_two(%in: memref<64x8192xf32>, %out: memref<64x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  vx.spawn on tensor_core grid [64, 4] semantics [parallel, arbitrary] threads 64 stages 2 {
    %tile = vx.scratch smem : memref<2048xf32>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c2048 : index
    %src = memref.subview %in[%p, %col] [1, 2048] [1, 1] : memref<64x8192xf32> to memref<2048xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is pipelined with cp.async, not TMA}}
    %tok = vx.transfer_async %src to %tile : memref<2048xf32, strided<[1], offset: ?>> to memref<2048xf32>
    vx.await %tok
    scf.parallel (%i) = (%c0) to (%c2048) step (%c1) {
      %x = memref.load %tile[%i] : memref<2048xf32>
      %o = memref.load %out[%p, %i] : memref<64x2048xf32>
      %s = arith.addf %o, %x : f32
      memref.store %s, %out[%p, %i] : memref<64x2048xf32>
      scf.reduce
    }
  }
  return
}

func.func @weighted_rows(%in: memref<70x2048xf32>, %out: memref<70xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  // expected-remark @below {{runs 32 instances per CTA instead of 64 so that its transfers pipeline in 3 stages (3 requested, 2048 bytes per slot) and occupy an SM of 'sm_90' best: 32 threads per SM, in CTAs of 196608 bytes of shared memory, 1 per SM}}
  vx.spawn on tensor_core grid [70, 4] semantics [parallel, arbitrary] stages 3 {
    %tile = vx.scratch smem : memref<512xf32>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c512 : index
    %src = memref.subview %in[%p, %col] [1, 512] [1, 1] : memref<70x2048xf32> to memref<512xf32, strided<[1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<512xf32, strided<[1], offset: ?>> to memref<512xf32>
    vx.await %tok
    %sum = scf.for %c = %c0 to %c512 step %c1 iter_args(%t = %zero) -> f32 {
      %x = memref.load %tile[%c] : memref<512xf32>
      %n = arith.addf %t, %x : f32
      scf.yield %n : f32
    }
    %old = memref.load %out[%p] : memref<70xf32>
    %new = arith.addf %old, %sum : f32
    memref.store %new, %out[%p] : memref<70xf32>
  }
  return
}

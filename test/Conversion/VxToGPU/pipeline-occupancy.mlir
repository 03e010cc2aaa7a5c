// The stages of a CTA with a `threads` clause are capped where more would
// lower occupancy below what the extra buffering buys: the stages, up to
// the requested ones that fit, that keep the most bytes of transfers in
// flight per SM up to the chip's need (32 KiB on sm_90, 16 KiB on sm_80),
// then the most threads per SM up to 512, then the most stages. An 8 KiB
// tile in CTAs of 64 threads: on sm_90, 2 and 3 stages both keep 512
// threads or more per SM and 4 only 384, so 3 of the 4 requested; on
// sm_80, 2 stages keep 576 threads per SM and 3 only 384. The remarks are
// verified on sm_90 and checked on sm_80.
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90" -verify-diagnostics | FileCheck %s --check-prefix=SM90
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=SM80

// SM90: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// SM80: remark: pipelines its transfers in 2 stages instead of 4: 2 keep 73728 bytes of transfers in flight per SM, at least the 16384 that hide the memory latency on 'sm_80', with 576 threads per SM (CTAs of 16384 bytes of shared memory, 9 per SM), where 4 would leave room for 256 (CTAs of 32768 bytes, 4 per SM)
// SM80: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
func.func @rows(%in: memref<64x8192xf32>, %out: memref<64x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  // expected-remark @below {{pipelines its transfers in 3 stages instead of 4: 3 keep 147456 bytes of transfers in flight per SM, at least the 32768 that hide the memory latency on 'sm_90', with 576 threads per SM (CTAs of 24576 bytes of shared memory, 9 per SM), where 4 would leave room for 384 (CTAs of 32768 bytes, 6 per SM)}}
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

// C = A * B with bf16 A and B and an f32 C, written with tile ops (VX_SPEC
// 2.3): one grid instance per 64x64 tile of C on a CTA of 128 threads, the
// K axis in steps of 32 along the arbitrary last grid dimension, its
// transfers pipelined three steps deep. Each step stages A's 64x32 and B's
// 32x64 tiles in shared memory with instance-wide transfers, and a
// linalg.matmul that the whole CTA computes accumulates them into a private
// f32 tile, zeroed by a linalg.fill at the first step and copied to C at
// the last. The fill, the matmul and the copy share one distribution over
// the threads (element i of the tile on thread i mod 128), so each thread
// owns its 32 accumulators (registers, across the steps).
func.func @tile_matmul(%a: memref<128x96xbf16>, %b: memref<96x128xbf16>,
                       %c: memref<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2, 2, 3]
      semantics [parallel, parallel, arbitrary] threads 128 stages 3 {
    %a_tile = vx.scratch smem : memref<64x32xbf16>
    %b_tile = vx.scratch smem : memref<32x64xbf16>
    %acc = vx.scratch : memref<64x64xf32>
    %bm = vx.grid_index 0
    %bn = vx.grid_index 1
    %kb = vx.grid_index 2
    %nk = vx.grid_dim 2
    %m0 = arith.muli %bm, %c64 : index
    %n0 = arith.muli %bn, %c64 : index
    %k0 = arith.muli %kb, %c32 : index
    %a_src = memref.subview %a[%m0, %k0] [64, 32] [1, 1]
        : memref<128x96xbf16> to memref<64x32xbf16, strided<[96, 1], offset: ?>>
    %b_src = memref.subview %b[%k0, %n0] [32, 64] [1, 1]
        : memref<96x128xbf16> to memref<32x64xbf16, strided<[128, 1], offset: ?>>
    %ta = vx.transfer_async %a_src to %a_tile
        : memref<64x32xbf16, strided<[96, 1], offset: ?>> to memref<64x32xbf16>
    %tb = vx.transfer_async %b_src to %b_tile
        : memref<32x64xbf16, strided<[128, 1], offset: ?>> to memref<32x64xbf16>
    %is_first = arith.cmpi eq, %kb, %c0 : index
    scf.if %is_first {
      linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    }
    vx.await %ta
    vx.await %tb
    linalg.matmul ins(%a_tile, %b_tile : memref<64x32xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
    %last = arith.subi %nk, %c1 : index
    %is_last = arith.cmpi eq, %kb, %last : index
    scf.if %is_last {
      %c_tile = memref.subview %c[%m0, %n0] [64, 64] [1, 1]
          : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
      memref.copy %acc, %c_tile
          : memref<64x64xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    }
  }
  return
}

// A bf16 GEMM with f32 accumulation written with tile ops (VX_SPEC 2.3), in
// the design of the expert kernel bench/cuda/wgmma_gemm.cu: C = A B^T with
// A (M x K) and B (N x K) both K-major (the "TN" GEMM of cuBLAS, torch's
// x @ w.T). One grid instance per 128x256 tile of C on a CTA of 256 threads,
// the K axis in steps of 64 along the arbitrary last grid dimension, its
// transfers pipelined four steps deep. Each step stages A's 128x64 and B's
// 256x64 tiles in shared memory with instance-wide transfers (on sm_90a TMA
// copies into 128B-swizzled tiles), and a linalg.matmul whose indexing map
// transposes B accumulates them into a private f32 tile, zeroed by a
// linalg.fill at the first step and stored to C as bf16 at the last (a
// linalg.map of arith.truncf). On sm_90a the matmul is
// wgmma.mma_async.m64n256k16 on two warpgroups of 128 threads (64 rows of C
// each, 128 accumulators per thread in registers across the steps; each
// step's group runs on while the next step waits for its tiles), and each
// thread stores its pairs of columns as bf16x2; on sm_80 ldmatrix +
// mma.sync; elsewhere exact FMA code.
func.func @gemm_bf16(%a: memref<256x512xbf16>, %b: memref<512x512xbf16>,
                     %c: memref<256x512xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2, 2, 8]
      semantics [parallel, parallel, arbitrary] threads 256 stages 4 {
    %a_tile = vx.scratch smem : memref<128x64xbf16>
    %b_tile = vx.scratch smem : memref<256x64xbf16>
    %acc = vx.scratch : memref<128x256xf32>
    %bm = vx.grid_index 0
    %bn = vx.grid_index 1
    %kb = vx.grid_index 2
    %nk = vx.grid_dim 2
    %m0 = arith.muli %bm, %c128 : index
    %n0 = arith.muli %bn, %c256 : index
    %k0 = arith.muli %kb, %c64 : index
    %a_src = memref.subview %a[%m0, %k0] [128, 64] [1, 1]
        : memref<256x512xbf16> to memref<128x64xbf16, strided<[512, 1], offset: ?>>
    %b_src = memref.subview %b[%n0, %k0] [256, 64] [1, 1]
        : memref<512x512xbf16> to memref<256x64xbf16, strided<[512, 1], offset: ?>>
    %ta = vx.transfer_async %a_src to %a_tile
        : memref<128x64xbf16, strided<[512, 1], offset: ?>> to memref<128x64xbf16>
    %tb = vx.transfer_async %b_src to %b_tile
        : memref<256x64xbf16, strided<[512, 1], offset: ?>> to memref<256x64xbf16>
    %is_first = arith.cmpi eq, %kb, %c0 : index
    scf.if %is_first {
      linalg.fill ins(%zero : f32) outs(%acc : memref<128x256xf32>)
    }
    vx.await %ta
    vx.await %tb
    linalg.matmul
        indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                         affine_map<(m, n, k) -> (n, k)>,
                         affine_map<(m, n, k) -> (m, n)>]
        ins(%a_tile, %b_tile : memref<128x64xbf16>, memref<256x64xbf16>)
        outs(%acc : memref<128x256xf32>)
    %last = arith.subi %nk, %c1 : index
    %is_last = arith.cmpi eq, %kb, %last : index
    scf.if %is_last {
      %c_tile = memref.subview %c[%m0, %n0] [128, 256] [1, 1]
          : memref<256x512xbf16> to memref<128x256xbf16, strided<[512, 1], offset: ?>>
      linalg.map { arith.truncf }
          ins(%acc : memref<128x256xf32>)
          outs(%c_tile : memref<128x256xbf16, strided<[512, 1], offset: ?>>)
    }
  }
  return
}

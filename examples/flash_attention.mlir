// Flash attention in bf16 written with tile ops (VX_SPEC 2.3), both
// matmuls on the tensor cores: batch 1, 2 heads, sequence 128, head dim
// 64, one grid instance per (batch, head, block of 64 queries) on a CTA of
// 128 threads (one warpgroup), KV blocks of 64 keys along the arbitrary
// last dimension, the online softmax in base 2. Each step stages the bf16
// Q, K and V tiles in shared memory. S = Q K^T is a linalg.matmul whose
// indexing map transposes K (K-major B) into a private f32 accumulator;
// the row max, exp2, the row sums and P (S converted to bf16) are tile ops
// on private tiles and row vectors, and P V accumulates into the running
// output after rescaling it by a row broadcast. On mma.sync (sm_80) and
// wgmma (sm_90a) all of them stay in the registers of the MMA fragment
// layout, as in FlashAttention-2 and -3: row reductions by quad shuffles,
// P as the register A operand of P V. The scores are scaled inside exp2
// (max(c s) = c max(s) for c > 0). After the last step the output is
// multiplied by 1 / l, one reciprocal per row, as FlashAttention does.
#rows = affine_map<(d0, d1) -> (d0)>
#tile = affine_map<(d0, d1) -> (d0, d1)>
func.func @flash_attention(%q: memref<1x2x128x64xbf16>,
                           %k: memref<1x2x128x64xbf16>,
                           %v: memref<1x2x128x64xbf16>,
                           %o: memref<1x2x128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.180336878 : f32  // log2(e) / sqrt(head dim)
  vx.spawn on tensor_core grid [1, 2, 2, 2]
      semantics [parallel, parallel, parallel, arbitrary] threads 128 {
    %q_tile = vx.scratch smem : memref<64x64xbf16>
    %k_tile = vx.scratch smem : memref<64x64xbf16>
    %v_tile = vx.scratch smem : memref<64x64xbf16>
    %s_acc = vx.scratch : memref<64x64xf32>      // S = Q K^T, then exp2 of it
    %p = vx.scratch : memref<64x64xbf16>         // P, the A of P V
    %acc = vx.scratch : memref<64x64xf32>        // the running output
    %m = vx.scratch : memref<64xf32>             // running row max of S
    %m_new = vx.scratch : memref<64xf32>
    %alpha = vx.scratch : memref<64xf32>         // rescaling of earlier blocks
    %l = vx.scratch : memref<64xf32>             // running row sum
    %l_inv = vx.scratch : memref<64xf32>         // 1 / l, after the last
    %b = vx.grid_index 0
    %h = vx.grid_index 1
    %qb = vx.grid_index 2
    %kvb = vx.grid_index 3
    %nkv = vx.grid_dim 3
    %q0 = arith.muli %qb, %c64 : index
    %kv0 = arith.muli %kvb, %c64 : index
    %q_src = memref.subview %q[%b, %h, %q0, 0] [1, 1, 64, 64] [1, 1, 1, 1]
        : memref<1x2x128x64xbf16>
        to memref<64x64xbf16, strided<[64, 1], offset: ?>>
    %k_src = memref.subview %k[%b, %h, %kv0, 0] [1, 1, 64, 64] [1, 1, 1, 1]
        : memref<1x2x128x64xbf16>
        to memref<64x64xbf16, strided<[64, 1], offset: ?>>
    %v_src = memref.subview %v[%b, %h, %kv0, 0] [1, 1, 64, 64] [1, 1, 1, 1]
        : memref<1x2x128x64xbf16>
        to memref<64x64xbf16, strided<[64, 1], offset: ?>>
    %tq = vx.transfer_async %q_src to %q_tile
        : memref<64x64xbf16, strided<[64, 1], offset: ?>>
        to memref<64x64xbf16>
    %tk = vx.transfer_async %k_src to %k_tile
        : memref<64x64xbf16, strided<[64, 1], offset: ?>>
        to memref<64x64xbf16>
    %tv = vx.transfer_async %v_src to %v_tile
        : memref<64x64xbf16, strided<[64, 1], offset: ?>>
        to memref<64x64xbf16>
    %is_first = arith.cmpi eq, %kvb, %c0 : index
    scf.if %is_first {
      linalg.fill ins(%neg_inf : f32) outs(%m : memref<64xf32>)
      linalg.fill ins(%zero : f32) outs(%l : memref<64xf32>)
      linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    }
    vx.await %tq
    vx.await %tk
    vx.await %tv
    // S = Q K^T on the tensor cores.
    linalg.fill ins(%zero : f32) outs(%s_acc : memref<64x64xf32>)
    linalg.matmul
        indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                         affine_map<(d0, d1, d2) -> (d1, d2)>,
                         affine_map<(d0, d1, d2) -> (d0, d1)>]
        ins(%q_tile, %k_tile : memref<64x64xbf16>, memref<64x64xbf16>)
        outs(%s_acc : memref<64x64xf32>)
    // The new row max, and the factor that rescales the earlier blocks.
    memref.copy %m, %m_new : memref<64xf32> to memref<64xf32>
    linalg.reduce ins(%s_acc : memref<64x64xf32>)
        outs(%m_new : memref<64xf32>) dimensions = [1]
      (%s: f32, %mx: f32) {
        %max = arith.maximumf %s, %mx : f32
        linalg.yield %max : f32
      }
    linalg.map ins(%m, %m_new : memref<64xf32>, memref<64xf32>)
        outs(%alpha : memref<64xf32>)
      (%old: f32, %new: f32, %unused: f32) {
        %delta = arith.subf %old, %new : f32
        %scaled = arith.mulf %delta, %scale : f32
        %factor = math.exp2 %scaled : f32
        linalg.yield %factor : f32
      }
    // exp2 of the scaled S less its scaled row max (c s - c m: one FMA
    // per element, as FlashAttention-2), the running row sums, and P.
    linalg.generic {indexing_maps = [#rows, #tile],
                    iterator_types = ["parallel", "parallel"]}
        ins(%m_new : memref<64xf32>) outs(%s_acc : memref<64x64xf32>) {
      ^bb0(%mx: f32, %s: f32):
        %ss = arith.mulf %s, %scale : f32
        %ms = arith.mulf %mx, %scale : f32
        %scaled = arith.subf %ss, %ms : f32
        %e = math.exp2 %scaled : f32
        linalg.yield %e : f32
    }
    linalg.map ins(%l, %alpha : memref<64xf32>, memref<64xf32>)
        outs(%l : memref<64xf32>)
      (%sum: f32, %factor: f32, %unused: f32) {
        %scaled = arith.mulf %sum, %factor : f32
        linalg.yield %scaled : f32
      }
    linalg.reduce ins(%s_acc : memref<64x64xf32>)
        outs(%l : memref<64xf32>) dimensions = [1]
      (%e: f32, %sum: f32) {
        %n = arith.addf %e, %sum : f32
        linalg.yield %n : f32
      }
    linalg.map ins(%s_acc : memref<64x64xf32>) outs(%p : memref<64x64xbf16>)
      (%e: f32, %unused: bf16) {
        %pe = arith.truncf %e : f32 to bf16
        linalg.yield %pe : bf16
      }
    // The output rescaled to the new max, plus P V on the tensor cores.
    linalg.generic {indexing_maps = [#rows, #tile],
                    iterator_types = ["parallel", "parallel"]}
        ins(%alpha : memref<64xf32>) outs(%acc : memref<64x64xf32>) {
      ^bb0(%factor: f32, %a: f32):
        %scaled = arith.mulf %a, %factor : f32
        linalg.yield %scaled : f32
    }
    linalg.matmul ins(%p, %v_tile : memref<64x64xbf16>, memref<64x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
    memref.copy %m_new, %m : memref<64xf32> to memref<64xf32>
    %last = arith.subi %nkv, %c1 : index
    %is_last = arith.cmpi eq, %kvb, %last : index
    scf.if %is_last {
      %o_tile = memref.subview %o[%b, %h, %q0, 0] [1, 1, 64, 64] [1, 1, 1, 1]
          : memref<1x2x128x64xf32>
          to memref<64x64xf32, strided<[64, 1], offset: ?>>
      // One reciprocal per row, then O times it: a multiply per
      // element instead of an IEEE division.
      linalg.map ins(%l : memref<64xf32>) outs(%l_inv : memref<64xf32>)
        (%sum: f32, %unused: f32) {
          %inverse = arith.divf %one, %sum : f32
          linalg.yield %inverse : f32
        }
      linalg.generic {indexing_maps = [#tile, #rows, #tile],
                      iterator_types = ["parallel", "parallel"]}
          ins(%acc, %l_inv : memref<64x64xf32>, memref<64xf32>)
          outs(%o_tile : memref<64x64xf32, strided<[64, 1], offset: ?>>) {
        ^bb0(%a: f32, %inverse: f32, %out: f32):
          %n = arith.mulf %a, %inverse : f32
          linalg.yield %n : f32
      }
    }
  }
  return
}

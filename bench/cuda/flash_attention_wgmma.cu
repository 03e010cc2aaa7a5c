// Expert FlashAttention-3-style forward pass for sm_90a with inline PTX
// (TMA, mbarriers, wgmma): the computation, layout and limits of
// flash_attention.cu (bf16 [heads][seq][d], d = 64 or 128, fp32
// accumulation, lengths multiples of 64), on Hopper's warpgroup MMA.
//
// The design is FlashAttention-3's (Shah et al. 2024, hopper/
// flash_fwd_kernel.h) reduced to its core:
// - A CTA is one warpgroup (128 threads) owning 64 queries of one head:
//   wgmma's M. Thread 0 issues the TMA loads: Q's tile once, K's and V's
//   into a ring of 2 stages, each stage a "full" mbarrier with the stage's
//   byte count; a stage is refilled once the warpgroup's MMAs on it have
//   retired (a CTA barrier, the warpgroup being the whole CTA).
// - Tiles land 128B-swizzled as blocks of 64 rows x 64 columns (one
//   128-byte swizzle span per row), d / 64 blocks side by side.
// - S = Q K^T: wgmma m64n64k16 with both operands K-major in shared memory
//   (d / 16 of them), 32 fp32 scores per thread.
// - Online softmax on the accumulator fragment (the layout of mma.sync's
//   per 8 columns: each thread two rows, a quad of threads a row): row max
//   by quad shuffles, exp2 with the scale folded in, output rescaled.
// - P stays in registers: the bf16 pairs of the score fragment are the
//   register A operand of O += P V (wgmma m64n{d}k16, A from registers, V
//   MN-major in shared memory: transposed B).
// Not done, where FlashAttention-3 goes further: producer / consumer
// warpgroups with setmaxnreg, two consumer warpgroups ping-ponging softmax
// against the other's MMAs, the intra-warpgroup overlap of the next S with
// this softmax, 128-query tiles, FP8, masks.
#include "ptx.h"

namespace flash_attention_wgmma {

using namespace ptx;

constexpr int kTileQ = 64, kTileKV = 64, kStages = 2, kThreads = 128;
/// A block of 64 rows x 64 bf16 columns: one 128-byte swizzle span a row.
constexpr int kBlockBytes = 64 * 64 * 2;

__host__ __device__ constexpr int tileBytes(int dim) {
  return dim / 64 * kBlockBytes;
}

/// Q's tile, kStages of K's and V's, the mbarriers (Q's and one a stage)
/// and slack to align to the 1024-byte swizzle pattern
/// (bench/cuda/expert.py launches with this much).
constexpr int sharedBytes(int dim) {
  return (1 + 2 * kStages) * tileBytes(dim) + (1 + kStages) * 8 + 1024;
}
static_assert(sharedBytes(64) == 42008 && sharedBytes(128) == 82968,
              "bench/cuda/expert.py: attention_wgmma_shared");

/// The TMA loads of the 64 x dim tile at `row` of `map`, block by block.
template <int dim>
__device__ __forceinline__ void loadTile(uint32_t tile, const void *map,
                                         uint32_t barrier, int row) {
#pragma unroll
  for (int block = 0; block < dim / 64; ++block)
    tmaLoad(tile + block * kBlockBytes, map, barrier, 64 * block, row);
}

/// out (64 x dim fragment) += p (64 x 16, registers) v (16 x dim at `v`,
/// MN-major: eight 128-byte rows of keys 1024 bytes apart, the next 64
/// columns a block on).
template <int dim>
__device__ __forceinline__ void multiplyV(float (&out)[dim / 2],
                                          const uint32_t (&p)[4], uint32_t v) {
  const uint64_t b = descriptor(v, kBlockBytes, 1024);
  if constexpr (dim == 64)
    wgmma64RegisterA(out, p, b);
  else
    wgmma128RegisterA(out, p, b);
}

template <int dim>
__device__ __forceinline__ void
flashAttentionWgmma(const void *mapQ, const void *mapK, const void *mapV,
                    __nv_bfloat16 *__restrict__ o, int seqK, float scale) {
  extern __shared__ uint8_t dynamicShared[];
  constexpr int tile = tileBytes(dim);
  const uint32_t qTile = (sharedAddress(dynamicShared) + 1023) & ~1023u;
  const uint32_t kTiles = qTile + tile, vTiles = kTiles + kStages * tile;
  const uint32_t qFull = vTiles + kStages * tile, full = qFull + 8;
  const int seqQ = gridDim.x * kTileQ, query0 = blockIdx.x * kTileQ;
  const int queryRow = blockIdx.y * seqQ + query0;
  const int keyRow = blockIdx.y * seqK, steps = seqK / kTileKV;

  auto loadStage = [&](int step) {
    const int s = step % kStages;
    barrierExpectBytes(full + 8 * s, 2 * tile);
    loadTile<dim>(kTiles + s * tile, mapK, full + 8 * s,
                  keyRow + step * kTileKV);
    loadTile<dim>(vTiles + s * tile, mapV, full + 8 * s,
                  keyRow + step * kTileKV);
  };
  if (threadIdx.x == 0) {
    barrierInit(qFull, 1);
    for (int s = 0; s < kStages; ++s)
      barrierInit(full + 8 * s, 1);
    barrierInitFence();
    tensorMapFence(mapQ);
    tensorMapFence(mapK);
    tensorMapFence(mapV);
    barrierExpectBytes(qFull, tile);
    loadTile<dim>(qTile, mapQ, qFull, queryRow);
    for (int step = 0; step < kStages && step < steps; ++step)
      loadStage(step);
  }
  __syncthreads();

  // This thread's rows of the 64: 16 warp + lane / 4 and that + 8.
  float out[dim / 2] = {};
  float rowMax[2] = {-INFINITY, -INFINITY}, rowSum[2] = {0.0f, 0.0f};
  const float scaleLog2 = scale * 1.4426950408889634f;
  barrierWait(qFull, 0);
  for (int step = 0; step < steps; ++step) {
    const int s = step % kStages;
    barrierWait(full + 8 * s, (step / kStages) & 1);
    const uint32_t kTile = kTiles + s * tile, vTile = vTiles + s * tile;

    // S = Q K^T; the next 16 of d are 32 bytes on within a block.
    float scores[kTileKV / 2];
#pragma unroll
    for (int i = 0; i < kTileKV / 2; ++i)
      scores[i] = 0.0f;
    wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < dim / 16; ++kk) {
      const uint32_t offset = kk / 4 * kBlockBytes + kk % 4 * 32;
      wgmma64(scores, kMajor(qTile + offset), kMajor(kTile + offset));
    }
    wgmmaCommit();
    wgmmaWaitAll();

    // Online softmax: row r of this thread's two is in scores[4 j + 2 r]
    // and [4 j + 2 r + 1], and in out likewise.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float newMax = rowMax[r];
#pragma unroll
      for (int j = 0; j < kTileKV / 8; ++j)
        newMax = fmaxf(newMax,
                       fmaxf(scores[4 * j + 2 * r], scores[4 * j + 2 * r + 1]));
      newMax = quadMax(newMax);
      const float shift = newMax * scaleLog2;
      const float alpha = exp2Approx(rowMax[r] * scaleLog2 - shift);
      rowMax[r] = newMax;
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kTileKV / 8; ++j)
#pragma unroll
        for (int c = 4 * j + 2 * r; c < 4 * j + 2 * r + 2; ++c) {
          scores[c] = exp2Approx(fmaf(scores[c], scaleLog2, -shift));
          sum += scores[c];
        }
      rowSum[r] = rowSum[r] * alpha + sum;
#pragma unroll
      for (int j = 0; j < dim / 8; ++j) {
        out[4 * j + 2 * r] *= alpha;
        out[4 * j + 2 * r + 1] *= alpha;
      }
    }

    // O += P V: keys 16 kk.. of P are score columns 8 j.., j = 2 kk, 2 kk + 1,
    // in the A fragment's order (row, row + 8) x (columns, columns + 8).
    uint32_t p[kTileKV / 16][4];
#pragma unroll
    for (int kk = 0; kk < kTileKV / 16; ++kk)
#pragma unroll
      for (int i = 0; i < 4; ++i)
        p[kk][i] = packBf16(scores[8 * kk + 2 * i], scores[8 * kk + 2 * i + 1]);
    wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < kTileKV / 16; ++kk)
      multiplyV<dim>(out, p[kk], vTile + kk * 2 * 1024);
    wgmmaCommit();
    wgmmaWaitAll();

    // Every MMA on this stage has retired: refill it.
    __syncthreads();
    if (threadIdx.x == 0 && step + kStages < steps)
      loadStage(step + kStages);
  }

  // O / l in bf16 pairs: row 16 warp + lane / 4 (+ 8), columns
  // 8 j + 2 (lane % 4) (+ 1).
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __nv_bfloat16 *row =
      o + (static_cast<size_t>(queryRow) + 16 * warp + lane / 4) * dim +
      2 * (lane % 4);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float inverse = 1.0f / quadSum(rowSum[r]);
#pragma unroll
    for (int j = 0; j < dim / 8; ++j)
      *reinterpret_cast<uint32_t *>(row + 8 * r * dim + 8 * j) = packBf16(
          out[4 * j + 2 * r] * inverse, out[4 * j + 2 * r + 1] * inverse);
  }
}

extern "C" __global__ void __launch_bounds__(kThreads)
    flashAttentionWgmma64(const void *mapQ, const void *mapK, const void *mapV,
                          __nv_bfloat16 *o, int seqK, float scale) {
  flashAttentionWgmma<64>(mapQ, mapK, mapV, o, seqK, scale);
}

extern "C" __global__ void __launch_bounds__(kThreads)
    flashAttentionWgmma128(const void *mapQ, const void *mapK, const void *mapV,
                           __nv_bfloat16 *o, int seqK, float scale) {
  flashAttentionWgmma<128>(mapQ, mapK, mapV, o, seqK, scale);
}

} // namespace flash_attention_wgmma

// Expert bf16 GEMM for sm_90a with inline PTX: C (M x N, bf16, row-major)
// = A (M x K, bf16, row-major) B^T where B is stored N x K (both operands
// K-major, the "TN" GEMM of cuBLAS and torch's x @ w.T), fp32 accumulation.
//
// The design is that of the warp-specialized TMA + wgmma kernels of CUTLASS
// 3 (KernelTmaWarpSpecialized, sm90 warpgroup GEMM) as the "fast.cu" Hopper
// kernels distil them:
// - A CTA of three warpgroups computes a 128x256 tile of C. Warpgroup 0 is
//   the producer: one thread issues the TMA loads (cp.async.bulk.tensor)
//   of A's 128x64 and B's 256x64 tiles into a ring of 4 stages; warpgroups
//   1 and 2 are the consumers, 64 rows of C each (wgmma m64n256k16, four
//   per 64-wide K step, 128 fp32 accumulators per thread in registers).
// - The tiles land 128B-swizzled (a 64-element bf16 row is one 128-byte
//   swizzle span), which is the layout wgmma's shared-memory descriptors
//   read without bank conflicts: leading byte offset unused (16), stride
//   byte offset 1024 (eight 128-byte rows), the next 16 K 32 bytes on.
// - Per stage a "full" mbarrier (the producer's arrive.expect_tx of the
//   stage's bytes, completed by the TMA) and an "empty" one (every consumer
//   thread arrives once its MMAs of the stage have retired).
// Not done, where CUTLASS goes further: persistent CTAs with a tile
// scheduler, thread-block clusters with TMA multicast, setmaxnreg to move
// registers from the producer to the consumers, and keeping one wgmma
// group in flight across stages (wait_group 1). The tensor maps are read
// from global memory (const CUtensorMap *), not as __grid_constant__
// parameters, so that the PTX simulator runs the kernel as the GPU does.
//
// M must be a multiple of 128, N of 256 and K of 64.
#include "ptx.h"

namespace wgmma_gemm {

using namespace ptx;

constexpr int kTileM = 128, kTileN = 256, kTileK = 64, kStages = 4;
constexpr int kConsumers = 2, kThreads = 128 * (kConsumers + 1);
constexpr int kTileABytes = kTileM * kTileK * 2;
constexpr int kTileBBytes = kTileN * kTileK * 2;
constexpr int kStageBytes = kTileABytes + kTileBBytes;
/// The stages, their 2 x kStages mbarriers, and slack to align the dynamic
/// shared memory to the 1024 bytes of the 128B swizzle pattern
/// (bench/cuda/expert.py launches with this much).
constexpr int kSharedBytes = kStages * kStageBytes + 2 * kStages * 8 + 1024;
static_assert(kSharedBytes == 197696, "bench/cuda/expert.py: GEMM_SHARED");

extern "C" __global__ void __launch_bounds__(kThreads, 1)
    wgmmaGemm(const void *mapA, const void *mapB, __nv_bfloat16 *c, int n,
              int k) {
  extern __shared__ uint8_t dynamicShared[];
  const uint32_t tiles = (sharedAddress(dynamicShared) + 1023) & ~1023u;
  const uint32_t full = tiles + kStages * kStageBytes;
  const uint32_t empty = full + kStages * 8;
  const int warpgroup = threadIdx.x / 128, t = threadIdx.x % 128;
  const int m0 = blockIdx.y * kTileM, n0 = blockIdx.x * kTileN;
  const int steps = k / kTileK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      barrierInit(full + 8 * s, 1);
      barrierInit(empty + 8 * s, 128 * kConsumers);
    }
    barrierInitFence();
  }
  __syncthreads();

  if (warpgroup == 0) {
    if (t != 0)
      return;
    tensorMapFence(mapA);
    tensorMapFence(mapB);
    for (int step = 0; step < steps; ++step) {
      const int s = step % kStages;
      // A stage is refilled once its previous round has been consumed.
      if (step >= kStages)
        barrierWait(empty + 8 * s, (step / kStages - 1) & 1);
      const uint32_t a = tiles + s * kStageBytes, b = a + kTileABytes;
      barrierExpectBytes(full + 8 * s, kStageBytes);
      tmaLoad(a, mapA, full + 8 * s, step * kTileK, m0);
      tmaLoad(b, mapB, full + 8 * s, step * kTileK, n0);
    }
    return;
  }

  // Consumer warpgroup w computes rows 64 (w - 1) .. 64 w - 1 of the tile.
  float d[128];
  for (int i = 0; i < 128; ++i)
    d[i] = 0.0f;
  const uint32_t rows = (warpgroup - 1) * 64 * 128;
  for (int step = 0; step < steps; ++step) {
    const int s = step % kStages;
    barrierWait(full + 8 * s, (step / kStages) & 1);
    const uint32_t a = tiles + s * kStageBytes + rows;
    const uint32_t b = tiles + s * kStageBytes + kTileABytes;
    wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < kTileK / 16; ++kk)
      wgmma256(d, kMajor(a + 32 * kk), kMajor(b + 32 * kk));
    wgmmaCommit();
    wgmmaWaitAll();
    barrierArrive(empty + 8 * s);
  }

  // The accumulator fragment: row 16 warp + lane / 4 (+ 8), columns
  // 8 j + 2 (lane % 4) (+ 1), in registers 4 j (+ 1) and 4 j + 2 (+ 3).
  const int warp = t / 32, lane = t % 32;
  const int row = m0 + (warpgroup - 1) * 64 + 16 * warp + lane / 4;
  __nv_bfloat16 *out = c + static_cast<size_t>(row) * n + n0 + 2 * (lane % 4);
#pragma unroll
  for (int j = 0; j < kTileN / 8; ++j) {
    *reinterpret_cast<__nv_bfloat162 *>(out + 8 * j) =
        __floats2bfloat162_rn(d[4 * j], d[4 * j + 1]);
    *reinterpret_cast<__nv_bfloat162 *>(out + 8 * n + 8 * j) =
        __floats2bfloat162_rn(d[4 * j + 2], d[4 * j + 3]);
  }
}

} // namespace wgmma_gemm

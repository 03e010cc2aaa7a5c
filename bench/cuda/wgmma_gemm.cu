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
#include <cstdint>
#include <cuda_bf16.h>

namespace wgmma_gemm {

constexpr int kTileM = 128, kTileN = 256, kTileK = 64, kStages = 4;
constexpr int kConsumers = 2, kThreads = 128 * (kConsumers + 1);
constexpr int kTileABytes = kTileM * kTileK * 2;
constexpr int kTileBBytes = kTileN * kTileK * 2;
constexpr int kStageBytes = kTileABytes + kTileBBytes;
/// The stages, their 2 x kStages mbarriers, and slack to align the dynamic
/// shared memory to the 1024 bytes of the 128B swizzle pattern.
constexpr int kSharedBytes = kStages * kStageBytes + 2 * kStages * 8 + 1024;

__device__ __forceinline__ uint32_t sharedAddress(const void *pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

__device__ __forceinline__ void barrierInit(uint32_t barrier, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrier),
               "r"(count));
}

__device__ __forceinline__ void barrierExpectBytes(uint32_t barrier,
                                                   int bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier),
      "r"(bytes)
      : "memory");
}

__device__ __forceinline__ void barrierArrive(uint32_t barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(barrier)
               : "memory");
}

/// Spins until the phase of `barrier` with parity `phase` has completed.
__device__ __forceinline__ void barrierWait(uint32_t barrier, int phase) {
  uint32_t done;
  do {
    asm volatile("{\n"
                 ".reg .pred complete;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], "
                 "%2;\n"
                 "selp.u32 %0, 1, 0, complete;\n"
                 "}"
                 : "=r"(done)
                 : "r"(barrier), "r"(phase)
                 : "memory");
  } while (!done);
}

/// One TMA load of the box at (column x, row y) of `map` into `destination`,
/// completing `bytes` of `barrier`'s transaction count.
__device__ __forceinline__ void tmaLoad(uint32_t destination, const void *map,
                                        uint32_t barrier, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
      "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(destination),
      "l"(map), "r"(barrier), "r"(x), "r"(y)
      : "memory");
}

/// The wgmma descriptor of a K-major tile of 64-element (128-byte) rows,
/// 128B-swizzled, at shared address `address` (1024-aligned, plus 32 bytes
/// per 16 K into the span).
__device__ __forceinline__ uint64_t descriptor(uint32_t address) {
  constexpr uint64_t leadingOffset = 16 >> 4, strideOffset = 1024 >> 4;
  constexpr uint64_t swizzle128 = 1;
  return static_cast<uint64_t>((address & 0x3ffff) >> 4) | leadingOffset << 16 |
         strideOffset << 32 | swizzle128 << 62;
}

#define WGMMA_ACC2(i) "+f"(d[i]), "+f"(d[i + 1])
#define WGMMA_ACC8(i)                                                          \
  WGMMA_ACC2(i), WGMMA_ACC2(i + 2), WGMMA_ACC2(i + 4), WGMMA_ACC2(i + 6)
#define WGMMA_ACC32(i)                                                         \
  WGMMA_ACC8(i), WGMMA_ACC8(i + 8), WGMMA_ACC8(i + 16), WGMMA_ACC8(i + 24)

/// d (64 x 256 fragment) += A (64 x 16) B (16 x 256), both from shared
/// memory, K-major (no transpose).
__device__ __forceinline__ void wgmma256(float (&d)[128], uint64_t a,
                                         uint64_t b) {
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
      "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
      "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
      "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
      "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
      "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, "
      "%107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, "
      "%118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
      "%128, %129, 1, 1, 1, 0, 0;"
      : WGMMA_ACC32(0), WGMMA_ACC32(32), WGMMA_ACC32(64), WGMMA_ACC32(96)
      : "l"(a), "l"(b)
      : "memory");
}

#undef WGMMA_ACC32
#undef WGMMA_ACC8
#undef WGMMA_ACC2

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
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (warpgroup == 0) {
    if (t != 0)
      return;
    asm volatile(
        "fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(mapA)
        : "memory");
    asm volatile(
        "fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(mapB)
        : "memory");
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
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < kTileK / 16; ++kk)
      wgmma256(d, descriptor(a + 32 * kk), descriptor(b + 32 * kk));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
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

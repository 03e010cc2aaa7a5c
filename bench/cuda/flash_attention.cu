// Expert FlashAttention-2 forward pass for sm_80 and later with inline PTX
// (ldmatrix, mma.sync m16n8k16, cp.async): O = softmax(Q K^T * scale) V per
// head, bf16 in and out, fp32 accumulation; Q, K, V and O are [heads][seq]
// [d] (torch's (batch, heads, seq, d) contiguous), d = 64 or 128.
//
// The design is FlashAttention-2's forward kernel (Dao 2023,
// flash_fwd_kernel.h with Flash_fwd_kernel_traits<d, 64, 64, 4>):
// - A CTA of 4 warps owns 64 queries of one head (blockIdx.x, blockIdx.y);
//   each warp 16 query rows, so no warp ever needs another's scores.
// - Q's 64 x d tile and K's and V's 64 x d tiles go to shared memory with
//   16-byte cp.async; K and V are double-buffered (the next tile is loaded
//   while this one is used). Rows are XOR-swizzled by 16-byte chunk (chunk
//   ^ row % 8, CUTLASS's Swizzle<3, 3, 3>) so that ldmatrix, which reads
//   eight 16-byte rows at a time, is free of bank conflicts.
// - S = Q K^T with mma.sync m16n8k16 (A = Q by ldmatrix, B = K by ldmatrix:
//   K's rows are B's columns), 16 x 64 scores per warp in 32 registers.
// - Online softmax in the accumulator layout (each thread holds two rows,
//   a quad of threads a whole row): the row max by in-thread max and two
//   xor shuffles, exp2 with the scale folded in (log2 e), the running
//   max and sum, the output rescaled by exp2(old max - new max); the row
//   sum stays per thread until the end.
// - P never leaves registers: two adjacent 16 x 8 accumulator tiles of S,
//   converted to bf16x2, are exactly the A fragment of the next m16n8k16
//   (O += P V, B = V by ldmatrix.trans).
// Not done, where FlashAttention-2 goes further: causal and length masks,
// dropout, 128-query tiles with 8 warps for d = 64, keeping Q in registers.
//
// The query and key lengths must be multiples of 64.
#include "ptx.h"

namespace flash_attention {

using namespace ptx;

constexpr int kTileQ = 64, kTileKV = 64, kWarps = 4, kThreads = 32 * kWarps;

/// The shared memory of the kernel for head dimension `dim`: Q's tile and
/// two buffers of K's and V's.
constexpr int sharedBytes(int dim) { return (kTileQ + 4 * kTileKV) * dim * 2; }

/// The byte offset of 16-byte chunk `chunk` of row `row` in a tile of
/// `dim`-element rows, swizzled.
template <int dim>
__device__ __forceinline__ uint32_t swizzled(int row, int chunk) {
  return row * dim * 2 + ((chunk ^ (row % 8)) * 16);
}

/// Copies a 64 x dim tile (rows of dim elements) into `tile` with
/// 16-byte cp.async, each thread dim / 16 chunks.
template <int dim>
__device__ __forceinline__ void loadTile(uint32_t tile,
                                         const __nv_bfloat16 *source) {
  constexpr int chunksPerRow = dim / 8;
#pragma unroll
  for (int i = threadIdx.x; i < 64 * chunksPerRow; i += kThreads) {
    const int row = i / chunksPerRow, chunk = i % chunksPerRow;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                     tile + swizzled<dim>(row, chunk)),
                 "l"(source + row * dim + chunk * 8)
                 : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int dim>
__device__ __forceinline__ void
flashAttention(const __nv_bfloat16 *__restrict__ q,
               const __nv_bfloat16 *__restrict__ k,
               const __nv_bfloat16 *__restrict__ v,
               __nv_bfloat16 *__restrict__ o, int seqK, float scale) {
  extern __shared__ __align__(128) uint8_t dynamicShared[];
  constexpr int tileBytes = 64 * dim * 2;
  const uint32_t qTile = sharedAddress(dynamicShared);
  const uint32_t kTiles = qTile + tileBytes, vTiles = kTiles + 2 * tileBytes;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const size_t seqQ = gridDim.x * kTileQ;
  const size_t head = blockIdx.y, query0 = blockIdx.x * kTileQ;
  q += (head * seqQ + query0) * dim;
  o += (head * seqQ + query0) * dim;
  k += head * seqK * dim;
  v += head * seqK * dim;

  loadTile<dim>(qTile, q);
  loadTile<dim>(kTiles, k);
  loadTile<dim>(vTiles, v);

  // This thread's rows of the warp's 16: lane / 4 and lane / 4 + 8.
  float out[dim / 8][4] = {};
  float rowMax[2] = {-INFINITY, -INFINITY}, rowSum[2] = {0.0f, 0.0f};
  const float scaleLog2 = scale * 1.4426950408889634f;
  // ldmatrix.x4 rows: A (Q) lane % 16, B (K) lane % 8 + 8 (lane / 16),
  // B transposed (V) lane % 16; chunk offsets lane / 16, lane / 8 % 2 and
  // lane / 16.
  const int qRow = 16 * warp + lane % 16, kRow = lane % 8 + 8 * (lane / 16);
  const int vRow = lane % 16;
  const int steps = seqK / kTileKV;
  for (int step = 0; step < steps; ++step) {
    const int buffer = step % 2;
    // This step's tiles have landed and every warp has finished the last
    // step, so the other buffers are free for the next tiles.
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    if (step + 1 < steps) {
      loadTile<dim>(kTiles + (1 - buffer) * tileBytes,
                    k + (step + 1) * kTileKV * dim);
      loadTile<dim>(vTiles + (1 - buffer) * tileBytes,
                    v + (step + 1) * kTileKV * dim);
    }
    const uint32_t kTile = kTiles + buffer * tileBytes;
    const uint32_t vTile = vTiles + buffer * tileBytes;

    // S = Q K^T: 16 x 64 per warp, 8 accumulator tiles of 16 x 8.
    float s[kTileKV / 8][4] = {};
#pragma unroll
    for (int kk = 0; kk < dim / 16; ++kk) {
      uint32_t a[4];
      ldmatrix4(a, qTile + swizzled<dim>(qRow, 2 * kk + lane / 16));
#pragma unroll
      for (int nn = 0; nn < kTileKV / 16; ++nn) {
        uint32_t b[4];
        ldmatrix4(b,
                  kTile + swizzled<dim>(16 * nn + kRow, 2 * kk + lane / 8 % 2));
        mma(s[2 * nn], a, b[0], b[1]);
        mma(s[2 * nn + 1], a, b[2], b[3]);
      }
    }

    // Online softmax: row r of this thread's two is in s[*][2 r], [2 r + 1].
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float newMax = rowMax[r];
#pragma unroll
      for (int n = 0; n < kTileKV / 8; ++n)
        newMax = fmaxf(newMax, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
      newMax = quadMax(newMax);
      const float shift = newMax * scaleLog2;
      const float alpha = exp2Approx(rowMax[r] * scaleLog2 - shift);
      rowMax[r] = newMax;
      float sum = 0.0f;
#pragma unroll
      for (int n = 0; n < kTileKV / 8; ++n)
#pragma unroll
        for (int c = 2 * r; c < 2 * r + 2; ++c) {
          s[n][c] = exp2Approx(fmaf(s[n][c], scaleLog2, -shift));
          sum += s[n][c];
        }
      rowSum[r] = rowSum[r] * alpha + sum;
#pragma unroll
      for (int n = 0; n < dim / 8; ++n) {
        out[n][2 * r] *= alpha;
        out[n][2 * r + 1] *= alpha;
      }
    }

    // O += P V: P's A fragment for keys 16 kk.. is accumulator tiles 2 kk
    // and 2 kk + 1 in bf16.
#pragma unroll
    for (int kk = 0; kk < kTileKV / 16; ++kk) {
      const uint32_t p[4] = {packBf16(s[2 * kk][0], s[2 * kk][1]),
                             packBf16(s[2 * kk][2], s[2 * kk][3]),
                             packBf16(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                             packBf16(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int nn = 0; nn < dim / 16; ++nn) {
        uint32_t b[4];
        ldmatrix4Transposed(
            b, vTile + swizzled<dim>(16 * kk + vRow, 2 * nn + lane / 16));
        mma(out[2 * nn], p, b[0], b[1]);
        mma(out[2 * nn + 1], p, b[2], b[3]);
      }
    }
  }

  // O / l, in bf16 pairs: row 16 warp + lane / 4 (+ 8), columns
  // 8 n + 2 (lane % 4) (+ 1).
  __nv_bfloat16 *row = o + (16 * warp + lane / 4) * dim + 2 * (lane % 4);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float inverse = 1.0f / quadSum(rowSum[r]);
#pragma unroll
    for (int n = 0; n < dim / 8; ++n)
      *reinterpret_cast<uint32_t *>(row + 8 * r * dim + 8 * n) =
          packBf16(out[n][2 * r] * inverse, out[n][2 * r + 1] * inverse);
  }
}

extern "C" __global__ void __launch_bounds__(kThreads)
    flashAttention64(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                     const __nv_bfloat16 *v, __nv_bfloat16 *o, int seqK,
                     float scale) {
  flashAttention<64>(q, k, v, o, seqK, scale);
}

extern "C" __global__ void __launch_bounds__(kThreads)
    flashAttention128(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                      const __nv_bfloat16 *v, __nv_bfloat16 *o, int seqK,
                      float scale) {
  flashAttention<128>(q, k, v, o, seqK, scale);
}

} // namespace flash_attention

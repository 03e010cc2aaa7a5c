// Expert CUDA flash attention in fp32 (no tensor cores) for the shapes of
// bench/kernels/attention.mlir: one CTA of 64 threads per (query block of
// 64, head, batch) = (blockIdx.x, blockIdx.y, blockIdx.z); thread r owns
// query row r of the block.
//
// - The thread's query row (scaled by log2(e) / sqrt(kDim), so that exp2
//   gives the softmax weights), its kDim output accumulators, running max
//   and denominator live in registers for the whole kernel.
// - Per KV block of 64 keys the CTA stages K and V in shared memory with
//   coalesced float4 loads; every thread then reads the same K and V rows
//   (float4 broadcasts, no bank conflicts).
// - The scores of 16 keys at a time are kept in registers; the online
//   softmax rescales the accumulators once per 16 keys.
#include "../reference/attention.h"

namespace flash_attention {

constexpr int kRows = 64, kKeys = 64, kChunk = 16;

template <int Heads, int Seq, int Dim>
__device__ __forceinline__ void flashAttention(const float *__restrict__ q,
                                               const float *__restrict__ k,
                                               const float *__restrict__ v,
                                               float *__restrict__ o) {
  constexpr float kScale = 1.44269504f * 0.125f; // log2(e) / sqrt(64)
  static_assert(Dim == 64, "kScale is for a head dim of 64");
  constexpr int kTileVectors = kKeys * Dim / 4;
  __shared__ __align__(16) float ks[kKeys][Dim];
  __shared__ __align__(16) float vs[kKeys][Dim];
  const int t = threadIdx.x;
  const size_t head = (size_t(blockIdx.z) * Heads + blockIdx.y) * Seq * Dim;
  const size_t row = size_t(blockIdx.x) * kRows + t;

  float qr[Dim], acc[Dim];
  const float4 *qSrc = reinterpret_cast<const float4 *>(q + head + row * Dim);
#pragma unroll
  for (int d = 0; d < Dim / 4; ++d) {
    const float4 x = qSrc[d];
    qr[4 * d + 0] = x.x * kScale;
    qr[4 * d + 1] = x.y * kScale;
    qr[4 * d + 2] = x.z * kScale;
    qr[4 * d + 3] = x.w * kScale;
  }
#pragma unroll
  for (int d = 0; d < Dim; ++d)
    acc[d] = 0.0f;
  float max = -INFINITY, sum = 0.0f;

  for (int kv0 = 0; kv0 < Seq; kv0 += kKeys) {
    // The previous block's tiles are no longer read.
    __syncthreads();
    const float4 *kSrc =
        reinterpret_cast<const float4 *>(k + head + size_t(kv0) * Dim);
    const float4 *vSrc =
        reinterpret_cast<const float4 *>(v + head + size_t(kv0) * Dim);
    float4 *kDst = reinterpret_cast<float4 *>(&ks[0][0]);
    float4 *vDst = reinterpret_cast<float4 *>(&vs[0][0]);
#pragma unroll 4
    for (int i = t; i < kTileVectors; i += kRows) {
      kDst[i] = kSrc[i];
      vDst[i] = vSrc[i];
    }
    __syncthreads();

    for (int j0 = 0; j0 < kKeys; j0 += kChunk) {
      float scores[kChunk];
      float chunkMax = max;
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        const float4 *key = reinterpret_cast<const float4 *>(&ks[j0 + j][0]);
        float dot = 0.0f;
#pragma unroll
        for (int d = 0; d < Dim / 4; ++d) {
          const float4 y = key[d];
          dot += qr[4 * d + 0] * y.x;
          dot += qr[4 * d + 1] * y.y;
          dot += qr[4 * d + 2] * y.z;
          dot += qr[4 * d + 3] * y.w;
        }
        scores[j] = dot;
        chunkMax = fmaxf(chunkMax, dot);
      }
      const float alpha = exp2f(max - chunkMax);
      max = chunkMax;
      sum *= alpha;
#pragma unroll
      for (int d = 0; d < Dim; ++d)
        acc[d] *= alpha;
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        const float p = exp2f(scores[j] - max);
        sum += p;
        const float4 *value =
            reinterpret_cast<const float4 *>(&vs[j0 + j][0]);
#pragma unroll
        for (int d = 0; d < Dim / 4; ++d) {
          const float4 y = value[d];
          acc[4 * d + 0] += p * y.x;
          acc[4 * d + 1] += p * y.y;
          acc[4 * d + 2] += p * y.z;
          acc[4 * d + 3] += p * y.w;
        }
      }
    }
  }

  const float inverse = 1.0f / sum;
  float4 *out = reinterpret_cast<float4 *>(o + head + row * Dim);
#pragma unroll
  for (int d = 0; d < Dim / 4; ++d)
    out[d] = make_float4(acc[4 * d + 0] * inverse, acc[4 * d + 1] * inverse,
                         acc[4 * d + 2] * inverse, acc[4 * d + 3] * inverse);
}

} // namespace flash_attention

/// Grid (kSeq / 64, kHeads, 1), 64 threads.
extern "C" __global__ void __launch_bounds__(flash_attention::kRows)
attention(const float *__restrict__ q, const float *__restrict__ k,
          const float *__restrict__ v, float *__restrict__ o) {
  using namespace reference::attention;
  using namespace flash_attention;
  static_assert(kSeq % kRows == 0 && kSeq % kKeys == 0, "whole blocks");
  flashAttention<kHeads, kSeq, kDim>(q, k, v, o);
}

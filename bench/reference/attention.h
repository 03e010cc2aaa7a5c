// bench/kernels/attention.mlir: one instance per (head, block of 16
// queries); online softmax over the KV blocks of 16 keys, head dim 32.
#include "common.h"

constexpr int kHeads = 4, kSeq = 256, kDim = 32, kBlock = 16;
constexpr float kScale = 0.176776695f; // 1 / sqrt(kDim)

VX_BENCH_INSTANCE void attentionInstance(int h, int qb,
                                         const float *__restrict__ q,
                                         const float *__restrict__ k,
                                         const float *__restrict__ v,
                                         float *__restrict__ o) {
  const float *qh = q + h * kSeq * kDim, *kh = k + h * kSeq * kDim;
  const float *vh = v + h * kSeq * kDim;
  float m[kBlock], l[kBlock], acc[kBlock][kDim], scores[kBlock];
  for (int r = 0; r < kBlock; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.0f;
    for (int d = 0; d < kDim; ++d)
      acc[r][d] = 0.0f;
  }
  for (int kv0 = 0; kv0 < kSeq; kv0 += kBlock)
    for (int r = 0; r < kBlock; ++r) {
      int qi = qb * kBlock + r;
      for (int c = 0; c < kBlock; ++c) {
        float dot = 0.0f;
        for (int d = 0; d < kDim; ++d)
          dot += qh[qi * kDim + d] * kh[(kv0 + c) * kDim + d];
        scores[c] = dot * kScale;
      }
      float mNew = m[r];
      for (int c = 0; c < kBlock; ++c)
        mNew = fmaxf(mNew, scores[c]);
      float alpha = expf(m[r] - mNew);
      for (int d = 0; d < kDim; ++d)
        acc[r][d] *= alpha;
      float lNew = l[r] * alpha;
      for (int c = 0; c < kBlock; ++c) {
        float p = expf(scores[c] - mNew);
        for (int d = 0; d < kDim; ++d)
          acc[r][d] += p * vh[(kv0 + c) * kDim + d];
        lNew += p;
      }
      m[r] = mNew;
      l[r] = lNew;
    }
  for (int r = 0; r < kBlock; ++r)
    for (int d = 0; d < kDim; ++d)
      o[h * kSeq * kDim + (qb * kBlock + r) * kDim + d] = acc[r][d] / l[r];
}

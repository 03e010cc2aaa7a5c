// bench/kernels/attention.mlir: O = softmax(Q K^T / sqrt(kDim)) V per head
// (batch 1), one query row at a time over the whole sequence: scores, max,
// exponentials and their sum, then the weighted sum of the value rows.
#include "common.h"

namespace reference::attention {

constexpr int kHeads = 4, kSeq = 256, kDim = 64;

inline void row(int h, int i, const float *__restrict__ q,
                const float *__restrict__ k, const float *__restrict__ v,
                float *__restrict__ o) {
  const float scale = 1.0f / std::sqrt(float(kDim));
  const float *qi = q + (h * kSeq + i) * kDim;
  const float *kh = k + h * kSeq * kDim, *vh = v + h * kSeq * kDim;
  float scores[kSeq];
  float max = -INFINITY;
  for (int j = 0; j < kSeq; ++j) {
    float dot = 0.0f;
    for (int d = 0; d < kDim; ++d)
      dot += qi[d] * kh[j * kDim + d];
    scores[j] = dot * scale;
    max = std::fmax(max, scores[j]);
  }
  float sum = 0.0f;
  for (int j = 0; j < kSeq; ++j) {
    scores[j] = std::exp(scores[j] - max);
    sum += scores[j];
  }
  float *out = o + (h * kSeq + i) * kDim;
  for (int d = 0; d < kDim; ++d)
    out[d] = 0.0f;
  for (int j = 0; j < kSeq; ++j)
    for (int d = 0; d < kDim; ++d)
      out[d] += scores[j] * vh[j * kDim + d];
  for (int d = 0; d < kDim; ++d)
    out[d] /= sum;
}

} // namespace reference::attention

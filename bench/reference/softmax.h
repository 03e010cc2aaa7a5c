// bench/kernels/softmax.mlir: the softmax of each row of a kRows x kCols
// matrix, in three passes: max, sum of exponentials, normalization.
#include "common.h"

namespace reference::softmax {

constexpr int kRows = 4096, kCols = 4096;

inline void row(int r, const float *__restrict__ x, float *__restrict__ y) {
  const float *in = x + r * kCols;
  float *out = y + r * kCols;
  float max = -INFINITY;
  for (int c = 0; c < kCols; ++c)
    max = std::fmax(max, in[c]);
  float sum = 0.0f;
  for (int c = 0; c < kCols; ++c)
    sum += std::exp(in[c] - max);
  for (int c = 0; c < kCols; ++c)
    out[c] = std::exp(in[c] - max) / sum;
}

} // namespace reference::softmax

// bench/kernels/softmax.mlir: one instance per row; an online max and
// denominator over the column blocks, then the normalized row.
#include "common.h"

constexpr int kRows = 1024, kCols = 1024, kBlock = 256;

VX_BENCH_INSTANCE void softmaxInstance(int r, const float *__restrict__ x,
                                       float *__restrict__ y) {
  const float *row = x + r * kCols;
  float m = -INFINITY, l = 0.0f;
  for (int c0 = 0; c0 < kCols; c0 += kBlock) {
    float mBlock = m;
    for (int c = 0; c < kBlock; ++c)
      mBlock = fmaxf(mBlock, row[c0 + c]);
    float lNew = l * expf(m - mBlock);
    for (int c = 0; c < kBlock; ++c)
      lNew += expf(row[c0 + c] - mBlock);
    m = mBlock;
    l = lNew;
  }
  for (int c = 0; c < kCols; ++c)
    y[r * kCols + c] = expf(row[c] - m) / l;
}

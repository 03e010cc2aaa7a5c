// CPU reference for bench/kernels/softmax.mlir: per row, an online max and
// denominator over the column blocks, then the normalized row.
#include "harness.h"

#include <cmath>

constexpr int kRows = 1024, kCols = 1024, kBlock = 256;

static void softmax(float *const *args) {
  const float *x = args[0];
  float *y = args[1];
#pragma omp parallel for
  for (int r = 0; r < kRows; ++r) {
    const float *row = x + r * kCols;
    float m = -INFINITY, l = 0.0f;
    for (int c0 = 0; c0 < kCols; c0 += kBlock) {
      float mBlock = m;
      for (int c = 0; c < kBlock; ++c)
        mBlock = std::fmax(mBlock, row[c0 + c]);
      float lNew = l * std::exp(m - mBlock);
      for (int c = 0; c < kBlock; ++c)
        lNew += std::exp(row[c0 + c] - mBlock);
      m = mBlock;
      l = lNew;
    }
    for (int c = 0; c < kCols; ++c)
      y[r * kCols + c] = std::exp(row[c] - m) / l;
  }
}

int main(int argc, char **argv) {
  return runBenchmark(argc, argv, softmax, {kRows * kCols, kRows * kCols});
}

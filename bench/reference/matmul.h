// bench/kernels/matmul.mlir: C = A B for A of kM x kK, B of kK x kN, row
// by row (the i-k-j order, whose inner loop vectorizes).
#include "common.h"

namespace reference::matmul {

constexpr int kM = 256, kN = 256, kK = 256;

inline void row(int i, const float *__restrict__ a, const float *__restrict__ b,
                float *__restrict__ c) {
  float *out = c + i * kN;
  for (int j = 0; j < kN; ++j)
    out[j] = 0.0f;
  for (int k = 0; k < kK; ++k) {
    float x = a[i * kK + k];
    for (int j = 0; j < kN; ++j)
      out[j] += x * b[k * kN + j];
  }
}

} // namespace reference::matmul

// bench/kernels/matmul.mlir: one instance per row and block of 4 columns of
// C, accumulating over K in blocks of 4.
#include "common.h"

constexpr int kN = 256, kJ = 4, kK = 4;

VX_BENCH_INSTANCE void matmulInstance(int i, int jb,
                                      const float *__restrict__ a,
                                      const float *__restrict__ b,
                                      float *__restrict__ c) {
  int j0 = jb * kJ;
  float acc[kJ] = {};
  for (int k0 = 0; k0 < kN; k0 += kK)
    for (int jj = 0; jj < kJ; ++jj)
      for (int kk = 0; kk < kK; ++kk)
        acc[jj] += a[i * kN + k0 + kk] * b[(k0 + kk) * kN + j0 + jj];
  for (int jj = 0; jj < kJ; ++jj)
    c[i * kN + j0 + jj] = acc[jj];
}

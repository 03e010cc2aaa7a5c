// CPU reference for bench/kernels/matmul.mlir: per row and block of 4
// columns of C, an accumulator over K in blocks of 4.
#include "harness.h"

constexpr int kN = 256, kJ = 4, kK = 4;

static void matmul(float *const *args) {
  const float *a = args[0], *b = args[1];
  float *c = args[2];
#pragma omp parallel for collapse(2)
  for (int i = 0; i < kN; ++i)
    for (int jb = 0; jb < kN / kJ; ++jb) {
      int j0 = jb * kJ;
      float acc[kJ] = {};
      for (int k0 = 0; k0 < kN; k0 += kK)
        for (int jj = 0; jj < kJ; ++jj)
          for (int kk = 0; kk < kK; ++kk)
            acc[jj] += a[i * kN + k0 + kk] * b[(k0 + kk) * kN + j0 + jj];
      for (int jj = 0; jj < kJ; ++jj)
        c[i * kN + j0 + jj] = acc[jj];
    }
}

int main(int argc, char **argv) {
  return runBenchmark(argc, argv, matmul, {kN * kN, kN * kN, kN * kN});
}

// CPU reference for bench/kernels/transpose.mlir.
#include "harness.h"

constexpr int kN = 1024;

static void transpose(float *const *args) {
  const float *in = args[0];
  float *out = args[1];
#pragma omp parallel for collapse(2)
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j)
      out[j * kN + i] = in[i * kN + j];
}

int main(int argc, char **argv) {
  return runBenchmark(argc, argv, transpose, {kN * kN, kN * kN});
}

// CPU reference for bench/kernels/vector_add.mlir.
#include "harness.h"

constexpr int kN = 1 << 22;

static void vectorAdd(float *const *args) {
  const float *a = args[0], *b = args[1];
  float *c = args[2];
#pragma omp parallel for
  for (int i = 0; i < kN; ++i)
    c[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  return runBenchmark(argc, argv, vectorAdd, {kN, kN, kN});
}

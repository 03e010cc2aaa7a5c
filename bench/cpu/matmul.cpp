// CPU reference for bench/kernels/matmul.mlir.
#include "../reference/matmul.h"
#include "harness.h"

static void matmul(float *const *args) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < kN; ++i)
    for (int jb = 0; jb < kN / kJ; ++jb)
      matmulInstance(i, jb, args[0], args[1], args[2]);
}

int main(int argc, char **argv) {
  return runBenchmark(argc, argv, matmul, {kN * kN, kN * kN, kN * kN});
}

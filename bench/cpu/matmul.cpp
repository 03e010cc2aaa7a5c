// CPU reference for bench/kernels/matmul.mlir.
#include "../reference/matmul.h"
#include "harness.h"

using namespace reference::matmul;

static void matmul(float *const *args) {
#pragma omp parallel for
  for (int i = 0; i < kM; ++i)
    row(i, args[0], args[1], args[2]);
}

int main(int argc, char **argv) {
  return runBenchmark(argc, argv, matmul, {kM * kK, kK * kN, kM * kN});
}

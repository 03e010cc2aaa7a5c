// CPU reference for bench/kernels/transpose.mlir.
#include "../reference/transpose.h"
#include "harness.h"

using namespace reference::transpose;

static void transpose(float *const *args) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j)
      element(i, j, args[0], args[1]);
}

int main(int argc, char **argv) {
  return runBenchmark(argc, argv, transpose, {kN * kN, kN * kN});
}

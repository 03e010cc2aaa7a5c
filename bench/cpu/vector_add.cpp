// CPU reference for bench/kernels/vector_add.mlir.
#include "../reference/vector_add.h"
#include "harness.h"

using namespace reference::vector_add;

static void vectorAdd(float *const *args) {
#pragma omp parallel for
  for (int i = 0; i < kN; ++i)
    element(i, args[0], args[1], args[2]);
}

int main(int argc, char **argv) {
  return runBenchmark(argc, argv, vectorAdd, {kN, kN, kN});
}

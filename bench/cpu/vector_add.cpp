// CPU reference for bench/kernels/vector_add.mlir.
#include "../reference/vector_add.h"
#include "harness.h"

static void vectorAdd(float *const *args) {
#pragma omp parallel for
  for (int i = 0; i < kN; ++i)
    vectorAddInstance(i, args[0], args[1], args[2]);
}

int main(int argc, char **argv) {
  return runBenchmark(argc, argv, vectorAdd, {kN, kN, kN});
}

// CPU reference for bench/kernels/softmax.mlir.
#include "../reference/softmax.h"
#include "harness.h"

using namespace reference::softmax;

static void softmax(float *const *args) {
#pragma omp parallel for
  for (int r = 0; r < kRows; ++r)
    row(r, args[0], args[1]);
}

int main(int argc, char **argv) {
  return runBenchmark(argc, argv, softmax, {kRows * kCols, kRows * kCols});
}

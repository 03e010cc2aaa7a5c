// CPU reference for bench/kernels/attention.mlir.
#include "../reference/attention.h"
#include "harness.h"

using namespace reference::attention;

static void attention(float *const *args) {
#pragma omp parallel for collapse(2)
  for (int h = 0; h < kHeads; ++h)
    for (int i = 0; i < kSeq; ++i)
      row(h, i, args[0], args[1], args[2], args[3]);
}

int main(int argc, char **argv) {
  constexpr int kSize = kHeads * kSeq * kDim;
  return runBenchmark(argc, argv, attention, {kSize, kSize, kSize, kSize});
}

// CPU reference for bench/kernels/attention.mlir.
#include "../reference/attention.h"
#include "harness.h"

static void attention(float *const *args) {
#pragma omp parallel for collapse(2)
  for (int h = 0; h < kHeads; ++h)
    for (int qb = 0; qb < kSeq / kBlock; ++qb)
      attentionInstance(h, qb, args[0], args[1], args[2], args[3]);
}

int main(int argc, char **argv) {
  constexpr int kSize = kHeads * kSeq * kDim;
  return runBenchmark(argc, argv, attention, {kSize, kSize, kSize, kSize});
}

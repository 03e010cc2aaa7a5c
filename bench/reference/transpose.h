// bench/kernels/transpose.mlir: one instance per element.
#include "common.h"

constexpr int kN = 1024;

VX_BENCH_INSTANCE void transposeInstance(int i, int j,
                                         const float *__restrict__ in,
                                         float *__restrict__ out) {
  out[j * kN + i] = in[i * kN + j];
}

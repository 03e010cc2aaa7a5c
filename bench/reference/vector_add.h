// bench/kernels/vector_add.mlir: one instance per element.
#include "common.h"

constexpr int kN = 1 << 22;

VX_BENCH_INSTANCE void vectorAddInstance(int i, const float *__restrict__ a,
                                         const float *__restrict__ b,
                                         float *__restrict__ c) {
  c[i] = a[i] + b[i];
}

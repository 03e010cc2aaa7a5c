// CUDA reference for bench/kernels/vector_add.mlir: one thread per element.
#include "../reference/vector_add.h"

extern "C" __global__ void __launch_bounds__(256)
vector_add(const float *__restrict__ a, const float *__restrict__ b,
           float *__restrict__ c) {
  using reference::vector_add::kN;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN)
    c[i] = a[i] + b[i];
}

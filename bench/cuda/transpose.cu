// CUDA reference for bench/kernels/transpose.mlir: rows on blockIdx.x,
// columns across the threads of blockIdx.y (the vx mapping).
#include "../reference/transpose.h"

extern "C" __global__ void __launch_bounds__(256)
transpose(const float *__restrict__ in, float *__restrict__ out) {
  using reference::transpose::kN;
  int i = blockIdx.x, j = blockIdx.y * blockDim.x + threadIdx.x;
  if (j < kN)
    out[j * kN + i] = in[i * kN + j];
}

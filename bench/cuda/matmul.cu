// CUDA reference for bench/kernels/matmul.mlir: rows on blockIdx.x, column
// blocks across the threads of blockIdx.y (the vx mapping).
#include "../reference/matmul.h"

extern "C" __global__ void __launch_bounds__(256)
matmul(const float *__restrict__ a, const float *__restrict__ b,
       float *__restrict__ c) {
  int jb = blockIdx.y * blockDim.x + threadIdx.x;
  if (jb < kN / kJ)
    matmulInstance(blockIdx.x, jb, a, b, c);
}

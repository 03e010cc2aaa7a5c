// CUDA reference for bench/kernels/softmax.mlir: one thread per row.
#include "../reference/softmax.h"

extern "C" __global__ void __launch_bounds__(256)
softmax(const float *__restrict__ x, float *__restrict__ y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < kRows)
    softmaxInstance(r, x, y);
}

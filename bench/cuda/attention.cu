// CUDA reference for bench/kernels/attention.mlir: heads on blockIdx.y,
// query blocks across the threads of blockIdx.z (the vx mapping).
#include "../reference/attention.h"

extern "C" __global__ void __launch_bounds__(256)
attention(const float *__restrict__ q, const float *__restrict__ k,
          const float *__restrict__ v, float *__restrict__ o) {
  int qb = blockIdx.z * blockDim.x + threadIdx.x;
  if (qb < kSeq / kBlock)
    attentionInstance(blockIdx.y, qb, q, k, v, o);
}

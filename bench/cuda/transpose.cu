// Reference for bench/kernels/transpose.mlir: one thread per element, rows on
// blockIdx.x, columns across the threads of blockIdx.y (the vx mapping).
constexpr int kN = 1024;

extern "C" __global__ void __launch_bounds__(256)
transpose(const float *__restrict__ in, float *__restrict__ out) {
  int i = blockIdx.x;
  int j = blockIdx.y * blockDim.x + threadIdx.x;
  if (j < kN)
    out[j * kN + i] = in[i * kN + j];
}

// Reference for bench/kernels/matmul.mlir: one thread per row and block of 4
// columns of C, accumulating over K in blocks of 4.
constexpr int kN = 256, kJ = 4, kK = 4;

extern "C" __global__ void __launch_bounds__(256)
matmul(const float *__restrict__ a, const float *__restrict__ b,
       float *__restrict__ c) {
  int i = blockIdx.x;
  int jb = blockIdx.y * blockDim.x + threadIdx.x;
  if (jb >= kN / kJ)
    return;
  int j0 = jb * kJ;
  float acc[kJ] = {};
  for (int k0 = 0; k0 < kN; k0 += kK)
    for (int jj = 0; jj < kJ; ++jj)
      for (int kk = 0; kk < kK; ++kk)
        acc[jj] += a[i * kN + k0 + kk] * b[(k0 + kk) * kN + j0 + jj];
  for (int jj = 0; jj < kJ; ++jj)
    c[i * kN + j0 + jj] = acc[jj];
}

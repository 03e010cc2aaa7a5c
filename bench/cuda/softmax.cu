// Reference for bench/kernels/softmax.mlir: one thread per row; an online
// max and denominator over the column blocks, then the normalized row.
constexpr int kRows = 1024, kCols = 1024, kBlock = 256;

extern "C" __global__ void __launch_bounds__(256)
softmax(const float *__restrict__ x, float *__restrict__ y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= kRows)
    return;
  const float *row = x + r * kCols;
  float m = -INFINITY, l = 0.0f;
  for (int c0 = 0; c0 < kCols; c0 += kBlock) {
    float m_block = m;
    for (int c = 0; c < kBlock; ++c)
      m_block = fmaxf(m_block, row[c0 + c]);
    float l_new = l * expf(m - m_block);
    for (int c = 0; c < kBlock; ++c)
      l_new += expf(row[c0 + c] - m_block);
    m = m_block;
    l = l_new;
  }
  for (int c = 0; c < kCols; ++c)
    y[r * kCols + c] = expf(row[c] - m) / l;
}

// Expert CUDA for bench/kernels/transpose_smem.mlir: out = in^T through a
// 32x32 tile in shared memory, one CTA of 32x8 threads per tile (the
// classic kernel of the CUDA samples' transpose): each thread copies four
// rows, reads of `in` and writes of `out` coalesced along rows, and the
// tile's rows padded to 33 floats so that reading it down a column puts
// the 32 lanes of a warp in 32 banks.
#include "../reference/transpose.h"

namespace {
constexpr int kTile = 32, kRows = 8;
} // namespace

extern "C" __global__ void __launch_bounds__(kTile * kRows)
transpose_smem(const float *__restrict__ in, float *__restrict__ out) {
  using reference::transpose::kN;
  __shared__ float tile[kTile][kTile + 1];
  const int i0 = blockIdx.x * kTile, j0 = blockIdx.y * kTile;
  const int tx = threadIdx.x % kTile, ty = threadIdx.x / kTile;
  for (int r = ty; r < kTile; r += kRows)
    tile[r][tx] = in[(i0 + r) * kN + j0 + tx];
  __syncthreads();
  for (int r = ty; r < kTile; r += kRows)
    out[(j0 + r) * kN + i0 + tx] = tile[tx][r];
}

// Expert CUDA SGEMM for the shapes of bench/kernels/matmul.mlir: C = A B,
// row-major, one CTA of 256 threads per 128x128 tile of C (blockIdx.x along
// N, blockIdx.y along M), K in steps of 8.
//
// - Global loads are float4: each thread loads one float4 of A's 128x8 tile
//   (half a row) and one of B's 8x128 tile (a warp reads a row of B whole).
// - A's tile is stored transposed in shared memory (As[k][m]) so that a
//   thread reads its A values as float4 along m, like its B values along n.
// - Double buffering: the next step's tiles are loaded into registers while
//   the current ones are multiplied, then stored to the other buffer; one
//   barrier per step (a buffer is written only after every thread has passed
//   the barrier that ends its last reads).
// - Each thread accumulates an 8x8 block in registers: rows 4 ty .. 4 ty + 3
//   and 64 + 4 ty .. 64 + 4 ty + 3, columns likewise with tx, so that the
//   float4 shared-memory reads of a quarter warp cover 128 contiguous bytes
//   (no bank conflicts) and the float4 stores of C are contiguous.
#include "../reference/matmul.h"

namespace sgemm {

constexpr int kTileM = 128, kTileN = 128, kTileK = 8, kThreads = 256;

template <int N, int K>
__device__ __forceinline__ void sgemmTile(const float *__restrict__ a,
                                          const float *__restrict__ b,
                                          float *__restrict__ c) {
  __shared__ __align__(16) float as[2][kTileK][kTileM];
  __shared__ __align__(16) float bs[2][kTileK][kTileN];
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const int m0 = blockIdx.y * kTileM, n0 = blockIdx.x * kTileN;
  // This thread's float4 of each global tile.
  const int aRow = t / 2, aCol = (t % 2) * 4;
  const int bRow = t / 32, bCol = (t % 32) * 4;
  const float *aSrc = a + (m0 + aRow) * K + aCol;
  const float *bSrc = b + bRow * N + n0 + bCol;

  float4 aNext = *reinterpret_cast<const float4 *>(aSrc);
  float4 bNext = *reinterpret_cast<const float4 *>(bSrc);
  auto stage = [&](int buffer) {
    as[buffer][aCol + 0][aRow] = aNext.x;
    as[buffer][aCol + 1][aRow] = aNext.y;
    as[buffer][aCol + 2][aRow] = aNext.z;
    as[buffer][aCol + 3][aRow] = aNext.w;
    *reinterpret_cast<float4 *>(&bs[buffer][bRow][bCol]) = bNext;
  };
  stage(0);
  __syncthreads();

  float acc[8][8] = {};
  for (int k0 = 0; k0 < K; k0 += kTileK) {
    const int current = (k0 / kTileK) % 2;
    const bool more = k0 + kTileK < K;
    if (more) {
      aNext = *reinterpret_cast<const float4 *>(aSrc + k0 + kTileK);
      bNext = *reinterpret_cast<const float4 *>(bSrc + (k0 + kTileK) * N);
    }
#pragma unroll
    for (int kk = 0; kk < kTileK; ++kk) {
      const float4 a0 =
          *reinterpret_cast<const float4 *>(&as[current][kk][ty * 4]);
      const float4 a1 =
          *reinterpret_cast<const float4 *>(&as[current][kk][64 + ty * 4]);
      const float4 b0 =
          *reinterpret_cast<const float4 *>(&bs[current][kk][tx * 4]);
      const float4 b1 =
          *reinterpret_cast<const float4 *>(&bs[current][kk][64 + tx * 4]);
      const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[i][j] += av[i] * bv[j];
    }
    if (more) {
      stage(current ^ 1);
      __syncthreads();
    }
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
    float *out = c + row * N + n0;
    *reinterpret_cast<float4 *>(out + tx * 4) =
        make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4 *>(out + 64 + tx * 4) =
        make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

} // namespace sgemm

/// Grid (kN / 128, kM / 128), 256 threads.
extern "C" __global__ void __launch_bounds__(sgemm::kThreads)
matmul(const float *__restrict__ a, const float *__restrict__ b,
       float *__restrict__ c) {
  using namespace reference::matmul;
  using namespace sgemm;
  static_assert(kM % kTileM == 0 && kN % kTileN == 0 && kK % kTileK == 0,
                "the tiles divide the matrices");
  sgemmTile<kN, kK>(a, b, c);
}

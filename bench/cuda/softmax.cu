// Expert CUDA row softmax for the shapes of bench/kernels/softmax.mlir: one
// CTA of 256 threads per row (blockIdx.x). Each thread loads its float4s of
// the row once (float4 i of the row on thread i mod 256: coalesced 128-bit
// loads) and keeps them in registers; the max and the sum are reduced with
// warp shuffles and one shared-memory exchange between the warps, which
// every warp finishes itself (no second barrier); the exponentials are
// exp2 of a fused multiply-add with log2(e) folded in.
#include "../reference/softmax.h"

namespace row_softmax {

constexpr int kThreads = 256, kWarps = kThreads / 32;

struct Max {
  __device__ __forceinline__ float operator()(float x, float y) const {
    return fmaxf(x, y);
  }
};
struct Sum {
  __device__ __forceinline__ float operator()(float x, float y) const {
    return x + y;
  }
};

/// The reduction of `value` over the CTA, returned to every thread;
/// `partials` holds one value per warp and is not reused by another call.
template <typename Op>
__device__ __forceinline__ float ctaAllReduce(float value, float *partials,
                                              Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  const int lane = threadIdx.x % 32;
  if (lane == 0)
    partials[threadIdx.x / 32] = value;
  __syncthreads();
  // Each group of kWarps lanes holds every warp's partial.
  value = partials[lane % kWarps];
#pragma unroll
  for (int offset = kWarps / 2; offset > 0; offset /= 2)
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

template <int Cols>
__device__ __forceinline__ void softmaxRow(const float *__restrict__ x,
                                           float *__restrict__ y) {
  constexpr int kVectors = Cols / 4 / kThreads;
  constexpr float kLog2e = 1.44269504f;
  __shared__ float maxPartials[kWarps], sumPartials[kWarps];
  const size_t row = blockIdx.x;
  const float4 *in = reinterpret_cast<const float4 *>(x + row * Cols);
  float4 *out = reinterpret_cast<float4 *>(y + row * Cols);

  float4 v[kVectors];
  float max = -INFINITY;
#pragma unroll
  for (int i = 0; i < kVectors; ++i) {
    v[i] = in[i * kThreads + threadIdx.x];
    max = fmaxf(max, fmaxf(fmaxf(v[i].x, v[i].y), fmaxf(v[i].z, v[i].w)));
  }
  max = ctaAllReduce(max, maxPartials, Max());

  const float shift = max * kLog2e;
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < kVectors; ++i) {
    v[i].x = exp2f(v[i].x * kLog2e - shift);
    v[i].y = exp2f(v[i].y * kLog2e - shift);
    v[i].z = exp2f(v[i].z * kLog2e - shift);
    v[i].w = exp2f(v[i].w * kLog2e - shift);
    sum += (v[i].x + v[i].y) + (v[i].z + v[i].w);
  }
  sum = ctaAllReduce(sum, sumPartials, Sum());

  const float inverse = 1.0f / sum;
#pragma unroll
  for (int i = 0; i < kVectors; ++i)
    out[i * kThreads + threadIdx.x] =
        make_float4(v[i].x * inverse, v[i].y * inverse, v[i].z * inverse,
                    v[i].w * inverse);
}

} // namespace row_softmax

/// Grid (rows), 256 threads: one CTA per row of kCols columns.
extern "C" __global__ void __launch_bounds__(row_softmax::kThreads)
softmax(const float *__restrict__ x, float *__restrict__ y) {
  using reference::softmax::kCols;
  using namespace row_softmax;
  static_assert(kCols % (4 * kThreads) == 0, "whole float4s per thread");
  softmaxRow<kCols>(x, y);
}

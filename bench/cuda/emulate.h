// A CPU emulation of the CUDA features that the kernels of bench/cuda use,
// so that check.cu built by a C++ compiler (C++20) runs them where there is
// no GPU and their results can be checked. Each thread of a CTA is a
// std::thread; the CTAs of a launch run one after another, so a __shared__
// variable is a function-local static; __syncthreads is a barrier of the
// CTA's threads; a warp shuffle exchanges values through a per-warp buffer
// between two barriers of the warp's threads. It checks what the kernels
// compute, not how fast: nothing here models the GPU's timing.
#ifndef VX_BENCH_CUDA_EMULATE_H
#define VX_BENCH_CUDA_EMULATE_H

#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(bytes) __attribute__((aligned(bytes)))
#define __shared__ static

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1)
      : x(x), y(y), z(z) {}
};

struct alignas(16) float4 {
  float x, y, z, w;
};

inline float4 make_float4(float x, float y, float z, float w) {
  return {x, y, z, w};
}

inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

namespace emulate {

/// The synchronization state of the CTA that is running.
struct CTA {
  explicit CTA(unsigned threads) : all(threads), exchange(threads) {
    for (unsigned first = 0; first < threads; first += 32)
      warps.push_back(
          std::make_unique<std::barrier<>>(std::min(32u, threads - first)));
  }
  std::barrier<> all;
  std::vector<std::unique_ptr<std::barrier<>>> warps;
  std::vector<uint32_t> exchange;
};

inline CTA *cta;

inline unsigned linearThread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

/// Runs `kernel(args...)` on every thread of every CTA of `grid`.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, Args... args) {
  const unsigned threads = block.x * block.y * block.z;
  blockDim = block;
  gridDim = grid;
  CTA state(threads);
  cta = &state;
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      threadIdx =
          dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
      for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
          for (unsigned x = 0; x < grid.x; ++x) {
            blockIdx = dim3(x, y, z);
            kernel(args...);
            // The next CTA reuses the shared variables.
            state.all.arrive_and_wait();
          }
    });
  for (std::thread &worker : workers)
    worker.join();
  cta = nullptr;
}

} // namespace emulate

inline void __syncthreads() { emulate::cta->all.arrive_and_wait(); }

/// The value of lane (this lane ^ laneMask) of the warp; every lane of the
/// warp takes part, as with a full mask.
template <typename T> T __shfl_xor_sync(unsigned, T value, int laneMask) {
  static_assert(sizeof(T) == sizeof(uint32_t), "32-bit shuffles");
  const unsigned t = emulate::linearThread();
  emulate::CTA &state = *emulate::cta;
  std::barrier<> &warp = *state.warps[t / 32];
  std::memcpy(&state.exchange[t], &value, sizeof(T));
  warp.arrive_and_wait();
  T other;
  std::memcpy(&other, &state.exchange[(t / 32) * 32 + (t % 32 ^ laneMask)],
              sizeof(T));
  // Nobody writes the buffer again before every lane has read it.
  warp.arrive_and_wait();
  return other;
}

#endif // VX_BENCH_CUDA_EMULATE_H

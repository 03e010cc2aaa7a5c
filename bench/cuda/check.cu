// Checks the expert CUDA kernels of bench/cuda (matmul, softmax, attention)
// against the C++ references of bench/reference, at the benchmark's sizes.
//
//   nvcc -O3 -arch=sm_90 bench/cuda/check.cu -o check && ./check
//     runs the kernels on the GPU (and prints the best time of 10 launches);
//     without a CUDA device it computes the references, says that the
//     kernels were not run and exits with 2.
//   clang++ -std=c++20 -O2 -pthread -x c++ -include bench/cuda/emulate.h \
//       bench/cuda/check.cu -o check-emulated && ./check-emulated
//     runs the same kernels on the CPU (emulate.h: each CTA's threads as
//     std::threads), which checks what they compute where there is no GPU.
//
// Prints one line per kernel with the largest error against the reference;
// exits with 1 when a kernel's error exceeds its tolerance.
#include "attention.cu"
#include "matmul.cu"
#include "softmax.cu"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

/// Values in [-scale / 2, scale / 2): the pattern of bench/cpu/harness.h,
/// scaled.
std::vector<float> input(size_t size, int seed, float scale) {
  std::vector<float> values(size);
  for (size_t n = 0; n < size; ++n)
    values[n] = (float((n * 7 + seed * 13) % 17) / 17.0f - 0.5f) * scale;
  return values;
}

#ifdef __CUDACC__
bool hasDevice() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

void require(cudaError_t status, const char *what) {
  if (status == cudaSuccess)
    return;
  std::fprintf(stderr, "check: %s: %s\n", what, cudaGetErrorString(status));
  std::exit(1);
}

/// Copies the arguments to the GPU, launches `kernel` once to check and ten
/// times to time, and copies the last argument (the output) back. Returns
/// the best time of a launch in milliseconds.
template <typename... Params>
float run(void (*kernel)(Params...), dim3 grid, dim3 block,
          std::vector<std::vector<float>> &args) {
  std::vector<float *> device(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    require(cudaMalloc(&device[i], args[i].size() * sizeof(float)),
            "cudaMalloc");
    require(cudaMemcpy(device[i], args[i].data(),
                       args[i].size() * sizeof(float), cudaMemcpyHostToDevice),
            "cudaMemcpy to the device");
  }
  auto launch = [&] {
    if constexpr (sizeof...(Params) == 2)
      kernel<<<grid, block>>>(device[0], device[1]);
    else if constexpr (sizeof...(Params) == 3)
      kernel<<<grid, block>>>(device[0], device[1], device[2]);
    else
      kernel<<<grid, block>>>(device[0], device[1], device[2], device[3]);
  };
  launch();
  require(cudaGetLastError(), "launch");
  require(cudaDeviceSynchronize(), "kernel");
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float best = 1e30f;
  for (int repeat = 0; repeat < 10; ++repeat) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    require(cudaEventSynchronize(stop), "timed kernel");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    best = std::min(best, ms);
  }
  std::vector<float> &out = args.back();
  require(cudaMemcpy(out.data(), device.back(), out.size() * sizeof(float),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy to the host");
  for (float *buffer : device)
    cudaFree(buffer);
  return best;
}
#else
bool hasDevice() { return true; }

/// Runs `kernel` once on the emulator, in place on the host arguments.
/// Returns no time (0).
template <typename... Params>
float run(void (*kernel)(Params...), dim3 grid, dim3 block,
          std::vector<std::vector<float>> &args) {
  if constexpr (sizeof...(Params) == 2)
    emulate::launch(kernel, grid, block, args[0].data(), args[1].data());
  else if constexpr (sizeof...(Params) == 3)
    emulate::launch(kernel, grid, block, args[0].data(), args[1].data(),
                    args[2].data());
  else
    emulate::launch(kernel, grid, block, args[0].data(), args[1].data(),
                    args[2].data(), args[3].data());
  return 0;
}
#endif

/// Compares `got` with `want` entry by entry (|got - want| <= atol + rtol
/// |want|, NaN failing) and prints one line; returns whether all agree.
bool compare(const char *kernel, const std::vector<float> &got,
             const std::vector<float> &want, float rtol, float atol,
             float milliseconds, bool ran) {
  double worst = 0, checksum = 0;
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    checksum += want[i];
    double error = std::fabs(double(got[i]) - want[i]);
    if (!(error <= atol + rtol * std::fabs(want[i])))
      ++bad;
    if (!(error <= worst))
      worst = error;
  }
  if (!ran) {
    std::printf("%s: reference checksum %.6g; kernel not run\n", kernel,
                checksum);
    return true;
  }
  std::printf("%s: max |error| %.3g, %zu of %zu outside tolerance", kernel,
              worst, bad, want.size());
  if (milliseconds > 0)
    std::printf(", best %.4f ms", milliseconds);
  std::printf("\n");
  return bad == 0;
}

bool checkMatmul(bool ran) {
  using namespace reference::matmul;
  std::vector<std::vector<float>> args = {
      input(kM * kK, 0, 1.0f), input(kK * kN, 1, 1.0f),
      std::vector<float>(kM * kN, NAN)};
  std::vector<float> want(kM * kN);
  for (int i = 0; i < kM; ++i)
    row(i, args[0].data(), args[1].data(), want.data());
  float ms = ran ? run(matmul, dim3(kN / 128, kM / 128), dim3(256), args) : 0;
  return compare("matmul", args[2], want, 1e-4f, 1e-4f, ms, ran);
}

bool checkSoftmax(bool ran) {
  using namespace reference::softmax;
#ifdef __CUDACC__
  constexpr int kCheckedRows = kRows;
#else
  // The emulator runs a CTA's warp shuffles slowly: the first rows (the
  // kernel's work per CTA is the same for every row).
  constexpr int kCheckedRows = 16;
#endif
  constexpr size_t kSize = size_t(kCheckedRows) * kCols;
  // A range of 200: exp without the max subtracted would overflow.
  std::vector<std::vector<float>> args = {input(kSize, 0, 200.0f),
                                          std::vector<float>(kSize, NAN)};
  std::vector<float> want(kSize);
  for (int r = 0; r < kCheckedRows; ++r)
    row(r, args[0].data(), want.data());
  float ms = ran ? run(softmax, dim3(kCheckedRows), dim3(256), args) : 0;
  return compare("softmax", args[1], want, 1e-4f, 1e-12f, ms, ran);
}

bool checkAttention(bool ran) {
  using namespace reference::attention;
  constexpr int kSize = kHeads * kSeq * kDim;
  // Scores up to about 30 apart: the online rescaling matters.
  std::vector<std::vector<float>> args = {
      input(kSize, 0, 4.0f), input(kSize, 1, 4.0f), input(kSize, 2, 4.0f),
      std::vector<float>(kSize, NAN)};
  std::vector<float> want(kSize);
  for (int h = 0; h < kHeads; ++h)
    for (int i = 0; i < kSeq; ++i)
      row(h, i, args[0].data(), args[1].data(), args[2].data(), want.data());
  float ms =
      ran ? run(attention, dim3(kSeq / 64, kHeads, 1), dim3(64), args) : 0;
  return compare("attention", args[3], want, 1e-4f, 1e-5f, ms, ran);
}

} // namespace

int main() {
  const bool ran = hasDevice();
  bool ok = checkMatmul(ran);
  ok &= checkSoftmax(ran);
  ok &= checkAttention(ran);
  if (!ran) {
    std::printf("no CUDA device: the kernels were not run\n");
    return 2;
  }
  return ok ? 0 : 1;
}

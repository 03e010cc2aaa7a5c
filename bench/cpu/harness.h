// The timing harness of the CPU references: fills each argument with the
// values bench/bench.py's MLIR driver uses, runs the kernel once to warm up
// and then `repeats` times, and prints the best and mean seconds per run, the
// best processor seconds (std::clock) per run and the sum of the last
// argument (the output), one number per line.
#ifndef VX_BENCH_CPU_HARNESS_H
#define VX_BENCH_CPU_HARNESS_H

#include <omp.h>

#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <initializer_list>
#include <vector>

using Kernel = void (*)(float *const *args);

inline int runBenchmark(int argc, char **argv, Kernel kernel,
                        std::initializer_list<size_t> argSizes) {
  int repeats = argc > 1 ? std::atoi(argv[1]) : 10;
  std::vector<std::vector<float>> storage;
  std::vector<float *> args;
  size_t argIndex = 0;
  for (size_t size : argSizes) {
    std::vector<float> values(size);
    for (size_t n = 0; n < size; ++n)
      values[n] = float((n * 7 + argIndex * 13) % 17) / 17.0f - 0.5f;
    storage.push_back(std::move(values));
    ++argIndex;
  }
  for (auto &values : storage)
    args.push_back(values.data());
  kernel(args.data());
  double best = 1e30, total = 0, bestProcessor = 1e30;
  for (int i = 0; i < repeats; ++i) {
    std::clock_t processorStart = std::clock();
    double start = omp_get_wtime();
    kernel(args.data());
    double seconds = omp_get_wtime() - start;
    double processor =
        double(std::clock() - processorStart) / CLOCKS_PER_SEC;
    best = seconds < best ? seconds : best;
    bestProcessor = processor < bestProcessor ? processor : bestProcessor;
    total += seconds;
  }
  double checksum = 0;
  for (float value : storage.back())
    checksum += value;
  std::printf("%g\n%g\n%g\n%.9g\n", best, total / repeats, bestProcessor,
              checksum);
  return 0;
}

#endif // VX_BENCH_CPU_HARNESS_H

// The C++ references of the benchmark kernels, one namespace per kernel
// (reference::<kernel>): plain loop nests, compiled for the host by the
// OpenMP references (bench/cpu) and by the CUDA check harness
// (bench/cuda/check.cu), whose expert kernels they verify.
#ifndef VX_BENCH_REFERENCE_COMMON_H
#define VX_BENCH_REFERENCE_COMMON_H

#include <cmath>

#endif // VX_BENCH_REFERENCE_COMMON_H

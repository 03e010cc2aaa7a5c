// Shared by the CUDA (bench/cuda) and the OpenMP (bench/cpu) references: each
// kernel's body for one grid instance, compiled for the device by nvcc and
// for the host by clang, so both references run one algorithm.
#ifndef VX_BENCH_REFERENCE_COMMON_H
#define VX_BENCH_REFERENCE_COMMON_H

#ifdef __CUDACC__
#define VX_BENCH_INSTANCE __host__ __device__ __forceinline__
#else
#include <cmath>
#define VX_BENCH_INSTANCE inline
#endif

#endif // VX_BENCH_REFERENCE_COMMON_H

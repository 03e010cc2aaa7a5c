// The shared-memory kernels on the GPU: buffers of several types in dynamic
// shared memory, and 100 KiB per instance (over the 48 KiB default, so the
// runtime opts the kernel in).
// REQUIRES: gpu
// RUN: cat %S/../shared-memory.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="format=bin" | %mlir_runner -e main -shared-libs=%vx_cuda_runtime | FileCheck %S/../shared-memory.mlir
// RUN: cat %S/../shared-memory.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="format=bin threads-per-block=32" | %mlir_runner -e main -shared-libs=%vx_cuda_runtime | FileCheck %S/../shared-memory.mlir
// RUN: cat %S/../shared-memory-large.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="format=bin" | %mlir_runner -e main -shared-libs=%vx_cuda_runtime | FileCheck %S/../shared-memory-large.mlir
// RUN: cat %S/../shared-memory-large.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="format=bin threads-per-block=2" | %mlir_runner -e main -shared-libs=%vx_cuda_runtime | FileCheck %S/../shared-memory-large.mlir

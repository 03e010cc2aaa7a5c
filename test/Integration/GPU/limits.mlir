// The launch-limit grids of gpu-limits.mlir on the GPU.
// REQUIRES: gpu
// RUN: cat %S/../gpu-limits.mlir %S/../Inputs/report.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="format=bin" | %mlir_runner -e main -shared-libs=%vx_cuda_runtime | FileCheck %S/../gpu-limits.mlir
// RUN: cat %S/../gpu-limits.mlir %S/../Inputs/report.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="format=bin threads-per-block=128" | %mlir_runner -e main -shared-libs=%vx_cuda_runtime | FileCheck %S/../gpu-limits.mlir

// The empty and negative dynamic grids of negative-grids.mlir on the GPU.
// REQUIRES: gpu
// RUN: cat %S/../negative-grids.mlir %S/../Inputs/report.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="format=bin" | %mlir_runner -e main -shared-libs=%vx_cuda_runtime | FileCheck %S/../negative-grids.mlir
// RUN: cat %S/../negative-grids.mlir %S/../Inputs/report.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="format=bin threads-per-block=32" | %mlir_runner -e main -shared-libs=%vx_cuda_runtime | FileCheck %S/../negative-grids.mlir
// RUN: cat %S/../negative-grids.mlir %S/../Inputs/report.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="format=bin threads-per-block=32" | not --crash stdbuf -oL %mlir_runner -e overflow -shared-libs=%vx_cuda_runtime 2>&1 | FileCheck %S/../negative-grids.mlir --check-prefix=OVERFLOW

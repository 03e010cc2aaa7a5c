// examples/matmul.mlir on the GPU (cubin through --vx-to-ptx, run by
// mlir-runner with libvx_cuda_runtime), checked like the CPU test.
// REQUIRES: gpu
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="format=bin" | %mlir_runner -e main -shared-libs=%vx_cuda_runtime | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="format=bin threads-per-block=4" | %mlir_runner -e main -shared-libs=%vx_cuda_runtime | FileCheck %S/../matmul.mlir

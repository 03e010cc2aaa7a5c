// examples/matmul.mlir on the PTX simulator (--vx-to-llvm="ptx-sim=true"),
// checked like the CPU and via-gpu runs; Inputs/gpu-memory.mlir registers the
// buffers.
// REQUIRES: ptxas
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=shuffle:1" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 threads-per-block=4" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 stages=3" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 stages=2 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 stages=3 sim-order=shuffle:3" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir

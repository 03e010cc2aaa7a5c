// shared-memory.mlir and shared-memory-large.mlir on the PTX simulator
// (--vx-to-llvm="ptx-sim=true"), checked like the CPU and via-gpu runs;
// Inputs/gpu-memory.mlir registers the buffers.
// REQUIRES: ptxas
// RUN: cat %S/../shared-memory.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../shared-memory.mlir
// RUN: cat %S/../shared-memory.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../shared-memory.mlir
// RUN: cat %S/../shared-memory.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../shared-memory.mlir
// RUN: cat %S/../shared-memory.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=shuffle:1" | %mlir_runner_sim -e main | FileCheck %S/../shared-memory.mlir
// RUN: cat %S/../shared-memory.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 threads-per-block=3" | %mlir_runner_sim -e main | FileCheck %S/../shared-memory.mlir
// RUN: cat %S/../shared-memory.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a threads-per-block=3" | %mlir_runner_sim -e main | FileCheck %S/../shared-memory.mlir
// RUN: cat %S/../shared-memory-large.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../shared-memory-large.mlir
// RUN: cat %S/../shared-memory-large.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../shared-memory-large.mlir
// RUN: cat %S/../shared-memory-large.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a threads-per-block=2" | %mlir_runner_sim -e main | FileCheck %S/../shared-memory-large.mlir

// examples/gemm_bf16.mlir on the PTX simulator, sm_90a (128B-swizzled TMA
// tiles, wgmma.mma_async.m64n256k16 on two warpgroups) and sm_80 (cp.async
// tiles, mma.sync), checked like the CPU and via-gpu runs.
// REQUIRES: ptxas
// RUN: cat %S/../../../examples/gemm_bf16.mlir %S/../gemm-bf16.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../gemm-bf16.mlir
// RUN: cat %S/../../../examples/gemm_bf16.mlir %S/../gemm-bf16.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=shuffle:3" | %mlir_runner_sim -e main | FileCheck %S/../gemm-bf16.mlir
// Three stages instead of the spawn's four:
// RUN: sed 's/stages 4/stages 3/' %S/../../../examples/gemm_bf16.mlir | cat - %S/../gemm-bf16.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../gemm-bf16.mlir
// RUN: cat %S/../../../examples/gemm_bf16.mlir %S/../gemm-bf16.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../gemm-bf16.mlir

// examples/matmul.mlir on the PTX simulator for sm_90a, where its A and B tiles
// are TMA loads (mbarriers, the proxy and descriptor fences, the dynamic shared
// memory declared .extern after the static symbols: the fixes of issue 26;
// tma-before-fix.test shows the simulator rejecting the layout from before
// them).
// REQUIRES: ptxas
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a stages=3 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a threads-per-block=4" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a stages=2 sim-order=shuffle:3" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir

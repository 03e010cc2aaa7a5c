// tma.mlir (TMA copies built by --test-vx-tma-copies) on the PTX simulator,
// with the descriptor fence before the tensor map's first use.
// REQUIRES: ptxas
// RUN: vx-opt %S/../tma.mlir --test-vx-tma-copies --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../tma.mlir
// RUN: vx-opt %S/../tma.mlir --test-vx-tma-copies --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../tma.mlir

// test/Integration/first-index-above.mlir on the PTX simulator: the index
// minsi / maxsi thread-loop reductions start from index's identities in the
// real PTX (a partial that started from -1 would find the wrong index).
// REQUIRES: ptxas
// RUN: vx-opt %S/../first-index-above.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../first-index-above.mlir
// RUN: vx-opt %S/../first-index-above.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../first-index-above.mlir

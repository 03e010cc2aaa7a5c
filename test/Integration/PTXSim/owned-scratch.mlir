// test/Integration/owned-scratch.mlir on the PTX simulator: owned private
// tiles reached in different rounds by two thread loops, at thread counts
// that do not divide the trip count, as the hardware would run them.
// REQUIRES: ptxas
// RUN: vx-opt %S/../owned-scratch.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../owned-scratch.mlir
// RUN: vx-opt %S/../owned-scratch.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../owned-scratch.mlir

// examples/attention.mlir on the PTX simulator for sm_90a, where its K and V
// tiles are TMA loads (see matmul-sm90a.mlir).
// REQUIRES: ptxas
// RUN: cat %S/../../../examples/attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// RUN: cat %S/../../../examples/attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a stages=4 sim-order=shuffle:2" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// Stages 2 and 3 with the threads in reverse order (one barrier per step:
// the one before the loads that refill the slot the previous step read).
// RUN: cat %S/../../../examples/attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a stages=2 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// RUN: cat %S/../../../examples/attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a stages=3 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir

// test/Integration/instance-allocas.mlir on the PTX simulator, in both
// thread orders: allocas outside thread loops are shared by the CTA's
// threads in the real PTX too (the flag's reduction used to run on one
// thread: a divergent warp collective).
// REQUIRES: ptxas
// RUN: vx-opt %S/../instance-allocas.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../instance-allocas.mlir
// RUN: vx-opt %S/../instance-allocas.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=reverse threads-per-block=3" | %mlir_runner_sim -e main | FileCheck %S/../instance-allocas.mlir

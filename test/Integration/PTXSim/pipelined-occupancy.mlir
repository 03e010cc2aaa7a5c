// test/Integration/pipelined-occupancy.mlir on the PTX simulator: the
// instances per CTA and stages chosen by occupancy (32 with 3 stages on
// sm_90, 32 with 2 on sm_80, 8 with 2 on sm_86) give the host's sums.
// REQUIRES: ptxas
// RUN: vx-opt %S/../pipelined-occupancy.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90" | %mlir_runner_sim -e main | FileCheck %S/../pipelined-occupancy.mlir
// RUN: vx-opt %S/../pipelined-occupancy.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../pipelined-occupancy.mlir
// RUN: vx-opt %S/../pipelined-occupancy.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_86" | %mlir_runner_sim -e main | FileCheck %S/../pipelined-occupancy.mlir

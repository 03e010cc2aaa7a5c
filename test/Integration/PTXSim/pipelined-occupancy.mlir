// test/Integration/pipelined-occupancy.mlir on the PTX simulator: the
// requested 3 stages with the instances per CTA chosen by occupancy (32 on
// sm_90, 8 on sm_80, 16 on sm_86) give the host's sums.
// REQUIRES: ptxas
// RUN: vx-opt %S/../pipelined-occupancy.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90" | %mlir_runner_sim -e main | FileCheck %S/../pipelined-occupancy.mlir
// RUN: vx-opt %S/../pipelined-occupancy.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../pipelined-occupancy.mlir
// RUN: vx-opt %S/../pipelined-occupancy.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_86" | %mlir_runner_sim -e main | FileCheck %S/../pipelined-occupancy.mlir

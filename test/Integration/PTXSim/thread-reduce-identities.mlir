// test/Integration/thread-reduce-identities.mlir on the PTX simulator: every
// combiner's identity on i8-i64, index, f16 and f32 in the real PTX (half
// minnum/maxnum start from NaN, so they also check the simulator's NaN
// rules and its hexadecimal immediates).
// REQUIRES: ptxas
// RUN: vx-opt %S/../thread-reduce-identities.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../thread-reduce-identities.mlir
// RUN: vx-opt %S/../thread-reduce-identities.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../thread-reduce-identities.mlir

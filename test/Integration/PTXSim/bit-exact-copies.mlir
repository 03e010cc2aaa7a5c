// test/Integration/bit-exact-copies.mlir on the PTX simulator: every element
// type, bf16 and f16 subnormals and signalling NaNs included, moves bit for
// bit through global and shared memory in the real PTX too (cp.async on
// sm_80; TMA on sm_90a but for i8 and i16).
// REQUIRES: ptxas
// RUN: vx-opt %S/../bit-exact-copies.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../bit-exact-copies.mlir
// RUN: vx-opt %S/../bit-exact-copies.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=reverse threads-per-block=3" | %mlir_runner_sim -e main | FileCheck %S/../bit-exact-copies.mlir

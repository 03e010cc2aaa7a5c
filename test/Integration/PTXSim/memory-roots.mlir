// memory-roots.mlir on the PTX simulator (--vx-to-llvm="ptx-sim=true"),
// checked like the CPU and via-gpu runs, with the stages that used to
// prefetch rows before they were written.
// REQUIRES: ptxas
// RUN: cat %S/../memory-roots.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" 2>/dev/null | %mlir_runner_sim -e main | FileCheck %S/../memory-roots.mlir
// RUN: cat %S/../memory-roots.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 stages=2" 2>/dev/null | %mlir_runner_sim -e main | FileCheck %S/../memory-roots.mlir
// RUN: cat %S/../memory-roots.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 stages=3 sim-order=reverse" 2>/dev/null | %mlir_runner_sim -e main | FileCheck %S/../memory-roots.mlir
// RUN: cat %S/../memory-roots.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a stages=3" 2>/dev/null | %mlir_runner_sim -e main | FileCheck %S/../memory-roots.mlir

// examples/attention.mlir on the PTX simulator (--vx-to-llvm="ptx-sim=true"),
// checked like the CPU and via-gpu runs; the buffers @main allocates are
// registered as a host program for a GPU registers them
// (--test-vx-register-host-memory).
// REQUIRES: ptxas
// RUN: cat %S/../../../examples/attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// RUN: cat %S/../../../examples/attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// RUN: cat %S/../../../examples/attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=shuffle:1" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// RUN: cat %S/../../../examples/attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 threads-per-block=3" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// RUN: cat %S/../../../examples/attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 stages=4" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// Pipelined at stages 2 and 3 (one barrier per step, issue 30), the threads
// between barriers in reverse and shuffled order.
// RUN: cat %S/../../../examples/attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 stages=2 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// RUN: cat %S/../../../examples/attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 stages=3 sim-order=shuffle:3" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir

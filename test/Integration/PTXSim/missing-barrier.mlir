// ../missing-barrier.mlir's kernel lacks a barrier: via-gpu shows it as numbers
// that change with the thread order; the simulator stops it as a shared-memory
// race in every order, naming both threads and PTX lines.
// REQUIRES: ptxas
// RUN: vx-opt %S/../missing-barrier.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | not %mlir_runner_sim -e main 2>&1 | FileCheck %s
// RUN: vx-opt %S/../missing-barrier.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=reverse" | not %mlir_runner_sim -e main 2>&1 | FileCheck %s
// RUN: vx-opt %S/../missing-barrier.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=shuffle:3" | not %mlir_runner_sim -e main 2>&1 | FileCheck %s
// CHECK: vx_ptx_sim: error: kernel rotate_racy_kernel, block (0,0,0), thread ({{[0-7]}},0,0): race on shared memory __wg_rotate_racy_kernel_0+{{[0-9]+}}: {{.*}} by thread ({{[0-7]}},0,0) at PTX line {{[0-9]+}}: {{.*}}, with no barrier between them at PTX line {{[0-9]+}}:

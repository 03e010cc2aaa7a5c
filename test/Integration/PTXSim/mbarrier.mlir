// mbarrier.mlir on the PTX simulator, for sm_90a only (mbarrier.try_wait needs
// sm_90: ptxas and the simulator refuse it in an sm_80 module), checked like
// the CPU and via-gpu runs; the buffers @main allocates are registered as a
// host program for a GPU registers them (--test-vx-register-host-memory).
// REQUIRES: ptxas
// RUN: cat %S/../mbarrier.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../mbarrier.mlir
// RUN: cat %S/../mbarrier.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../mbarrier.mlir
// RUN: cat %S/../mbarrier.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=shuffle:1" | %mlir_runner_sim -e main | FileCheck %S/../mbarrier.mlir
// A phase that nothing completes is a deadlock the simulator names.
// RUN: vx-opt %S/../Inputs/mbarrier-hang.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a" | not %mlir_runner_sim -e main 2>&1 | FileCheck %s --check-prefix=HANG
// HANG: vx_ptx_sim: error: kernel main_kernel, block (0,0,0), thread (0,0,0): deadlock: the mbarrier phase at __mbarrier+0 can never complete (2 arrival(s) pending, tx count 0 bytes, 0 bytes of copies in flight) at PTX line {{[0-9]+}}: mbarrier.try_wait.parity

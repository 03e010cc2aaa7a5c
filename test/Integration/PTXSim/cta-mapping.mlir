// cta-mapping.mlir on the PTX simulator (--vx-to-llvm="ptx-sim=true"), checked
// like the CPU and via-gpu runs; the buffers @main allocates are registered as
// a host program for a GPU registers them (--test-vx-register-host-memory).
// REQUIRES: ptxas
// RUN: cat %S/../cta-mapping.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../cta-mapping.mlir
// RUN: cat %S/../cta-mapping.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../cta-mapping.mlir
// RUN: cat %S/../cta-mapping.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../cta-mapping.mlir
// RUN: cat %S/../cta-mapping.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=shuffle:1" | %mlir_runner_sim -e main | FileCheck %S/../cta-mapping.mlir
// RUN: cat %S/../cta-mapping.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 threads-per-block=3" | %mlir_runner_sim -e main | FileCheck %S/../cta-mapping.mlir
// RUN: cat %S/../cta-mapping.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a threads-per-block=3" | %mlir_runner_sim -e main | FileCheck %S/../cta-mapping.mlir

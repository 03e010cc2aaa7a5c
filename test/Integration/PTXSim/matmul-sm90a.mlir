// examples/matmul.mlir on the PTX simulator for sm_90a, where its A and B
// tiles are TMA loads. XFAIL until the sm_90 fixes of issue 26 (the dynamic
// shared memory declared .extern, the mbarrier and tensor-map fences) are
// in: the simulator rejects today's PTX (a tensor map used without the
// descriptor fence; the mbarriers inside the first tile:
// tma-before-fix.test). Remove the XFAIL with that merge.
// XFAIL: *
// REQUIRES: ptxas
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a stages=3 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir
// RUN: cat %S/../../../examples/matmul.mlir %S/../matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a threads-per-block=4" | %mlir_runner_sim -e main | FileCheck %S/../matmul.mlir

// examples/gemm_bf16.mlir on the PTX simulator, sm_90a (128B-swizzled TMA
// tiles, wgmma.mma_async.m64n256k16 on two warpgroups) and sm_80 (cp.async
// tiles, mma.sync), checked like the CPU and via-gpu runs.
// REQUIRES: ptxas
// RUN: cat %S/../../../examples/gemm_bf16.mlir %S/../gemm-bf16.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../gemm-bf16.mlir
// RUN: cat %S/../../../examples/gemm_bf16.mlir %S/../gemm-bf16.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=shuffle:3" | %mlir_runner_sim -e main | FileCheck %S/../gemm-bf16.mlir
// Three stages instead of the spawn's four:
// RUN: sed 's/stages 4/stages 3/' %S/../../../examples/gemm_bf16.mlir | cat - %S/../gemm-bf16.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../gemm-bf16.mlir
// Two stages, one slot beside the one in use and the one that the group in
// flight reads:
// RUN: sed 's/stages 4/stages 2/' %S/../../../examples/gemm_bf16.mlir | cat - %S/../gemm-bf16.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../gemm-bf16.mlir
// RUN: cat %S/../../../examples/gemm_bf16.mlir %S/../gemm-bf16.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../gemm-bf16.mlir
// The wgmma group of each step stays in flight into the next (wait_group
// 1), and the slot it reads is refilled only after the next step's wait has
// retired it on every warpgroup (the barrier after the wait). The simulator
// rejects each weaker order as the TMA write into a pending group's operand:
// two groups left in flight, or no barrier between the waits of the two
// warpgroups and thread 0's loads.
// RUN: rm -rf %t && mkdir -p %t
// RUN: cat %S/../../../examples/gemm_bf16.mlir %S/../gemm-bf16.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" -o %t/gemm.mlir
// RUN: sed 's/wait_group.sync.aligned \\091;/wait_group.sync.aligned \\092;/' %t/gemm.mlir > %t/two-groups.mlir
// RUN: not %mlir_runner_sim %t/two-groups.mlir -e main 2>&1 | FileCheck %s --check-prefix=PENDING
// RUN: sed 's/wait_group.sync.aligned \\091;\\0A\\09bar.sync \\090;/wait_group.sync.aligned \\091;/' %t/gemm.mlir > %t/no-barrier.mlir
// RUN: not %mlir_runner_sim %t/no-barrier.mlir -e main 2>&1 | FileCheck %s --check-prefix=PENDING
// PENDING: vx_ptx_sim: error: kernel gemm_bf16_kernel, block ({{.*}}), thread (0,0,0): write to __dynamic_shmem__0+{{[0-9]+}}, an operand of a wgmma.mma_async that no wgmma.wait_group has completed at PTX line {{[0-9]+}}: @%p{{[0-9]+}} cp.async.bulk.tensor.2d

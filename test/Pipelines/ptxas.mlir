// Every PTX these stages produce assembles with ptxas for its chip: the
// vx-to-ptx route, the mlir-translate + llc route, and cubins (format=bin).
// REQUIRES: ptxas
// The ptx stage takes only chips the toolkit's ptxas assembles for (CUDA 13
// dropped sm_70, which LLVM still knows; sm_20 no toolkit has).
// RUN: not vx-opt %s --vx-to-ptx="chip=sm_20" 2>&1 | FileCheck %s --check-prefix=PTXAS-CHIP
// PTXAS-CHIP: error: vx-to-ptx: the CUDA toolkit at {{.*}} cannot assemble for chip 'sm_20'; its ptxas takes {{.*}}sm_90a
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %S/../../examples/attention.mlir --vx-to-ptx -o %t/sm90.mlir
// RUN: %extract_ptx %t/sm90.mlir %t/sm90
// RUN: %ptxas -arch=sm_90 %t/sm90/attention_kernel.ptx -o %t/sm90.cubin
// RUN: vx-opt %S/../../examples/matmul.mlir --vx-to-ptx="chip=sm_100a threads-per-block=4" -o %t/sm100a.mlir
// RUN: %extract_ptx %t/sm100a.mlir %t/sm100a
// RUN: %ptxas -arch=sm_100a %t/sm100a/matmul_kernel.ptx -o %t/sm100a.cubin
// RUN: vx-opt %S/../../examples/matmul.mlir --vx-to-ptx="format=bin" | FileCheck %s --check-prefix=BIN
// RUN: vx-opt %S/../../examples/attention.mlir --vx-to-nvvm --vx-extract-device-module -o %t/device.mlir
// RUN: mlir-translate --mlir-to-llvmir %t/device.mlir -o %t/device.ll
// RUN: llvm-link %t/device.ll %cuda_libdevice --only-needed -o %t/device.bc
// RUN: llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx80 %t/device.bc -o %t/device.ptx
// RUN: FileCheck %s --check-prefix=LLC < %t/device.ptx
// RUN: %ptxas -arch=sm_90 %t/device.ptx -o %t/device.cubin

// Shared-memory transfers: cp.async chunks, their group commits and waits.
// RUN: vx-opt %S/../Integration/transfer.mlir --vx-to-ptx -o %t/async.mlir
// RUN: %extract_ptx %t/async.mlir %t/async
// RUN: FileCheck %s --check-prefix=ASYNC < %t/async/double_buffered_sums_kernel.ptx
// RUN: %ptxas -arch=sm_90 %t/async/double_buffered_sums_kernel.ptx -o %t/async.cubin
// RUN: %ptxas -arch=sm_90 %t/async/row_sums_kernel.ptx -o %t/async-rows.cubin
// 100 KiB of smem scratch per instance, two instances per CTA: dynamic
// shared memory beyond the 48 KiB of static shared memory.
// RUN: cat %S/../Integration/shared-memory-large.mlir %S/../Integration/Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="threads-per-block=2" -o %t/large.mlir
// RUN: %extract_ptx %t/large.mlir %t/large
// RUN: %ptxas -arch=sm_90 %t/large/big_kernel.ptx -o %t/large.cubin
// Before sm_80 the same transfers are synchronous copies (LLVM cannot select
// cp.async there).
// RUN: vx-opt %S/../Integration/transfer.mlir --vx-to-ptx="chip=sm_75" -o %t/sm75.mlir
// RUN: %extract_ptx %t/sm75.mlir %t/sm75
// RUN: FileCheck %s --check-prefix=SM75 < %t/sm75/double_buffered_sums_kernel.ptx
// RUN: %ptxas -arch=sm_75 %t/sm75/double_buffered_sums_kernel.ptx -o %t/sm75.cubin
// SM75: .target sm_75
// SM75-NOT: cp.async
// Every smem buffer is a 16-byte aligned part of the dynamic shared memory,
// whose symbol is 128-byte aligned, so 16-byte chunks are aligned at one
// thread per block too.
// ASYNC-DAG: .extern .shared .align 128 .b8 __dynamic_shmem__0[];
// ASYNC-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// ASYNC-DAG: cp.async.commit_group;
// ASYNC-DAG: cp.async.wait_group {{.*}}1;
// ASYNC-DAG: cp.async.wait_group {{.*}}0;

// BIN: gpu.binary @matmul_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}bin = "
// LLC: .target sm_90
// LLC: .visible .entry attention_kernel(

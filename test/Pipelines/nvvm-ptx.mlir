// The NVVM and PTX stages of examples/attention.mlir, and the options they
// refuse.
// The runs that need the CUDA toolkit are in nvvm-ptx-toolkit.mlir.
// RUN: vx-opt %S/../../examples/attention.mlir --vx-to-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: not vx-opt %s --vx-to-ptx="format=elf" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not vx-opt %s --vx-to-nvvm="chip=90" 2>&1 | FileCheck %s --check-prefix=CHIP
// An explicit CUDA_HOME without a toolkit is an error, not a silent fallback.
// RUN: mkdir -p %t.fake-cuda/bin && touch %t.fake-cuda/bin/ptxas
// RUN: env CUDA_HOME=%t.fake-cuda not vx-opt %s --vx-to-ptx 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not vx-opt %s --vx-to-nvvm 2>&1 | FileCheck %s --check-prefix=HOPPER
// RUN: vx-opt %s --vx-to-nvvm="chip=sm_100" | FileCheck %s --check-prefix=BLACKWELL

// NVVM: module attributes {gpu.container_module}
// NVVM: llvm.func @attention(
// NVVM: gpu.launch_func @attention_kernel::@attention_kernel blocks in
// NVVM: gpu.module @attention_kernel [#nvvm.target<chip = "sm_90", features = "+ptx80">]
// NVVM: llvm.func @attention_kernel({{.*}} attributes {gpu.kernel, {{.*}}nvvm.kernel
// NVVM: nvvm.read.ptx.sreg.ctaid.x
// NVVM-NOT: scf.
// NVVM-NOT: memref.

// PTX: gpu.binary @attention_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// PTX-SAME: assembly = "{{.*}}.version 8.0{{.*}}.target sm_90{{.*}}.visible .entry attention_kernel(
// SM100: assembly = "{{.*}}.version 8.6{{.*}}.target sm_100a{{.*}}.visible .entry attention_kernel(

// FORMAT: vx-to-ptx: format must be 'isa', 'bin' or 'fatbin', got 'elf'
// TOOLKIT: vx-to-ptx: no CUDA toolkit with bin/ptxas and nvvm/libdevice/libdevice.10.bc found (tried {{.*}}fake-cuda); set CUDA_HOME
// CHIP: vx-to-nvvm: chip '90' is not an NVIDIA chip that LLVM 22 knows
// HOPPER: error: 'vx.spawn' op on 'tensor_core5' needs a Blackwell chip (sm_100 or newer), got 'sm_90'
// BLACKWELL: gpu.module @blackwell_kernel [#nvvm.target<chip = "sm_100", features = "+ptx86">]
func.func @blackwell(%a: memref<8xf32>, %v: f32) {
  vx.spawn on tensor_core5 grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    memref.store %v, %a[%i] : memref<8xf32>
  }
  return
}

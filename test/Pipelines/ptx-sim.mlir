// vx-to-llvm="ptx-sim=true" (VX_SPEC 3.1): the device code compiled as
// vx-to-ptx (format=isa) compiles it, the host code lowered to LLVM for
// mlir-runner, the launches left to whichever mgpu* runtime is loaded.
// REQUIRES: ptxas
// RUN: vx-opt %s --vx-to-llvm="ptx-sim=true" | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="ptx-sim=true chip=sm_80 threads-per-block=64 stages=2" | FileCheck %s --check-prefix=SM80
// RUN: vx-opt %s --vx-to-llvm="ptx-sim=true sim-order=shuffle:7" | FileCheck %s --check-prefix=ORDER
// The same passes as vx-to-ptx, then the simulator's order.
// RUN: vx-opt %s --vx-to-llvm="ptx-sim=true sim-order=reverse" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASSES
// chip also reaches via-gpu's mapping (unset there: no chip, no TMA).
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true chip=sm_90a" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=VIA-GPU-CHIP
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=VIA-GPU

// CHECK-NOT: gpu.module
// CHECK: llvm.func @scale(
// CHECK: gpu.launch_func {{ *}}@scale_kernel::@scale_kernel blocks in
// CHECK: gpu.binary @scale_kernel {{ *}}[#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}assembly = "
// CHECK-SAME: .target sm_90
// CHECK-NOT: llvm.mlir.global_ctors

// SM80: %[[THREADS:.*]] = llvm.mlir.constant(64 : index)
// SM80: gpu.launch_func {{ *}}@scale_kernel::@scale_kernel blocks in ({{.*}}) threads in (%[[THREADS]],
// SM80: gpu.binary @scale_kernel {{ *}}[#gpu.object<#nvvm.target<chip = "sm_80",

// ORDER: llvm.mlir.global internal constant @vx_sim_order("shuffle:7\00")
// ORDER: llvm.func internal @vx_set_sim_order()
// ORDER-NEXT: llvm.mlir.addressof @vx_sim_order
// ORDER-NEXT: llvm.call @vxSimSetOrder
// ORDER: llvm.mlir.global_ctors ctors = [@vx_set_sim_order], priorities = [101 : i32]

// PASSES: vx-verify-semantics{allow-races=false chip=sm_90 threads-per-block=0}
// PASSES: vx-distribute-tile-ops{chip=sm_90 tf32=false threads-per-block=0}
// PASSES: convert-vx-to-gpu{chip=sm_90 fma=true stages=1 threads-per-block=0}
// PASSES: convert-nvgpu-to-nvvm
// PASSES: gpu-module-to-binary{format=isa
// PASSES: vx-set-sim-order{order=reverse}
// PASSES: vx-check-lowered{dialects={builtin.module,llvm,gpu.binary,gpu.launch_func} stage=llvm}

// VIA-GPU-CHIP: convert-vx-to-gpu{chip=sm_90a
// VIA-GPU: convert-vx-to-gpu{chip= fma

// Options that ptx-sim excludes or that need it.
// RUN: not vx-opt %s --vx-to-llvm="ptx-sim=true via-gpu=true" 2>&1 | FileCheck %s --check-prefix=VIA-GPU-SIM
// VIA-GPU-SIM: error: vx-to-llvm: 'ptx-sim' and 'via-gpu' exclude each other
// RUN: not vx-opt %s --vx-to-llvm="ptx-sim=true detect-races=true" 2>&1 | FileCheck %s --check-prefix=DETECT
// DETECT: error: vx-to-llvm: 'detect-races' does not apply with 'ptx-sim=true'
// RUN: not vx-opt %s --vx-to-llvm="ptx-sim=true openmp=true" 2>&1 | FileCheck %s --check-prefix=OPENMP
// OPENMP: error: vx-to-llvm: 'openmp' does not apply with 'ptx-sim=true'
// RUN: not vx-opt %s --vx-to-llvm="ptx-sim=true reverse-parallel=true" 2>&1 | FileCheck %s --check-prefix=REVERSE
// REVERSE: error: vx-to-llvm: 'reverse-parallel' does not apply with 'ptx-sim=true'; 'sim-order=reverse' reverses the simulator's thread order
// RUN: not vx-opt %s --vx-to-llvm="sim-order=reverse" 2>&1 | FileCheck %s --check-prefix=ORDER-CPU
// RUN: not vx-opt %s --vx-to-llvm="via-gpu=true sim-order=reverse" 2>&1 | FileCheck %s --check-prefix=ORDER-CPU
// ORDER-CPU: error: vx-to-llvm: 'sim-order' applies only with 'ptx-sim=true'
// RUN: not vx-opt %s --vx-to-llvm="ptx-sim=true sim-order=shuffle:" 2>&1 | FileCheck %s --check-prefix=ORDER-BAD
// RUN: not vx-opt %s --vx-to-llvm="ptx-sim=true sim-order=backward" 2>&1 | FileCheck %s --check-prefix=ORDER-BAD
// ORDER-BAD: error: vx-to-llvm: sim-order must be 'forward', 'reverse', 'shuffle' or 'shuffle:SEED' (SEED a decimal number), got '
// RUN: not vx-opt %s --vx-to-llvm="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=CHIP-CPU
// CHIP-CPU: error: vx-to-llvm: 'chip' applies only with 'via-gpu=true' or 'ptx-sim=true'
// RUN: not vx-opt %s --vx-to-llvm="ptx-sim=true chip=sm_20" 2>&1 | FileCheck %s --check-prefix=CHIP-PTXAS
// CHIP-PTXAS: error: vx-to-llvm: the CUDA toolkit at {{.*}} cannot assemble for chip 'sm_20'

func.func @scale(%a: memref<1024xf32>, %s: f32) {
  vx.spawn on tensor_core grid [1024] semantics [parallel] {
    %i = vx.grid_index 0
    %v = memref.load %a[%i] : memref<1024xf32>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %a[%i] : memref<1024xf32>
  }
  return
}

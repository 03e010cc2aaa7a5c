// Options that cannot be honoured are refused with exit code 1, in one line:
// no note that prints the whole module, no llvm::cl complaint.
// RUN: not vx-opt %s --convert-vx-to-gpu="threads-per-block=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE --implicit-check-not=note --implicit-check-not=uint
// RUN: not vx-opt %s --vx-to-gpu="threads-per-block=-1" 2>&1 | FileCheck %s --check-prefix=PIPELINE --implicit-check-not=note --implicit-check-not=uint
// RUN: not vx-opt %s --vx-extract-device-module 2>&1 | FileCheck %s --check-prefix=EXTRACT --implicit-check-not=note
// RUN: not vx-opt %s --convert-vx-to-gpu="threads-per-block=2048" 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not vx-opt %s --convert-vx-to-gpu="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP --implicit-check-not=note
// RUN: not vx-opt %s --convert-vx-to-gpu="stages=0" 2>&1 | FileCheck %s --check-prefix=STAGES --implicit-check-not=note
// RUN: not vx-opt %s --convert-vx-to-gpu="stages=-2" 2>&1 | FileCheck %s --check-prefix=STAGES-NEGATIVE --implicit-check-not=note
// RUN: not vx-opt %s --convert-vx-to-gpu="threads-per-block=4" 2>&1 | FileCheck %s --check-prefix=COMPLEX
// Each step of the mapping checks the options it has, with its name.
// RUN: not vx-opt %s --vx-plan-launch="threads-per-block=1025" 2>&1 | FileCheck %s --check-prefix=PLAN --implicit-check-not=note
// RUN: not vx-opt %s --vx-map-cta="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=MAP --implicit-check-not=note
// RUN: not vx-opt %s --vx-pipeline-transfers="stages=0" 2>&1 | FileCheck %s --check-prefix=PIPELINE-STAGES --implicit-check-not=note
// 32 KiB of smem scratch per instance, 32 instances per CTA: 1 MiB.
// RUN: not vx-opt %s --convert-vx-to-gpu="threads-per-block=32" --split-input-file 2>&1 | FileCheck %s --check-prefix=BUDGET

// NEGATIVE: error: convert-vx-to-gpu: threads-per-block must be between 1 and 1024 (0: the default CTA size), got -1
// PIPELINE: error: vx-to-gpu: threads-per-block must be between 1 and 1024 (0: the default CTA size), got -1
// EXTRACT: error: vx-extract-device-module: the module has no gpu.module
// BIG: error: convert-vx-to-gpu: threads-per-block must be between 1 and 1024 (0: the default CTA size), got 2048
// STAGES: error: convert-vx-to-gpu: stages must be at least 1, got 0
// STAGES-NEGATIVE: error: convert-vx-to-gpu: stages must be at least 1, got -2
// CHIP: error: convert-vx-to-gpu: chip 'gfx90a' is not an NVIDIA chip that LLVM 22 knows
// PLAN: error: vx-plan-launch: threads-per-block must be between 1 and 1024 (0: the default CTA size), got 1025
// MAP: error: vx-map-cta: chip 'gfx90a' is not an NVIDIA chip that LLVM 22 knows
// PIPELINE-STAGES: error: vx-pipeline-transfers: stages must be at least 1, got 0
// COMPLEX: error: 'vx.scratch' op in shared memory needs integers, floats or index, or vectors of byte-sized ones, got 'complex<f32>'
// BUDGET: error: 'vx.spawn' op needs 1048576 bytes of shared memory per CTA (32 instances per CTA x 32768 bytes of smem scratch per instance), more than the 232320 bytes of dynamic shared memory that any chip gives a CTA
func.func @flags() {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %s = vx.scratch smem : memref<4xcomplex<f32>>
  }
  return
}

// -----

func.func @budget(%out: memref<64xf32>) {
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %s = vx.scratch smem : memref<8192xf32>
  }
  return
}

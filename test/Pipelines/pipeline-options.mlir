// The options of VX_SPEC 3 that every GPU stage takes reach the mapping's
// passes as typed values: `chip` on vx-to-gpu reaches convert-vx-to-gpu and
// vx-distribute-tile-ops (not with via-gpu, whose matmuls run on the CPU),
// `tf32` on vx-to-gpu, vx-to-nvvm, vx-to-ptx and vx-to-llvm (with via-gpu)
// reaches vx-distribute-tile-ops, shown in the printed pipeline.
// RUN: vx-opt %s --vx-to-gpu="chip=sm_90a tf32=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: vx-opt %s --vx-to-gpu --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU-DEFAULT
// RUN: vx-opt %s --vx-to-nvvm="tf32=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NVVM
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true tf32=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=VIA-GPU
// On the CPU loops tf32 changes nothing (no tensor cores): accepted.
// RUN: vx-opt %s --vx-to-llvm="tf32=true" -o /dev/null
// threads-per-block=0 is the default CTA size for the pipelines as for the
// pass, also where the option applies only with via-gpu or ptx-sim.
// RUN: vx-opt %s --vx-to-gpu="threads-per-block=0" | FileCheck %s --check-prefix=ZERO
// RUN: vx-opt %s --vx-to-llvm="threads-per-block=0" -o /dev/null
// Refusals, each one line.
// RUN: not vx-opt %s --vx-to-gpu="tf32=maybe" 2>&1 | FileCheck %s --check-prefix=NOT-BOOL
// RUN: not vx-opt %s --vx-to-gpu="chip=sm_1" 2>&1 | FileCheck %s --check-prefix=BAD-CHIP --implicit-check-not=note
// RUN: not vx-opt %s --vx-to-gpu="chip=90" 2>&1 | FileCheck %s --check-prefix=NOT-A-CHIP --implicit-check-not=note
// RUN: not vx-opt %s --vx-to-gpu="threads-per-block=1025" 2>&1 | FileCheck %s --check-prefix=TPB --implicit-check-not=note
// RUN: not vx-opt %s --vx-to-nvvm="chip=sm_90a features=+ptx78" 2>&1 | FileCheck %s --check-prefix=FEATURES --implicit-check-not=note

// GPU: vx-distribute-tile-ops{chip=sm_90a tf32=true threads-per-block=0}
// GPU: convert-vx-to-gpu{chip=sm_90a fma=true stages=1 threads-per-block=0}
// GPU-DEFAULT: vx-distribute-tile-ops{chip= tf32=false threads-per-block=0}
// GPU-DEFAULT: convert-vx-to-gpu{chip= fma=true stages=1 threads-per-block=0}
// NVVM: vx-distribute-tile-ops{chip=sm_90 tf32=true threads-per-block=0}
// NVVM: convert-vx-to-gpu{chip=sm_90 fma=true stages=1 threads-per-block=0}
// VIA-GPU: vx-distribute-tile-ops{chip= tf32=true threads-per-block=0}
// VIA-GPU: convert-vx-to-gpu{chip= fma=true stages=1 threads-per-block=0}
// ZERO: gpu.launch_func @scale_kernel::@scale_kernel blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1)
// NOT-BOOL: error: vx-to-gpu: invalid options 'tf32=maybe'
// BAD-CHIP: error: vx-to-gpu: chip 'sm_1' is not an NVIDIA chip that LLVM 22 knows; the chips are {{.*}}sm_90, sm_90a
// NOT-A-CHIP: error: vx-to-gpu: chip '90' is not an NVIDIA chip that LLVM 22 knows
// TPB: error: vx-to-gpu: threads-per-block must be between 1 and 1024 (0: the default CTA size), got 1025
// FEATURES: error: vx-to-nvvm: chip 'sm_90a' needs PTX 8.0 or newer (features=+ptx80), got PTX 7.8
func.func @scale(%a: memref<1024xf32>) {
  vx.spawn on tensor_core grid [1024] semantics [parallel] {
    %i = vx.grid_index 0
    %v = memref.load %a[%i] : memref<1024xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %a[%i] : memref<1024xf32>
  }
  return
}

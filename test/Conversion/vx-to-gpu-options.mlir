// Options that cannot be honoured are refused with exit code 1.
// RUN: not vx-opt %s --convert-vx-to-gpu="threads-per-block=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not vx-opt %s --convert-vx-to-gpu="threads-per-block=2048" 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not vx-opt %s --convert-vx-to-gpu="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not vx-opt %s --convert-vx-to-gpu="stages=0" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not vx-opt %s --convert-vx-to-gpu="threads-per-block=4" 2>&1 | FileCheck %s --check-prefix=I1

// ZERO: error: convert-vx-to-gpu: threads-per-block must be between 1 and 1024, got 0
// BIG: error: convert-vx-to-gpu: threads-per-block must be between 1 and 1024, got 2048
// STAGES: error: convert-vx-to-gpu: stages must be at least 1, got 0
// CHIP: error: convert-vx-to-gpu: chip must be an NVIDIA chip such as 'sm_90' or 'sm_100a', got 'gfx90a'
// I1: error: 'vx.scratch' op in shared memory with threads-per-block > 1 needs a byte-sized integer or float element type, got 'i1'
func.func @flags() {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %s = vx.scratch smem : memref<4xi1>
  }
  return
}

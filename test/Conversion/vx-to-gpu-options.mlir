// Options that cannot be honoured are refused with exit code 1.
// RUN: not vx-opt %s --convert-vx-to-gpu="threads-per-block=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not vx-opt %s --convert-vx-to-gpu="threads-per-block=2048" 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not vx-opt %s --convert-vx-to-gpu="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not vx-opt %s --convert-vx-to-gpu="threads-per-block=4" 2>&1 | FileCheck %s --check-prefix=I1

// ZERO: error: convert-vx-to-gpu: threads-per-block must be between 1 and 1024, got 0
// BIG: error: convert-vx-to-gpu: threads-per-block must be between 1 and 1024, got 2048
// CHIP: error: convert-vx-to-gpu: chip 'gfx90a' is not an NVIDIA chip that LLVM 22 knows
// I1: error: 'vx.scratch' op in shared memory with threads-per-block > 1 needs a byte-sized integer or float element type, got 'i1'
func.func @flags() {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %s = vx.scratch smem : memref<4xi1>
  }
  return
}

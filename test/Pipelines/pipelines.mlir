// Every pipeline starts with vx-verify-semantics.
// RUN: not vx-opt %s --vx-to-scf 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not vx-opt %s --vx-to-gpu 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not vx-opt %s --vx-to-nvvm 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not vx-opt %s --vx-to-ptx 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not vx-opt %s --vx-to-llvm 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not vx-opt %s --vx-to-llvm="via-gpu=true" 2>&1 | FileCheck %s --check-prefix=RACE
// threads-per-block belongs to the GPU mapping.
// RUN: not vx-opt %s --vx-to-llvm="threads-per-block=4" 2>&1 | FileCheck %s --check-prefix=TPB

// RACE: error: write to memory captured by the spawn does not depend on parallel dimension 0
// TPB: vx-to-llvm: 'threads-per-block' applies only with 'via-gpu=true'
func.func @mislabelled(%a: memref<1xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    memref.store %v, %a[%c0] : memref<1xf32>
  }
  return
}

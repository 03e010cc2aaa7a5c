// Every pipeline starts with vx-verify-semantics; via-gpu is refused until
// the GPU mapping exists.
// RUN: not vx-opt %s --vx-to-scf 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not vx-opt %s --vx-to-llvm 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not vx-opt %s --vx-to-llvm="via-gpu=true" 2>&1 | FileCheck %s --check-prefix=VIAGPU

// RACE: error: write to memory captured by the spawn does not depend on parallel dimension 0
// VIAGPU: vx-to-llvm: 'via-gpu=true' needs the GPU mapping, which is not implemented yet
func.func @mislabelled(%a: memref<1xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    memref.store %v, %a[%c0] : memref<1xf32>
  }
  return
}

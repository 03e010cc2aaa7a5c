// RUN: vx-opt %s -verify-diagnostics --vx-verify-semantics="allow-races=true"
// RUN: vx-opt %s --vx-to-scf="allow-races=true" | FileCheck %s
// RUN: not vx-opt %s --vx-to-scf 2>&1 | FileCheck %s --check-prefix=REFUSED

// allow-races reports a proven race as a warning, so that the mislabelled
// kernel can still be lowered and run (the dynamic check).
// CHECK: scf.parallel
// REFUSED: error: read of memory that the spawn writes
func.func @prefix(%a: memref<9xf32>) {
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{parallel instances must not read what another writes}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %j = arith.addi %i, %c1 : index
    // expected-warning @+1 {{read of memory that the spawn writes}}
    %x = memref.load %a[%i] : memref<9xf32>
    %y = memref.load %a[%j] : memref<9xf32>
    %s = arith.addf %x, %y : f32
    // expected-note @+1 {{written here}}
    memref.store %s, %a[%j] : memref<9xf32>
  }
  return
}

// RUN: mlir-opt %s --load-dialect-plugin=%vx_plugin --load-pass-plugin=%vx_plugin --pass-pipeline="builtin.module(convert-vx-to-scf)" | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%vx_plugin | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: mlir-opt %s --load-dialect-plugin=%vx_plugin --load-pass-plugin=%vx_plugin --pass-pipeline="builtin.module(vx-to-llvm)" | FileCheck %s --check-prefix=LLVM

// ROUNDTRIP: vx.spawn on host grid [4] semantics [parallel]
// LLVM: llvm.func @plugin
// LLVM-NOT: vx.
// CHECK-LABEL: func @plugin
// CHECK: scf.parallel
// CHECK-NOT: vx.
func.func @plugin(%a: memref<4xindex>) {
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    memref.store %i, %a[%i] : memref<4xindex>
  }
  return
}

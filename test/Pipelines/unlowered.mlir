// A host spawn may hold anything the host can, and the CPU pipelines lower
// what LLVM has: an op they leave (here an atomic multiplication, which
// LLVM lacks) fails the pipeline with an error naming it, exit status 1,
// instead of output that the JIT refuses later.
// RUN: not vx-opt %s --vx-to-llvm 2>&1 | FileCheck %s
// RUN: not vx-opt %s --vx-to-llvm="openmp=true" 2>&1 | FileCheck %s --check-prefix=OPENMP
// CHECK: unlowered.mlir:[[# @LINE + 9]]:10: error: 'memref.atomic_rmw' op was left unlowered by vx-to-llvm; its output holds only builtin.module, llvm
// OPENMP: error: 'memref.atomic_rmw' op was left unlowered by vx-to-llvm; its output holds only builtin.module, llvm, omp
// A device spawn with the same op is refused before anything is lowered.
// RUN: not vx-opt %s --vx-to-llvm="via-gpu=true" -split-input-file 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: 'memref.atomic_rmw' op 'mulf' does not lower (LLVM has no atomic multiplication)

func.func @product(%m: memref<4xf32>, %v: f32) {
  vx.spawn on host grid [8] semantics [parallel] {
    %c0 = arith.constant 0 : index
    %a = memref.atomic_rmw mulf %v, %m[%c0] : (f32, memref<4xf32>) -> f32
  }
  return
}

// -----

func.func @device_product(%m: memref<4xf32>, %v: f32) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %c0 = arith.constant 0 : index
    %a = memref.atomic_rmw mulf %v, %m[%c0] : (f32, memref<4xf32>) -> f32
  }
  return
}

// The no-false-error suite: correct kernels draw no error and no warning.
// The examples' thread loops (VX_SPEC 2.1) draw no error; until the checker
// models thread-loop iterations they may draw warnings (THREADS prefix).
// RUN: vx-opt %S/../../examples/attention.mlir --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS --allow-empty
// RUN: vx-opt %S/../../examples/matmul.mlir --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS --allow-empty
// RUN: vx-opt %S/../../examples/softmax.mlir --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS --allow-empty
// RUN: cat %S/../../examples/attention.mlir %S/../Integration/attention.mlir | vx-opt --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS --allow-empty
// RUN: cat %S/../../examples/matmul.mlir %S/../Integration/matmul.mlir %S/../Integration/Inputs/host-memory.mlir | vx-opt --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS --allow-empty
// RUN: cat %S/../Integration/grids.mlir %S/../Integration/Inputs/report.mlir | vx-opt --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --allow-empty
// RUN: cat %S/../Integration/gpu-limits.mlir %S/../Integration/Inputs/report.mlir %S/../Integration/Inputs/host-memory.mlir | vx-opt --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --allow-empty
// RUN: vx-opt %S/../Integration/order.mlir --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --allow-empty
// RUN: vx-opt %S/../Integration/transfer.mlir --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --allow-empty
// RUN: vx-opt %s --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --allow-empty
// CHECK-NOT: error
// CHECK-NOT: warning
// THREADS-NOT: error

// Linearized indexing with a dynamic row length, a transpose through tiles,
// and a stencil over an input-only memref.
func.func @linearized(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  vx.spawn on tensor_core grid [16, %n] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %row = arith.muli %i, %n : index
    %l = arith.addi %row, %j : index
    %x = memref.load %a[%l] : memref<?xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %b[%l] : memref<?xf32>
  }
  return
}

func.func @tiled_transpose(%src: memref<32x64xf32>, %dst: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4, 8] semantics [parallel, parallel] {
    %bi = vx.grid_index 0
    %bj = vx.grid_index 1
    %i0 = arith.muli %bi, %c8 : index
    %j0 = arith.muli %bj, %c8 : index
    %in = memref.subview %src[%i0, %j0] [8, 8] [1, 1] : memref<32x64xf32> to memref<8x8xf32, strided<[64, 1], offset: ?>>
    %out = memref.subview %dst[%j0, %i0] [8, 8] [1, 1] : memref<64x32xf32> to memref<8x8xf32, strided<[32, 1], offset: ?>>
    scf.for %r = %c0 to %c8 step %c1 {
      scf.for %c = %c0 to %c8 step %c1 {
        %x = memref.load %in[%r, %c] : memref<8x8xf32, strided<[64, 1], offset: ?>>
        memref.store %x, %out[%c, %r] : memref<8x8xf32, strided<[32, 1], offset: ?>>
      }
    }
  }
  return
}

func.func @stencil(%in: memref<66xf32>, %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  vx.spawn on host grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %m = arith.addi %i, %c1 : index
    %r = arith.addi %i, %c2 : index
    %a = memref.load %in[%i] : memref<66xf32>
    %b = memref.load %in[%m] : memref<66xf32>
    %c = memref.load %in[%r] : memref<66xf32>
    %s0 = arith.addf %a, %b : f32
    %s = arith.addf %s0, %c : f32
    memref.store %s, %out[%i] : memref<64xf32>
  }
  return
}

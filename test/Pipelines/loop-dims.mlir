// memref.dim in a loop reads the memref's descriptor: no stack copy of its
// sizes per iteration (detect-races checks every access's bounds with
// memref.dim, so a long loop would otherwise overflow the stack).
// RUN: vx-opt %s --vx-to-llvm | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true allow-races=true" | FileCheck %s

// CHECK-LABEL: llvm.func @dim_in_loop
// CHECK-NOT: llvm.alloca
// CHECK: llvm.extractvalue %{{.*}}[3, 0]
// CHECK-NOT: llvm.alloca
// CHECK: llvm.return
func.func @dim_in_loop(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %d = memref.dim %m, %c0 : memref<?xf32>
    %j = arith.remui %i, %d : index
    memref.store %v, %m[%j] : memref<?xf32>
  }
  return
}

// CHECK-LABEL: llvm.func @checked_loop
// CHECK-NOT: llvm.alloca
// CHECK: llvm.return
func.func @checked_loop(%m: memref<4x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f32
  vx.spawn on host grid [4] semantics [parallel] {
    %g = vx.grid_index 0
    scf.for %i = %c0 to %n step %c1 {
      memref.store %v, %m[%g, %i] : memref<4x?xf32>
    }
  }
  return
}

// RUN: vx-opt %s --vx-to-llvm="openmp=true" | FileCheck %s

// An OpenMP loop body whose control flow (a loop from a captured bound, a
// switch) gets its blocks merged after the body's allocation scope is
// lowered: the scope's branches must still lower with index operands.
// CHECK-LABEL: llvm.func @scoped_branches
// CHECK: omp.wsloop
// CHECK: llvm.intr.stacksave
// CHECK: llvm.intr.stackrestore
func.func @scoped_branches(%a: memref<?xf32>, %s0: index, %t: index) {
  %c1 = arith.constant 1 : index
  %value = arith.constant 1.0 : f32
  vx.spawn on host grid [5] semantics [parallel] {
    %g0 = vx.grid_index 0
    %lower = arith.addi %s0, %g0 : index
    scf.for %k = %lower to %t step %c1 {
      scf.index_switch %g0
      case 0 {
        memref.store %value, %a[%k] : memref<?xf32>
        scf.yield
      }
      default {
      }
    }
  }
  return
}

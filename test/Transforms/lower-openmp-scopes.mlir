// vx-lower-openmp-scopes lowers the allocation scopes directly in OpenMP
// ops (stack save and restore around the inlined body) and nothing else:
// the scf.if and the generic_atomic_rmw inside stay for later passes.
// RUN: vx-opt %s --vx-lower-openmp-scopes | FileCheck %s

// CHECK-LABEL: func @scope
// CHECK: omp.loop_nest
// CHECK-NOT: memref.alloca_scope
// CHECK: llvm.intr.stacksave
// CHECK: scf.if
// CHECK: memref.generic_atomic_rmw
// CHECK: llvm.intr.stackrestore
func.func @scope(%x: memref<8xi32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1 : i32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c8) step (%c1) {
        memref.alloca_scope {
          scf.if %flag {
            %r = memref.generic_atomic_rmw %x[%c0] : memref<8xi32> {
            ^bb0(%cur: i32):
              %n = arith.addi %cur, %one : i32
              memref.atomic_yield %n : i32
            }
          }
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// Scopes elsewhere stay.
// CHECK-LABEL: func @elsewhere
// CHECK: memref.alloca_scope
func.func @elsewhere() {
  memref.alloca_scope {
    %t = memref.alloca() : memref<1xf32>
  }
  return
}

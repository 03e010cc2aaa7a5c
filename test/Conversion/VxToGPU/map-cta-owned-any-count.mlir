// RUN: vx-opt %s --split-input-file --vx-verify-semantics --vx-plan-launch --vx-map-cta | FileCheck %s

// Private scratch owned by every thread count is owned by the CTA's: the
// proof for 256 threads first tries the one without the iteration-to-thread
// wrap-around. Here each iteration t of a 3-iteration thread loop writes
// p[t] under a condition whose cases (selects of grid indices, a ceiling
// division) multiplied by the wrap-around cases of 256 threads exceeded the
// solver's budget: the mapping refused the scratch ("too many cases to
// decide within the budget"), and vx-verify-semantics refused the same
// buffer as an explicit `vx.scratch private`. Each thread now keeps its one
// element.

// CHECK-LABEL: func.func @alloca_slot_per_iteration
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 256
// CHECK: %[[PART:.*]] = vx.scratch private : memref<1xf32>
// CHECK: memref.store %{{.*}}, %[[PART]][%{{.*}}] : memref<1xf32>
// CHECK: memref.load %[[PART]][%{{.*}}] : memref<1xf32>
func.func @alloca_slot_per_iteration(%s1: index, %value: f32,
                                     %res: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2, 1, 5] semantics [parallel, parallel, arbitrary] {
    %g0 = vx.grid_index 0
    %g1 = vx.grid_index 1
    %g2 = vx.grid_index 2
    %p = memref.alloca() : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c3) step (%c1) {
      %limit = arith.ceildivui %s1, %c8 : index
      %other = arith.cmpi ne, %g1, %limit : index
      %before = arith.cmpi ult, %g2, %g0 : index
      %inner = arith.select %before, %g1, %g1 : index
      %row = arith.select %other, %inner, %g1 : index
      %skip = arith.cmpi ult, %row, %t : index
      scf.if %skip {
      } else {
        memref.store %value, %p[%t] : memref<8xf32>
      }
    }
    %base = arith.muli %g0, %c8 : index
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %p[%i] : memref<8xf32>
      %at = arith.addi %base, %i : index
      memref.store %x, %res[%at] : memref<?xf32>
    }
  }
  return
}

// -----

// CHECK-LABEL: func.func @scratch_slot_per_iteration
// CHECK: vx.scratch private : memref<1xf32>
func.func @scratch_slot_per_iteration(%s1: index, %value: f32,
                                      %res: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2, 1, 5] semantics [parallel, parallel, arbitrary] {
    %g0 = vx.grid_index 0
    %g1 = vx.grid_index 1
    %g2 = vx.grid_index 2
    %p = vx.scratch private : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c3) step (%c1) {
      %limit = arith.ceildivui %s1, %c8 : index
      %other = arith.cmpi ne, %g1, %limit : index
      %before = arith.cmpi ult, %g2, %g0 : index
      %inner = arith.select %before, %g1, %g1 : index
      %row = arith.select %other, %inner, %g1 : index
      %skip = arith.cmpi ult, %row, %t : index
      scf.if %skip {
      } else {
        memref.store %value, %p[%t] : memref<8xf32>
      }
    }
    %base = arith.muli %g0, %c8 : index
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %p[%i] : memref<8xf32>
      %at = arith.addi %base, %i : index
      memref.store %x, %res[%at] : memref<?xf32>
    }
  }
  return
}

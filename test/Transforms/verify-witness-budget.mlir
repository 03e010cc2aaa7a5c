// RUN: not vx-opt %s --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s

// Fuzz seed 3 @k95 (soundness.py, the whole grammar): the witnesses of the
// stores at lines 104 and 112 need a grid of 2^63 - 1 rows (wrap-around), so
// no smaller one exists. Minimized at the query, on the spawn's sample
// budget, the futile searches of the earlier witnesses left the store at
// line 112 "too many cases to decide within the budget"; only printed
// witnesses are minimized now, on a budget of their own, and both stores
// are proven races.

// CHECK-NOT: within the budget
// CHECK: verify-witness-budget.mlir:73:5: error: write to memory captured by the spawn does not depend on parallel dimension 0
// CHECK: verify-witness-budget.mlir:97:5: error: write to memory captured by the spawn does not depend on parallel dimension 0
// CHECK: verify-witness-budget.mlir:104:7: error: parallel instances (1152921504606846976, 0, 0) and (0, 0, 0) write the same element of memory captured by the spawn (with %arg8 = 9223372036854775807), only with index arithmetic that wraps around
// CHECK: verify-witness-budget.mlir:112:7: error: parallel instances (1152921504606846976, 0, 0) and (0, 0, 0) write the same element of memory captured by the spawn (with %arg8 = 9223372036854775807), only with index arithmetic that wraps around
// CHECK-NOT: within the budget
func.func @k95(%a: memref<?xf32>, %b: memref<?xf32>, %out: memref<?xf32>, %input: memref<64xf32>, %table: memref<8xindex>, %s0: index, %s1: index, %flag: i1, %n: index, %value: f32, %res: memref<?xf32>, %rows: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [%n, 3, 2] semantics [parallel, parallel, parallel] {
    %g0 = vx.grid_index 0
    %g1 = vx.grid_index 1
    %g2 = vx.grid_index 2
    %v1 = arith.constant 0 : index
    %v2 = vx.grid_dim 0
    %v3 = arith.muli %v1, %v2 : index
    %v4 = arith.addi %v3, %g0 : index
    %v5 = vx.grid_dim 1
    %v6 = arith.muli %v4, %v5 : index
    %v7 = arith.addi %v6, %g1 : index
    %v8 = vx.grid_dim 2
    %v9 = arith.muli %v7, %v8 : index
    %v10 = arith.addi %v9, %g2 : index
    %linear = arith.addi %v10, %c0 : index
    %v11 = arith.constant 64 : index
    %tag = arith.muli %linear, %v11 : index
    %v12 = arith.constant 56 : index
    %res_base = arith.muli %linear, %v12 : index
    %p = memref.alloca() : memref<8xf32>
    %s = vx.scratch smem : memref<8xf32>
    %v13 = arith.constant 8 : index
    scf.parallel (%pi) = (%c0) to (%v13) step (%c1) {
      %v14 = arith.constant 0 : index
      %v15 = arith.addi %pi, %v14 : index
      %v16 = arith.addi %v15, %tag : index
      %v17 = arith.index_cast %v16 : index to i64
      %v18 = arith.sitofp %v17 : i64 to f32
      memref.store %v18, %p[%pi] : memref<8xf32>
    }
    %v19 = arith.constant 8 : index
    scf.parallel (%si) = (%c0) to (%v19) step (%c1) {
      %v20 = arith.constant 16 : index
      %v21 = arith.addi %si, %v20 : index
      %v22 = arith.addi %v21, %tag : index
      %v23 = arith.index_cast %v22 : index to i64
      %v24 = arith.sitofp %v23 : i64 to f32
      memref.store %v24, %s[%si] : memref<8xf32>
    }
    %v25 = arith.constant 8 : index
    %v26 = arith.remui %g1, %v25 : index
    memref.store %value, %s[%v26] : memref<8xf32>
    %v27 = arith.constant 7 : index
    %v28 = arith.constant 1 : index
    %v29 = arith.shrui %v27, %v28 : index
    %v30 = arith.constant 3 : index
    %v31 = arith.shrui %v29, %v30 : index
    %v32 = arith.constant 5 : index
    %v33 = arith.remui %v31, %v32 : index
    %v34 = arith.subi %g2, %g1 : index
    %v35 = arith.constant 63 : index
    %v36 = arith.andi %v34, %v35 : index
    %v37 = memref.subview %a[%v36] [1] [2] : memref<?xf32> to memref<1xf32, strided<[2], offset: ?>>
    memref.store %value, %v37[%v33] : memref<1xf32, strided<[2], offset: ?>>
    %v38 = arith.constant 7 : index
    %v39 = memref.load %table[%v38] : memref<8xindex>
    %v40 = arith.constant 2 : index
    %v41 = arith.remui %v39, %v40 : index
    %v42 = arith.constant 3 : index
    %v43 = arith.remui %v41, %v42 : index
    %v44 = arith.cmpi uge, %g1, %v43 : index
    %v45 = arith.constant 6 : index
    %v46 = memref.load %table[%v45] : memref<8xindex>
    %v47 = arith.constant 4 : index
    %v48 = arith.remui %v46, %v47 : index
    %v49 = arith.cmpi sle, %s0, %g2 : index
    %v50 = arith.constant 1 : index
    %v51 = memref.load %table[%v50] : memref<8xindex>
    %v52 = arith.select %v49, %v51, %s1 : index
    %v53 = arith.minui %v48, %v52 : index
    %v54 = arith.xori %s1, %s1 : index
    %v55 = arith.constant 1 : index
    %v56 = arith.constant 3 : index
    %v57 = arith.divsi %v55, %v56 : index
    %v58 = arith.maxui %v54, %v57 : index
    %v59 = arith.select %v44, %v53, %v58 : index
    %v60 = memref.load %b[%v59] : memref<?xf32>
    memref.store %v60, %a[%g1] : memref<?xf32>
    %v61 = arith.constant 8 : index
    scf.parallel (%pd) = (%c0) to (%v61) step (%c1) {
      %v62 = memref.load %p[%pd] : memref<8xf32>
      %v63 = arith.addi %res_base, %pd : index
      %v64 = arith.constant 0 : index
      %v65 = arith.addi %v63, %v64 : index
      memref.store %v62, %res[%v65] : memref<?xf32>
    }
    %v66 = arith.constant 8 : index
    scf.parallel (%sd) = (%c0) to (%v66) step (%c1) {
      %v67 = memref.load %s[%sd] : memref<8xf32>
      %v68 = arith.addi %res_base, %sd : index
      %v69 = arith.constant 16 : index
      %v70 = arith.addi %v68, %v69 : index
      memref.store %v67, %res[%v70] : memref<?xf32>
    }
  }
  return
}

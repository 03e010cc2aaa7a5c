// What upstream analyses know of the grid queries.
// RUN: vx-opt %s --int-range-optimizations | FileCheck %s --check-prefix=RANGE
// RUN: vx-opt %s --pass-pipeline='builtin.module(func.func(affine-simplify-min-max))' | FileCheck %s --check-prefix=BOUNDS

// InferIntRangeInterface: grid_index is in [0, size) and grid_dim >= 1, so
// the comparisons that only those ranges decide fold; the one that needs the
// instance does not.
// RANGE-LABEL: func @ranges
// RANGE-DAG: %[[TRUE:.*]] = arith.constant true
// RANGE: %[[I:.*]] = vx.grid_index 0
// RANGE: %[[J:.*]] = vx.grid_index 1
// RANGE: %[[UNKNOWN:.*]] = arith.cmpi sge, %[[J]], %{{.*}} : index
// RANGE: memref.store %[[TRUE]], %{{.*}}[%[[I]]]
// RANGE: memref.store %[[UNKNOWN]], %{{.*}}[%[[I]]]
// RANGE: memref.store %[[TRUE]], %{{.*}}[%[[I]]]
func.func @ranges(%a: memref<8xi1>, %n: index) {
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  vx.spawn on tensor_core grid [8, %n] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %m = vx.grid_dim 1
    %in = arith.cmpi ult, %i, %c8 : index
    %pos = arith.cmpi sge, %j, %c1 : index
    %big = arith.cmpi sge, %m, %c1 : index
    memref.store %in, %a[%i] : memref<8xi1>
    memref.store %pos, %a[%i] : memref<8xi1>
    memref.store %big, %a[%i] : memref<8xi1>
  }
  return
}

// ValueBoundsOpInterface: grid_index d < size of d, static or dynamic, so
// the clamps are redundant.
// BOUNDS-LABEL: func @bounds
// BOUNDS: %[[I:.*]] = vx.grid_index 0
// BOUNDS: %[[J:.*]] = vx.grid_index 1
// BOUNDS-NOT: affine.min
// BOUNDS: memref.store %{{.*}}, %{{.*}}[%[[I]]]
// BOUNDS: memref.store %{{.*}}, %{{.*}}[%[[J]]]
func.func @bounds(%a: memref<?xf32>, %n: index, %v: f32) {
  vx.spawn on tensor_core grid [4, %n] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %ci = affine.min affine_map<(d0) -> (d0, 7)>(%i)
    %cj = affine.min affine_map<(d0)[s0] -> (d0, s0)>(%j)[%n]
    memref.store %v, %a[%ci] : memref<?xf32>
    memref.store %v, %a[%cj] : memref<?xf32>
  }
  return
}

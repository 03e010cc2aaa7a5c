// RUN: vx-opt %s --convert-vx-to-scf --allow-unregistered-dialect | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-scf="reverse-parallel=true" --allow-unregistered-dialect | FileCheck %s --check-prefix=REVERSE

// Parallel dims become one scf.parallel, arbitrary dims an scf.for nest
// inside it, scratch an alloca between the two.
// CHECK-LABEL: func @mixed
// CHECK-SAME: (%[[N:.*]]: index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: scf.parallel (%[[I:.*]], %[[K:.*]]) = (%{{.*}}, %{{.*}}) to (%[[N]], %[[C3]])
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<4xf32>
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[C4]]
// CHECK: "test.use"(%[[I]], %[[J]], %[[K]], %[[C4]], %[[ACC]])
// CHECK-NOT: vx.topology
// REVERSE-LABEL: func @mixed
// REVERSE: scf.parallel (%[[I:.*]], %[[K:.*]]) =
// REVERSE: %[[LAST:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// REVERSE: %[[RI:.*]] = arith.subi %[[LAST]], %[[I]] : index
func.func @mixed(%n: index) {
  vx.spawn on tensor_core grid [%n, 4, 3] semantics [parallel, arbitrary, parallel] {
    %acc = vx.scratch : memref<4xf32>
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %k = vx.grid_index 2
    %d = vx.grid_dim 1
    "test.use"(%i, %j, %k, %d, %acc) : (index, index, index, index, memref<4xf32>) -> ()
  }
  return
}

// No parallel dim: just the for nest, outermost first.
// CHECK-LABEL: func @all_arbitrary
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[A:.*]] =
// CHECK: scf.for %[[B:.*]] =
// CHECK: "test.use"(%[[A]], %[[B]])
func.func @all_arbitrary() {
  vx.spawn on host grid [2, 3] {
    %a = vx.grid_index 0
    %b = vx.grid_index 1
    "test.use"(%a, %b) : (index, index) -> ()
  }
  return
}

// No arbitrary dim: no for nest; host spawns carry no topology marker.
// CHECK-LABEL: func @all_parallel
// CHECK: scf.parallel
// CHECK-NOT: vx.topology
// CHECK-NOT: scf.for
func.func @all_parallel() {
  vx.spawn on host grid [2, 3] semantics [parallel, parallel] {
    %a = vx.grid_index 0
    "test.use"(%a) : (index) -> ()
  }
  return
}

// Transfers are synchronous loop copies on this path; awaits vanish.
// CHECK-LABEL: func @transfer
// CHECK: %[[TILE:.*]] = memref.alloca() : memref<4xf32>
// CHECK: %[[SRC:.*]] = memref.subview
// CHECK: scf.for %[[K:.*]] = %c0{{.*}} to %c4{{.*}} step %c1
// CHECK-NEXT: %[[X:.*]] = memref.load %[[SRC]][%[[K]]] : memref<4xf32, strided<[1], offset: ?>>
// CHECK-NEXT: memref.store %[[X]], %[[TILE]][%[[K]]] : memref<4xf32>
// CHECK-NOT: vx.await
// CHECK-NOT: vx.transfer_async
func.func @transfer(%a: memref<16xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %c4 = arith.constant 4 : index
    %off = arith.muli %i, %c4 : index
    %tile = vx.scratch smem : memref<4xf32>
    %src = memref.subview %a[%off] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
    vx.await %t
    "test.use"(%tile) : (memref<4xf32>) -> ()
  }
  return
}

// A token carried by a loop (double buffering) becomes an i1 on this path.
// CHECK-LABEL: func @double_buffered
// CHECK: memref.store
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[TRUE]]) -> (i1)
// CHECK: memref.store
// CHECK: scf.yield %{{.*}} : i1
// CHECK-NOT: !vx.token
func.func @double_buffered(%a: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %tile = vx.scratch smem : memref<4xf32>
    %src = memref.subview %a[0] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1]>>
    %t0 = vx.transfer_async %src to %tile : memref<4xf32, strided<[1]>> to memref<4xf32>
    %tl = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %t0) -> !vx.token {
      vx.await %t
      %tn = vx.transfer_async %src to %tile : memref<4xf32, strided<[1]>> to memref<4xf32>
      scf.yield %tn : !vx.token
    }
    vx.await %tl
  }
  return
}

// Affine ops in a body become scf, arith and memref ops before the spawn is
// lowered: the grid indices become loop induction variables, which are no
// affine dimensions or symbols.
// CHECK-LABEL: func @affine_body
// CHECK: scf.parallel (%[[B:.*]], %[[T:.*]]) =
// CHECK-NOT: affine.
// CHECK: %[[ROW:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[L:.*]] = arith.addi %[[ROW]], %[[T]] : index
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%[[L]]]
// CHECK: scf.for
// CHECK: %[[ROW2:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[L2:.*]] = arith.addi %[[ROW2]], %[[T]] : index
// CHECK: memref.store %[[X]], %{{.*}}[%[[L2]]]
func.func @affine_body(%x: memref<64xf32>, %y: memref<64xf32>) {
  vx.spawn on tensor_core grid [8, 8] semantics [parallel, parallel] {
    %b = vx.grid_index 0
    %t = vx.grid_index 1
    %v = affine.load %x[%b * 8 + %t] : memref<64xf32>
    affine.for %k = 0 to 2 {
      affine.store %v, %y[%b * 8 + %t] : memref<64xf32>
    }
  }
  return
}

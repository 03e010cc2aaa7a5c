// RUN: vx-opt %s -canonicalize --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: func @static_grid_dim
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: vx.spawn
// CHECK-NOT: vx.grid_dim
// CHECK: "test.use"(%[[C4]])
func.func @static_grid_dim() {
  vx.spawn on host grid [2, 4] semantics [parallel, arbitrary] {
    %n = vx.grid_dim 1
    "test.use"(%n) : (index) -> ()
  }
  return
}

// CHECK-LABEL: func @dynamic_grid_dim
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: vx.spawn
// CHECK-NOT: vx.grid_dim
// CHECK: "test.use"(%[[N]])
func.func @dynamic_grid_dim(%n: index) {
  vx.spawn on host grid [%n] semantics [parallel] {
    %d = vx.grid_dim 0
    "test.use"(%d) : (index) -> ()
  }
  return
}

// CHECK-LABEL: func @constant_size_moves_to_static
// CHECK: vx.spawn on tensor_core grid [8, %{{.*}}] semantics [parallel, parallel]
func.func @constant_size_moves_to_static(%m: index) {
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [%c8, %m] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    "test.use"(%i) : (index) -> ()
  }
  return
}

// A constant size of 0 runs no instance: the spawn goes away.
// CHECK-LABEL: func @constant_zero_size
// CHECK-NOT: vx.spawn
// CHECK: return
func.func @constant_zero_size() {
  %c0 = arith.constant 0 : index
  vx.spawn on host grid [4, %c0] semantics [parallel, parallel] {
    "test.use"() : () -> ()
  }
  return
}

// CHECK-LABEL: func @unused_grid_index
// CHECK: vx.spawn
// CHECK-NOT: vx.grid_index
// CHECK: "test.use"
func.func @unused_grid_index() {
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    "test.use"() : () -> ()
  }
  return
}

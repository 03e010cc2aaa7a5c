// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

func.func @write_ignores_parallel_dim(%a: memref<4xf32>, %v: f32) {
  // expected-note @+1 {{mark dimension 1 'arbitrary' or index the write by 'vx.grid_index 1'}}
  vx.spawn on tensor_core grid [4, 8] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    // expected-error @+1 {{write to memory captured by the spawn does not depend on parallel dimension 1: every instance along it writes the same address}}
    memref.store %v, %a[%i] : memref<4xf32>
  }
  return
}

// -----

// Near miss: the same write with the dimension arbitrary is ordered.
func.func @write_along_arbitrary_dim(%a: memref<4xf32>, %v: f32) {
  vx.spawn on tensor_core grid [4, 8] semantics [parallel, arbitrary] {
    %i = vx.grid_index 0
    memref.store %v, %a[%i] : memref<4xf32>
  }
  return
}

// -----

// Near miss: a parallel dimension of extent 1 has no second instance.
func.func @unit_parallel_dim(%a: memref<4xf32>, %v: f32) {
  vx.spawn on host grid [4, 1] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    memref.store %v, %a[%i] : memref<4xf32>
  }
  return
}

// -----

// The address depends on both dims through a loop bound and a subview.
func.func @dependence_through_loop_and_view(%a: memref<4x32xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  vx.spawn on host grid [4, 8] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %row = memref.subview %a[%i, 0] [1, 32] [1, 1] : memref<4x32xf32> to memref<32xf32, strided<[1], offset: ?>>
    %lo = arith.muli %j, %c4 : index
    %hi = arith.addi %lo, %c4 : index
    scf.for %k = %lo to %hi step %c1 {
      memref.store %v, %row[%k] : memref<32xf32, strided<[1], offset: ?>>
    }
  }
  return
}

// -----

// Scratch is per instance: writing it is no race.
func.func @scratch_write(%v: f32) {
  %c0 = arith.constant 0 : index
  vx.spawn on host grid [4] semantics [parallel] {
    %s = vx.scratch : memref<1xf32>
    memref.store %v, %s[%c0] : memref<1xf32>
  }
  return
}

// -----

func.func @transfer_into_captured(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-note @+1 {{mark dimension 0 'arbitrary'}}
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    // expected-error @+1 {{does not depend on parallel dimension 0}}
    %t = vx.transfer_async %a to %b : memref<4xf32> to memref<4xf32>
    vx.await %t
  }
  return
}

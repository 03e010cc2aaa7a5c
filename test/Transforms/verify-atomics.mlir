// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// Atomic updates of one commutative kind may meet; everything else that
// meets them is a race: 'assign', a plain access of the element, updates of
// another kind, a non-commutative generic update, a used old value.

// Near miss: commutative updates of one kind commute.
func.func @commutative_updates(%sum: memref<1xf32>, %count: memref<1xi32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  vx.spawn on host grid [8] semantics [parallel] {
    %r = memref.atomic_rmw addf %v, %sum[%c0] : (f32, memref<1xf32>) -> f32
    %q = memref.generic_atomic_rmw %count[%c0] : memref<1xi32> {
    ^bb0(%current: i32):
      %next = arith.addi %current, %one : i32
      memref.atomic_yield %next : i32
    }
  }
  return
}

// -----

func.func @atomic_assign(%sum: memref<1xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{mark dimension 0}}
  vx.spawn on host grid [8] semantics [parallel] {
    // expected-error @+1 {{write to memory captured by the spawn does not depend on parallel dimension 0}}
    %r = memref.atomic_rmw assign %v, %sum[%c0] : (f32, memref<1xf32>) -> f32
  }
  return
}

// -----

// An atomic add next to a plain load of the same element.
func.func @atomic_and_plain_load(%sum: memref<1xf32>, %out: memref<8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{parallel instances must not read what another writes}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-note @+1 {{written here}}
    %r = memref.atomic_rmw addf %v, %sum[%c0] : (f32, memref<1xf32>) -> f32
    // expected-error-re @+1 {{read of memory that the spawn updates atomically: parallel instance ({{[0-7]}}) reads the element that instance ({{[0-7]}}) updates, so the value read depends on their order}}
    %x = memref.load %sum[%c0] : memref<1xf32>
    memref.store %x, %out[%i] : memref<8xf32>
  }
  return
}

// -----

// generic_atomic_rmw computing a non-commutative update.
func.func @non_commutative_generic(%acc: memref<1xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{mark dimension 0}}
  vx.spawn on host grid [8] semantics [parallel] {
    // expected-error @+1 {{write to memory captured by the spawn does not depend on parallel dimension 0}}
    %r = memref.generic_atomic_rmw %acc[%c0] : memref<1xf32> {
    ^bb0(%current: f32):
      %next = arith.subf %v, %current : f32
      memref.atomic_yield %next : f32
    }
  }
  return
}

// -----

// Updates of two kinds do not commute.
func.func @different_kinds(%acc: memref<1xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [8] semantics [parallel] {
    // expected-note @+1 {{the other write}}
    %r = memref.atomic_rmw addf %v, %acc[%c0] : (f32, memref<1xf32>) -> f32
    // expected-error-re @+1 {{parallel instances ({{[0-7]}}) and ({{[0-7]}}) update the same element of memory captured by the spawn with atomic updates that do not commute ('addf' and 'mulf')}}
    %s = memref.atomic_rmw mulf %v, %acc[%c0] : (f32, memref<1xf32>) -> f32
  }
  return
}

// -----

// An atomic update and a plain write of one element.
func.func @atomic_and_plain_store(%acc: memref<1xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-note @+1 {{the other write}}
    %r = memref.atomic_rmw addf %v, %acc[%c0] : (f32, memref<1xf32>) -> f32
    %last = arith.cmpi eq, %i, %c7 : index
    scf.if %last {
      // expected-error-re @+1 {{parallel instances ({{[0-7]}}) and ({{[0-7]}}) write the same element of memory captured by the spawn, one with an atomic update and one with a plain write: the result depends on their order}}
      memref.store %v, %acc[%c0] : memref<1xf32>
    }
  }
  return
}

// -----

// The old value an atomic returns depends on the order of the updates.
func.func @used_old_value(%count: memref<1xi32>, %slots: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  // expected-note @+1 {{parallel instances must not read what another writes}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-error-re @+1 {{'memref.atomic_rmw' returns the old value of an element that other parallel instances update: instance ({{[0-7]}}) reads what instance ({{[0-7]}}) writes, so the value depends on their order}}
    %ticket = memref.atomic_rmw addi %one, %count[%c0] : (i32, memref<1xi32>) -> i32
    memref.store %ticket, %slots[%i] : memref<8xi32>
  }
  return
}

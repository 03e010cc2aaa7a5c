// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// Rule 6: an arbitrary dimension without order dependence could be parallel.
func.func @could_be_parallel(%a: memref<4x8xf32>, %v: f32) {
  // expected-remark @+1 {{arbitrary dimension 1 has no order dependence: it could be parallel}}
  vx.spawn on host grid [4, 8] semantics [parallel, arbitrary] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    memref.store %v, %a[%i, %j] : memref<4x8xf32>
  }
  return
}

// -----

// Near miss: a scratch accumulator carried across the arbitrary dimension is
// an order dependence.
func.func @accumulates(%a: memref<4x8xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  vx.spawn on host grid [4, 8] semantics [parallel, arbitrary] {
    %acc = vx.scratch : memref<1xf32>
    %i = vx.grid_index 0
    %k = vx.grid_index 1
    %x = memref.load %a[%i, %k] : memref<4x8xf32>
    %s = memref.load %acc[%c0] : memref<1xf32>
    %n = arith.addf %s, %x : f32
    memref.store %n, %acc[%c0] : memref<1xf32>
    %last = arith.cmpi eq, %k, %c7 : index
    scf.if %last {
      memref.store %n, %out[%i] : memref<4xf32>
    }
  }
  return
}

// -----

// Rule 6: a device spawn with no parallel dimension runs on one CTA; a host
// one draws no remark.
func.func @single_cta(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{device spawn has no parallel dimension: it runs on a single CTA}}
  vx.spawn on tensor_core grid [4] semantics [arbitrary] {
    %x = memref.load %a[%c0] : memref<4xf32>
    %y = arith.addf %x, %v : f32
    memref.store %y, %a[%c0] : memref<4xf32>
  }
  vx.spawn on host grid [4] semantics [arbitrary] {
    %x = memref.load %a[%c0] : memref<4xf32>
    %y = arith.addf %x, %v : f32
    memref.store %y, %a[%c0] : memref<4xf32>
  }
  return
}

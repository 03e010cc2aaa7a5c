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

// -----

// Rule 2: i floordiv 2 sends two parallel instances to one element.
func.func @floordiv_collides(%a: memref<4xf32>, %v: f32) {
  %c2 = arith.constant 2 : index
  // expected-note @+1 {{mark the dimensions the address does not tell apart 'arbitrary', or index the write so that parallel instances write distinct elements}}
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %h = arith.divui %i, %c2 : index
    // expected-error @+1 {{parallel instances (3) and (2) write the same element of memory captured by the spawn}}
    memref.store %v, %a[%h] : memref<4xf32>
  }
  return
}

// -----

// Rule 2: i * 4 + j over [4, 8] collides ((1, 0) and (0, 4)).
func.func @linearized_collides(%a: memref<64xf32>, %v: f32) {
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [4, 8] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %l = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%i, %j)
    // expected-error-re @+1 {{parallel instances ({{[0-9]+}}, {{[0-9]+}}) and ({{[0-9]+}}, {{[0-9]+}}) write the same element}}
    memref.store %v, %a[%l] : memref<64xf32>
  }
  return
}

// -----

// Near miss: i * 8 + j over [4, 8] is injective; so is i floordiv 2 when the
// write also takes i mod 2.
func.func @linearized_injective(%a: memref<32xf32>, %b: memref<2x2xf32>, %v: f32) {
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  vx.spawn on host grid [4, 8] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %r = arith.muli %i, %c8 : index
    %l = arith.addi %r, %j : index
    memref.store %v, %a[%l] : memref<32xf32>
  }
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %h = arith.divui %i, %c2 : index
    %m = arith.remui %i, %c2 : index
    memref.store %v, %b[%h, %m] : memref<2x2xf32>
  }
  return
}

// -----

// Near miss: the stride is the SSA value that gives the inner extent.
func.func @symbolic_stride_is_extent(%a: memref<?xf32>, %v: f32, %n: index) {
  vx.spawn on host grid [4, %n] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %r = arith.muli %i, %n : index
    %l = arith.addi %r, %j : index
    memref.store %v, %a[%l] : memref<?xf32>
  }
  return
}

// -----

// Rule 2, undecidable: a symbolic stride unrelated to the inner extent.
func.func @symbolic_stride_unknown(%a: memref<?xf32>, %v: f32, %n: index, %s: index) {
  vx.spawn on host grid [4, %n] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %r = arith.muli %i, %s : index
    %l = arith.addi %r, %j : index
    // expected-warning @+1 {{cannot prove that parallel instances write distinct elements: an address with a symbolic stride that is not the extent of the index it multiplies}}
    memref.store %v, %a[%l] : memref<?xf32>
  }
  return
}

// -----

// A stride that the body computes from captured values does not vary: it
// is a symbolic stride, not "a product of two varying values".
func.func @computed_symbolic_stride(%a: memref<?xf32>, %v: f32, %n: index) {
  vx.spawn on host grid [8] semantics [parallel] {
    %k = vx.grid_index 0
    %c1 = arith.constant 1 : index
    %m = arith.subi %n, %c1 : index
    %i = arith.muli %k, %m : index
    // expected-warning @+1 {{cannot prove that parallel instances write distinct elements: an address with a symbolic stride that is not the extent of the index it multiplies}}
    memref.store %v, %a[%i] : memref<?xf32>
  }
  return
}

// -----

// A product of two values that vary between instances stays one.
func.func @varying_product(%a: memref<?xf32>, %v: f32) {
  vx.spawn on host grid [8, 8] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %p = arith.muli %i, %j : index
    %l = arith.addi %p, %j : index
    // expected-warning @+1 {{cannot prove that parallel instances write distinct elements: the address uses a product of two varying values in 'arith.muli'}}
    memref.store %v, %a[%l] : memref<?xf32>
  }
  return
}

// -----

// Rule 2, undecidable: a scatter through loaded indices.
func.func @scatter(%a: memref<8xf32>, %idx: memref<8xindex>, %v: f32) {
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %k = memref.load %idx[%i] : memref<8xindex>
    // expected-warning @+1 {{cannot prove that parallel instances write distinct elements: the address uses the result of 'memref.load'}}
    memref.store %v, %a[%k] : memref<8xf32>
  }
  return
}

// -----

// Rule 2 across two writes: a[2i] and a[2i + 2] meet.
func.func @two_writes_collide(%a: memref<20xf32>, %v: f32) {
  %c2 = arith.constant 2 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %e = arith.muli %i, %c2 : index
    %o = arith.addi %e, %c2 : index
    // expected-note @+1 {{the other write}}
    memref.store %v, %a[%e] : memref<20xf32>
    // expected-error-re @+1 {{parallel instances ({{[0-9]}}) and ({{[0-9]}}) write the same element}}
    memref.store %v, %a[%o] : memref<20xf32>
  }
  return
}

// -----

// Near miss: a[2i] and a[2i + 1] interleave; a tile per instance through a
// subview; a transpose; atomic accumulation is no race.
func.func @disjoint_writes(%a: memref<16xf32>, %t: memref<4x32xf32>, %src: memref<8x4xf32>,
                           %dst: memref<4x8xf32>, %sum: memref<1xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %e = arith.muli %i, %c2 : index
    %o = arith.addi %e, %c1 : index
    memref.store %v, %a[%e] : memref<16xf32>
    memref.store %v, %a[%o] : memref<16xf32>
  }
  vx.spawn on host grid [4, 4] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %off = arith.muli %j, %c8 : index
    %tile = memref.subview %t[%i, %off] [1, 8] [1, 1] : memref<4x32xf32> to memref<8xf32, strided<[1], offset: ?>>
    scf.for %k = %c0 to %c8 step %c1 {
      memref.store %v, %tile[%k] : memref<8xf32, strided<[1], offset: ?>>
    }
  }
  vx.spawn on host grid [8, 4] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %x = memref.load %src[%i, %j] : memref<8x4xf32>
    memref.store %x, %dst[%j, %i] : memref<4x8xf32>
  }
  vx.spawn on host grid [8] semantics [parallel] {
    %r = memref.atomic_rmw addf %v, %sum[%c0] : (f32, memref<1xf32>) -> f32
  }
  return
}

// -----

// Rule 3: instance i reads a[i + 1], which instance i + 1 writes.
func.func @reads_neighbour_write(%a: memref<9xf32>) {
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{parallel instances must not read what another writes; mark the dimension 'arbitrary' to order them}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %j = arith.addi %i, %c1 : index
    // expected-error-re @+1 {{read of memory that the spawn writes: parallel instance ({{[0-9]}}) reads the element that instance ({{[0-9]}}) writes}}
    %x = memref.load %a[%j] : memref<9xf32>
    // expected-note @+1 {{written here}}
    memref.store %x, %a[%i] : memref<9xf32>
  }
  return
}

// -----

// Near miss: reading and writing one's own element; a stencil over an
// input-only memref; the same shift along an arbitrary dimension.
func.func @reads_without_race(%a: memref<8xf32>, %in: memref<10xf32>, %out: memref<8xf32>,
                              %b: memref<9xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<8xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c = arith.addi %i, %c1 : index
    %r = arith.addi %i, %c2 : index
    %l = memref.load %in[%i] : memref<10xf32>
    %m = memref.load %in[%c] : memref<10xf32>
    %h = memref.load %in[%r] : memref<10xf32>
    %s0 = arith.addf %l, %m : f32
    %s = arith.addf %s0, %h : f32
    memref.store %s, %out[%i] : memref<8xf32>
  }
  vx.spawn on host grid [8] semantics [arbitrary] {
    %i = vx.grid_index 0
    %j = arith.addi %i, %c1 : index
    %x = memref.load %b[%j] : memref<9xf32>
    memref.store %x, %b[%i] : memref<9xf32>
  }
  return
}

// -----

// Conditions count: one writer of a[0] is no race; two are.
func.func @guarded_writes(%a: memref<4xf32>, %b: memref<8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %first = arith.cmpi eq, %i, %c0 : index
    scf.if %first {
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %low = arith.cmpi ult, %i, %c2 : index
    scf.if %low {
      // expected-error @+1 {{parallel instances (1) and (0) write the same element}}
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %b[%i] : memref<8xf32>
    %positive = arith.cmpf ogt, %x, %v : f32
    scf.if %positive {
      // expected-warning @+1 {{cannot prove that parallel instances write distinct elements: an access under a condition the analysis does not model (it uses the result of 'arith.cmpf')}}
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  return
}

// -----

// A '!=' guard leaves every instance but one writing a[0]: a race (both
// sides of the '!=' are cases of the model).
func.func @not_equal_guard(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %rest = arith.cmpi ne, %i, %c0 : index
    scf.if %rest {
      // expected-error-re @+1 {{parallel instances ({{[1-7]}}) and ({{[1-7]}}) write the same element}}
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  return
}

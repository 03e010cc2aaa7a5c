// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// Only allocations made in the body are per instance; every other memref
// is traced to its roots or treated as captured and unknown. Distinct
// memref arguments do not overlap; where that can be checked, it is.

// A select of two captured memrefs is captured memory: instance 0 writes
// a[0], the others all write b[0].
func.func @select_of_captured(%a: memref<4xf32>, %b: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %first = arith.cmpi eq, %i, %c0 : index
    %m = arith.select %first, %a, %b : memref<4xf32>
    // expected-error-re @+1 {{parallel instances ({{[1-3]}}) and ({{[1-3]}}) write the same element}}
    memref.store %v, %m[%c0] : memref<4xf32>
  }
  return
}

// -----

// A select on a captured flag: every instance writes element 0 of the same
// buffer, a race whichever buffer the flag picks (a warning per choice).
func.func @select_on_flag(%a: memref<4xf32>, %b: memref<4xf32>, %c: i1, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{mark dimension 0}}
  vx.spawn on host grid [4] semantics [parallel] {
    %m = arith.select %c, %a, %b : memref<4xf32>
    // expected-warning-re @+1 {{write to memory captured by the spawn does not depend on parallel dimension 0: instances along it write the same address when %arg2 = {{true|false}}}}
    memref.store %v, %m[%c0] : memref<4xf32>
  }
  return
}

// -----

// Near miss: selecting a[i] or b[i] keeps instances apart.
func.func @select_disjoint(%a: memref<4xf32>, %b: memref<4xf32>, %c: i1, %v: f32) {
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %m = arith.select %c, %a, %b : memref<4xf32>
    memref.store %v, %m[%i] : memref<4xf32>
  }
  return
}

// -----

// A memref out of scf.if is the captured buffer of the branch taken.
func.func @memref_out_of_if(%a: memref<4xf32>, %b: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %low = arith.cmpi ult, %i, %c2 : index
    %m = scf.if %low -> memref<4xf32> {
      scf.yield %a : memref<4xf32>
    } else {
      scf.yield %b : memref<4xf32>
    }
    // expected-error-re @+1 {{parallel instances ({{[0-3]}}) and ({{[0-3]}}) write the same element}}
    memref.store %v, %m[%c0] : memref<4xf32>
  }
  return
}

// -----

// Near miss: a memref carried through scf.for iteration arguments is each
// of its initial and yielded values, here always %a, indexed by the
// instance.
func.func @memref_through_iter_args(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %m = scf.for %k = %c0 to %c2 step %c1 iter_args(%cur = %a) -> memref<4xf32> {
      scf.yield %cur : memref<4xf32>
    }
    memref.store %v, %m[%i] : memref<4xf32>
  }
  return
}

// -----

memref.global "private" @table : memref<4xf32> = dense<0.0>

// memref.get_global in the body is captured memory.
func.func @global_in_body(%v: f32) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{mark dimension 0}}
  vx.spawn on host grid [4] semantics [parallel] {
    %g = memref.get_global @table : memref<4xf32>
    // expected-error @+1 {{write to memory captured by the spawn does not depend on parallel dimension 0}}
    memref.store %v, %g[%c0] : memref<4xf32>
  }
  return
}

// -----

memref.global "private" @table : memref<9xf32> = dense<0.0>

// Two get_globals of one symbol are one buffer.
func.func @two_get_globals(%v: f32) {
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{parallel instances must not read what another writes}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %j = arith.addi %i, %c1 : index
    %g = memref.get_global @table : memref<9xf32>
    %h = memref.get_global @table : memref<9xf32>
    // expected-error-re @+1 {{read of memory that the spawn writes: parallel instance ({{[0-7]}}) reads the element that instance ({{[0-7]}}) writes}}
    %x = memref.load %h[%j] : memref<9xf32>
    // expected-note @+1 {{written here}}
    memref.store %x, %g[%i] : memref<9xf32>
  }
  return
}

// -----

memref.global "private" @table : memref<4xf32> = dense<0.0>
func.func private @get_table() -> memref<4xf32>

// A call of a function that is not in the module returning a memref: the
// memref cannot be followed, and may be memory of the body: refused.
func.func @call_returns_memref(%v: f32) {
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-note @+1 {{the memref comes from here}}
    %m = func.call @get_table() : () -> memref<4xf32>
    // expected-error @+1 {{uses a memref that cannot be followed to the memory it views (a memref returned by a call whose callee is not in the module)}}
    memref.store %v, %m[%i] : memref<4xf32>
  }
  return
}

// -----

// An unrealized cast hides where the memory comes from: refused.
func.func @unrealized_cast(%p: i64, %v: f32) {
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-note @+1 {{the memref comes from here}}
    %m = builtin.unrealized_conversion_cast %p : i64 to memref<4xf32>
    // expected-error @+1 {{uses a memref that cannot be followed to the memory it views (a memref produced by 'builtin.unrealized_conversion_cast')}}
    memref.store %v, %m[%i] : memref<4xf32>
  }
  return
}

// -----

// Near miss: allocations made in the body are per instance.
func.func @allocations_in_body(%v: f32) {
  %c0 = arith.constant 0 : index
  vx.spawn on host grid [4] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    %t = memref.alloca() : memref<4xf32>
    memref.store %v, %s[%c0] : memref<4xf32>
    memref.store %v, %t[%c0] : memref<4xf32>
  }
  return
}

// -----

// A layout with a zero stride makes rows share memory: a[i, j] and
// a[i', j] are one element.
func.func @zero_stride(%a: memref<4x8xf32, strided<[0, 1]>>, %v: f32) {
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [4, 8] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    // expected-error-re @+1 {{parallel instances ({{[0-3]}}, {{[0-7]}}) and ({{[0-3]}}, {{[0-7]}}) write the same element}}
    memref.store %v, %a[%i, %j] : memref<4x8xf32, strided<[0, 1]>>
  }
  return
}

// -----

// Overlapping strides: rows of 8 elements 4 apart.
func.func @overlapping_strides(%a: memref<4x8xf32, strided<[4, 1]>>, %v: f32) {
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [4, 8] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    // expected-error-re @+1 {{parallel instances ({{[0-3]}}, {{[0-7]}}) and ({{[0-3]}}, {{[0-7]}}) write the same element}}
    memref.store %v, %a[%i, %j] : memref<4x8xf32, strided<[4, 1]>>
  }
  return
}

// -----

// Near miss: a broadcast input (stride 0) that is only read.
func.func @broadcast_input(%row: memref<4x8xf32, strided<[0, 1]>>, %out: memref<4x8xf32>) {
  vx.spawn on host grid [4, 8] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %x = memref.load %row[%i, %j] : memref<4x8xf32, strided<[0, 1]>>
    memref.store %x, %out[%i, %j] : memref<4x8xf32>
  }
  return
}

// -----

// The aliasing contract at call sites: one buffer as two arguments of a
// function whose spawn writes one of them.
func.func @shift(%dst: memref<9xf32>, %src: memref<9xf32>) {
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{the spawn}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %j = arith.addi %i, %c1 : index
    %x = memref.load %src[%j] : memref<9xf32>
    memref.store %x, %dst[%i] : memref<9xf32>
  }
  return
}

func.func @shift_views(%dst: memref<9xf32, strided<[1], offset: ?>>,
                       %src: memref<9xf32, strided<[1], offset: ?>>) {
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{the spawn}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %j = arith.addi %i, %c1 : index
    %x = memref.load %src[%j] : memref<9xf32, strided<[1], offset: ?>>
    memref.store %x, %dst[%i] : memref<9xf32, strided<[1], offset: ?>>
  }
  return
}

func.func @caller(%a: memref<9xf32>, %b: memref<18xf32>) {
  // expected-error @+1 {{passes one buffer as arguments 0 and 1 of @shift, whose spawns write one of them and assume distinct memref arguments do not overlap}}
  func.call @shift(%a, %a) : (memref<9xf32>, memref<9xf32>) -> ()
  %lo = memref.subview %b[0] [9] [1] : memref<18xf32> to memref<9xf32, strided<[1]>>
  %hi = memref.subview %b[1] [9] [1] : memref<18xf32> to memref<9xf32, strided<[1], offset: 1>>
  %lo2 = memref.cast %lo : memref<9xf32, strided<[1]>> to memref<9xf32, strided<[1], offset: ?>>
  %hi2 = memref.cast %hi : memref<9xf32, strided<[1], offset: 1>> to memref<9xf32, strided<[1], offset: ?>>
  // expected-warning @+1 {{passes views of one buffer as arguments 0 and 1 of @shift_views}}
  func.call @shift_views(%lo2, %hi2) : (memref<9xf32, strided<[1], offset: ?>>, memref<9xf32, strided<[1], offset: ?>>) -> ()
  return
}

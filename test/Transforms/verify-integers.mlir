// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// Integer ops keep their bit-width semantics: casts truncate and extend,
// products wrap, divisions of negative values truncate, unsigned
// comparisons and loops read their operands unsigned.

// trunci to i1 keeps the lowest bit: instances 0 and 2 store at 0.
func.func @truncation_to_i1(%a: memref<4xf32>, %v: f32) {
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %w = arith.index_cast %i : index to i64
    %bit = arith.trunci %w : i64 to i1
    %x = arith.extui %bit : i1 to i64
    %k = arith.index_cast %x : i64 to index
    // expected-error-re @+1 {{parallel instances ({{[0-3]}}) and ({{[0-3]}}) write the same element}}
    memref.store %v, %a[%k] : memref<4xf32>
  }
  return
}

// -----

// Near miss: extsi of the same bit is 0 or -1; with 2 * i added back the
// indices stay distinct (with i alone, instances 2 and 3 would meet).
func.func @sign_extension(%a: memref<8xf32>, %v: f32) {
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %w = arith.index_cast %i : index to i64
    %bit = arith.trunci %w : i64 to i1
    %x = arith.extsi %bit : i1 to i64
    %w2 = arith.addi %w, %w : i64
    %y = arith.addi %x, %w2 : i64
    %c1 = arith.constant 1 : i64
    %z = arith.addi %y, %c1 : i64
    %k = arith.index_cast %z : i64 to index
    memref.store %v, %a[%k] : memref<8xf32>
  }
  return
}

// -----

// divsi truncates toward zero: (i - 1) / 2 + 1 is 1 for i = 0 and i = 1.
func.func @signed_division_truncates(%a: memref<4xf32>, %v: f32) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [2] semantics [parallel] {
    %i = vx.grid_index 0
    %d = arith.subi %i, %c1 : index
    %q = arith.divsi %d, %c2 : index
    %k = arith.addi %q, %c1 : index
    // expected-error @+1 {{parallel instances (1) and (0) write the same element}}
    memref.store %v, %a[%k] : memref<4xf32>
  }
  return
}

// -----

// Near miss: remsi takes the sign of the dividend: (i - 1) rem 2 is -1, 0,
// 1 for i = 0, 1, 2 (a floor modulo would give 1, 0, 1).
func.func @signed_remainder(%a: memref<4xf32>, %v: f32) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  vx.spawn on host grid [3] semantics [parallel] {
    %i = vx.grid_index 0
    %d = arith.subi %i, %c1 : index
    %r = arith.remsi %d, %c2 : index
    %k = arith.addi %r, %c1 : index
    memref.store %v, %a[%k] : memref<4xf32>
  }
  return
}

// -----

// i * 2^63 wraps in 64 bits: instances 0 and 2 store at 0.
func.func @product_wraps(%a: memref<4xf32>, %v: f32) {
  %big = arith.constant -9223372036854775808 : i64
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %w = arith.index_cast %i : index to i64
    %p = arith.muli %w, %big : i64
    %k = arith.index_cast %p : i64 to index
    // expected-error-re @+1 {{parallel instances ({{[0-3]}}) and ({{[0-3]}}) write the same element}}
    memref.store %v, %a[%k] : memref<4xf32>
  }
  return
}

// -----

// muli in i8: 4 * 64 wraps to 0, so instances 0 and 4 meet.
func.func @narrow_product_wraps(%a: memref<256xf32>, %v: f32) {
  %c64 = arith.constant 64 : i8
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %n = arith.index_cast %i : index to i8
    %p = arith.muli %n, %c64 : i8
    %k = arith.index_castui %p : i8 to index
    // expected-error-re @+1 {{parallel instances ({{[0-7]}}) and ({{[0-7]}}) write the same element}}
    memref.store %v, %a[%k] : memref<256xf32>
  }
  return
}

// -----

// cmpi ugt reads unsigned: i - 1 is huge for i = 0, so instances 0 and 7
// both write.
func.func @unsigned_comparison(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %d = arith.subi %i, %c1 : index
    %big = arith.cmpi ugt, %d, %c5 : index
    scf.if %big {
      // expected-error-re @+1 {{parallel instances ({{0|7}}) and ({{0|7}}) write the same element}}
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  return
}

// -----

// Near miss: (i - 1) ult 1 holds for i = 1 only (i = 0 gives 2^64 - 1).
func.func @unsigned_guard_one_writer(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %d = arith.subi %i, %c1 : index
    %one = arith.cmpi ult, %d, %c1 : index
    scf.if %one {
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  return
}

// -----

// scf.for unsigned: for i = 0 the upper bound i - 1 is 2^64 - 1, so
// instances 0 and 2 both run the iteration k = 0.
func.func @unsigned_loop(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [3] semantics [parallel] {
    %i = vx.grid_index 0
    %ub = arith.subi %i, %c1 : index
    scf.for unsigned %k = %c0 to %ub step %c1 {
      // expected-error-re @+1 {{parallel instances ({{0|2}}) and ({{0|2}}) write the same element}}
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  return
}

// -----

// Near miss: an unsigned loop from i - 1 to 1 runs for i = 1 only.
func.func @unsigned_loop_one_writer(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [3] semantics [parallel] {
    %i = vx.grid_index 0
    %lb = arith.subi %i, %c1 : index
    scf.for unsigned %k = %lb to %c1 step %c1 {
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  return
}

// -----

// index_castui of the i8 200 is 200, not -56: the loop runs, and every
// instance writes a[0].
func.func @unsigned_cast_bound(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n8 = arith.constant 200 : i8
  // expected-note @+1 {{mark dimension 0 'arbitrary'}}
  vx.spawn on host grid [2] semantics [parallel] {
    %ub = arith.index_castui %n8 : i8 to index
    scf.for %k = %c0 to %ub step %c1 {
      // expected-error @+1 {{write to memory captured by the spawn does not depend on parallel dimension 0: every instance along it writes the same address}}
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  return
}

// -----

// Shifts and masks: i >> 1 meets for i = 2 and 3; i & 1 for i = 0 and 2.
func.func @shifts_and_masks(%a: memref<4xf32>, %b: memref<4xf32>, %v: f32) {
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %h = arith.shrui %i, %c1 : index
    // expected-error-re @+1 {{parallel instances ({{[0-3]}}) and ({{[0-3]}}) write the same element}}
    memref.store %v, %a[%h] : memref<4xf32>
  }
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %m = arith.andi %i, %c1 : index
    // expected-error-re @+1 {{parallel instances ({{[0-3]}}) and ({{[0-3]}}) write the same element}}
    memref.store %v, %b[%m] : memref<4xf32>
  }
  return
}

// -----

// Near miss: i << 1 stays distinct.
func.func @shift_left_distinct(%a: memref<8xf32>, %v: f32) {
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %s = arith.shli %i, %c1 : index
    memref.store %v, %a[%s] : memref<8xf32>
  }
  return
}

// -----

// minsi clamps: instances 3..7 all store at 3.
func.func @minimum_clamps(%a: memref<8xf32>, %v: f32) {
  %c3 = arith.constant 3 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %m = arith.minsi %i, %c3 : index
    // expected-error-re @+1 {{parallel instances ({{[3-7]}}) and ({{[3-7]}}) write the same element}}
    memref.store %v, %a[%m] : memref<8xf32>
  }
  return
}

// -----

// Near miss (found by fuzz/soundness.py): an unsigned loop from -2^63 (2^63
// unsigned) to the grid index never runs, so nothing is written.
func.func @unsigned_loop_from_min(%a: memref<8xf32>, %v: f32) {
  vx.spawn on host grid [3] semantics [parallel] {
    %g0 = vx.grid_index 0
    %lo = arith.constant -9223372036854775808 : index
    %c3 = arith.constant 3 : index
    %c0 = arith.constant 0 : index
    scf.for unsigned %k = %lo to %g0 step %c3 {
      memref.store %v, %a[%c0] : memref<8xf32>
    }
  }
  return
}

// -----

// A loop whose lower bound the model drops (a product of a loaded value and
// the grid index) may or may not run: a warning, not a proven race.
func.func @unmodelled_loop_bound(%a: memref<8xf32>, %t: memref<8xindex>, %v: f32) {
  vx.spawn on host grid [3] semantics [parallel] {
    %g0 = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = memref.load %t[%c0] : memref<8xindex>
    %lo = arith.muli %x, %g0 : index
    scf.for %k = %lo to %g0 step %c1 {
      // expected-warning @+1 {{cannot prove that parallel instances write distinct elements: an access inside 'scf.for', whose bounds the analysis does not model}}
      memref.store %v, %a[%c0] : memref<8xf32>
    }
  }
  return
}

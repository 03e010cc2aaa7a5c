// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// Guards are guards whatever op expresses them: a write reached by one
// instance only is no race. A witness that needs particular values of
// captured scalars is a warning naming them, unless the race holds for
// every value.

// Near misses: a[0] written by instance 0 only, through scf.index_switch,
// affine.if, a loop from i to 1 and an scf.while entered by instance 0.
func.func @one_writer(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    scf.index_switch %i
    case 0 {
      memref.store %v, %a[%c0] : memref<4xf32>
      scf.yield
    }
    default {
    }
  }
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    affine.if affine_set<(d0) : (d0 == 0)>(%i) {
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    scf.for %k = %i to %c1 step %c1 {
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %end = scf.while (%k = %i) : (index) -> index {
      %more = arith.cmpi slt, %k, %c1 : index
      scf.condition(%more) %k : index
    } do {
    ^bb0(%k: index):
      memref.store %v, %a[%c0] : memref<4xf32>
      %next = arith.addi %k, %c1 : index
      scf.yield %next : index
    }
  }
  return
}

// -----

// The default region of the switch is reached by instances 1 to 7.
func.func @switch_default(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    scf.index_switch %i
    case 0 {
      scf.yield
    }
    default {
      // expected-error-re @+1 {{parallel instances ({{[1-7]}}) and ({{[1-7]}}) write the same element}}
      memref.store %v, %a[%c0] : memref<4xf32>
    }
  }
  return
}

// -----

// A while loop entered by instances 0 and 1 (k < 2).
func.func @while_two_writers(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %end = scf.while (%k = %i) : (index) -> index {
      %more = arith.cmpi slt, %k, %c2 : index
      scf.condition(%more) %k : index
    } do {
    ^bb0(%k: index):
      // expected-error-re @+1 {{parallel instances ({{[0-1]}}) and ({{[0-1]}}) write the same element}}
      memref.store %v, %a[%c0] : memref<4xf32>
      %next = arith.addi %k, %c1 : index
      scf.yield %next : index
    }
  }
  return
}

// -----

// Near miss: a uniform i1 argument chooses between a[i] and a[i + 1] for
// every instance alike, so no instance's then-branch meets another's
// else-branch.
func.func @uniform_choice(%a: memref<9xf32>, %c: i1, %v: f32) {
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    scf.if %c {
      memref.store %v, %a[%i] : memref<9xf32>
    } else {
      %j = arith.addi %i, %c1 : index
      memref.store %v, %a[%j] : memref<9xf32>
    }
  }
  return
}

// -----

// A witness that depends on a captured offset: a race only for some values
// of it, named in the warning.
func.func @captured_offset(%a: memref<16xf32>, %off: index) {
  // expected-note @+1 {{parallel instances must not read what another writes}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %j = arith.addi %i, %off : index
    // expected-warning-re @+1 {{read of memory that the spawn writes: parallel instance ({{[0-7]}}) reads the element that instance ({{[0-7]}}) writes when %arg1 = {{-?[1-7]}}}}
    %x = memref.load %a[%j] : memref<16xf32>
    // expected-note @+1 {{written here}}
    memref.store %x, %a[%i] : memref<16xf32>
  }
  return
}

// -----

// A race for every value of the captured index: an error.
func.func @race_for_every_value(%a: memref<16xf32>, %off: index, %v: f32) {
  // expected-note @+1 {{mark dimension 0}}
  vx.spawn on host grid [8] semantics [parallel] {
    // expected-error @+1 {{write to memory captured by the spawn does not depend on parallel dimension 0: every instance along it writes the same address}}
    memref.store %v, %a[%off] : memref<16xf32>
  }
  return
}

// -----

// A race for both values of a captured flag, with a witness that depends on
// it: every value is tried, an error.
func.func @race_for_both_flags(%a: memref<16xf32>, %c: i1) {
  %one = arith.constant 1 : index
  %minus = arith.constant -1 : index
  %c4 = arith.constant 4 : index
  // expected-note @+1 {{parallel instances must not read what another writes}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %d = arith.select %c, %minus, %one : index
    %k = arith.addi %i, %c4 : index
    %j = arith.addi %k, %d : index
    // expected-error-re @+1 {{read of memory that the spawn writes: parallel instance ({{[0-7]}}) reads the element that instance ({{[0-7]}}) writes{{$}}}}
    %x = memref.load %a[%j] : memref<16xf32>
    // expected-note @+1 {{written here}}
    memref.store %x, %a[%k] : memref<16xf32>
  }
  return
}

// -----

// A race for every value of a captured i8, but 256 values are more than the
// budget tries one by one: a warning that names one (docs/design.md).
func.func @race_for_every_byte(%a: memref<16xf32>, %s: i8) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  // expected-note @+1 {{parallel instances must not read what another writes}}
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %u = arith.index_castui %s : i8 to index
    %parity = arith.remui %u, %c2 : index
    %twice = arith.muli %parity, %c2 : index
    %k = arith.addi %i, %c3 : index
    %j = arith.addi %k, %twice : index
    // expected-warning-re @+1 {{read of memory that the spawn writes: parallel instance ({{[0-7]}}) reads the element that instance ({{[0-7]}}) writes when %arg1 = {{-?[0-9]+}}}}
    %x = memref.load %a[%j] : memref<16xf32>
    // expected-note @+1 {{written here}}
    memref.store %x, %a[%i] : memref<16xf32>
  }
  return
}

// -----

// A loop with a captured trip count writes only when it runs: a warning
// with the count it needs.
func.func @captured_trip_count(%a: memref<16xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{mark dimension 0}}
  vx.spawn on host grid [8] semantics [parallel] {
    scf.for %k = %c0 to %n step %c1 {
      // expected-warning-re @+1 {{write to memory captured by the spawn does not depend on parallel dimension 0: instances along it write the same address when %arg1 = {{[1-9][0-9]*}}}}
      memref.store %v, %a[%k] : memref<16xf32>
    }
  }
  return
}

// -----

// A witness names its values in the order the model met them (the outer
// loop's count first), the same from run to run: they were ordered by
// address.
func.func @two_trip_counts(%a: memref<16xf32>, %n: index, %m: index,
                           %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{mark dimension 0}}
  vx.spawn on host grid [8] semantics [parallel] {
    scf.for %k = %c0 to %m step %c1 {
      scf.for %l = %c0 to %n step %c1 {
        // expected-warning-re @+1 {{write to memory captured by the spawn does not depend on parallel dimension 0: instances along it write the same address when %arg2 = {{[1-9][0-9]*}} and %arg1 = {{[1-9][0-9]*}}}}
        memref.store %v, %a[%k] : memref<16xf32>
      }
    }
  }
  return
}

// -----

// A dynamic grid size is chosen by the witness: still an error, naming it.
func.func @dynamic_grid(%a: memref<16xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{mark dimension 0}}
  vx.spawn on host grid [%n] semantics [parallel] {
    // expected-error-re @+1 {{write to memory captured by the spawn does not depend on parallel dimension 0: every instance along it writes the same address (with %arg1 = {{[2-9]|[1-9][0-9]+}})}}
    memref.store %v, %a[%c0] : memref<16xf32>
  }
  return
}

// RUN: vx-opt %s --vx-verify-semantics -split-input-file -verify-diagnostics

// Memory roots through every value that chooses a memref (issue 27): each
// candidate is followed, whichever way the choice goes, and a memref that
// cannot be followed inside the body is refused.

// Both operands of the select are one buffer: every instance writes a[0]
// whatever the condition (the second path to %a used to be dropped, and the
// one kept was infeasible).
func.func @select_of_one_buffer(%a: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  // expected-note @below {{mark dimension 0 'arbitrary'}}
  vx.spawn on host grid [4] semantics [parallel] {
    %m = arith.select %true, %a, %a : memref<4xf32>
    // expected-error @below {{write to memory captured by the spawn does not depend on parallel dimension 0}}
    memref.store %v, %m[%c0] : memref<4xf32>
  }
  return
}

// -----

// The same through scf.if with a constant condition.
func.func @if_of_one_buffer(%a: memref<4xf32>, %b: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  // expected-note @below {{mark dimension 0 'arbitrary'}}
  vx.spawn on host grid [4] semantics [parallel] {
    %m = scf.if %false -> memref<4xf32> {
      scf.yield %a : memref<4xf32>
    } else {
      %n = arith.select %false, %b, %a : memref<4xf32>
      scf.yield %n : memref<4xf32>
    }
    // expected-error @below {{write to memory captured by the spawn does not depend on parallel dimension 0}}
    memref.store %v, %m[%c0] : memref<4xf32>
  }
  return
}

// -----

// smem scratch chosen by scf.index_switch in a thread loop: every iteration
// writes element 0 of it (the result used to be an untraced buffer, which
// no scratch aliases).
func.func @switch_of_scratch(%out: memref<4xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 8 {
    %s = vx.scratch smem : memref<4xf32>
    %m = scf.index_switch %k -> memref<4xf32>
    case 1 {
      scf.yield %s : memref<4xf32>
    }
    default {
      scf.yield %s : memref<4xf32>
    }
    // expected-note @below {{the iterations of a thread loop must be independent}}
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      // expected-error-re @below {{iterations ({{[0-7]}}) and ({{[0-7]}}) of a thread loop (instance ({{[0-3]}})) write the same element}}
      memref.store %v, %m[%c0] : memref<4xf32>
      scf.reduce
    }
  }
  return
}

// -----

// A memref carried through scf.while is each of the values it can take.
func.func @while_carried(%a: memref<4xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @below {{mark dimension 0 'arbitrary'}}
  vx.spawn on host grid [4] semantics [parallel] {
    %r:2 = scf.while (%i = %c0, %m = %a) : (index, memref<4xf32>) -> (index, memref<4xf32>) {
      %go = arith.cmpi ult, %i, %n : index
      scf.condition(%go) %i, %m : index, memref<4xf32>
    } do {
    ^bb0(%j: index, %mm: memref<4xf32>):
      %j1 = arith.addi %j, %c1 : index
      scf.yield %j1, %mm : index, memref<4xf32>
    }
    // expected-error @below {{write to memory captured by the spawn does not depend on parallel dimension 0}}
    memref.store %v, %r#1[%c0] : memref<4xf32>
  }
  return
}

// -----

// Near miss: the while-carried buffer indexed by the instance.
func.func @while_carried_distinct(%a: memref<4xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %r:2 = scf.while (%i = %c0, %m = %a) : (index, memref<4xf32>) -> (index, memref<4xf32>) {
      %go = arith.cmpi ult, %i, %n : index
      scf.condition(%go) %i, %m : index, memref<4xf32>
    } do {
    ^bb0(%j: index, %mm: memref<4xf32>):
      %j1 = arith.addi %j, %c1 : index
      scf.yield %j1, %mm : index, memref<4xf32>
    }
    memref.store %v, %r#1[%p] : memref<4xf32>
  }
  return
}

// -----

// Iteration arguments that switch between two buffers: either may be
// written, but which one depends on the trip count, so a collision is
// possible, not certain.
func.func @for_switching(%a: memref<4xf32>, %b: memref<4xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [4] semantics [parallel] {
    %m = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %a) -> memref<4xf32> {
      scf.yield %b : memref<4xf32>
    }
    // expected-warning @below {{cannot prove that parallel instances write distinct elements: a memref chosen by 'scf.for'}}
    memref.store %v, %m[%c0] : memref<4xf32>
  }
  return
}

// -----

// A call of a function of the module is followed into it: @pick returns
// one of its arguments.
func.func private @pick(%x: memref<4xf32>, %y: memref<4xf32>, %c: i1) -> memref<4xf32> {
  %m = arith.select %c, %x, %y : memref<4xf32>
  return %m : memref<4xf32>
}

func.func @call_followed(%a: memref<4xf32>, %v: f32, %c: i1) {
  %c0 = arith.constant 0 : index
  // expected-note @below {{mark dimension 0 'arbitrary'}}
  vx.spawn on host grid [4] semantics [parallel] {
    // expected-warning @below {{a call, whose effects the analysis does not see}}
    %m = func.call @pick(%a, %a, %c) : (memref<4xf32>, memref<4xf32>, i1) -> memref<4xf32>
    // expected-error @below {{write to memory captured by the spawn does not depend on parallel dimension 0}}
    memref.store %v, %m[%c0] : memref<4xf32>
  }
  return
}

// -----

// A memref loaded from memory cannot be followed: refused.
func.func @loaded_memref(%table: memref<1xmemref<4xf32>>, %v: f32) {
  %c0 = arith.constant 0 : index
  vx.spawn on host grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    // expected-note @below {{the memref comes from here}}
    %m = memref.load %table[%c0] : memref<1xmemref<4xf32>>
    // expected-error @below {{'memref.store' op uses a memref that cannot be followed to the memory it views (a memref produced by 'memref.load')}}
    memref.store %v, %m[%p] : memref<4xf32>
  }
  return
}

// -----

// So is one returned by a function that is not in the module.
func.func private @external() -> memref<4xf32>

func.func @external_call(%v: f32) {
  vx.spawn on host grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    // expected-note @below {{the memref comes from here}}
    %m = func.call @external() : () -> memref<4xf32>
    // expected-error @below {{uses a memref that cannot be followed to the memory it views (a memref returned by a call whose callee is not in the module)}}
    memref.store %v, %m[%p] : memref<4xf32>
  }
  return
}

// -----

// A memref computed above the spawn is captured memory, however it was
// made: not refused, but its address is not modelled.
func.func private @external() -> memref<4xf32>

func.func @external_call_above(%v: f32) {
  %m = func.call @external() : () -> memref<4xf32>
  vx.spawn on host grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    // expected-warning @below {{cannot prove that parallel instances write distinct elements: a memref returned by a call whose callee is not in the module}}
    memref.store %v, %m[%p] : memref<4xf32>
  }
  return
}

// -----

// A store outside thread loops through a memref that is private scratch
// (one copy per thread) or smem (one for the CTA): neither thread 0 alone
// nor every thread can do it. The checker refuses it as the CTA mapping
// does (test/Conversion/VxToGPU/vx-to-gpu-cta-invalid.mlir).
func.func @once_write_private_or_smem(%flag: i1, %out: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 8 {
    %g = vx.grid_index 0
    %private = vx.scratch : memref<8xf32>
    %shared = vx.scratch smem : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      memref.store %one, %private[%t] : memref<8xf32>
      memref.store %one, %shared[%t] : memref<8xf32>
      scf.reduce
    }
    // expected-note @below {{the memref is chosen here}}
    %either = arith.select %flag, %private, %shared : memref<8xf32>
    // expected-error @below {{outside thread loops writes through a memref that may be memory each thread has its own copy of (the scratch at}}
    memref.store %one, %either[%c0] : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %shared[%t] : memref<8xf32>
      memref.store %x, %out[%g, %t] : memref<2x8xf32>
      scf.reduce
    }
  }
  return
}

// -----

// An alloca outside thread loops that a thread loop writes is instance
// memory, placed where the CTA mapping will put it: here in smem, since
// code outside thread loops reads elements that the thread loop's
// iterations wrote. A store through a memref that may be it or private
// scratch is then refused like the choice between smem and private
// scratch above, with a note saying why the alloca is shared.
func.func @once_write_shared_alloca_or_private(%flag: i1,
                                               %out: memref<2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 8 {
    %g = vx.grid_index 0
    // expected-note @below {{a thread loop writes this alloca and other iterations or code outside thread loops touch the same elements, so the threads share it (it is placed in smem)}}
    %staged = memref.alloca() : memref<8xf32>
    %private = vx.scratch : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      memref.store %one, %staged[%t] : memref<8xf32>
      memref.store %one, %private[%t] : memref<8xf32>
      scf.reduce
    }
    // expected-note @below {{the memref is chosen here}}
    %either = arith.select %flag, %private, %staged : memref<8xf32>
    // expected-error @below {{may be memory each thread has its own copy of (the scratch at}}
    memref.store %one, %either[%c0] : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %x = memref.load %staged[%i] : memref<8xf32>
      memref.store %x, %out[%g, %i] : memref<2x16xf32>
    }
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %y = memref.load %private[%t] : memref<8xf32>
      %at = arith.addi %t, %c8 : index
      memref.store %y, %out[%g, %at] : memref<2x16xf32>
      scf.reduce
    }
  }
  return
}

// -----

// The same choice where each thread-loop iteration keeps to its own
// elements of the alloca: it is placed as private scratch, so every thread
// makes the store in its own copy, and the choice is accepted.
func.func @once_write_private_alloca_or_private(%flag: i1,
                                                %out: memref<2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 8 {
    %g = vx.grid_index 0
    %staged = memref.alloca() : memref<8xf32>
    %private = vx.scratch : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      memref.store %one, %staged[%t] : memref<8xf32>
      memref.store %one, %private[%t] : memref<8xf32>
      scf.reduce
    }
    %either = arith.select %flag, %private, %staged : memref<8xf32>
    memref.store %one, %either[%c0] : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %staged[%t] : memref<8xf32>
      %y = memref.load %private[%t] : memref<8xf32>
      %at = arith.addi %t, %c8 : index
      memref.store %x, %out[%g, %t] : memref<2x16xf32>
      memref.store %y, %out[%g, %at] : memref<2x16xf32>
      scf.reduce
    }
  }
  return
}

// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// An alloca outside the thread loops of a CTA body is memory of the whole
// instance (docs/design.md, "The per-thread memory model"): thread loops
// may communicate through it (the CTA mapping places it as scratch, with
// the barriers it needs), so it must have a static shape.
func.func @dynamic(%a: memref<2x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 32 {
    %p = vx.grid_index 0
    // expected-error @below {{'memref.alloca' op outside thread loops allocates memory of the whole instance, which a thread loop writes, so it is placed as scratch, which needs a static shape and no layout or memory space; got 'memref<?xf32>' (allocate it inside the thread loop for memory of one iteration, or use 'vx.scratch')}}
    %buf = memref.alloca(%n) : memref<?xf32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %a[%p, %i] : memref<2x?xf32>
      memref.store %v, %buf[%i] : memref<?xf32>
    }
    %x = memref.load %buf[%c0] : memref<?xf32>
    memref.store %x, %a[%p, %c0] : memref<2x?xf32>
  }
  return
}

// -----

// The same for one in an scf.for outside the thread loops.
func.func @memory_space(%a: memref<2x8xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    scf.for %k = %c0 to %c2 step %c1 {
      // expected-error @below {{'memref.alloca' op outside thread loops allocates memory of the whole instance, which a thread loop writes, so it is placed as scratch, which needs a static shape and no layout or memory space; got 'memref<8xf32, 5>'}}
      %buf = memref.alloca() : memref<8xf32, 5>
      scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
        %v = memref.load %a[%p, %i] : memref<2x8xf32>
        memref.store %v, %buf[%i] : memref<8xf32, 5>
      }
    }
  }
  return
}

// -----

// The allocas that no thread loop writes draw nothing, whatever their
// shape: one inside a thread loop (one per iteration), one that only code
// outside thread loops writes (each thread keeps a copy, written alike),
// which thread loops may read.
func.func @per_iteration(%a: memref<2x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %once = memref.alloca(%n) : memref<?xf32>
    %x = memref.load %a[%p, %c0] : memref<2x8xf32>
    memref.store %x, %once[%c0] : memref<?xf32>
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %own = memref.alloca(%n) : memref<?xf32>
      %v = memref.load %a[%p, %i] : memref<2x8xf32>
      memref.store %v, %own[%c0] : memref<?xf32>
      %w = memref.load %own[%c0] : memref<?xf32>
      %y = memref.load %once[%c0] : memref<?xf32>
      %z = arith.addf %w, %y : f32
      memref.store %z, %a[%p, %i] : memref<2x8xf32>
    }
  }
  return
}

// -----

// Instance memory is checked like shared memory: two iterations of one
// thread loop that write and read one element of the alloca race.
func.func @iterations_race(%a: memref<2x8xf32>, %out: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 8 {
    %p = vx.grid_index 0
    %buf = memref.alloca() : memref<8xf32>
    // expected-note @below {{the iterations of a thread loop must be independent}}
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %v = memref.load %a[%p, %i] : memref<2x8xf32>
      // expected-note @below {{the other access}}
      memref.store %v, %buf[%i] : memref<8xf32>
      %j = arith.subi %c7, %i : index
      // expected-error @below {{iterations (4) and (3) of a thread loop (instance (1)) read and write the same element}}
      %w = memref.load %buf[%j] : memref<8xf32>
      memref.store %w, %out[%p, %i] : memref<2x8xf32>
    }
  }
  return
}

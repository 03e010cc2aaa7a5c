// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// Thread loops (scf.parallel in a spawn body, not inside another
// scf.parallel of it, VX_SPEC 2.1): their iterations must be independent,
// and private scratch used in them must be owned by threads (iteration i
// runs on thread i mod N).

func.func @iterations_write_one_element(%a: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-note @+1 {{the iterations of a thread loop must be independent}}
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      // expected-error-re @+1 {{iterations ({{[0-7]}}) and ({{[0-7]}}) of a thread loop (instance ({{[0-3]}})) write the same element}}
      memref.store %v, %a[%i, %c0] : memref<4x8xf32>
    }
  }
  return
}

// -----

// Near misses: one element per iteration; a nested scf.parallel runs
// sequentially in its thread; reads only.
func.func @independent_iterations(%a: memref<4x8xf32>, %b: memref<8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      memref.store %v, %a[%i, %t] : memref<4x8xf32>
      scf.parallel (%u) = (%c0) to (%c2) step (%c1) {
        %x = memref.load %b[%t] : memref<8xf32>
        memref.store %x, %a[%i, %t] : memref<4x8xf32>
      }
    }
  }
  return
}

// -----

// Iterations reading what a neighbour writes in shared memory.
func.func @smem_neighbour(%out: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %s = vx.scratch smem : memref<8xf32>
    // expected-note @+1 {{the iterations of a thread loop must be independent}}
    scf.parallel (%t) = (%c0) to (%c7) step (%c1) {
      %n = arith.addi %t, %c1 : index
      // expected-error-re @+1 {{iterations ({{[0-6]}}) and ({{[0-6]}}) of a thread loop (instance ({{[0-3]}})) read and write the same element}}
      %x = memref.load %s[%n] : memref<8xf32>
      // expected-note @+1 {{the other access}}
      memref.store %x, %s[%t] : memref<8xf32>
    }
  }
  return
}

// -----

// Near miss: thread loops one after the other exchange data through
// shared memory (the CTA mapping places a barrier between them).
func.func @phases(%out: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %s = vx.scratch smem : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      memref.store %v, %s[%t] : memref<8xf32>
    }
    scf.parallel (%t) = (%c0) to (%c7) step (%c1) {
      %n = arith.addi %t, %c1 : index
      %x = memref.load %s[%n] : memref<8xf32>
      memref.store %x, %out[%i, %t] : memref<4x8xf32>
    }
  }
  return
}

// -----

// Near miss: private scratch that each thread keeps: iteration t writes and
// later reads element t (owned for any number of threads).
func.func @owned(%out: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4, 3] semantics [parallel, arbitrary] {
    %i = vx.grid_index 0
    %acc = vx.scratch : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      memref.store %v, %acc[%t] : memref<8xf32>
    }
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %acc[%t] : memref<8xf32>
      memref.store %x, %out[%i, %t] : memref<4x8xf32>
    }
  }
  return
}

// -----

// Iteration t reads what iteration 7 - t wrote: on different threads for
// every thread count above 1.
func.func @not_owned(%out: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-error-re @+1 {{private scratch used in thread loops is not owned by the 256 threads of the spawn's CTA (the default CTA size; give the spawn a 'threads' clause to choose another): element ({{[0-7]}}) is touched by iteration ({{[0-7]}}) on thread {{[0-7]}} and iteration ({{[0-7]}}) on thread {{[0-7]}}}}
    %acc = vx.scratch : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      // expected-note @+1 {{one access}}
      memref.store %v, %acc[%t] : memref<8xf32>
    }
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %r = arith.subi %c7, %t : index
      // expected-note @+1 {{the other access}}
      %x = memref.load %acc[%r] : memref<8xf32>
      memref.store %x, %out[%i, %t] : memref<4x8xf32>
    }
  }
  return
}

// -----

// Iteration t reads what iteration t mod 4 wrote: the same thread exactly
// when the thread count divides 4, as the clause's 2 does (the default CTA
// size does not: verify-ownership.mlir).
func.func @owned_for_some_counts(%out: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 2 {
    %i = vx.grid_index 0
    %acc = vx.scratch : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c4) step (%c1) {
      memref.store %v, %acc[%t] : memref<8xf32>
    }
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %r = arith.remui %t, %c4 : index
      %x = memref.load %acc[%r] : memref<8xf32>
      memref.store %x, %out[%i, %t] : memref<4x8xf32>
    }
  }
  return
}

// -----

// Code outside thread loops (on every thread) reads what one iteration
// wrote.
func.func @read_outside_thread_loops(%out: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-error @+1 {{private scratch used in thread loops is not owned by the 256 threads of the spawn's CTA (the default CTA size; give the spawn a 'threads' clause to choose another): element (0) is written by iteration (0) on thread 0 and read by code outside thread loops, which runs on every thread}}
    %acc = vx.scratch : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      // expected-note @+1 {{one access}}
      memref.store %v, %acc[%t] : memref<8xf32>
    }
    // expected-note @+1 {{the other access}}
    %x = memref.load %acc[%c0] : memref<8xf32>
    memref.store %x, %out[%i] : memref<4xf32>
  }
  return
}

// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// Private scratch used in thread loops must be owned (VX_SPEC 2.1) by the
// threads of the CTA the spawn will have: its `threads` clause, else
// threads-per-block, else the default CTA size (256). Iteration i of a
// thread loop runs on thread i mod N.

// A 4x4 tile written by an (r, c) thread loop and read by a (c, r) one:
// element (r, c) is reached by iterations 4 r + c and 4 c + r, on one
// thread when N divides 3.
func.func @transposed_on_4_threads(%a: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-note @below {{it is owned by N threads only when N is one of 1, 3}}
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 4 {
    // expected-error @below {{private scratch used in thread loops is not owned by the 4 threads of the spawn's CTA (its 'threads' clause): element (0, 3) is touched by iteration (0, 3) on thread 3 and iteration (3, 0) on thread 0 (instances (0) and (0))}}
    %tile = vx.scratch : memref<4x4xf32>
    scf.parallel (%r, %c) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      %r4 = arith.muli %r, %c4 : index
      %e = arith.addi %r4, %c : index
      %x = memref.load %a[%e] : memref<16xf32>
      // expected-note @below {{one access}}
      memref.store %x, %tile[%r, %c] : memref<4x4xf32>
    }
    scf.parallel (%c, %r) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      // expected-note @below {{the other access}}
      %y = memref.load %tile[%r, %c] : memref<4x4xf32>
      %r4 = arith.muli %r, %c4 : index
      %e = arith.addi %r4, %c : index
      memref.store %y, %out[%e] : memref<16xf32>
    }
  }
  return
}

// -----

// The same tile on 3 threads: owned (iterations 4 r + c and 4 c + r are
// congruent mod 3), so no diagnostic.
func.func @transposed_on_3_threads(%a: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 3 {
    %tile = vx.scratch : memref<4x4xf32>
    scf.parallel (%r, %c) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      %r4 = arith.muli %r, %c4 : index
      %e = arith.addi %r4, %c : index
      %x = memref.load %a[%e] : memref<16xf32>
      memref.store %x, %tile[%r, %c] : memref<4x4xf32>
    }
    scf.parallel (%c, %r) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      %y = memref.load %tile[%r, %c] : memref<4x4xf32>
      %r4 = arith.muli %r, %c4 : index
      %e = arith.addi %r4, %c : index
      memref.store %y, %out[%e] : memref<16xf32>
    }
  }
  return
}

// -----

// Without a clause the spawn gets the default CTA size (256 threads), which
// does not own the tile: iteration t reads what iteration t mod 4 wrote.
func.func @default_cta_size(%out: memref<8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  // expected-note @below {{it is owned by N threads only when N is one of 1, 2, 4}}
  vx.spawn on tensor_core grid [1] semantics [parallel] {
    // expected-error-re @below {{private scratch used in thread loops is not owned by the 256 threads of the spawn's CTA (the default CTA size; give the spawn a 'threads' clause to choose another): element ({{[0-3]}}) is touched by iteration ({{[0-3]}}) on thread {{[0-3]}} and iteration ({{[4-7]}}) on thread {{[4-7]}}}}
    %acc = vx.scratch : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c4) step (%c1) {
      // expected-note @below {{one access}}
      memref.store %v, %acc[%t] : memref<8xf32>
    }
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %r = arith.remui %t, %c4 : index
      // expected-note @below {{the other access}}
      %x = memref.load %acc[%r] : memref<8xf32>
      memref.store %x, %out[%t] : memref<8xf32>
    }
  }
  return
}

// -----

// One thread owns everything: a tile filled by a thread loop and read by
// once-per-instance code is fine with `threads 1`.
func.func @one_thread(%a: memref<2x8xf32>, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 1 {
    %p = vx.grid_index 0
    %tile = vx.scratch : memref<8xf32>
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %a[%p, %i] : memref<2x8xf32>
      memref.store %x, %tile[%i] : memref<8xf32>
    }
    %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
      %y = memref.load %tile[%i] : memref<8xf32>
      %t = arith.addf %acc, %y : f32
      scf.yield %t : f32
    }
    memref.store %s, %out[%p] : memref<2xf32>
  }
  return
}

// -----

// With two threads, the once-per-instance read of element 1 needs what
// iteration 1 wrote on thread 1.
func.func @two_threads(%a: memref<2x8xf32>, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 2 {
    %p = vx.grid_index 0
    // expected-error-re @below {{private scratch used in thread loops is not owned by the 2 threads of the spawn's CTA (its 'threads' clause): element (1) is written by iteration (1) on thread 1 and read by code outside thread loops, which runs on every thread (instances ({{[01]}}) and ({{[01]}}))}}
    %tile = vx.scratch : memref<8xf32>
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %a[%p, %i] : memref<2x8xf32>
      // expected-note @below {{one access}}
      memref.store %x, %tile[%i] : memref<8xf32>
    }
    // expected-note @below {{the other access}}
    %y = memref.load %tile[%c1] : memref<8xf32>
    memref.store %y, %out[%p] : memref<2xf32>
  }
  return
}

// -----

// Unproved is an error too: the index t * t is owned (injective on
// [0, 8)), but the checker does not model a product of two varying values.
func.func @unproved(%a: memref<2x64xf32>, %out: memref<2x64xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 8 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    // expected-error @below {{cannot prove that the 8 threads of the spawn's CTA (its 'threads' clause) own this private scratch: the address uses a product of two varying values in 'arith.muli'}}
    %acc = vx.scratch : memref<64xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %e = arith.muli %t, %t : index
      %x = memref.load %a[%p, %e] : memref<2x64xf32>
      // expected-warning @below {{cannot prove that the iterations of the thread loop touch distinct elements: the address uses a product of two varying values in 'arith.muli'}}
      memref.store %x, %acc[%e] : memref<64xf32>
    }
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %e = arith.muli %t, %t : index
      %x = memref.load %acc[%e] : memref<64xf32>
      // expected-warning @below {{cannot prove that parallel instances write distinct elements: the address uses a product of two varying values in 'arith.muli'}}
      memref.store %x, %out[%p, %e] : memref<2x64xf32>
    }
  }
  return
}

// -----

// Not owned only when %flag is false (every iteration reads element 0):
// ownership must hold for every value, so this is an error too.
func.func @not_owned_for_some_values(%a: memref<8xf32>, %out: memref<8xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 4 {
    // expected-error-re @below {{private scratch used in thread loops is not owned by the 4 threads of the spawn's CTA (its 'threads' clause): element (0) is touched by iteration ({{[0-7]}}) on thread {{[0-3]}} and iteration ({{[0-7]}}) on thread {{[0-3]}} (instances (0) and (0)) when {{.*}}}}
    %q = vx.scratch : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %a[%t] : memref<8xf32>
      // expected-note @below {{one access}}
      memref.store %x, %q[%t] : memref<8xf32>
    }
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %k = arith.select %flag, %t, %c0 : index
      // expected-note @below {{the other access}}
      %y = memref.load %q[%k] : memref<8xf32>
      memref.store %y, %out[%t] : memref<8xf32>
    }
  }
  return
}

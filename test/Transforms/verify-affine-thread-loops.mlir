// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// An affine.parallel in a spawn body is a thread loop like scf.parallel
// (every route lowers it to one before the CTA mapping): its iterations must
// be independent, and private scratch it uses must be owned by threads.

func.func @iterations_write_one_element(%a: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-note @+1 {{the iterations of a thread loop must be independent}}
    affine.parallel (%t) = (0) to (8) {
      // expected-error-re @+1 {{iterations ({{[0-7]}}) and ({{[0-7]}}) of a thread loop (instance ({{[0-3]}})) write the same element}}
      memref.store %v, %a[%i, %c0] : memref<4x8xf32>
    }
  }
  return
}

// -----

// s[p] += a[p, t] in every iteration: the threads would lose each other's
// updates.
func.func @read_modify_write(%a: memref<4x8xf32>, %s: memref<4xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    // expected-note @+1 {{the iterations of a thread loop must be independent}}
    affine.parallel (%t) = (0) to (8) {
      %x = memref.load %a[%p, %t] : memref<4x8xf32>
      // expected-error-re @+1 {{iterations ({{[0-7]}}) and ({{[0-7]}}) of a thread loop (instance ({{[0-3]}})) read and write the same element}}
      %y = memref.load %s[%p] : memref<4xf32>
      %z = arith.addf %x, %y : f32
      // expected-note @+2 {{the other access}}
      // expected-error-re @+1 {{iterations ({{[0-7]}}) and ({{[0-7]}}) of a thread loop (instance ({{[0-3]}})) write the same element}}
      memref.store %z, %s[%p] : memref<4xf32>
    }
  }
  return
}

// -----

// The same through affine.load and affine.store, on shared scratch.
func.func @affine_accesses(%a: memref<4x8xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %s = vx.scratch smem : memref<8xf32>
    // expected-note @+1 {{the iterations of a thread loop must be independent}}
    affine.parallel (%t) = (0) to (8) {
      %x = affine.load %a[%p, %t] : memref<4x8xf32>
      // expected-error-re @+1 {{iterations ({{[0-7]}}) and ({{[0-7]}}) of a thread loop (instance ({{[0-3]}})) write the same element}}
      affine.store %x, %s[%t floordiv 2] : memref<8xf32>
    }
  }
  return
}

// -----

// Private scratch that an affine.parallel fills and once-per-instance code
// reads: only the thread of iteration 3 has element 3.
func.func @not_owned(%a: memref<4x8xf32>, %out: memref<4xf32>) {
  %c3 = arith.constant 3 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    // expected-error-re @+1 {{private scratch used in thread loops is not owned by the 256 threads of the spawn's CTA (the default CTA size; give the spawn a 'threads' clause to choose another): element (3) is written by iteration (3) on thread 3 and read by code outside thread loops, which runs on every thread (instances ({{[0-3]}}) and ({{[0-3]}}))}}
    %buf = vx.scratch : memref<8xf32>
    affine.parallel (%t) = (0) to (8) {
      %x = memref.load %a[%p, %t] : memref<4x8xf32>
      // expected-note @+1 {{one access}}
      memref.store %x, %buf[%t] : memref<8xf32>
    }
    // expected-note @+1 {{the other access}}
    %y = memref.load %buf[%c3] : memref<8xf32>
    memref.store %y, %out[%p] : memref<4xf32>
  }
  return
}

// -----

// Near misses: one element per iteration, a reduction, and an
// affine.parallel nested in a thread loop, which runs sequentially in its
// thread.
func.func @independent(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %out: memref<4xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %buf = vx.scratch : memref<8xf32>
    affine.parallel (%t) = (0) to (8) {
      %x = memref.load %a[%p, %t] : memref<4x8xf32>
      memref.store %x, %buf[%t] : memref<8xf32>
      affine.parallel (%u) = (0) to (2) {
        memref.store %x, %b[%p, %t] : memref<4x8xf32>
      }
    }
    %s = affine.parallel (%t) = (0) to (8) reduce ("addf") -> f32 {
      %y = memref.load %buf[%t] : memref<8xf32>
      affine.yield %y : f32
    }
    memref.store %s, %out[%p] : memref<4xf32>
  }
  return
}

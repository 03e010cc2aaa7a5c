// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// A tiled matmul over subviews, tiles at `%i * 4`: with 2^63 - 1 rows of
// tiles, instances (2^62, 0, 0) and (0, 0, 0) start at row 0 (4 * 2^62
// wraps to 0 in a 64-bit index), so they write one element. The error is
// right under arith's wrapping semantics, and says that it needs the wrap
// and how to rule it out.
func.func @matmul_wrapping(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %mb: index, %nb: index, %kb: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-note @below {{mark the dimensions the address does not tell apart 'arbitrary'}}
  // expected-note @below {{parallel instances must not read what another writes}}
  vx.spawn on tensor_core grid [%mb, %nb, %kb] semantics [parallel, parallel, arbitrary] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %k = vx.grid_index 2
    %r = arith.muli %i, %c4 : index
    %c = arith.muli %j, %c4 : index
    %kk = arith.muli %k, %c4 : index
    %a = memref.subview %A[%r, %kk] [4, 4] [1, 1] : memref<?x?xf32> to memref<4x4xf32, strided<[?, 1], offset: ?>>
    %b = memref.subview %B[%kk, %c] [4, 4] [1, 1] : memref<?x?xf32> to memref<4x4xf32, strided<[?, 1], offset: ?>>
    %cv = memref.subview %C[%r, %c] [4, 4] [1, 1] : memref<?x?xf32> to memref<4x4xf32, strided<[?, 1], offset: ?>>
    scf.for %ii = %c0 to %c4 step %c1 {
      scf.for %jj = %c0 to %c4 step %c1 {
        scf.for %q = %c0 to %c4 step %c1 {
          %x = memref.load %a[%ii, %q] : memref<4x4xf32, strided<[?, 1], offset: ?>>
          %y = memref.load %b[%q, %jj] : memref<4x4xf32, strided<[?, 1], offset: ?>>
          // expected-error @+1 {{reads the element that instance (4611686018427387904, 0, 0) writes (with %arg3 = 9223372036854775807 and %arg4 = 2 and %arg5 = 2), only with index arithmetic that wraps around ('arith.muli' at line 18 overflows 64 bits); add `overflow<nsw>` or `overflow<nuw>` to the arithmetic (overflow is then poison) or bound the sizes}}
          %z = memref.load %cv[%ii, %jj] : memref<4x4xf32, strided<[?, 1], offset: ?>>
          %p = arith.mulf %x, %y : f32
          %s = arith.addf %z, %p : f32
          // expected-error @+2 {{parallel instances (4611686018427387904, 0, 0) and (0, 0, 0) write the same element of memory captured by the spawn (with %arg3 = 9223372036854775807 and %arg4 = 2 and %arg5 = 2), only with index arithmetic that wraps around ('arith.muli' at line 18 overflows 64 bits)}}
          // expected-note @below {{written here}}
          memref.store %s, %cv[%ii, %jj] : memref<4x4xf32, strided<[?, 1], offset: ?>>
        }
      }
    }
  }
  return
}

// -----

// The same kernel with the tile offsets flagged: overflow is poison, an
// execution that indexes with it is undefined, and no two instances of a
// defined execution write one element (nsw, nuw, or both).
func.func @matmul_nsw(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %mb: index, %nb: index, %kb: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [%mb, %nb, %kb] semantics [parallel, parallel, arbitrary] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %k = vx.grid_index 2
    %r = arith.muli %i, %c4 overflow<nsw> : index
    %c = arith.muli %j, %c4 overflow<nuw> : index
    %kk = arith.muli %k, %c4 overflow<nsw, nuw> : index
    %a = memref.subview %A[%r, %kk] [4, 4] [1, 1] : memref<?x?xf32> to memref<4x4xf32, strided<[?, 1], offset: ?>>
    %b = memref.subview %B[%kk, %c] [4, 4] [1, 1] : memref<?x?xf32> to memref<4x4xf32, strided<[?, 1], offset: ?>>
    %cv = memref.subview %C[%r, %c] [4, 4] [1, 1] : memref<?x?xf32> to memref<4x4xf32, strided<[?, 1], offset: ?>>
    scf.for %ii = %c0 to %c4 step %c1 {
      scf.for %jj = %c0 to %c4 step %c1 {
        scf.for %q = %c0 to %c4 step %c1 {
          %x = memref.load %a[%ii, %q] : memref<4x4xf32, strided<[?, 1], offset: ?>>
          %y = memref.load %b[%q, %jj] : memref<4x4xf32, strided<[?, 1], offset: ?>>
          %z = memref.load %cv[%ii, %jj] : memref<4x4xf32, strided<[?, 1], offset: ?>>
          %p = arith.mulf %x, %y : f32
          %s = arith.addf %z, %p : f32
          memref.store %s, %cv[%ii, %jj] : memref<4x4xf32, strided<[?, 1], offset: ?>>
        }
      }
    }
  }
  return
}

// -----

// A flag is no licence: with nsw, `%i * 4 - 4` never overflows here, and
// the five-row windows of instances i and i + 1 still share a row (an error
// without wrap-around).
func.func @nsw_overlap(%C: memref<?x?xf32>, %mb: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  // expected-note @below {{mark the dimensions}}
  vx.spawn on tensor_core grid [%mb] semantics [parallel] {
    %i = vx.grid_index 0
    %r = arith.muli %i, %c4 overflow<nsw> : index
    %s = arith.subi %r, %c4 overflow<nsw> : index
    %view = memref.subview %C[%s, 0] [5, 4] [1, 1] : memref<?x?xf32> to memref<5x4xf32, strided<[?, 1], offset: ?>>
    scf.for %t = %c0 to %c5 step %c1 {
      // expected-error @+1 {{parallel instances (1) and (0) write the same element of memory captured by the spawn (with %arg1 = 2)}}
      memref.store %zero, %view[%t, %c0] : memref<5x4xf32, strided<[?, 1], offset: ?>>
    }
  }
  return
}

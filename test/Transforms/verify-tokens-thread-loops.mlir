// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// A transfer and its await in one thread-loop iteration: the token never
// leaves the iteration (each thread awaits its own copies), so rule 4 holds
// in each iteration on its own.

func.func @awaited_in_iteration(%a: memref<4x8x16xf32>, %out: memref<4x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %tile = vx.scratch smem : memref<8x16xf32>
    scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
      %src = memref.subview %a[%p, %r, 0] [1, 1, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %dst = memref.subview %tile[%r, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %t = vx.transfer_async %src to %dst : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
      vx.await %t
      scf.for %j = %c0 to %c16 step %c1 {
        %x = memref.load %dst[%j] : memref<16xf32, strided<[1], offset: ?>>
        memref.store %x, %out[%p, %r, %j] : memref<4x8x16xf32>
      }
    }
  }
  return
}

// -----

// Carried through an scf.for inside the iteration, and awaited in an
// affine.parallel's iteration.
func.func @carried_in_iteration(%a: memref<4x8x16xf32>, %out: memref<4x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %tile = vx.scratch smem : memref<8x16xf32>
    affine.parallel (%r) = (0) to (8) {
      %src = memref.subview %a[%p, %r, 0] [1, 1, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %dst = memref.subview %tile[%r, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %t = vx.transfer_async %src to %dst : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
      %last = scf.for %k = %c0 to %c2 step %c1 iter_args(%pending = %t) -> (!vx.token) {
        vx.await %pending
        %again = vx.transfer_async %src to %dst : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
        scf.yield %again : !vx.token
      }
      vx.await %last
      %x = memref.load %dst[%c0] : memref<16xf32, strided<[1], offset: ?>>
      memref.store %x, %out[%p, %r, %c0] : memref<4x8x16xf32>
    }
  }
  return
}

// -----

func.func @never_awaited_in_iteration(%a: memref<4x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %tile = vx.scratch smem : memref<8x16xf32>
    scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
      %src = memref.subview %a[%p, %r, 0] [1, 1, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %dst = memref.subview %tile[%r, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      // expected-error @+1 {{token is never awaited on some path through an iteration of the 'scf.parallel'}}
      %t = vx.transfer_async %src to %dst : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
    }
  }
  return
}

// -----

func.func @read_before_await_in_iteration(%a: memref<4x8x16xf32>, %out: memref<4x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %tile = vx.scratch smem : memref<8x16xf32>
    scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
      %src = memref.subview %a[%p, %r, 0] [1, 1, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %dst = memref.subview %tile[%r, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      // expected-note @+1 {{the transfer starts here}}
      %t = vx.transfer_async %src to %dst : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
      // expected-error @+1 {{'memref.load' reads the destination of a 'vx.transfer_async' before its 'vx.await'}}
      %x = memref.load %dst[%c0] : memref<16xf32, strided<[1], offset: ?>>
      vx.await %t
      memref.store %x, %out[%p, %r, %c0] : memref<4x8x16xf32>
    }
  }
  return
}

// -----

// A token that crosses into the loop is still refused: every iteration
// would await the one transfer.
func.func @token_into_iterations(%a: memref<4x16xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %tile = vx.scratch smem : memref<16xf32>
    %src = memref.subview %a[%p, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    // expected-error @+1 {{tokens cannot be followed through 'scf.parallel'}}
    scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
      vx.await %t
      %x = memref.load %tile[%r] : memref<16xf32>
      memref.store %x, %out[%p, %r] : memref<4x8xf32>
    }
  }
  return
}

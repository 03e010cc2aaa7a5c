// RUN: vx-opt %s -split-input-file -verify-diagnostics --convert-vx-to-gpu | FileCheck %s

// Transfers that cp.async cannot take stay synchronous loop copies, with a
// remark that says why.

// CHECK-LABEL: func @private_destination
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: memref.load
// CHECK: memref.store
// CHECK-NOT: nvgpu.device_async
func.func @private_destination(%a: memref<8x4xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %tile = vx.scratch : memref<4xf32>
    %row = memref.subview %a[%i, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    // expected-remark @+1 {{transfer lowers to a synchronous copy: its destination is not shared-memory scratch (reached through memref.subview)}}
    %t = vx.transfer_async %row to %tile : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
    vx.await %t
    %x = memref.load %tile[%c0] : memref<4xf32>
    memref.store %x, %out[%i] : memref<8xf32>
  }
  return
}

// -----

// CHECK-LABEL: func @scratch_source
// CHECK-NOT: nvgpu.device_async_copy
func.func @scratch_source(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %src = vx.scratch : memref<4xf32>
    %tile = vx.scratch smem : memref<4xf32>
    // expected-remark @+1 {{transfer lowers to a synchronous copy: its source is not captured global memory}}
    %t = vx.transfer_async %src to %tile : memref<4xf32> to memref<4xf32>
    vx.await %t
    %x = memref.load %tile[%c0] : memref<4xf32>
    memref.store %x, %out[%i] : memref<8xf32>
  }
  return
}

// -----

// Rows of 3 halves are 6 bytes: no 4-, 8- or 16-byte chunks.
// CHECK-LABEL: func @odd_rows
// CHECK-NOT: nvgpu.device_async_copy
func.func @odd_rows(%a: memref<8x3xf16>, %out: memref<8xf16>) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %tile = vx.scratch smem : memref<3xf16>
    %row = memref.subview %a[%i, 0] [1, 3] [1, 1] : memref<8x3xf16> to memref<3xf16, strided<[1], offset: ?>>
    // expected-remark @+1 {{transfer lowers to a synchronous copy: cp.async copies aligned chunks of 4, 8 or 16 bytes, and the rows of this transfer cannot be split into such chunks}}
    %t = vx.transfer_async %row to %tile : memref<3xf16, strided<[1], offset: ?>> to memref<3xf16>
    vx.await %t
    %x = memref.load %tile[%c0] : memref<3xf16>
    memref.store %x, %out[%i] : memref<8xf16>
  }
  return
}

// -----

// A column is strided along its only dimension.
// CHECK-LABEL: func @column
// CHECK-NOT: nvgpu.device_async_copy
func.func @column(%a: memref<4x8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %j = vx.grid_index 0
    %tile = vx.scratch smem : memref<4xf32>
    %col = memref.subview %a[0, %j] [4, 1] [1, 1] : memref<4x8xf32> to memref<4xf32, strided<[8], offset: ?>>
    // expected-remark @+1 {{transfer lowers to a synchronous copy: cp.async needs unit stride along the innermost dimension}}
    %t = vx.transfer_async %col to %tile : memref<4xf32, strided<[8], offset: ?>> to memref<4xf32>
    vx.await %t
    %x = memref.load %tile[%c0] : memref<4xf32>
    memref.store %x, %out[%j] : memref<8xf32>
  }
  return
}

// -----

// Halves in rows of 8: 16-byte chunks where the offset is a multiple of 8
// elements, 4-byte chunks where it is only even; the await of a token carried
// into the loop waits for all but the one group committed since.
// CHECK-LABEL: func @chunk_sizes
// CHECK: nvgpu.device_async_copy {{.*}}, 8 {bypassL1} : memref<8xf16, strided<[1], offset: ?>> to memref<8xf16, strided<[1]>, #gpu.address_space<workgroup>>
// CHECK: %[[FIRST:.*]] = nvgpu.device_async_create_group
// CHECK: %[[LAST:.*]] = scf.for {{.*}} iter_args(%[[PENDING:.*]] = %[[FIRST]]) -> (!nvgpu.device.async.token)
// CHECK: nvgpu.device_async_copy {{.*}}, 2 : memref<8xf16, strided<[1], offset: ?>> to memref<8xf16, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK: %[[NEXT:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT: nvgpu.device_async_wait %[[PENDING]] {numGroups = 1 : i32}
// CHECK-NEXT: scf.yield %[[NEXT]]
// CHECK: nvgpu.device_async_wait %[[LAST]] {numGroups = 0 : i32}
func.func @chunk_sizes(%a: memref<4x64xf16>, %out: memref<4xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %buf = vx.scratch smem : memref<2x8xf16>
    %first = memref.subview %a[%i, 0] [1, 8] [1, 1] : memref<4x64xf16> to memref<8xf16, strided<[1], offset: ?>>
    %slot0 = memref.subview %buf[0, 0] [1, 8] [1, 1] : memref<2x8xf16> to memref<8xf16, strided<[1]>>
    %t0 = vx.transfer_async %first to %slot0 : memref<8xf16, strided<[1], offset: ?>> to memref<8xf16, strided<[1]>>
    %last = scf.for %k = %c0 to %c3 step %c1 iter_args(%t = %t0) -> !vx.token {
      %next = arith.addi %k, %c1 : index
      %col0 = arith.muli %next, %c6 : index
      %col = arith.addi %col0, %c2 : index
      %slot = arith.remui %next, %c2 : index
      %src = memref.subview %a[%i, %col] [1, 8] [1, 1] : memref<4x64xf16> to memref<8xf16, strided<[1], offset: ?>>
      %dst = memref.subview %buf[%slot, 0] [1, 8] [1, 1] : memref<2x8xf16> to memref<8xf16, strided<[1], offset: ?>>
      %tn = vx.transfer_async %src to %dst : memref<8xf16, strided<[1], offset: ?>> to memref<8xf16, strided<[1], offset: ?>>
      vx.await %t
      scf.yield %tn : !vx.token
    }
    vx.await %last
    %x = memref.load %buf[%c0, %c0] : memref<2x8xf16>
    memref.store %x, %out[%i] : memref<4xf16>
  }
  return
}

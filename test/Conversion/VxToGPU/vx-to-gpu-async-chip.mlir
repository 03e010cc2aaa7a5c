// Chips before sm_80 have no cp.async: with such a chip every transfer is a
// synchronous loop copy, with a remark that names the chip; from sm_80 on
// (and without a chip) the same transfer is cp.async.
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_75" -verify-diagnostics | FileCheck %s --check-prefix=SM75
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: vx-opt %s --convert-vx-to-gpu | FileCheck %s --check-prefix=SM80

// SM75-LABEL: func @tile
// SM75-NOT: nvgpu.
// SM75: memref.load
// SM75: memref.store
// SM75-NOT: nvgpu.
// SM80-LABEL: func @tile
// SM80: nvgpu.device_async_copy
// SM80: nvgpu.device_async_create_group
// SM80: nvgpu.device_async_wait
func.func @tile(%a: memref<64x16xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %row = memref.subview %a[%i, 0] [1, 16] [1, 1] : memref<64x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    %tile = vx.scratch smem : memref<16xf32>
    // expected-remark @below {{transfer lowers to a synchronous copy: cp.async needs sm_80 or newer, and the chip is 'sm_75'}}
    %t = vx.transfer_async %row to %tile : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vx.await %t
    %x = memref.load %tile[%c0] : memref<16xf32>
    memref.store %x, %out[%i] : memref<64xf32>
  }
  return
}

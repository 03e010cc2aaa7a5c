// REQUIRES: ptxas
// A module of several spawns through vx-to-ptx: one gpu.binary per spawn, in
// the order of the functions, whether the device modules are serialized on
// the context's threads or on one thread, and each the same bytes as when
// its function is compiled alone (the separator lines make one module per
// function only under --split-input-file).
// RUN: vx-opt %s --vx-to-ptx > %t.isa
// RUN: FileCheck %s --input-file=%t.isa
// RUN: vx-opt %s --vx-to-ptx --mlir-disable-threading | diff %t.isa -
// RUN: grep -o 'gpu.binary @.*' %t.isa > %t.isa.together
// RUN: vx-opt %s --split-input-file --vx-to-ptx | grep -o 'gpu.binary @.*' \
// RUN:   | diff %t.isa.together -
// RUN: vx-opt %s --vx-to-ptx="format=bin" | grep -o 'gpu.binary @.*' \
// RUN:   > %t.bin.together
// RUN: FileCheck %s --input-file=%t.bin.together --check-prefix=BIN
// RUN: vx-opt %s --vx-to-ptx="format=bin" --mlir-disable-threading \
// RUN:   | grep -o 'gpu.binary @.*' | diff %t.bin.together -
// RUN: vx-opt %s --split-input-file --vx-to-ptx="format=bin" \
// RUN:   | grep -o 'gpu.binary @.*' | diff %t.bin.together -

// CHECK: gpu.binary @scale_kernel {{.*}}.visible .entry scale_kernel({{.*}}add.f32 {{.*}}%r5, %r5;
// CHECK: gpu.binary @exp_kernel {{.*}}.visible .entry exp_kernel({{.*}}ex2.approx.ftz.f32
// CHECK: gpu.binary @reduce_kernel {{.*}}.visible .entry reduce_kernel({{.*}}0f40400000
// CHECK: gpu.binary @shift_kernel {{.*}}.visible .entry shift_kernel({{.*}}0f40800000
// CHECK-NOT: gpu.binary

// BIN: gpu.binary @scale_kernel {{.*}}bin = "\7FELF{{.*}}.text.scale_kernel
// BIN-NEXT: gpu.binary @exp_kernel {{.*}}bin = "\7FELF{{.*}}.text.exp_kernel
// BIN-NEXT: gpu.binary @reduce_kernel {{.*}}bin = "\7FELF{{.*}}.text.reduce_kernel
// BIN-NEXT: gpu.binary @shift_kernel {{.*}}bin = "\7FELF{{.*}}.text.shift_kernel
// BIN-NOT: gpu.binary

func.func @scale(%in: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %two = arith.constant 2.0 : f32
  vx.spawn on tensor_core grid [64, 64] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %x = memref.load %in[%i, %j] : memref<64x64xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %out[%i, %j] : memref<64x64xf32>
  }
  return
}

// -----

// A libdevice call (__nv_expf, inlined as ex2): each module links libdevice
// on the thread that serializes it.
func.func @exp(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  vx.spawn on tensor_core grid [1024] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %in[%i] : memref<1024xf32>
    %y = math.exp %x : f32
    memref.store %y, %out[%i] : memref<1024xf32>
  }
  return
}

// -----

func.func @reduce(%in: memref<8x64x64xf32>, %out: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %three = arith.constant 3.0 : f32
  vx.spawn on tensor_core grid [64, 64, 8] semantics [parallel, parallel, arbitrary] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %k = vx.grid_index 2
    %first = arith.cmpi eq, %k, %c0 : index
    %old = memref.load %out[%i, %j] : memref<64x64xf32>
    %acc = arith.select %first, %zero, %old : f32
    %x = memref.load %in[%k, %i, %j] : memref<8x64x64xf32>
    %y = arith.mulf %x, %three : f32
    %s = arith.addf %acc, %y : f32
    memref.store %s, %out[%i, %j] : memref<64x64xf32>
  }
  return
}

// -----

func.func @shift(%in: memref<4096xf32>, %out: memref<4096xf32>) {
  %four = arith.constant 4.0 : f32
  vx.spawn on tensor_core grid [4096] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %in[%i] : memref<4096xf32>
    %y = arith.addf %x, %four : f32
    memref.store %y, %out[%i] : memref<4096xf32>
  }
  return
}

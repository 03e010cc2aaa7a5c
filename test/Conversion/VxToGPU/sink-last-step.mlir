// The last step's epilogue (a trailing `scf.if` on the last arbitrary step)
// runs after the step loop, as a CUDA kernel stores after its K loop, so
// that its address arithmetic is not live across the steps: with a static
// size (@static_steps, the recomputed thread index with it), with a
// dynamic one (@dynamic_steps, under `size > 0`), and not when the
// epilogue needs a value loaded in the step (@loaded_in_step).
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_80" | FileCheck %s

// CHECK-LABEL: func.func @static_steps
// CHECK: gpu.launch
// CHECK: scf.for %[[STEP:.*]] = %{{.*}} to %[[SIZE:.*]] step
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<1xf32>
// CHECK: }
// CHECK: arith.subi %[[SIZE]], %{{.*}} : index
// CHECK: gpu.thread_id x
// CHECK: %[[RAN:.*]] = arith.cmpi sgt, %[[SIZE]], %{{.*}}
// CHECK: scf.if %[[RAN]] {
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x4xf32>
// CHECK: }
// CHECK: gpu.terminator
func.func @static_steps(%in: memref<64x4xf32>, %out: memref<64x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [64, 4] semantics [parallel, arbitrary] threads 4 {
    %acc = vx.scratch : memref<4xf32>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %nk = vx.grid_dim 1
    %last = arith.subi %nk, %c1 : index
    %is_first = arith.cmpi eq, %k, %c0 : index
    %is_last = arith.cmpi eq, %k, %last : index
    scf.parallel (%t) = (%c0) to (%c4) step (%c1) {
      %x = memref.load %in[%p, %k] : memref<64x4xf32>
      %old = memref.load %acc[%t] : memref<4xf32>
      %base = arith.select %is_first, %zero, %old : f32
      %sum = arith.addf %base, %x : f32
      memref.store %sum, %acc[%t] : memref<4xf32>
      scf.reduce
    }
    scf.if %is_last {
      scf.parallel (%t) = (%c0) to (%c4) step (%c1) {
        %v = memref.load %acc[%t] : memref<4xf32>
        memref.store %v, %out[%p, %t] : memref<64x4xf32>
        scf.reduce
      }
    }
  }
  return
}

// CHECK-LABEL: func.func @dynamic_steps
// CHECK: gpu.launch
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[SIZE:.*]] step
// CHECK-NOT: scf.if
// CHECK: }
// CHECK: %[[RAN:.*]] = arith.cmpi sgt, %[[SIZE]], %{{.*}}
// CHECK: scf.if %[[RAN]] {
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x4xf32>
func.func @dynamic_steps(%in: memref<64x?xf32>, %out: memref<64x4xf32>,
                         %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [64, %n] semantics [parallel, arbitrary] threads 4 {
    %acc = vx.scratch : memref<4xf32>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %nk = vx.grid_dim 1
    %last = arith.subi %nk, %c1 : index
    %is_first = arith.cmpi eq, %k, %c0 : index
    %is_last = arith.cmpi eq, %k, %last : index
    scf.parallel (%t) = (%c0) to (%c4) step (%c1) {
      %x = memref.load %in[%p, %k] : memref<64x?xf32>
      %old = memref.load %acc[%t] : memref<4xf32>
      %base = arith.select %is_first, %zero, %old : f32
      %sum = arith.addf %base, %x : f32
      memref.store %sum, %acc[%t] : memref<4xf32>
      scf.reduce
    }
    scf.if %is_last {
      scf.parallel (%t) = (%c0) to (%c4) step (%c1) {
        %v = memref.load %acc[%t] : memref<4xf32>
        memref.store %v, %out[%p, %t] : memref<64x4xf32>
        scf.reduce
      }
    }
  }
  return
}

// The epilogue stores a value loaded in the step: it stays in the loop.
// CHECK-LABEL: func.func @loaded_in_step
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: memref.load
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.terminator
func.func @loaded_in_step(%in: memref<64x4xf32>, %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  vx.spawn on tensor_core grid [64, 4] semantics [parallel, arbitrary] {
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %nk = vx.grid_dim 1
    %last = arith.subi %nk, %c1 : index
    %is_last = arith.cmpi eq, %k, %last : index
    %x = memref.load %in[%p, %k] : memref<64x4xf32>
    scf.if %is_last {
      memref.store %x, %out[%p] : memref<64xf32>
    }
  }
  return
}

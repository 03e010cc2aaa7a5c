// A transfer whose source does not move with the arbitrary dims (flash
// attention's Q along the KV dim) on a chip without TMA: cp.async loads it
// once, with step 0's tiles in step 0's group, into one buffer that it
// keeps; the tile that moves gets its slots. One the body writes is not
// pipelined: each step reads its own copy.
// RUN: vx-opt %s --convert-vx-to-gpu="stages=2 chip=sm_80 threads-per-block=1" -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @scaled_rows
// CHECK: gpu.launch
// The fixed tile's one buffer of 32 bytes, the moving tile's two slots.
// CHECK-DAG: %[[FIXED:.*]] = memref.assume_alignment %{{.*}}, 128 : memref<32xi8>
// CHECK-DAG: %[[SLOTS:.*]] = memref.assume_alignment %{{.*}}, 128 : memref<64xi8>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[SCALE:.*]] = memref.view %[[FIXED]][%{{.*}}][] : memref<32xi8> to memref<8xf32>
// The prologue issues step 0: the fixed tile under its own first-step
// guard, then the moving one, in one group.
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: %[[JIN:.*]] = arith.cmpi ult, %[[J]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[JIN]] {
// CHECK: %[[JFIRST:.*]] = arith.cmpi eq, %[[J]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[JFIRST]] {
// CHECK: memref.view %[[FIXED]]
// CHECK: nvgpu.device_async_copy {{.*}} : memref<8xf32> to
// CHECK: }
// CHECK: memref.view %[[SLOTS]]
// CHECK: nvgpu.device_async_copy {{.*}} : memref<8xf32, strided<[1], offset: ?>> to
// CHECK: nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// Step s + 1 loads the fixed tile only if it is step 0, which it never is.
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[AHEAD]], %{{.*}} : index
// CHECK: scf.if %[[IN]] {
// CHECK: %[[AFIRST:.*]] = arith.cmpi eq, %[[AHEAD]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[AFIRST]] {
// CHECK: nvgpu.device_async_copy {{.*}} : memref<8xf32> to
// CHECK: }
// CHECK: nvgpu.device_async_copy {{.*}} : memref<8xf32, strided<[1], offset: ?>> to
// CHECK: nvgpu.device_async_create_group
// CHECK: memref.load %[[SCALE]]
// CHECK-NOT: nvgpu.device_async_copy
func.func @scaled_rows(%scale: memref<8xf32>, %in: memref<64xf32>,
                       %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %fixed = vx.scratch smem : memref<8xf32>
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %in[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    %tf = vx.transfer_async %scale to %fixed : memref<8xf32> to memref<8xf32>
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vx.await %tf
    vx.await %t
    scf.for %i = %c0 to %c8 step %c1 {
      %s = memref.load %fixed[%i] : memref<8xf32>
      %x = memref.load %tile[%i] : memref<8xf32>
      %y = arith.mulf %s, %x : f32
      %o = arith.addi %col, %i : index
      memref.store %y, %out[%o] : memref<64xf32>
    }
  }
  return
}

// -----

// Each step doubles the fixed tile in place: loaded once, the second step
// would read 4 times the source. Each step copies it into its one buffer
// (a group of its own) and waits for it after the pipeline's commit.
// CHECK-LABEL: func.func @written_fixed_tile
// CHECK: %[[FIXED:.*]] = memref.assume_alignment %{{.*}}, 128 : memref<8xf32>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK: nvgpu.device_async_copy {{.*}} : memref<8xf32> to
// CHECK: %[[OWN:.*]] = nvgpu.device_async_create_group
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK-NOT: device_async_copy {{.*}} : memref<8xf32> to
// CHECK: nvgpu.device_async_wait %[[OWN]] {numGroups = 0 : i32}
// CHECK: memref.store %{{.*}}, %[[FIXED]]
func.func @written_fixed_tile(%scale: memref<8xf32>, %in: memref<64xf32>,
                              %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %fixed = vx.scratch smem : memref<8xf32>
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %in[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is not pipelined: its source does not move with an arbitrary dimension and the spawn writes its destination, which every step must read as loaded}}
    %tf = vx.transfer_async %scale to %fixed : memref<8xf32> to memref<8xf32>
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vx.await %tf
    vx.await %t
    scf.for %i = %c0 to %c8 step %c1 {
      %s = memref.load %fixed[%i] : memref<8xf32>
      %twice = arith.addf %s, %s : f32
      // expected-note @below {{here}}
      memref.store %twice, %fixed[%i] : memref<8xf32>
      %x = memref.load %tile[%i] : memref<8xf32>
      %y = arith.mulf %twice, %x : f32
      %o = arith.addi %col, %i : index
      memref.store %y, %out[%o] : memref<64xf32>
    }
  }
  return
}

// -----

// The writes that refuse a fixed tile: a linalg op's (its own effects, not
// its body's; the pass alone leaves it to the CPU route, where a tile
// loaded once would hand the first step's 2s to every step,
// test/Integration/pipeline-fixed-tiles.mlir), and stores through a
// select or an scf.if result that may be the tile.
// CHECK-LABEL: func.func @written_through_views
// CHECK-NOT: memref<32xi8>
// CHECK: return
func.func @written_through_views(%scale: memref<8xf32>, %in: memref<64xf32>,
                                 %out: memref<64xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %filled = vx.scratch smem : memref<8xf32>
    %selected = vx.scratch smem : memref<8xf32>
    %yielded = vx.scratch smem : memref<8xf32>
    %other = vx.scratch smem : memref<8xf32>
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %in[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is not pipelined: its source does not move with an arbitrary dimension and the spawn writes its destination, which every step must read as loaded}}
    %t0 = vx.transfer_async %scale to %filled : memref<8xf32> to memref<8xf32>
    // expected-remark @below {{transfer is not pipelined: its source does not move with an arbitrary dimension and the spawn writes its destination, which every step must read as loaded}}
    %t1 = vx.transfer_async %scale to %selected : memref<8xf32> to memref<8xf32>
    // expected-remark @below {{transfer is not pipelined: its source does not move with an arbitrary dimension and the spawn writes its destination, which every step must read as loaded}}
    %t2 = vx.transfer_async %scale to %yielded : memref<8xf32> to memref<8xf32>
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vx.await %t0
    vx.await %t1
    vx.await %t2
    vx.await %t
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      // expected-note @below {{here}}
      linalg.fill ins(%two : f32) outs(%filled : memref<8xf32>)
    }
    %either = arith.select %c, %selected, %other : memref<8xf32>
    // expected-note @below {{here}}
    memref.store %two, %either[%c1] : memref<8xf32>
    %branch = scf.if %c -> memref<8xf32> {
      scf.yield %yielded : memref<8xf32>
    } else {
      scf.yield %other : memref<8xf32>
    }
    // expected-note @below {{here}}
    memref.store %two, %branch[%c1] : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %a = memref.load %filled[%i] : memref<8xf32>
      %b = memref.load %selected[%i] : memref<8xf32>
      %d = memref.load %yielded[%i] : memref<8xf32>
      %x = memref.load %tile[%i] : memref<8xf32>
      %ab = arith.addf %a, %b : f32
      %abd = arith.addf %ab, %d : f32
      %y = arith.mulf %abd, %x : f32
      %o = arith.addi %col, %i : index
      memref.store %y, %out[%o] : memref<64xf32>
    }
  }
  return
}

// -----

// A fixed tile copied in the first step only, under scf.if: not every step
// runs the transfer, so it stays a plain copy into the scratch that keeps
// it across the steps.
// CHECK-LABEL: func.func @fixed_in_branch
// CHECK-NOT: memref<32xi8>
// CHECK: return
func.func @fixed_in_branch(%scale: memref<8xf32>, %in: memref<64xf32>,
                           %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %fixed = vx.scratch smem : memref<8xf32>
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %in[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      // expected-remark @below {{transfer is not pipelined: it is not directly in the spawn body (it would not run in every step)}}
      %tf = vx.transfer_async %scale to %fixed : memref<8xf32> to memref<8xf32>
      vx.await %tf
    }
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vx.await %t
    scf.for %i = %c0 to %c8 step %c1 {
      %s = memref.load %fixed[%i] : memref<8xf32>
      %x = memref.load %tile[%i] : memref<8xf32>
      %y = arith.mulf %s, %x : f32
      %o = arith.addi %col, %i : index
      memref.store %y, %out[%o] : memref<64xf32>
    }
  }
  return
}

// -----

// A fixed tile's source that the spawn may write (through a select): the
// steps after the write must read it, not the first step's copy.
// CHECK-LABEL: func.func @source_written_through_select
// CHECK-NOT: memref<32xi8>
// CHECK: return
func.func @source_written_through_select(%scale: memref<8xf32>,
                                         %other: memref<8xf32>,
                                         %in: memref<64xf32>,
                                         %out: memref<64xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %fixed = vx.scratch smem : memref<8xf32>
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %in[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is not pipelined: the spawn may write the memory it reads, which a step ahead would read before the write}}
    %tf = vx.transfer_async %scale to %fixed : memref<8xf32> to memref<8xf32>
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vx.await %tf
    vx.await %t
    %x = memref.load %tile[%c0] : memref<8xf32>
    %either = arith.select %c, %scale, %other : memref<8xf32>
    // expected-note @below {{here}}
    memref.store %x, %either[%c1] : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %s = memref.load %fixed[%i] : memref<8xf32>
      %o = arith.addi %col, %i : index
      memref.store %s, %out[%o] : memref<64xf32>
    }
  }
  return
}

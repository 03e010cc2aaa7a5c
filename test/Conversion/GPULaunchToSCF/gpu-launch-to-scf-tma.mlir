// TMA loads and mbarriers as convert-gpu-launch-to-scf runs them: the
// mbarrier is four i64 of a buffer per block (pending arrivals, expected
// arrivals, pending bytes, phase parity), the load a copy of its box from
// the tensor of the map (NaN outside it, as oob = nan fills), which takes
// its bytes off the pending count, and the wait a barrier (a new thread
// loop) then a stop where the awaited phase is incomplete.
// RUN: vx-opt %s --convert-gpu-launch-to-scf --canonicalize | FileCheck %s

// CHECK: llvm.mlir.global internal constant @vx_stop_message("vx: {{.*}}gpu-launch-to-scf-tma.mlir:{{[0-9]+}}:5: nvgpu.mbarrier.try_wait.parity waits for a phase that no arrival or copy completes; on a GPU the threads would wait forever\0A")
// CHECK-DAG: llvm.func @exit(i32)
// CHECK-DAG: llvm.func @write(i32, !llvm.ptr, i64) -> i64
// CHECK-LABEL: func.func @load(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<2x16x4xf32>, %[[ROW:[a-z0-9]+]]: index
// CHECK-NOT: nvgpu.
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[MINUS_BOX:.*]] = arith.constant -128 : i64
// CHECK: %[[TILE:.*]] = memref.alloca() : memref<8x4xf32>
// CHECK: %[[STATE:.*]] = memref.alloca() : memref<1x4xi64>
// The first phase: thread 0 initializes the barrier.
// CHECK: scf.for %[[T0:.*]] = %{{.*}} to %{{.*}} step
// CHECK: memref.store %{{.*}}, %[[STATE]][%{{.*}}, %{{.*}}] : memref<1x4xi64>
// The second: thread 0 expects the bytes, arrives, copies and completes.
// CHECK: scf.for
// CHECK: scf.if
// CHECK: arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: %[[BOX:.*]] = memref.expand_shape %[[TILE]] {{\[}}[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32> into memref<1x8x4xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[AT:.*]] = arith.addi %[[ROW]], %[[I]] : index
// CHECK: %[[VALUE:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK: memref.load %[[A]][%{{.*}}, %[[AT]], %[[J]]] : memref<2x16x4xf32>
// CHECK: } else {
// CHECK: scf.yield %[[NAN]] : f32
// CHECK: memref.store %[[VALUE]], %[[BOX]][%{{.*}}, %[[I]], %[[J]]] : memref<1x8x4xf32>
// CHECK: arith.addi %{{.*}}, %[[MINUS_BOX]] : i64
// CHECK: arith.xori
// The wait, after the barrier: every thread checks the phase.
// CHECK: scf.for
// CHECK: %[[PHASE:.*]] = memref.load %[[STATE]][%{{.*}}, %{{.*}}] : memref<1x4xi64>
// CHECK: %[[INCOMPLETE:.*]] = arith.cmpi eq, %[[PHASE]], %{{.*}} : i64
// CHECK: scf.if %[[INCOMPLETE]] {
// CHECK: llvm.call @write
// CHECK: llvm.call @exit
// CHECK: memref.load %[[TILE]]
#wg = #gpu.address_space<workgroup>
!barriers = !nvgpu.mbarrier.group<memorySpace = #wg>
!map = !nvgpu.tensormap.descriptor<tensor = memref<1x8x4xf32, #wg>, swizzle = none, l2promo = none, oob = nan, interleave = none>
func.func @load(%a: memref<2x16x4xf32>, %row: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %ticks = arith.constant 1000 : index
  %false = arith.constant false
  %unranked = memref.cast %a : memref<2x16x4xf32> to memref<*xf32>
  %map = nvgpu.tma.create.descriptor %unranked box[%c1, %c8, %c4] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1)
      workgroup(%buffer : memref<8x4xf32, #wg>) {
    %tile = memref.memory_space_cast %buffer : memref<8x4xf32, #wg> to memref<8x4xf32>
    %target = memref.memory_space_cast %tile : memref<8x4xf32> to memref<8x4xf32, #wg>
    %box = memref.expand_shape %target [[0, 1], [2]] output_shape [1, 8, 4] : memref<8x4xf32, #wg> into memref<1x8x4xf32, #wg>
    %first = arith.cmpi eq, %tx, %c0 : index
    %barriers = nvgpu.mbarrier.create -> !barriers
    nvgpu.mbarrier.init %barriers[%c0], %c1, predicate = %first : !barriers
    gpu.barrier
    nvgpu.tma.prefetch.descriptor %map : !map
    nvgpu.mbarrier.arrive.expect_tx %barriers[%c0], %c128, predicate = %first : !barriers
    nvgpu.tma.async.load %map[%c0, %row, %c1], %barriers[%c0] to %box, predicate = %first : !map, !barriers -> memref<1x8x4xf32, #wg>
    nvgpu.mbarrier.try_wait.parity %barriers[%c0], %false, %ticks : !barriers
    %x = memref.load %tile[%tx, %tx] : memref<8x4xf32>
    memref.store %x, %out[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

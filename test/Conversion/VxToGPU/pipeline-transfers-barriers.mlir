// The barriers of a CTA body with a pipelined transfer (issue 30): the
// schedule's barrier after each step's wait is the step's only one, where
// the mapping planned for plain transfers used to add one before the
// transfer (the previous step's reads) and one after its await (the reads
// of the copy): 3 per step, now 1. Each barrier's reason is a remark.
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_80" --remarks-filter=vx-barriers -verify-diagnostics | FileCheck %s --check-prefix=ASYNC
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a" | FileCheck %s --check-prefix=TMA
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a" --remarks-filter=vx-barriers -o /dev/null 2>&1 | FileCheck %s --check-prefix=TMA-REMARK

// cp.async, 3 stages: one barrier per step, after the wait.
// ASYNC-LABEL: func.func @three_stages
// ASYNC: scf.for
// ASYNC-NOT: gpu.barrier
// ASYNC: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// ASYNC-NEXT: gpu.barrier
// ASYNC-NOT: gpu.barrier
// ASYNC: gpu.terminator
// TMA, 3 stages: the barrier that publishes the mbarriers in the first
// step, and one per step after the wait, before the loads that refill the
// slot the previous step read (was 1 + 3 per step).
// TMA-LABEL: func.func @three_stages
// TMA: scf.for
// TMA-NOT: gpu.barrier
// TMA: nvgpu.mbarrier.init
// TMA: gpu.barrier
// TMA-NOT: gpu.barrier
// TMA: nvgpu.mbarrier.try_wait.parity
// TMA-NEXT: gpu.barrier
// TMA-NOT: gpu.barrier
// TMA: gpu.terminator
func.func @three_stages(%a: memref<64x16xf32>, %out: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
// TMA-REMARK: pipeline-transfers-barriers.mlir:[[@LINE+3]]:3: remark: {{.*}}every thread waits on the mbarriers that thread 0 initialized in the first step
// TMA-REMARK: pipeline-transfers-barriers.mlir:[[@LINE+2]]:3: remark: {{.*}}the step refills the slot that every thread read in the previous step
  // expected-remark @below {{the step's slots, which each thread waited for its own copies of, become visible to every thread, and the step refills the slot that every thread read in the previous step}}
  vx.spawn on tensor_core grid [4] semantics [arbitrary] threads 16 stages 3 {
    %tile = vx.scratch smem : memref<16x16xf32>
    %k = vx.grid_index 0
    %row = arith.muli %k, %c16 : index
    %src = memref.subview %a[%row, 0] [16, 16] [1, 1] : memref<64x16xf32> to memref<16x16xf32, strided<[16, 1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<16x16xf32, strided<[16, 1], offset: ?>> to memref<16x16xf32>
    vx.await %t
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %j = arith.subi %c15, %i : index
      %x = memref.load %tile[%j, %i] : memref<16x16xf32>
      memref.store %x, %out[%k, %i] : memref<4x16xf32>
    }
  }
  return
}

// cp.async, 1 stage (no pipelining): the single buffer needs a barrier
// before the copy overwrites what the previous step read, and one after the
// wait (2 per step, as before).
// ASYNC-LABEL: func.func @one_stage
// ASYNC: scf.for
// ASYNC: gpu.barrier
// ASYNC-NOT: gpu.barrier
// ASYNC: nvgpu.device_async_copy
// ASYNC: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// ASYNC-NEXT: gpu.barrier
// ASYNC-NOT: gpu.barrier
// ASYNC: gpu.terminator
// TMA, 1 stage: the loads of the step's own tile into the one slot follow
// the step's only barrier; every thread's mbarrier wait makes the tile
// visible (was 1 + 3 per step).
// TMA-LABEL: func.func @one_stage
// TMA: scf.for
// TMA-NOT: gpu.barrier
// TMA: nvgpu.mbarrier.init
// TMA: gpu.barrier
// TMA-NEXT: }
// TMA-NEXT: gpu.barrier
// TMA-NOT: gpu.barrier
// TMA: nvgpu.tma.async.load
// TMA: nvgpu.mbarrier.try_wait.parity
// TMA-NOT: gpu.barrier
// TMA: gpu.terminator
func.func @one_stage(%a: memref<64x16xf32>, %out: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
// TMA-REMARK: pipeline-transfers-barriers.mlir:[[@LINE+2]]:3: remark: {{.*}}every thread waits on the mbarriers that thread 0 initialized in the first step
// TMA-REMARK: pipeline-transfers-barriers.mlir:[[@LINE+1]]:3: remark: {{.*}}the step's TMA loads overwrite the slot that every thread read in the previous step
  vx.spawn on tensor_core grid [4] semantics [arbitrary] threads 16 stages 1 {
    %tile = vx.scratch smem : memref<16x16xf32>
    %k = vx.grid_index 0
    %row = arith.muli %k, %c16 : index
    %src = memref.subview %a[%row, 0] [16, 16] [1, 1] : memref<64x16xf32> to memref<16x16xf32, strided<[16, 1], offset: ?>>
    // expected-remark @below {{'vx.transfer_async' (line 95) may write an element that 'memref.load' (line 100) read on another thread in an earlier step (WAR, thread}}
    %t = vx.transfer_async %src to %tile : memref<16x16xf32, strided<[16, 1], offset: ?>> to memref<16x16xf32>
    vx.await %t
    // expected-remark @below {{'memref.load' (line 100) may read an element that 'vx.transfer_async' (line 95) wrote on another thread (RAW, thread}}
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %j = arith.subi %c15, %i : index
      %x = memref.load %tile[%j, %i] : memref<16x16xf32>
      memref.store %x, %out[%k, %i] : memref<4x16xf32>
    }
  }
  return
}

// The schedule of pipelined transfers (docs/design.md, "Pipelined
// transfers"): N slots per tile in a byte scratch, the first step issuing
// steps 0..N-2 (each guarded, each committed), every step waiting for its
// own group with N-2 left in flight, then issuing step s+N-1 into slot
// (s+N-1) mod N under the end-of-grid guard, with a commit either way.
// threads-per-block=1: a CTA per grid instance of a body without thread
// loops (the default CTA has 256, each an instance with its own slots).
// RUN: vx-opt %s --convert-vx-to-gpu="stages=3 threads-per-block=1" | FileCheck %s
// stages=1 is no pipelining: the transfer keeps its await.
// RUN: vx-opt %s --convert-vx-to-gpu="stages=1 threads-per-block=1" | FileCheck %s --check-prefix=ONE
// vx-pipeline-transfers alone rewrites the mapped bodies and records the
// stages on the plan; the transfers it issues in a body on the whole CTA
// are the CTA's copies.
// RUN: vx-opt %s --vx-plan-launch="threads-per-block=1" --vx-map-cta --vx-pipeline-transfers="stages=3 chip=sm_80" | FileCheck %s --check-prefix=STEP
// The PTX waits for all but N-2 groups and assembles:
// pipeline-transfers-ptx.mlir (it needs the CUDA toolkit).
// On sm_90 and newer the tiles are TMA loads: a tensor map per tile on the
// host, an mbarrier per slot, and parity waits instead of groups.
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a stages=3 threads-per-block=1" | FileCheck %s --check-prefix=TMA
// With one stage TMA loads each step's own tile into the one slot before
// the wait.
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a stages=1 threads-per-block=1" | FileCheck %s --check-prefix=TMA1

// CHECK-LABEL: func.func @rows
// CHECK: gpu.launch
// Three slots of 32 bytes; the step's slot is a view at (s mod 3) * 32.
// CHECK: %[[CAST:.*]] = memref.memory_space_cast %{{.*}} : memref<96xi8, #gpu.address_space<workgroup>> to memref<96xi8>
// CHECK: %[[SMEM:.*]] = memref.assume_alignment %[[CAST]], 128 : memref<96xi8>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[SLOT:.*]] = arith.remui %[[K]], %[[C3:.*]] : index
// CHECK: %[[SHIFT:.*]] = arith.muli %[[SLOT]], %[[C32:.*]] : index
// CHECK: %[[TILE:.*]] = memref.view %[[SMEM]][%[[SHIFT]]][] : memref<96xi8> to memref<1x8xf32>
// The prologue, in the first step only: steps 0 and 1 into slots 0 and 1,
// each guarded and committed.
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %[[C2:.*]] step
// CHECK-NEXT: %[[JIN:.*]] = arith.cmpi ult, %[[J]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[JIN]] {
// CHECK: %[[JSLOT:.*]] = arith.remui %[[J]], %c3{{(_[0-9]+)?}} : index
// CHECK: %[[JSHIFT:.*]] = arith.muli %[[JSLOT]], %{{.*}} : index
// CHECK: memref.view %[[SMEM]][%[[JSHIFT]]][] : memref<96xi8> to memref<1x8xf32>
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.device_async_create_group
// CHECK-NEXT: }
// CHECK-NEXT: }
// The step's own group is complete when at most one is pending.
// CHECK-NEXT: %[[NONE:.*]] = ub.poison : !nvgpu.device.async.token
// CHECK-NEXT: nvgpu.device_async_wait %[[NONE]] {numGroups = 1 : i32}
// Step s + 2, when in the grid, into slot (s + 2) mod 3; one group always.
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[AHEAD]], %{{.*}} : index
// CHECK: scf.if %[[IN]] {
// CHECK: arith.remui %[[AHEAD]], %{{.*}} : index
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.device_async_create_group
// No await of the transfer's own; the step computes on its slot.
// CHECK-NOT: nvgpu.device_async_wait
// CHECK: memref.load %[[TILE]]
// CHECK-NOT: nvgpu.device_async_wait
// CHECK: gpu.terminator

// STEP-LABEL: func.func @rows
// STEP: vx.spawn on tensor_core grid [4, 8] semantics [parallel, arbitrary] {
// STEP: %[[SLOT:.*]] = arith.remui %{{.*}}, %c3 : index
// STEP: vx.scratch smem : memref<96xi8>
// STEP: vx.transfer_async %{{.*}} to %{{.*}} : memref<1x8xf32, strided<[64, 1], offset: ?>> to memref<1x8xf32>
// STEP: nvgpu.device_async_create_group
// STEP: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// STEP-NOT: vx.await
// STEP: } {vx.launch_plan = #vx.launch_plan<kernel = "rows_kernel", threads = 1, cooperative = false, mapped = true, stages = 3>}
// STEP-LABEL: func.func @cta_rows
// STEP: vx.transfer_async %{{.*}} to %{{.*}} {vx.copy_threads = 16 : i64}
// STEP: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// STEP-NEXT: gpu.barrier
// STEP: vx.transfer_async %{{.*}} to %{{.*}} {vx.copy_threads = 16 : i64}
// STEP: } {vx.launch_plan = #vx.launch_plan<kernel = "cta_rows_kernel", threads = 16, cooperative = true, mapped = true, stages = 3>}
// ONE-LABEL: func.func @rows
// ONE-NOT: memref<{{[0-9]+}}xi8>
// ONE: nvgpu.device_async_copy
// ONE: %[[GROUP:.*]] = nvgpu.device_async_create_group
// ONE: nvgpu.device_async_wait %[[GROUP]] {numGroups = 0 : i32}

// LLVM unrolls the 8 steps: two groups of the prologue, then per step a
// wait for all but one.
// PTX3-NOT: cp.async.wait_group{{[[:space:]]+}}{{[02-9]}}
// PTX3: cp.async.commit_group
// PTX3: cp.async.commit_group
// PTX3-NEXT: cp.async.wait_group{{[[:space:]]+}}1;
// PTX3-NOT: cp.async.wait_group{{[[:space:]]+}}{{[02-9]}}
// PTX4-NOT: cp.async.wait_group{{[[:space:]]+}}{{[013-9]}}
// PTX4: cp.async.wait_group{{[[:space:]]+}}2;
// PTX4-NOT: cp.async.wait_group{{[[:space:]]+}}{{[013-9]}}

// TMA-LABEL: func.func @rows
// TMA: %[[MAP:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xf32>
// TMA: gpu.launch
// Three slots of 128 bytes, 128-byte aligned at compile time (the buffer
// starts at a multiple of 128 bytes): no alignment at run time.
// TMA: %[[CAST:.*]] = memref.memory_space_cast %{{.*}} : memref<384xi8, #gpu.address_space<workgroup>> to memref<384xi8>
// TMA: %[[SMEM:.*]] = memref.assume_alignment %[[CAST]], 128 : memref<384xi8>
// TMA: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// TMA: %[[SLOT:.*]] = arith.remui %[[K]], %[[C3:.*]] : index
// TMA: %[[ELECTED:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// TMA: %[[BARRIERS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// TMA-NOT: memref.extract_aligned_pointer_as_index
// TMA: %[[SHIFT:.*]] = arith.muli %[[SLOT]], %{{.*}} : index
// TMA: %[[TILE:.*]] = memref.view %[[SMEM]][%[[SHIFT]]][] : memref<384xi8> to memref<1x8xf32>
// The first step initializes the barriers, then issues steps 0 and 1.
// TMA: scf.if
// TMA: nvgpu.mbarrier.init %[[BARRIERS]][%{{.*}}], %{{.*}}, predicate = %[[ELECTED]]
// TMA: nvgpu.mbarrier.init %[[BARRIERS]]
// TMA: nvgpu.mbarrier.init %[[BARRIERS]]
// The loading thread makes the initialized barriers visible to the async
// proxy and brings the tensor map in, before the barrier that publishes them.
// TMA-NEXT: scf.if %[[ELECTED]] {
// TMA-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// TMA-NEXT: nvgpu.tma.prefetch.descriptor %[[MAP]]
// TMA-NEXT: }
// TMA-NEXT: gpu.barrier
// TMA: scf.for
// One announcement per step, before the loads' sources.
// TMA: nvgpu.mbarrier.arrive.expect_tx %[[BARRIERS]][%[[JSLOT:.*]]], %{{.*}}, predicate = %[[ELECTED]]
// TMA: nvgpu.tma.async.load %[[MAP]][%{{.*}}, %{{.*}}], %[[BARRIERS]][%[[JSLOT]]] to %{{.*}}, predicate = %[[ELECTED]]
// Step s waits for load s div 3 of its slot: parity (s div 3) mod 2.
// TMA: %[[LOADS:.*]] = arith.divui %[[K]], %[[C3]] : index
// TMA-NEXT: %[[PARITY:.*]] = arith.index_castui %[[LOADS]] : index to i1
// TMA: nvgpu.mbarrier.try_wait.parity %[[BARRIERS]][%[[SLOT]]], %[[PARITY]]
// Once per step, before the load that overwrites the slot the previous step
// read (no barrier here: one thread per CTA).
// TMA-NEXT: scf.if %[[ELECTED]] {
// TMA-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// TMA-NEXT: }
// TMA-NEXT: arith.addi
// TMA-NEXT: arith.cmpi ult
// TMA-NEXT: scf.if
// TMA-NOT: nvvm.fence.proxy
// TMA: nvgpu.tma.async.load %[[MAP]]
// TMA-NOT: nvgpu.device_async
// TMA: memref.load %[[TILE]]

// TMA1-LABEL: func.func @rows
// TMA1: memref<128xi8, #gpu.address_space<workgroup>> to memref<128xi8>
// TMA1: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// TMA1: %[[BARRIERS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>>
// TMA1: scf.if
// TMA1-NEXT: arith.constant
// TMA1-NEXT: arith.constant
// TMA1-NEXT: nvgpu.mbarrier.init %[[BARRIERS]][%{{.*}}], %{{.*}}, predicate = %[[ELECTED:.*]] :
// TMA1-NEXT: scf.if %[[ELECTED]] {
// TMA1-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// TMA1-NEXT: nvgpu.tma.prefetch.descriptor
// TMA1-NEXT: }
// TMA1-NEXT: gpu.barrier
// TMA1-NEXT: }
// TMA1-NEXT: scf.if %[[ELECTED]] {
// TMA1-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// TMA1-NEXT: }
// TMA1-NOT: scf.if
// TMA1: nvgpu.mbarrier.arrive.expect_tx %[[BARRIERS]]
// TMA1: nvgpu.tma.async.load
// TMA1-NEXT: %[[PARITY:.*]] = arith.index_castui %[[K]] : index to i1
// TMA1: nvgpu.mbarrier.try_wait.parity %[[BARRIERS]][%{{.*}}], %[[PARITY]]
// TMA1-NOT: nvgpu.device_async
// TMA1-LABEL: func.func @cta_rows

// On sm_90a the dynamic array is aligned to the 128B swizzle pattern.
// PTXTMA: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTXTMA: .shared .align 8 .b8 __mbarrier[24];
// PTXTMA: mbarrier.init.shared.b64
// PTXTMA: fence.proxy.async.shared::cta;
// PTXTMA-NEXT: prefetch.tensormap
// PTXTMA: bar.sync
// PTXTMA: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTXTMA: mbarrier.try_wait.parity.shared.b64
// PTXTMA: fence.proxy.async.shared::cta;
// PTXTMA: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTXTMA-NOT: cp.async.wait_group

// out[r] = sum of row r of in, 8 columns per step.
func.func @rows(%in: memref<4x64xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [4, 8] semantics [parallel, arbitrary] {
    %tile = vx.scratch smem : memref<1x8xf32>
    %acc = vx.scratch : memref<1xf32>
    %r = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %in[%r, %col] [1, 8] [1, 1] : memref<4x64xf32> to memref<1x8xf32, strided<[64, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<1x8xf32, strided<[64, 1], offset: ?>> to memref<1x8xf32>
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      memref.store %zero, %acc[%c0] : memref<1xf32>
    }
    vx.await %tok
    %s = scf.for %c = %c0 to %c8 step %c1 iter_args(%a = %zero) -> f32 {
      %x = memref.load %tile[%c0, %c] : memref<1x8xf32>
      %n = arith.addf %a, %x : f32
      scf.yield %n : f32
    }
    %a0 = memref.load %acc[%c0] : memref<1xf32>
    %a1 = arith.addf %a0, %s : f32
    memref.store %a1, %acc[%c0] : memref<1xf32>
    memref.store %a1, %out[%r] : memref<4xf32>
  }
  return
}

// A grid instance on a whole CTA (a thread loop, `threads 16`): the issues
// spread their chunks over the threads, as the transfer they replace did,
// and a barrier follows each step's wait, so that every thread has left
// the slot the step refills and sees the step's tile: the only barrier of
// the step (the CTA mapping planned none around the transfer and after its
// await for this schedule; pipeline-transfers-barriers.mlir).
// CHECK-LABEL: func.func @cta_rows
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[T:.*]] = gpu.thread_id x upper_bound 16
// CHECK: %[[CHUNK:.*]] = arith.muli %[[T]], %{{.*}} : index
// CHECK: nvgpu.device_async_copy %{{.*}}[%[[CHUNK]]], %{{.*}}[%[[CHUNK]]], 4
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK: gpu.thread_id x upper_bound 16
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.device_async_create_group
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
func.func @cta_rows(%in: memref<4x256xf32>, %out: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  vx.spawn on tensor_core grid [4, 4] semantics [parallel, arbitrary] threads 16 stages 3 {
    %tile = vx.scratch smem : memref<64xf32>
    %r = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c64 : index
    %src = memref.subview %in[%r, %col] [1, 64] [1, 1] : memref<4x256xf32> to memref<64xf32, strided<[1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
    vx.await %tok
    scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
      %x = memref.load %tile[%t] : memref<64xf32>
      %y = memref.load %out[%r, %t] : memref<4x64xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %out[%r, %t] : memref<4x64xf32>
    }
  }
  return
}

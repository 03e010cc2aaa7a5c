// The default CTA size is chosen with the requested stages: a body
// without thread loops keeps the requested stages whenever their slots fit
// (VX_SPEC 2.2) and runs the instances per CTA (a power of two, whole
// warps) whose scratch and slots fit the chip's dynamic shared memory
// (166784 bytes on sm_80, 232320 on sm_90) and that occupy its SMs best:
// bytes in flight up to what hides the memory latency (16 KiB per SM on
// sm_80, 32 KiB on sm_90), then threads per SM. A 512-byte tile: 256
// instances fit one stage; 2 stages run 128 per CTA on sm_80 (one CTA per
// SM) and 64 on sm_90 (three); 3 stages 32 on sm_80 (three CTAs per SM,
// 96 threads, where 64 would leave one) and 128 on sm_90; @clause's 4
// stages 64 on sm_80 and 32 on sm_90. A remark says when the CTA is
// smaller than without pipelining. The plans are checked on stdout, the
// remarks on stderr.
// RUN: vx-opt %s --vx-plan-launch="stages=1 chip=sm_80" | FileCheck %s --check-prefix=ONE
// RUN: vx-opt %s --vx-plan-launch="stages=1 chip=sm_80" 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE-REMARK
// RUN: vx-opt %s --vx-plan-launch="stages=2 chip=sm_80" | FileCheck %s --check-prefix=TWO80
// RUN: vx-opt %s --vx-plan-launch="stages=2 chip=sm_80" 2>&1 >/dev/null | FileCheck %s --check-prefix=TWO80-REMARK
// RUN: vx-opt %s --vx-plan-launch="stages=3 chip=sm_80" | FileCheck %s --check-prefix=THREE80
// RUN: vx-opt %s --vx-plan-launch="stages=3 chip=sm_80" 2>&1 >/dev/null | FileCheck %s --check-prefix=THREE80-REMARK
// RUN: vx-opt %s --vx-plan-launch="stages=2 chip=sm_90" | FileCheck %s --check-prefix=TWO90
// RUN: vx-opt %s --vx-plan-launch="stages=3 chip=sm_90" | FileCheck %s --check-prefix=THREE90
// RUN: vx-opt %s --vx-plan-launch="stages=3" | FileCheck %s --check-prefix=THREE90
// RUN: vx-opt %s --vx-plan-launch="stages=3 chip=sm_90" 2>&1 >/dev/null | FileCheck %s --check-prefix=THREE90-REMARK
// An explicit threads-per-block is kept: the pipelining drops the stages
// that do not fit.
// RUN: vx-opt %s --convert-vx-to-gpu="stages=3 chip=sm_80 threads-per-block=256" 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLICIT
// convert-vx-to-gpu, and vx-to-gpu through the passes, pass their stages
// on: the transfers are pipelined in the 3 stages requested (one group in
// flight beyond the step's own), @clause's in its 4 (two).
// RUN: vx-opt %s --convert-vx-to-gpu="stages=3 chip=sm_90" | FileCheck %s --check-prefix=PIPELINED
// RUN: vx-opt %s --vx-to-gpu="stages=3 chip=sm_90" | FileCheck %s --check-prefix=PIPELINED

// Per spawn: @tile, @clause (its `stages 4` clause is its requested stages
// whatever the option) and @threads_clause (its `threads` clause is the
// CTA size whatever the stages).
// ONE: kernel = "tile_kernel", threads = 256, cooperative = false
// ONE: kernel = "clause_kernel", threads = 64, cooperative = false
// ONE: kernel = "threads_clause_kernel", threads = 256, cooperative = false
// ONE-REMARK: remark: runs 64 instances per CTA instead of 256 so that its transfers pipeline in 4 stages (4 requested, 512 bytes per slot) and occupy an SM of 'sm_80' best: 64 threads per SM, in CTAs of 131072 bytes of shared memory, 1 per SM
// ONE-REMARK-NOT: remark
// TWO80: kernel = "tile_kernel", threads = 128, cooperative = false
// TWO80: kernel = "clause_kernel", threads = 64, cooperative = false
// TWO80: kernel = "threads_clause_kernel", threads = 256, cooperative = false
// TWO80-REMARK: remark: runs 128 instances per CTA instead of 256 so that its transfers pipeline in 2 stages (2 requested, 512 bytes per slot) and occupy an SM of 'sm_80' best: 128 threads per SM, in CTAs of 131072 bytes of shared memory, 1 per SM
// TWO80-REMARK: remark: runs 64 instances per CTA instead of 256 so that its transfers pipeline in 4 stages (4 requested
// TWO80-REMARK-NOT: remark
// THREE80: kernel = "tile_kernel", threads = 32, cooperative = false
// THREE80: kernel = "clause_kernel", threads = 64, cooperative = false
// THREE80: kernel = "threads_clause_kernel", threads = 256, cooperative = false
// THREE80-REMARK: remark: runs 32 instances per CTA instead of 256 so that its transfers pipeline in 3 stages (3 requested, 512 bytes per slot) and occupy an SM of 'sm_80' best: 96 threads per SM, in CTAs of 49152 bytes of shared memory, 3 per SM
// THREE80-REMARK: remark: runs 64 instances per CTA instead of 256 so that its transfers pipeline in 4 stages (4 requested
// THREE80-REMARK-NOT: remark
// TWO90: kernel = "tile_kernel", threads = 64, cooperative = false
// TWO90: kernel = "clause_kernel", threads = 32, cooperative = false
// TWO90: kernel = "threads_clause_kernel", threads = 256, cooperative = false
// THREE90: kernel = "tile_kernel", threads = 128, cooperative = false
// THREE90: kernel = "clause_kernel", threads = 32, cooperative = false
// THREE90: kernel = "threads_clause_kernel", threads = 256, cooperative = false
// THREE90-REMARK: remark: runs 128 instances per CTA instead of 256 so that its transfers pipeline in 3 stages (3 requested, 512 bytes per slot) and occupy an SM of 'sm_90' best: 128 threads per SM, in CTAs of 196608 bytes of shared memory, 1 per SM
// THREE90-REMARK: remark: runs 32 instances per CTA instead of 256 so that its transfers pipeline in 4 stages (4 requested, 512 bytes per slot) and occupy an SM of 'sm_90' best: 96 threads per SM, in CTAs of 65536 bytes of shared memory, 3 per SM
// THREE90-REMARK-NOT: remark
// EXPLICIT-NOT: instances per CTA instead
// EXPLICIT: remark: does not pipeline its transfers (3 stages requested): 3 slots of 512 bytes for each of 256 instances per CTA need 262144 bytes

// PIPELINED-LABEL: func.func @tile
// PIPELINED: threads{{.*}}%c128{{.*}} dynamic_shared_memory_size %c196608_i32
// PIPELINED: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// PIPELINED-LABEL: func.func @clause
// PIPELINED: threads{{.*}}%c32{{.*}} dynamic_shared_memory_size %c65536_i32
// PIPELINED: nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// PIPELINED-LABEL: func.func @threads_clause
// PIPELINED: threads{{.*}}%c256{{.*}} dynamic_shared_memory_size %c131072_i32

func.func @tile(%in: memref<4096x1024xf32>) {
  %c128 = arith.constant 128 : index
  vx.spawn on tensor_core grid [4096, 8] semantics [parallel, arbitrary] {
    %tile = vx.scratch smem : memref<128xf32>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c128 : index
    %src = memref.subview %in[%p, %col] [1, 128] [1, 1] : memref<4096x1024xf32> to memref<128xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<128xf32, strided<[1], offset: ?>> to memref<128xf32>
    vx.await %t
  }
  return
}

// The spawn's `stages 4` clause is its requested stages, whatever the
// option.
func.func @clause(%in: memref<4096x1024xf32>) {
  %c128 = arith.constant 128 : index
  vx.spawn on tensor_core grid [4096, 8] semantics [parallel, arbitrary] stages 4 {
    %tile = vx.scratch smem : memref<128xf32>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c128 : index
    %src = memref.subview %in[%p, %col] [1, 128] [1, 1] : memref<4096x1024xf32> to memref<128xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<128xf32, strided<[1], offset: ?>> to memref<128xf32>
    vx.await %t
  }
  return
}

// A `threads` clause is the CTA size whatever the stages.
func.func @threads_clause(%in: memref<4096x1024xf32>) {
  %c128 = arith.constant 128 : index
  vx.spawn on tensor_core grid [4096, 8] semantics [parallel, arbitrary] threads 256 {
    %tile = vx.scratch smem : memref<128xf32>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c128 : index
    %src = memref.subview %in[%p, %col] [1, 128] [1, 1] : memref<4096x1024xf32> to memref<128xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<128xf32, strided<[1], offset: ?>> to memref<128xf32>
    vx.await %t
  }
  return
}

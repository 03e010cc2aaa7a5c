// The default CTA size leaves room for the slots of the requested stages:
// a body without thread loops runs the largest power of two of instances
// per CTA whose scratch and cp.async slots fit the chip's dynamic shared
// memory (166784 bytes on sm_80, 232320 on sm_90), with a remark when the
// stages are what made it smaller. A 512-byte tile: 256 instances fit one
// stage, 128 two, and three 128 on sm_90 but 64 on sm_80. The plans are
// checked on stdout, the remarks on stderr.
// RUN: vx-opt %s --vx-plan-launch="stages=1 chip=sm_80" | FileCheck %s --check-prefix=ONE
// RUN: vx-opt %s --vx-plan-launch="stages=1 chip=sm_80" 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE-REMARK
// RUN: vx-opt %s --vx-plan-launch="stages=1 chip=sm_90" | FileCheck %s --check-prefix=ONE
// RUN: vx-opt %s --vx-plan-launch="stages=2 chip=sm_80" | FileCheck %s --check-prefix=TWO
// RUN: vx-opt %s --vx-plan-launch="stages=2 chip=sm_80" 2>&1 >/dev/null | FileCheck %s --check-prefix=TWO-REMARK
// RUN: vx-opt %s --vx-plan-launch="stages=2 chip=sm_90" | FileCheck %s --check-prefix=TWO
// RUN: vx-opt %s --vx-plan-launch="stages=2 chip=sm_90" 2>&1 >/dev/null | FileCheck %s --check-prefix=TWO90-REMARK
// RUN: vx-opt %s --vx-plan-launch="stages=3 chip=sm_80" | FileCheck %s --check-prefix=THREE80
// RUN: vx-opt %s --vx-plan-launch="stages=3 chip=sm_80" 2>&1 >/dev/null | FileCheck %s --check-prefix=THREE80-REMARK
// RUN: vx-opt %s --vx-plan-launch="stages=3 chip=sm_90" | FileCheck %s --check-prefix=THREE90
// RUN: vx-opt %s --vx-plan-launch="stages=3 chip=sm_90" 2>&1 >/dev/null | FileCheck %s --check-prefix=THREE90-REMARK
// An explicit threads-per-block is kept: the pipelining caps the stages.
// RUN: vx-opt %s --convert-vx-to-gpu="stages=3 chip=sm_80 threads-per-block=256" 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLICIT
// convert-vx-to-gpu, and vx-to-gpu through the passes, pass their stages
// on: the transfers are pipelined in 3 stages (one group in flight).
// RUN: vx-opt %s --convert-vx-to-gpu="stages=3 chip=sm_80" | FileCheck %s --check-prefix=PIPELINED
// RUN: vx-opt %s --vx-to-gpu="stages=3 chip=sm_80" | FileCheck %s --check-prefix=PIPELINED

// Per spawn: @tile, @clause (its `stages 4` clause is its requested stages
// whatever the option: 4 slots of 512 bytes fit 64 instances on either
// chip) and @threads_clause (its `threads` clause is the CTA size whatever
// the stages).
// ONE: kernel = "tile_kernel", threads = 256, cooperative = false
// ONE: kernel = "clause_kernel", threads = 64, cooperative = false
// ONE: kernel = "threads_clause_kernel", threads = 256, cooperative = false
// ONE-REMARK: remark: runs 64 instances per CTA instead of 256 so that the 4 stages of its transfers (512 bytes per slot) fit the 166784 bytes of dynamic shared memory that 'sm_80' gives a CTA
// ONE-REMARK-NOT: remark
// TWO: kernel = "tile_kernel", threads = 128, cooperative = false
// TWO: kernel = "clause_kernel", threads = 64, cooperative = false
// TWO: kernel = "threads_clause_kernel", threads = 256, cooperative = false
// TWO-REMARK: remark: runs 128 instances per CTA instead of 256 so that the 2 stages of its transfers (512 bytes per slot) fit the 166784 bytes of dynamic shared memory that 'sm_80' gives a CTA
// TWO-REMARK: remark: runs 64 instances per CTA instead of 256 so that the 4 stages
// TWO-REMARK-NOT: remark
// TWO90-REMARK: remark: runs 128 instances per CTA instead of 256 so that the 2 stages of its transfers (512 bytes per slot) fit the 232320 bytes of dynamic shared memory that 'sm_90' gives a CTA
// THREE80: kernel = "tile_kernel", threads = 64, cooperative = false
// THREE80: kernel = "clause_kernel", threads = 64, cooperative = false
// THREE80: kernel = "threads_clause_kernel", threads = 256, cooperative = false
// THREE80-REMARK: remark: runs 64 instances per CTA instead of 256 so that the 3 stages of its transfers (512 bytes per slot) fit the 166784 bytes of dynamic shared memory that 'sm_80' gives a CTA
// THREE80-REMARK: remark: runs 64 instances per CTA instead of 256 so that the 4 stages
// THREE80-REMARK-NOT: remark
// THREE90: kernel = "tile_kernel", threads = 128, cooperative = false
// THREE90: kernel = "clause_kernel", threads = 64, cooperative = false
// THREE90: kernel = "threads_clause_kernel", threads = 256, cooperative = false
// THREE90-REMARK: remark: runs 128 instances per CTA instead of 256 so that the 3 stages of its transfers (512 bytes per slot) fit the 232320 bytes of dynamic shared memory that 'sm_90' gives a CTA
// EXPLICIT-NOT: instances per CTA instead
// EXPLICIT: remark: does not pipeline its transfers (3 stages requested): 3 slots of 512 bytes for each of 256 instances per CTA need 262144 bytes
// PIPELINED-LABEL: func.func @tile
// PIPELINED: threads{{.*}}%c64{{.*}} dynamic_shared_memory_size %c98304_i32
// PIPELINED: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// PIPELINED-LABEL: func.func @clause
// PIPELINED: threads{{.*}}%c64{{.*}} dynamic_shared_memory_size %c131072_i32
// PIPELINED: nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// PIPELINED-LABEL: func.func @threads_clause
// PIPELINED: threads{{.*}}%c256{{.*}} dynamic_shared_memory_size %c131072_i32
// PIPELINED: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}

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
// option: 4 slots of 512 bytes fit 64 instances on either chip.
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

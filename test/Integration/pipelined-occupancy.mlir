// The kernel of issue 30 that gave up pipelining: a body without thread
// loops, no `threads` clause, `stages 3`, a 2048-byte tile. 64 instances
// per CTA (the most that fit one stage) have no room for 3 slots each, so
// vx-plan-launch runs fewer instances per CTA, with the 3 stages
// requested (VX_SPEC 2.2: they fit), the count chosen by occupancy among
// those whose slots fit: 32 for any chip and sm_90 (one CTA per SM), 8 on
// sm_80 (three CTAs per SM, more bytes in flight than one of 16), 16 on
// sm_86 (its 99 KiB). On sm_80 a remark says what the 3 stages cost:
// `stages 2` would fit 4 CTAs per SM. The weighted sums, over 70 rows (not
// a multiple of the CTA) and 4 steps, are those of the host loops on every
// route.
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true chip=sm_80" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true chip=sm_86" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-gpu 2>&1 | FileCheck %s --check-prefix=IR
// RUN: vx-opt %s --vx-to-gpu="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=IR80
// RUN: vx-opt %s --vx-to-gpu="chip=sm_86" 2>&1 | FileCheck %s --check-prefix=IR86

// IR: remark: runs 32 instances per CTA instead of 64 so that its transfers pipeline in 3 stages (3 requested, 2048 bytes per slot) and occupy an SM of 'sm_90' best: 32 threads per SM, in CTAs of 196608 bytes of shared memory, 1 per SM
// IR-NOT: remark
// IR: threads in (%c32, %c1, %c1) {{ *}}dynamic_shared_memory_size %c196608_i32
// IR: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// IR80: remark: runs 8 instances per CTA instead of 64 so that its transfers pipeline in 3 stages (3 requested, 2048 bytes per slot) and occupy an SM of 'sm_80' best: 24 threads per SM, in CTAs of 49152 bytes of shared memory, 3 per SM
// IR80: remark: pipelines its transfers in 3 stages at a cost in occupancy on 'sm_80': its CTAs of 49152 bytes of shared memory fit 3 per SM, where `stages 2` would fit 4 (CTAs of 32768 bytes) and keep 65536 bytes of transfers in flight per SM, at least the 16384 that hide the memory latency
// IR80-NOT: remark
// IR80: threads in (%c8, %c1, %c1) {{ *}}dynamic_shared_memory_size %c49152_i32
// IR80: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// IR86: remark: runs 16 instances per CTA instead of 32 so that its transfers pipeline in 3 stages (3 requested, 2048 bytes per slot) and occupy an SM of 'sm_86' best: 16 threads per SM, in CTAs of 98304 bytes of shared memory, 1 per SM
// IR86-NOT: remark
// IR86: threads in (%c16, %c1, %c1) {{ *}}dynamic_shared_memory_size %c98304_i32
// IR86: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}

// CHECK: mismatches: 0

// out[p] = sum over the steps k of (k + 1) * sum(in[p, 512 k .. 512 k + 511]):
// the weight is the step's own, so a tile from another step (a wrong slot
// or prefetch index) changes the sum.
func.func @weighted_rows(%in: memref<70x2048xf32>, %out: memref<70xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [70, 4] semantics [parallel, arbitrary] stages 3 {
    %tile = vx.scratch smem : memref<512xf32>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c512 : index
    %src = memref.subview %in[%p, %col] [1, 512] [1, 1] : memref<70x2048xf32> to memref<512xf32, strided<[1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<512xf32, strided<[1], offset: ?>> to memref<512xf32>
    vx.await %tok
    %sum = scf.for %c = %c0 to %c512 step %c1 iter_args(%t = %zero) -> f32 {
      %x = memref.load %tile[%c] : memref<512xf32>
      %n = arith.addf %t, %x : f32
      scf.yield %n : f32
    }
    %k1 = arith.addi %k, %c1 : index
    %ki = arith.index_cast %k1 : index to i64
    %w = arith.sitofp %ki : i64 to f32
    %ws = arith.mulf %w, %sum : f32
    %first = arith.cmpi eq, %k, %c0 : index
    %old = memref.load %out[%p] : memref<70xf32>
    %base = arith.select %first, %zero, %old : f32
    %new = arith.addf %base, %ws : f32
    memref.store %new, %out[%p] : memref<70xf32>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c70 = arith.constant 70 : index
  %c512 = arith.constant 512 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  %in = memref.alloc() : memref<70x2048xf32>
  %out = memref.alloc() : memref<70xf32>
  // in[r, c] = (7 r + 3 c) mod 11: small integers whose sums f32 holds
  // exactly.
  scf.for %r = %c0 to %c70 step %c1 {
    scf.for %c = %c0 to %c2048 step %c1 {
      %r7 = arith.muli %r, %c7 : index
      %c3c = arith.muli %c, %c3 : index
      %s = arith.addi %r7, %c3c : index
      %v = arith.remui %s, %c11 : index
      %vi = arith.index_cast %v : index to i64
      %f = arith.sitofp %vi : i64 to f32
      memref.store %f, %in[%r, %c] : memref<70x2048xf32>
    }
  }
  call @weighted_rows(%in, %out) : (memref<70x2048xf32>, memref<70xf32>) -> ()
  %zeroi = arith.constant 0 : i64
  %onei = arith.constant 1 : i64
  %bad = scf.for %p = %c0 to %c70 step %c1 iter_args(%b = %zeroi) -> i64 {
    %ref = scf.for %k = %c0 to %c4 step %c1 iter_args(%t = %zero) -> f32 {
      %base = arith.muli %k, %c512 : index
      %sum = scf.for %c = %c0 to %c512 step %c1 iter_args(%u = %zero) -> f32 {
        %col = arith.addi %base, %c : index
        %x = memref.load %in[%p, %col] : memref<70x2048xf32>
        %n = arith.addf %u, %x : f32
        scf.yield %n : f32
      }
      %k1 = arith.addi %k, %c1 : index
      %ki = arith.index_cast %k1 : index to i64
      %w = arith.sitofp %ki : i64 to f32
      %ws = arith.mulf %w, %sum : f32
      %n = arith.addf %t, %ws : f32
      scf.yield %n : f32
    }
    %got = memref.load %out[%p] : memref<70xf32>
    %ne = arith.cmpf une, %got, %ref : f32
    %inc = arith.select %ne, %onei, %zeroi : i64
    %nb = arith.addi %b, %inc : i64
    scf.yield %nb : i64
  }
  vector.print str "mismatches: "
  vector.print %bad : i64
  memref.dealloc %in : memref<70x2048xf32>
  memref.dealloc %out : memref<70xf32>
  return
}

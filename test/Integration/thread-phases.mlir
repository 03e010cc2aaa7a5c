// Hand-written cooperative kernels (shared memory, barriers in uniform
// control flow, values carried across barriers, warp shuffles, cp.async)
// run by convert-gpu-launch-to-scf, each thread of a block phase by phase,
// against references computed by plain loops. Correct kernels give the same
// numbers in both thread orders and with the blocks in parallel
// (missing-barrier.mlir shows a kernel whose numbers change).
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true openmp=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

// out[b*64 + t] = in[b*64 + 63 - t] for the 6 blocks of a 3x2 grid of
// 4x4x4 blocks (t = (z*4 + y)*4 + x), through shared memory: every thread
// reads the element of another.
func.func @block_reverse(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c4, %sz = %c4)
             workgroup(%wg : memref<64xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %wg : memref<64xf32, #gpu.address_space<workgroup>> to memref<64xf32>
    %b0 = arith.muli %by, %c3 : index
    %b = arith.addi %b0, %bx : index
    %base = arith.muli %b, %c64 : index
    %t0 = arith.muli %tz, %c4 : index
    %t1 = arith.addi %t0, %ty : index
    %t2 = arith.muli %t1, %c4 : index
    %t = arith.addi %t2, %tx : index
    %i = arith.addi %base, %t : index
    %x = memref.load %in[%i] : memref<?xf32>
    memref.store %x, %tile[%t] : memref<64xf32>
    gpu.barrier
    %r = arith.subi %c63, %t : index
    %y = memref.load %tile[%r] : memref<64xf32>
    memref.store %y, %out[%i] : memref<?xf32>
    gpu.terminator
  }
  return
}

// out[b*16 + t] = in[b*16 + (t + 1) % 16] through shared memory, for 2
// blocks of 16 threads.
func.func @rotate(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1)
             workgroup(%wg : memref<16xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %wg : memref<16xf32, #gpu.address_space<workgroup>> to memref<16xf32>
    memref.store %zero, %tile[%t] : memref<16xf32>
    gpu.barrier
    %base = arith.muli %bx, %c16 : index
    %i = arith.addi %base, %t : index
    %x = memref.load %in[%i] : memref<?xf32>
    memref.store %x, %tile[%t] : memref<16xf32>
    gpu.barrier
    %n0 = arith.addi %t, %c1 : index
    %n = arith.remui %n0, %c16 : index
    %y = memref.load %tile[%n] : memref<16xf32>
    memref.store %y, %out[%i] : memref<?xf32>
    gpu.terminator
  }
  return
}

// Five steps of acc[t] += acc[(t + 1) % 32] / 2 over the 32 threads of each
// of 2 blocks of 8x4 threads (t = y*8 + x), each thread's acc an iter_arg
// carried across the barriers of the step.
func.func @ring_steps(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %half = arith.constant 0.5 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c4, %sz = %c1)
             workgroup(%wg : memref<32xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %wg : memref<32xf32, #gpu.address_space<workgroup>> to memref<32xf32>
    %t0 = arith.muli %ty, %c8 : index
    %t = arith.addi %t0, %tx : index
    %base = arith.muli %bx, %c32 : index
    %i = arith.addi %base, %t : index
    %n0 = arith.addi %t, %c1 : index
    %n = arith.remui %n0, %c32 : index
    %init = memref.load %in[%i] : memref<?xf32>
    %acc = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %init) -> f32 {
      memref.store %a, %tile[%t] : memref<32xf32>
      gpu.barrier
      %y = memref.load %tile[%n] : memref<32xf32>
      %h = arith.mulf %y, %half : f32
      %s = arith.addf %a, %h : f32
      gpu.barrier
      scf.yield %s : f32
    }
    memref.store %acc, %out[%i] : memref<?xf32>
    gpu.terminator
  }
  return
}

// For 4 blocks of 16 threads: r = reversed through shared memory in even
// blocks (a barrier under a uniform scf.if with a result), doubled in odd
// ones; then, in blocks 0 and 3 (index_switch on b % 3), out = r rotated by
// one through shared memory, elsewhere out = r.
func.func @uniform_branches(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1)
             workgroup(%wg : memref<16xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %wg : memref<16xf32, #gpu.address_space<workgroup>> to memref<16xf32>
    %base = arith.muli %bx, %c16 : index
    %i = arith.addi %base, %t : index
    %x = memref.load %in[%i] : memref<?xf32>
    %parity = arith.remui %bx, %c2 : index
    %even = arith.cmpi eq, %parity, %c0 : index
    %r = scf.if %even -> (f32) {
      memref.store %x, %tile[%t] : memref<16xf32>
      gpu.barrier
      %m = arith.subi %c15, %t : index
      %y = memref.load %tile[%m] : memref<16xf32>
      gpu.barrier
      scf.yield %y : f32
    } else {
      %d = arith.mulf %x, %two : f32
      scf.yield %d : f32
    }
    %sel = arith.remui %bx, %c3 : index
    %o = scf.index_switch %sel -> f32
    case 0 {
      memref.store %r, %tile[%t] : memref<16xf32>
      gpu.barrier
      %n0 = arith.addi %t, %c1 : index
      %n = arith.remui %n0, %c16 : index
      %y = memref.load %tile[%n] : memref<16xf32>
      scf.yield %y : f32
    }
    default {
      scf.yield %r : f32
    }
    memref.store %o, %out[%i] : memref<?xf32>
    gpu.terminator
  }
  return
}

// sums[b] = the sum of the 128 elements of block b (3 blocks), by a tree in
// shared memory: halving strides, a barrier after each level.
func.func @tree_sum(%in: memref<?xf32>, %sums: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%wg : memref<128xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %wg : memref<128xf32, #gpu.address_space<workgroup>> to memref<128xf32>
    %base = arith.muli %bx, %c128 : index
    %i = arith.addi %base, %t : index
    %x = memref.load %in[%i] : memref<?xf32>
    memref.store %x, %tile[%t] : memref<128xf32>
    gpu.barrier
    scf.for %level = %c0 to %c7 step %c1 {
      %stride = arith.shrui %c64, %level : index
      %active = arith.cmpi ult, %t, %stride : index
      scf.if %active {
        %j = arith.addi %t, %stride : index
        %a = memref.load %tile[%t] : memref<128xf32>
        %b = memref.load %tile[%j] : memref<128xf32>
        %s = arith.addf %a, %b : f32
        memref.store %s, %tile[%t] : memref<128xf32>
      }
      gpu.barrier
    }
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      %s = memref.load %tile[%c0] : memref<128xf32>
      memref.store %s, %sums[%bx] : memref<?xf32>
    }
    gpu.terminator
  }
  return
}

// Inclusive prefix sums of the 64 elements of each of 2 blocks (Hillis and
// Steele): an scf.while over doubling offsets, each step reading before a
// barrier and writing after it.
func.func @block_scan(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%wg : memref<64xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %wg : memref<64xf32, #gpu.address_space<workgroup>> to memref<64xf32>
    %base = arith.muli %bx, %c64 : index
    %i = arith.addi %base, %t : index
    %x = memref.load %in[%i] : memref<?xf32>
    memref.store %x, %tile[%t] : memref<64xf32>
    gpu.barrier
    %last = scf.while (%offset = %c1) : (index) -> index {
      %more = arith.cmpi ult, %offset, %c64 : index
      scf.condition(%more) %offset : index
    } do {
    ^bb0(%offset: index):
      %v = memref.load %tile[%t] : memref<64xf32>
      %reaches = arith.cmpi uge, %t, %offset : index
      %w = scf.if %reaches -> (f32) {
        %j = arith.subi %t, %offset : index
        %u = memref.load %tile[%j] : memref<64xf32>
        %s = arith.addf %v, %u : f32
        scf.yield %s : f32
      } else {
        scf.yield %v : f32
      }
      gpu.barrier
      memref.store %w, %tile[%t] : memref<64xf32>
      gpu.barrier
      %next = arith.muli %offset, %c2 : index
      scf.yield %next : index
    }
    %y = memref.load %tile[%t] : memref<64xf32>
    memref.store %y, %out[%i] : memref<?xf32>
    gpu.terminator
  }
  return
}

// For 2 blocks of 64 threads (2 warps each): every thread of a warp gets
// the warp's sum by xor butterflies (a loop whose iter_arg is shuffled,
// warp[b*64 + t]); the warps' sums combine through shared memory so that
// every thread gets the block's sum (block[b*64 + t]); lane 0 also gets the
// warp's sum by unrolled down shuffles (down[b*2 + w]).
func.func @warp_sums(%in: memref<?xf32>, %warp: memref<?xf32>, %block: memref<?xf32>, %down: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %w32 = arith.constant 32 : i32
  %o16 = arith.constant 16 : i32
  %o8 = arith.constant 8 : i32
  %o4 = arith.constant 4 : i32
  %o2 = arith.constant 2 : i32
  %o1 = arith.constant 1 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%wg : memref<2xf32, #gpu.address_space<workgroup>>) {
    %partial = memref.memory_space_cast %wg : memref<2xf32, #gpu.address_space<workgroup>> to memref<2xf32>
    %base = arith.muli %bx, %c64 : index
    %i = arith.addi %base, %t : index
    %x = memref.load %in[%i] : memref<?xf32>
    %sum = scf.for %k = %c0 to %c5 step %c1 iter_args(%v = %x) -> f32 {
      %k32 = arith.index_cast %k : index to i32
      %offset = arith.shrui %o16, %k32 : i32
      %other, %valid = gpu.shuffle xor %v, %offset, %w32 : f32
      %s = arith.addf %v, %other : f32
      scf.yield %s : f32
    }
    memref.store %sum, %warp[%i] : memref<?xf32>
    %lane = gpu.lane_id
    %w = arith.divui %t, %c32 : index
    %first = arith.cmpi eq, %lane, %c0 : index
    scf.if %first {
      memref.store %sum, %partial[%w] : memref<2xf32>
    }
    gpu.barrier
    %p0 = memref.load %partial[%c0] : memref<2xf32>
    %p1 = memref.load %partial[%c1] : memref<2xf32>
    %total = arith.addf %p0, %p1 : f32
    memref.store %total, %block[%i] : memref<?xf32>
    %d16, %v16 = gpu.shuffle down %x, %o16, %w32 : f32
    %s16 = arith.addf %x, %d16 : f32
    %d8, %v8 = gpu.shuffle down %s16, %o8, %w32 : f32
    %s8 = arith.addf %s16, %d8 : f32
    %d4, %v4 = gpu.shuffle down %s8, %o4, %w32 : f32
    %s4 = arith.addf %s8, %d4 : f32
    %d2, %v2 = gpu.shuffle down %s4, %o2, %w32 : f32
    %s2 = arith.addf %s4, %d2 : f32
    %d1, %v1 = gpu.shuffle down %s2, %o1, %w32 : f32
    %s1 = arith.addf %s2, %d1 : f32
    scf.if %first {
      %b2 = arith.muli %bx, %c2 : index
      %j = arith.addi %b2, %w : index
      memref.store %s1, %down[%j] : memref<?xf32>
    }
    gpu.terminator
  }
  return
}

// Each mode of gpu.shuffle on one block of 48 threads (a full warp and the
// first 16 lanes of a second), value in[t] = t + 1: xor 16 of width 32, down
// 3 of width 16, up 5 of width 32, idx 7 of width 8. values[m*48 + t] is the
// result, valid[m*48 + t] 1 where valid.
func.func @shuffle_modes(%in: memref<?xf32>, %values: memref<?xf32>, %valid: memref<?xi32>) {
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  %c96 = arith.constant 96 : index
  %c144 = arith.constant 144 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %o16 = arith.constant 16 : i32
  %w32 = arith.constant 32 : i32
  %o3 = arith.constant 3 : i32
  %w16 = arith.constant 16 : i32
  %o5 = arith.constant 5 : i32
  %o7 = arith.constant 7 : i32
  %w8 = arith.constant 8 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c48, %sy = %c1, %sz = %c1) {
    %x = memref.load %in[%t] : memref<?xf32>
    %r0, %v0 = gpu.shuffle xor %x, %o16, %w32 : f32
    %r1, %v1 = gpu.shuffle down %x, %o3, %w16 : f32
    %r2, %v2 = gpu.shuffle up %x, %o5, %w32 : f32
    %r3, %v3 = gpu.shuffle idx %x, %o7, %w8 : f32
    %i1 = arith.addi %t, %c48 : index
    %i2 = arith.addi %t, %c96 : index
    %i3 = arith.addi %t, %c144 : index
    memref.store %r0, %values[%t] : memref<?xf32>
    memref.store %r1, %values[%i1] : memref<?xf32>
    memref.store %r2, %values[%i2] : memref<?xf32>
    memref.store %r3, %values[%i3] : memref<?xf32>
    %f0 = arith.select %v0, %one, %zero : i32
    %f1 = arith.select %v1, %one, %zero : i32
    %f2 = arith.select %v2, %one, %zero : i32
    %f3 = arith.select %v3, %one, %zero : i32
    memref.store %f0, %valid[%t] : memref<?xi32>
    memref.store %f1, %valid[%i1] : memref<?xi32>
    memref.store %f2, %valid[%i2] : memref<?xi32>
    memref.store %f3, %valid[%i3] : memref<?xi32>
    gpu.terminator
  }
  return
}

// out[b*32 + 4*t + e] = in[b*32 + 4*(7 - t) + e] for 2 blocks of 8
// threads: each thread copies its 4 elements into shared memory with
// cp.async, waits, and after a barrier reads another thread's 4.
func.func @async_chunks(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1)
             workgroup(%wg : memref<32xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %wg : memref<32xf32, #gpu.address_space<workgroup>> to memref<32xf32>
    %back = memref.memory_space_cast %tile : memref<32xf32> to memref<32xf32, #gpu.address_space<workgroup>>
    %base = arith.muli %bx, %c32 : index
    %own = arith.muli %t, %c4 : index
    %src = arith.addi %base, %own : index
    %copy = nvgpu.device_async_copy %in[%src], %back[%own], 4 : memref<?xf32> to memref<32xf32, #gpu.address_space<workgroup>>
    %group = nvgpu.device_async_create_group %copy
    nvgpu.device_async_wait %group {numGroups = 0 : i32}
    gpu.barrier
    %m = arith.subi %c7, %t : index
    %theirs = arith.muli %m, %c4 : index
    scf.for %e = %c0 to %c4 step %c1 {
      %from = arith.addi %theirs, %e : index
      %y = memref.load %tile[%from] : memref<32xf32>
      %to0 = arith.addi %src, %e : index
      memref.store %y, %out[%to0] : memref<?xf32>
    }
    gpu.terminator
  }
  return
}

// acc[t] = sum over k < 4 of in[8k + (t + 1) % 8] for one block of 8
// threads, tile k+1 copied by cp.async into one half of a double buffer
// while tile k is read from the other: the copy's token is carried across
// the barriers of the loop.
func.func @async_pipeline(%in: memref<32xf32>, %acc: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1)
             workgroup(%wg : memref<2x8xf32, #gpu.address_space<workgroup>>) {
    %tiles = memref.memory_space_cast %wg : memref<2x8xf32, #gpu.address_space<workgroup>> to memref<2x8xf32>
    %back = memref.memory_space_cast %tiles : memref<2x8xf32> to memref<2x8xf32, #gpu.address_space<workgroup>>
    %first = nvgpu.device_async_copy %in[%t], %back[%c0, %t], 1 : memref<32xf32> to memref<2x8xf32, #gpu.address_space<workgroup>>
    %group = nvgpu.device_async_create_group %first
    %n0 = arith.addi %t, %c1 : index
    %n = arith.remui %n0, %c8 : index
    %sum, %last = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %zero, %pending = %group) -> (f32, !nvgpu.device.async.token) {
      %k1 = arith.addi %k, %c1 : index
      %more = arith.cmpi ult, %k1, %c4 : index
      %next = scf.if %more -> !nvgpu.device.async.token {
        %slot = arith.remui %k1, %c2 : index
        %row = arith.muli %k1, %c8 : index
        %src = arith.addi %row, %t : index
        %copy = nvgpu.device_async_copy %in[%src], %back[%slot, %t], 1 : memref<32xf32> to memref<2x8xf32, #gpu.address_space<workgroup>>
        %g = nvgpu.device_async_create_group %copy
        scf.yield %g : !nvgpu.device.async.token
      } else {
        scf.yield %pending : !nvgpu.device.async.token
      }
      nvgpu.device_async_wait %pending {numGroups = 0 : i32}
      gpu.barrier
      %slot = arith.remui %k, %c2 : index
      %x = memref.load %tiles[%slot, %n] : memref<2x8xf32>
      %s = arith.addf %a, %x : f32
      gpu.barrier
      scf.yield %s, %next : f32, !nvgpu.device.async.token
    }
    memref.store %sum, %acc[%t] : memref<8xf32>
    gpu.terminator
  }
  return
}

// Split ops in split ops: for each of 3 steps, a uniform scf.if (odd steps)
// around a barrier inside a loop around barriers. One block of 16 threads:
// v starts as in[t]; each step v += (odd step ? 2 : 1) * v[(t + 1) % 16].
func.func @nested_phases(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1)
             workgroup(%wg : memref<16xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %wg : memref<16xf32, #gpu.address_space<workgroup>> to memref<16xf32>
    %n0 = arith.addi %t, %c1 : index
    %n = arith.remui %n0, %c16 : index
    %x = memref.load %in[%t] : memref<?xf32>
    %v = scf.for %k = %c0 to %c3 step %c1 iter_args(%a = %x) -> f32 {
      memref.store %a, %tile[%t] : memref<16xf32>
      gpu.barrier
      %y = memref.load %tile[%n] : memref<16xf32>
      %parity = arith.remui %k, %c2 : index
      %odd = arith.cmpi eq, %parity, %c1 : index
      %w = scf.if %odd -> f32 {
        gpu.barrier
        %d = arith.mulf %y, %two : f32
        scf.yield %d : f32
      } else {
        scf.yield %y : f32
      }
      %s = arith.addf %a, %w : f32
      gpu.barrier
      scf.yield %s : f32
    }
    memref.store %v, %out[%t] : memref<?xf32>
    gpu.terminator
  }
  return
}

// Vectors kept per thread: for one block of 64 threads, v[t] = splat(t);
// the shuffle down by 3 (lane k gets lane k + 3, its own value from lane 29
// on) goes through a private alloca across a barrier; v[t] += the result.
func.func @vector_values(%m: memref<64xvector<4xf32>>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w = arith.constant 32 : i32
  %o = arith.constant 3 : i32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %m[%t] : memref<64xvector<4xf32>>
    %r, %ok = gpu.shuffle down %v, %o, %w : vector<4xf32>
    %mine = memref.alloca() : memref<2xvector<4xf32>>
    memref.store %r, %mine[%c1] : memref<2xvector<4xf32>>
    gpu.barrier
    %x = memref.load %mine[%c1] : memref<2xvector<4xf32>>
    %y = arith.addf %x, %v : vector<4xf32>
    gpu.barrier
    memref.store %y, %m[%t] : memref<64xvector<4xf32>>
    gpu.terminator
  }
  return
}

//===----------------------------------------------------------------------===//
// References and the driver
//===----------------------------------------------------------------------===//

func.func @alloc_f32(%n: index) -> memref<?xf32> {
  %zero = arith.constant 0.0 : f32
  %m = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%m : memref<?xf32>)
  return %m : memref<?xf32>
}

// in[i] = (i * 7) % 13 - 6 + 1/4 * (i % 3): small values whose sums are
// exact in f32.
func.func @make_input(%n: index) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c13 = arith.constant 13 : index
  %six = arith.constant 6.0 : f32
  %quarter = arith.constant 0.25 : f32
  %m = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = arith.muli %i, %c7 : index
    %b = arith.remui %a, %c13 : index
    %q = arith.remui %i, %c3 : index
    %bi = arith.index_cast %b : index to i64
    %qi = arith.index_cast %q : index to i64
    %bf = arith.sitofp %bi : i64 to f32
    %qf = arith.sitofp %qi : i64 to f32
    %c = arith.subf %bf, %six : f32
    %d = arith.mulf %qf, %quarter : f32
    %v = arith.addf %c, %d : f32
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return %m : memref<?xf32>
}

func.func @print_mismatches(%a: memref<?xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %n = memref.dim %a, %c0 : memref<?xf32>
  %count = scf.for %i = %c0 to %n step %c1 iter_args(%d = %zero) -> i64 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = memref.load %b[%i] : memref<?xf32>
    %ne = arith.cmpf une, %x, %y : f32
    %inc = arith.select %ne, %one, %zero : i64
    %s = arith.addi %d, %inc : i64
    scf.yield %s : i64
  }
  vector.print %count : i64
  return
}

// ref[b*size + t] = in[b*size + (t + shift) % size]; shift = size - 1 - 2t
// modulo size is the reversal, expressed here as a gather.
func.func @ref_rotate(%in: memref<?xf32>, %ref: memref<?xf32>, %size: index, %shift: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  %blocks = arith.divui %n, %size : index
  scf.for %b = %c0 to %blocks step %c1 {
    %base = arith.muli %b, %size : index
    scf.for %t = %c0 to %size step %c1 {
      %s = arith.addi %t, %shift : index
      %m = arith.remui %s, %size : index
      %from = arith.addi %base, %m : index
      %to = arith.addi %base, %t : index
      %x = memref.load %in[%from] : memref<?xf32>
      memref.store %x, %ref[%to] : memref<?xf32>
    }
  }
  return
}

func.func @ref_reverse(%in: memref<?xf32>, %ref: memref<?xf32>, %size: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %t = arith.remui %i, %size : index
    %base = arith.subi %i, %t : index
    %last = arith.subi %size, %c1 : index
    %r = arith.subi %last, %t : index
    %from = arith.addi %base, %r : index
    %x = memref.load %in[%from] : memref<?xf32>
    memref.store %x, %ref[%i] : memref<?xf32>
  }
  return
}

// The ring of @ring_steps, one whole step at a time on two arrays.
func.func @ref_ring_steps(%in: memref<?xf32>, %ref: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %half = arith.constant 0.5 : f32
  %n = memref.dim %in, %c0 : memref<?xf32>
  %next = memref.alloc(%n) : memref<?xf32>
  memref.copy %in, %ref : memref<?xf32> to memref<?xf32>
  scf.for %k = %c0 to %c5 step %c1 {
    scf.for %i = %c0 to %n step %c1 {
      %t = arith.remui %i, %c32 : index
      %base = arith.subi %i, %t : index
      %t1 = arith.addi %t, %c1 : index
      %m = arith.remui %t1, %c32 : index
      %j = arith.addi %base, %m : index
      %a = memref.load %ref[%i] : memref<?xf32>
      %y = memref.load %ref[%j] : memref<?xf32>
      %h = arith.mulf %y, %half : f32
      %s = arith.addf %a, %h : f32
      memref.store %s, %next[%i] : memref<?xf32>
    }
    memref.copy %next, %ref : memref<?xf32> to memref<?xf32>
  }
  memref.dealloc %next : memref<?xf32>
  return
}

func.func @ref_uniform_branches(%in: memref<?xf32>, %ref: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  scf.for %b = %c0 to %c4 step %c1 {
    %base = arith.muli %b, %c16 : index
    %parity = arith.remui %b, %c2 : index
    %even = arith.cmpi eq, %parity, %c0 : index
    %sel = arith.remui %b, %c3 : index
    %rotate = arith.cmpi eq, %sel, %c0 : index
    scf.for %t = %c0 to %c16 step %c1 {
      // r is read at u = t, or at (t + 1) % 16 when rotated.
      %t1 = arith.addi %t, %c1 : index
      %t1m = arith.remui %t1, %c16 : index
      %u = arith.select %rotate, %t1m, %t : index
      %ru = arith.subi %c15, %u : index
      %from = arith.select %even, %ru, %u : index
      %src = arith.addi %base, %from : index
      %x = memref.load %in[%src] : memref<?xf32>
      %d = arith.mulf %x, %two : f32
      %r = arith.select %even, %x, %d : f32
      %dst = arith.addi %base, %t : index
      memref.store %r, %ref[%dst] : memref<?xf32>
    }
  }
  return
}

// ref[b] = sum of in[b*size .. b*size + size).
func.func @ref_block_sums(%in: memref<?xf32>, %ref: memref<?xf32>, %size: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %in, %c0 : memref<?xf32>
  %blocks = arith.divui %n, %size : index
  scf.for %b = %c0 to %blocks step %c1 {
    %base = arith.muli %b, %size : index
    %s = scf.for %t = %c0 to %size step %c1 iter_args(%a = %zero) -> f32 {
      %i = arith.addi %base, %t : index
      %x = memref.load %in[%i] : memref<?xf32>
      %n2 = arith.addf %a, %x : f32
      scf.yield %n2 : f32
    }
    memref.store %s, %ref[%b] : memref<?xf32>
  }
  return
}

// ref[i] = in[i - i % size .. i] summed: inclusive prefix sums per block.
func.func @ref_scan(%in: memref<?xf32>, %ref: memref<?xf32>, %size: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %in, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> f32 {
    %t = arith.remui %i, %size : index
    %start = arith.cmpi eq, %t, %c0 : index
    %from = arith.select %start, %zero, %a : f32
    %x = memref.load %in[%i] : memref<?xf32>
    %s = arith.addf %from, %x : f32
    memref.store %s, %ref[%i] : memref<?xf32>
    scf.yield %s : f32
  }
  return
}

// ref[i] = sums[i / size]: a per-block value broadcast to every element.
func.func @ref_broadcast(%sums: memref<?xf32>, %ref: memref<?xf32>, %size: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %ref, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %b = arith.divui %i, %size : index
    %s = memref.load %sums[%b] : memref<?xf32>
    memref.store %s, %ref[%i] : memref<?xf32>
  }
  return
}

// ref[t] = sum over k < 4 of in[8k + (t + 1) % 8].
func.func @ref_async_pipeline(%in: memref<32xf32>, %ref: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %t = %c0 to %c8 step %c1 {
    %n0 = arith.addi %t, %c1 : index
    %n = arith.remui %n0, %c8 : index
    %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %zero) -> f32 {
      %row = arith.muli %k, %c8 : index
      %i = arith.addi %row, %n : index
      %x = memref.load %in[%i] : memref<32xf32>
      %b = arith.addf %a, %x : f32
      scf.yield %b : f32
    }
    memref.store %s, %ref[%t] : memref<8xf32>
  }
  return
}

// The steps of @nested_phases on whole arrays.
func.func @ref_nested_phases(%in: memref<?xf32>, %ref: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %next = memref.alloc(%c16) : memref<?xf32>
  %in16 = memref.subview %in[0] [16] [1] : memref<?xf32> to memref<16xf32, strided<[1]>>
  %ref16 = memref.subview %ref[0] [16] [1] : memref<?xf32> to memref<16xf32, strided<[1]>>
  memref.copy %in16, %ref16 : memref<16xf32, strided<[1]>> to memref<16xf32, strided<[1]>>
  scf.for %k = %c0 to %c3 step %c1 {
    %parity = arith.remui %k, %c2 : index
    %odd = arith.cmpi eq, %parity, %c1 : index
    %factor = arith.select %odd, %two, %one : f32
    scf.for %t = %c0 to %c16 step %c1 {
      %t1 = arith.addi %t, %c1 : index
      %m = arith.remui %t1, %c16 : index
      %a = memref.load %ref[%t] : memref<?xf32>
      %y = memref.load %ref[%m] : memref<?xf32>
      %w = arith.mulf %y, %factor : f32
      %s = arith.addf %a, %w : f32
      memref.store %s, %next[%t] : memref<?xf32>
    }
    %next16 = memref.cast %next : memref<?xf32> to memref<16xf32>
    memref.copy %next16, %ref16 : memref<16xf32> to memref<16xf32, strided<[1]>>
  }
  memref.dealloc %next : memref<?xf32>
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c384 = arith.constant 384 : index

  // CHECK-LABEL: block_reverse
  vector.print str "block_reverse\n"
  %in384 = func.call @make_input(%c384) : (index) -> memref<?xf32>
  %out384 = func.call @alloc_f32(%c384) : (index) -> memref<?xf32>
  %ref384 = func.call @alloc_f32(%c384) : (index) -> memref<?xf32>
  func.call @block_reverse(%in384, %out384) : (memref<?xf32>, memref<?xf32>) -> ()
  func.call @ref_reverse(%in384, %ref384, %c64) : (memref<?xf32>, memref<?xf32>, index) -> ()
  // CHECK-NEXT: 0
  func.call @print_mismatches(%out384, %ref384) : (memref<?xf32>, memref<?xf32>) -> ()

  // CHECK-LABEL: rotate
  vector.print str "rotate\n"
  %in32 = func.call @make_input(%c32) : (index) -> memref<?xf32>
  %out32 = func.call @alloc_f32(%c32) : (index) -> memref<?xf32>
  %ref32 = func.call @alloc_f32(%c32) : (index) -> memref<?xf32>
  func.call @ref_rotate(%in32, %ref32, %c16, %c1) : (memref<?xf32>, memref<?xf32>, index, index) -> ()
  func.call @rotate(%in32, %out32) : (memref<?xf32>, memref<?xf32>) -> ()
  // CHECK-NEXT: 0
  func.call @print_mismatches(%out32, %ref32) : (memref<?xf32>, memref<?xf32>) -> ()

  // CHECK-LABEL: ring_steps
  vector.print str "ring_steps\n"
  %in64 = func.call @make_input(%c64) : (index) -> memref<?xf32>
  %out64 = func.call @alloc_f32(%c64) : (index) -> memref<?xf32>
  %ref64 = func.call @alloc_f32(%c64) : (index) -> memref<?xf32>
  func.call @ring_steps(%in64, %out64) : (memref<?xf32>, memref<?xf32>) -> ()
  func.call @ref_ring_steps(%in64, %ref64) : (memref<?xf32>, memref<?xf32>) -> ()
  // CHECK-NEXT: 0
  func.call @print_mismatches(%out64, %ref64) : (memref<?xf32>, memref<?xf32>) -> ()

  // CHECK-LABEL: uniform_branches
  vector.print str "uniform_branches\n"
  func.call @uniform_branches(%in64, %out64) : (memref<?xf32>, memref<?xf32>) -> ()
  func.call @ref_uniform_branches(%in64, %ref64) : (memref<?xf32>, memref<?xf32>) -> ()
  // CHECK-NEXT: 0
  func.call @print_mismatches(%out64, %ref64) : (memref<?xf32>, memref<?xf32>) -> ()

  // CHECK-LABEL: tree_sum
  vector.print str "tree_sum\n"
  %sums = func.call @alloc_f32(%c3) : (index) -> memref<?xf32>
  %ref_sums = func.call @alloc_f32(%c3) : (index) -> memref<?xf32>
  func.call @tree_sum(%in384, %sums) : (memref<?xf32>, memref<?xf32>) -> ()
  func.call @ref_block_sums(%in384, %ref_sums, %c128) : (memref<?xf32>, memref<?xf32>, index) -> ()
  // CHECK-NEXT: 0
  func.call @print_mismatches(%sums, %ref_sums) : (memref<?xf32>, memref<?xf32>) -> ()
  // Block sums of the input, computed with numpy.
  // CHECK: [25.75, 28, 30.25]
  %sums_u = memref.cast %sums : memref<?xf32> to memref<*xf32>
  func.call @printMemrefF32(%sums_u) : (memref<*xf32>) -> ()

  // CHECK-LABEL: block_scan
  vector.print str "block_scan\n"
  %in128 = func.call @make_input(%c128) : (index) -> memref<?xf32>
  %out128 = func.call @alloc_f32(%c128) : (index) -> memref<?xf32>
  %ref128 = func.call @alloc_f32(%c128) : (index) -> memref<?xf32>
  func.call @block_scan(%in128, %out128) : (memref<?xf32>, memref<?xf32>) -> ()
  func.call @ref_scan(%in128, %ref128, %c64) : (memref<?xf32>, memref<?xf32>, index) -> ()
  // CHECK-NEXT: 0
  func.call @print_mismatches(%out128, %ref128) : (memref<?xf32>, memref<?xf32>) -> ()

  // CHECK-LABEL: warp_sums
  vector.print str "warp_sums\n"
  %warp = func.call @alloc_f32(%c128) : (index) -> memref<?xf32>
  %block = func.call @alloc_f32(%c128) : (index) -> memref<?xf32>
  %down = func.call @alloc_f32(%c4) : (index) -> memref<?xf32>
  func.call @warp_sums(%in128, %warp, %block, %down) : (memref<?xf32>, memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()
  %warp_ref = func.call @alloc_f32(%c4) : (index) -> memref<?xf32>
  %block_ref = func.call @alloc_f32(%c2) : (index) -> memref<?xf32>
  func.call @ref_block_sums(%in128, %warp_ref, %c32) : (memref<?xf32>, memref<?xf32>, index) -> ()
  func.call @ref_block_sums(%in128, %block_ref, %c64) : (memref<?xf32>, memref<?xf32>, index) -> ()
  func.call @ref_broadcast(%warp_ref, %ref128, %c32) : (memref<?xf32>, memref<?xf32>, index) -> ()
  // CHECK-NEXT: 0
  func.call @print_mismatches(%warp, %ref128) : (memref<?xf32>, memref<?xf32>) -> ()
  func.call @ref_broadcast(%block_ref, %ref128, %c64) : (memref<?xf32>, memref<?xf32>, index) -> ()
  // CHECK-NEXT: 0
  func.call @print_mismatches(%block, %ref128) : (memref<?xf32>, memref<?xf32>) -> ()
  // CHECK-NEXT: 0
  func.call @print_mismatches(%down, %warp_ref) : (memref<?xf32>, memref<?xf32>) -> ()

  // CHECK-LABEL: shuffle_modes
  vector.print str "shuffle_modes\n"
  %iota = memref.alloc(%c48) : memref<?xf32>
  scf.for %t = %c0 to %c48 step %c1 {
    %t1 = arith.addi %t, %c1 : index
    %ti = arith.index_cast %t1 : index to i64
    %tf = arith.sitofp %ti : i64 to f32
    memref.store %tf, %iota[%t] : memref<?xf32>
  }
  %values = func.call @alloc_f32(%c192) : (index) -> memref<?xf32>
  %valid = memref.alloc(%c192) : memref<?xi32>
  func.call @shuffle_modes(%iota, %values, %valid) : (memref<?xf32>, memref<?xf32>, memref<?xi32>) -> ()
  %values2 = memref.reinterpret_cast %values to offset: [0], sizes: [4, 48], strides: [48, 1] : memref<?xf32> to memref<4x48xf32>
  %valid2 = memref.reinterpret_cast %valid to offset: [0], sizes: [4, 48], strides: [48, 1] : memref<?xi32> to memref<4x48xi32>
  // xor 16, width 32: lane k gets lane k ^ 16; lanes 0-15 of the second
  // warp have no partner (threads 48-63 do not exist) and keep their own.
  // CHECK: {{\[}}[17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48],
  // down 3, width 16: lanes 0-12 get lane k + 3; the others keep their own.
  // CHECK-NEXT: [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 46, 47, 48],
  // up 5, width 32: lanes 5-31 get lane k - 5.
  // CHECK-NEXT: [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 33, 34, 35, 36, 37, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43],
  // idx 7, width 8: lanes 0-7 get lane 7.
  // CHECK-NEXT: [8, 8, 8, 8, 8, 8, 8, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 40, 40, 40, 40, 40, 40, 40, 40, 41, 42, 43, 44, 45, 46, 47, 48]]
  %values_u = memref.cast %values2 : memref<4x48xf32> to memref<*xf32>
  func.call @printMemrefF32(%values_u) : (memref<*xf32>) -> ()
  // CHECK: {{\[}}[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  // CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0],
  // CHECK-NEXT: [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
  // CHECK-NEXT: [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]]
  %valid_u = memref.cast %valid2 : memref<4x48xi32> to memref<*xi32>
  func.call @printMemrefI32(%valid_u) : (memref<*xi32>) -> ()

  // CHECK-LABEL: async_chunks
  vector.print str "async_chunks\n"
  func.call @async_chunks(%in64, %out64) : (memref<?xf32>, memref<?xf32>) -> ()
  // Chunk c of 4 elements of a block of 32 comes from chunk 7 - c: the
  // gather of element t from ((7 - t / 4) * 4 + t % 4) = 28 - t + 2 (t % 4)
  // is checked element by element against a plain loop.
  %cref = func.call @alloc_f32(%c64) : (index) -> memref<?xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %t = arith.remui %i, %c32 : index
    %base = arith.subi %i, %t : index
    %chunk = arith.divui %t, %c4 : index
    %e = arith.remui %t, %c4 : index
    %c7 = arith.constant 7 : index
    %rc = arith.subi %c7, %chunk : index
    %r4 = arith.muli %rc, %c4 : index
    %r = arith.addi %r4, %e : index
    %from = arith.addi %base, %r : index
    %x = memref.load %in64[%from] : memref<?xf32>
    memref.store %x, %cref[%i] : memref<?xf32>
  }
  // CHECK-NEXT: 0
  func.call @print_mismatches(%out64, %cref) : (memref<?xf32>, memref<?xf32>) -> ()

  // CHECK-LABEL: async_pipeline
  vector.print str "async_pipeline\n"
  %in32s = memref.cast %in32 : memref<?xf32> to memref<32xf32>
  %acc8 = memref.alloc() : memref<8xf32>
  %ref8 = memref.alloc() : memref<8xf32>
  func.call @async_pipeline(%in32s, %acc8) : (memref<32xf32>, memref<8xf32>) -> ()
  func.call @ref_async_pipeline(%in32s, %ref8) : (memref<32xf32>, memref<8xf32>) -> ()
  %acc8d = memref.cast %acc8 : memref<8xf32> to memref<?xf32>
  %ref8d = memref.cast %ref8 : memref<8xf32> to memref<?xf32>
  // CHECK-NEXT: 0
  func.call @print_mismatches(%acc8d, %ref8d) : (memref<?xf32>, memref<?xf32>) -> ()

  // CHECK-LABEL: nested_phases
  vector.print str "nested_phases\n"
  %out16 = func.call @alloc_f32(%c16) : (index) -> memref<?xf32>
  %ref16 = func.call @alloc_f32(%c16) : (index) -> memref<?xf32>
  func.call @nested_phases(%in32, %out16) : (memref<?xf32>, memref<?xf32>) -> ()
  func.call @ref_nested_phases(%in32, %ref16) : (memref<?xf32>, memref<?xf32>) -> ()
  // CHECK-NEXT: 0
  func.call @print_mismatches(%out16, %ref16) : (memref<?xf32>, memref<?xf32>) -> ()
  // CHECK-LABEL: vector_values
  vector.print str "vector_values\n"
  %vectors = memref.alloc() : memref<64xvector<4xf32>>
  scf.for %i = %c0 to %c64 step %c1 {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %v = vector.broadcast %f : f32 to vector<4xf32>
    memref.store %v, %vectors[%i] : memref<64xvector<4xf32>>
  }
  func.call @vector_values(%vectors) : (memref<64xvector<4xf32>>) -> ()
  %c29 = arith.constant 29 : index
  %c35 = arith.constant 35 : index
  %v0 = memref.load %vectors[%c0] : memref<64xvector<4xf32>>
  %v29 = memref.load %vectors[%c29] : memref<64xvector<4xf32>>
  %v35 = memref.load %vectors[%c35] : memref<64xvector<4xf32>>
  // CHECK-NEXT: ( 3, 3, 3, 3 )
  // CHECK-NEXT: ( 58, 58, 58, 58 )
  // CHECK-NEXT: ( 73, 73, 73, 73 )
  vector.print %v0 : vector<4xf32>
  vector.print %v29 : vector<4xf32>
  vector.print %v35 : vector<4xf32>
  memref.dealloc %vectors : memref<64xvector<4xf32>>
  memref.dealloc %acc8 : memref<8xf32>
  memref.dealloc %ref8 : memref<8xf32>
  memref.dealloc %out16 : memref<?xf32>
  memref.dealloc %ref16 : memref<?xf32>
  memref.dealloc %in384 : memref<?xf32>
  memref.dealloc %out384 : memref<?xf32>
  memref.dealloc %ref384 : memref<?xf32>
  memref.dealloc %in32 : memref<?xf32>
  memref.dealloc %out32 : memref<?xf32>
  memref.dealloc %ref32 : memref<?xf32>
  memref.dealloc %in64 : memref<?xf32>
  memref.dealloc %out64 : memref<?xf32>
  memref.dealloc %ref64 : memref<?xf32>
  memref.dealloc %sums : memref<?xf32>
  memref.dealloc %ref_sums : memref<?xf32>
  memref.dealloc %in128 : memref<?xf32>
  memref.dealloc %out128 : memref<?xf32>
  memref.dealloc %ref128 : memref<?xf32>
  memref.dealloc %warp : memref<?xf32>
  memref.dealloc %block : memref<?xf32>
  memref.dealloc %down : memref<?xf32>
  memref.dealloc %warp_ref : memref<?xf32>
  memref.dealloc %block_ref : memref<?xf32>
  memref.dealloc %iota : memref<?xf32>
  memref.dealloc %values : memref<?xf32>
  memref.dealloc %valid : memref<?xi32>
  memref.dealloc %cref : memref<?xf32>
  return
}

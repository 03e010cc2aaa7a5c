// RUN: vx-opt %s --convert-vx-to-gpu --canonicalize --cse -split-input-file | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-gpu="fma=false" -split-input-file | FileCheck %s --check-prefix=NOFMA

// A body with thread loops runs one instance per CTA of `threads` threads:
// iteration i of a thread loop on thread i mod N. Fewer iterations than
// threads: a guard; a multiple of the threads: rounds without a guard; a
// 2-D loop: its row-major linear iteration, delinearized.
// CHECK-LABEL: func.func @shapes
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c32, {{.*}} = %c1, {{.*}} = %c1)
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 32
// CHECK: %[[FEW:.*]] = arith.cmpi ult, %[[TID]], %c8
// CHECK: scf.if %[[FEW]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %[[TID]]]
// CHECK: scf.for %[[ROUND:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[ROUND]], %c32
// CHECK-NEXT: %[[LIN:.*]] = arith.addi %[[BASE]], %[[TID]]
// CHECK-NEXT: arith.remui %[[LIN]], %c8
// CHECK-NEXT: arith.divui %[[LIN]], %c8
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// NOFMA-LABEL: func.func @shapes
// NOFMA-NOT: fastmath
func.func @shapes(%out: memref<4x256xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 32 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %v = arith.constant 1.0 : f32
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      memref.store %v, %out[%p, %i] : memref<4x256xf32>
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
      %k = arith.muli %i, %c8 : index
      %l = arith.addi %k, %j : index
      memref.store %v, %out[%p, %l] : memref<4x256xf32>
    }
  }
  return
}

// -----

// A count that is no multiple of the threads: a loop from the thread's id in
// steps of N. An scf.parallel inside a thread loop stays one, in the
// thread's own loop: it is no thread loop, and runs sequentially in its
// thread (convert-scf-to-cf lowers it to a loop).
// CHECK-LABEL: func.func @ragged_and_nested
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 64
// CHECK: scf.for %[[LIN:.*]] = %[[TID]] to %c100 step %c64 {
// CHECK-NEXT: scf.parallel (%[[J:.*]]) = (%c0) to (%c4) step (%c1) {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[LIN]], %[[J]]]
// CHECK: gpu.terminator
func.func @ragged_and_nested(%out: memref<100x4xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c100 = arith.constant 100 : index
    %v = arith.constant 1.0 : f32
    scf.parallel (%i) = (%c0) to (%c100) step (%c1) {
      scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
        memref.store %v, %out[%i, %j] : memref<100x4xf32>
      }
    }
  }
  return
}

// -----

// scf.reduce in a thread loop: each thread's partial sum from the identity,
// a butterfly of xor shuffles per warp, lane 0 of each warp writes its
// warp's value to shared memory, a barrier, then every warp finishes by
// itself: lane i reads warp i mod 2's value and one more butterfly step
// combines both (addf is commutative: every lane of every warp has the same
// bits). Once-per-instance stores to captured memory happen on thread 0;
// the thread loop after it uses the reduced value on every thread.
// CHECK-LABEL: func.func @reduce_and_once
// CHECK: dynamic_shared_memory_size %c16_i32
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 64
// CHECK: %[[PARTIAL:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %cst) -> (f32) {
// CHECK: %[[S16:.*]], %{{.*}} = gpu.shuffle xor %[[PARTIAL]], %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: %[[FIRST_LANE:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: scf.if %[[FIRST_LANE]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[WARP]]] : memref<2xf32>
// CHECK: gpu.barrier
// CHECK-NEXT: %[[SLOT:.*]] = arith.andi %[[LANE]], %c1
// CHECK-NEXT: %[[OWN:.*]] = memref.load %{{.*}}[%[[SLOT]]] : memref<2xf32>
// CHECK-NEXT: %[[OTHER:.*]], %{{.*}} = gpu.shuffle xor %[[OWN]], %c1_i32, %c32_i32
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[OWN]], %[[OTHER]]
// CHECK-NOT: gpu.shuffle
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[TID]], %c0
// CHECK: scf.if %[[ONE]] {
// CHECK-NEXT: memref.store
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
func.func @reduce_and_once(%a: memref<4x256xf32>, %out: memref<4x256xf32>, %sums: memref<4xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 64 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c40 = arith.constant 40 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    %s = scf.parallel (%i) = (%c0) to (%c256) step (%c1) init (%zero) -> f32 {
      %x = memref.load %a[%p, %i] : memref<4x256xf32>
      scf.reduce(%x : f32) {
      ^bb0(%l: f32, %r: f32):
        %t = arith.addf %l, %r : f32
        scf.reduce.return %t : f32
      }
    }
    memref.store %s, %sums[%p] : memref<4xf32>
    scf.parallel (%i) = (%c0) to (%c40) step (%c1) {
      %x = memref.load %a[%p, %i] : memref<4x256xf32>
      %y = arith.divf %x, %s : f32
      memref.store %y, %out[%p, %i] : memref<4x256xf32>
    }
  }
  return
}

// -----

// smem scratch is one CTA buffer in dynamic shared memory. The second
// thread loop reads elements that other threads wrote: a barrier between.
// CHECK-LABEL: func.func @barrier_needed
// CHECK: dynamic_shared_memory_size %c256_i32
// CHECK: gpu.dynamic_shared_memory
// CHECK: memref.store %{{.*}}, %[[TILE:.*]][%[[TID:.*]]] : memref<64xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: arith.subi %c63, %[[TID]]
// CHECK-NEXT: memref.load %[[TILE]]
func.func @barrier_needed(%a: memref<4x64xf32>, %out: memref<4x64xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 64 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %tile = vx.scratch smem : memref<64xf32>
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %x = memref.load %a[%p, %i] : memref<4x64xf32>
      memref.store %x, %tile[%i] : memref<64xf32>
    }
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %j = arith.subi %c63, %i : index
      %x = memref.load %tile[%j] : memref<64xf32>
      memref.store %x, %out[%p, %i] : memref<4x64xf32>
    }
  }
  return
}

// -----

// Each thread reads back only the elements it wrote (iteration i on thread
// i mod 64 in both loops), also across the arbitrary steps: no barrier.
// CHECK-LABEL: func.func @no_barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
func.func @no_barrier(%a: memref<4x8x128xf32>, %out: memref<4x8x128xf32>) {
  vx.spawn on tensor_core grid [4, 8] semantics [parallel, arbitrary] threads 64 {
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %tile = vx.scratch smem : memref<128xf32>
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %x = memref.load %a[%p, %k, %i] : memref<4x8x128xf32>
      memref.store %x, %tile[%i] : memref<128xf32>
    }
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %x = memref.load %tile[%i] : memref<128xf32>
      memref.store %x, %out[%p, %k, %i] : memref<4x8x128xf32>
    }
  }
  return
}

// -----

// Across the arbitrary steps: the next step's fill overwrites what this
// step's second loop read on other threads (WAR): a barrier in the step
// loop before the fill, as well as the one between the loops (RAW).
// CHECK-LABEL: func.func @across_steps
// CHECK: scf.for %[[K:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: gpu.thread_id
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %{{.*}}[%{{.*}}, %[[K]], %{{.*}}]
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
func.func @across_steps(%a: memref<4x8x64xf32>, %out: memref<4x8x64xf32>) {
  vx.spawn on tensor_core grid [4, 8] semantics [parallel, arbitrary] threads 64 {
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %tile = vx.scratch smem : memref<64xf32>
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %x = memref.load %a[%p, %k, %i] : memref<4x8x64xf32>
      memref.store %x, %tile[%i] : memref<64xf32>
    }
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %j = arith.subi %c63, %i : index
      %x = memref.load %tile[%j] : memref<64xf32>
      memref.store %x, %out[%p, %k, %i] : memref<4x8x64xf32>
    }
  }
  return
}

// -----

// Private scratch owned by threads (acc[4 t + i] on thread t) shrinks to
// each thread's 4 elements, indexed by constants after the small loops
// that index it are unrolled: registers once LLVM promotes the alloca.
// CHECK-LABEL: func.func @owned
// CHECK: %[[PART:.*]] = memref.alloca() {alignment = 16 : i64} : memref<4xf32>
// CHECK-NOT: memref<256xf32>
// CHECK: memref.load %[[PART]][%c0] : memref<4xf32>
// CHECK: memref.load %[[PART]][%c1] : memref<4xf32>
// CHECK: memref.load %[[PART]][%c2] : memref<4xf32>
// CHECK: memref.load %[[PART]][%c3] : memref<4xf32>
func.func @owned(%a: memref<2x8x256xf32>, %out: memref<2x256xf32>) {
  vx.spawn on tensor_core grid [2, 8] semantics [parallel, arbitrary] threads 64 {
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %acc = vx.scratch : memref<256xf32>
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
        %base = arith.muli %t, %c4 : index
        scf.for %i = %c0 to %c4 step %c1 {
          %e = arith.addi %base, %i : index
          memref.store %zero, %acc[%e] : memref<256xf32>
        }
      }
    }
    scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
      %base = arith.muli %t, %c4 : index
      scf.for %i = %c0 to %c4 step %c1 {
        %e = arith.addi %base, %i : index
        %x = memref.load %a[%p, %k, %e] : memref<2x8x256xf32>
        %s = memref.load %acc[%e] : memref<256xf32>
        %n = arith.addf %s, %x : f32
        memref.store %n, %acc[%e] : memref<256xf32>
      }
    }
    %last = arith.cmpi eq, %k, %c7 : index
    scf.if %last {
      scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
        %base = arith.muli %t, %c4 : index
        scf.for %i = %c0 to %c4 step %c1 {
          %e = arith.addi %base, %i : index
          %s = memref.load %acc[%e] : memref<256xf32>
          memref.store %s, %out[%p, %e] : memref<2x256xf32>
        }
      }
    }
  }
  return
}

// -----

// A transfer outside thread loops is the CTA's: its 16-byte cp.async chunks
// are spread over the threads (chunk c on thread c mod 64); the await waits
// for the thread's group, then a barrier makes the whole tile visible.
// CHECK-LABEL: func.func @transfer
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 64
// CHECK: scf.for %[[ROUND:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[ROUND]], %c64
// CHECK-NEXT: %[[CHUNK:.*]] = arith.addi %[[BASE]], %[[TID]]
// CHECK-NEXT: %[[AT:.*]] = arith.muli %[[CHUNK]], %c4
// CHECK-NEXT: nvgpu.device_async_copy %{{.*}}[%[[AT]]], %{{.*}}[%[[AT]]], 4
// CHECK: %[[GROUP:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT: nvgpu.device_async_wait %[[GROUP]] {numGroups = 0 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
func.func @transfer(%a: memref<2x1024xf32>, %out: memref<2x1024xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 64 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1023 = arith.constant 1023 : index
    %c1024 = arith.constant 1024 : index
    %tile = vx.scratch smem : memref<1024xf32>
    %row = memref.subview %a[%p, 0] [1, 1024] [1, 1] : memref<2x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %row to %tile : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
    vx.await %t
    scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
      %j = arith.subi %c1023, %i : index
      %x = memref.load %tile[%j] : memref<1024xf32>
      memref.store %x, %out[%p, %i] : memref<2x1024xf32>
    }
  }
  return
}

// -----

// fma contraction: float arithmetic of device spawns is marked contractible
// by default (a multiply feeding an add becomes one fma); fma=false keeps
// separate multiplies and adds.
// CHECK-LABEL: func.func @contract
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// NOFMA-LABEL: func.func @contract
// NOFMA: arith.mulf %{{.*}}, %{{.*}} : f32
// NOFMA: arith.addf %{{.*}}, %{{.*}} : f32
func.func @contract(%a: memref<64xf32>, %b: memref<64xf32>) {
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<64xf32>
    %m = arith.mulf %x, %x : f32
    %s = arith.addf %m, %x : f32
    memref.store %s, %b[%i] : memref<64xf32>
  }
  return
}

// -----

// A maximum as a compare and select may keep +0 or -0 depending on the
// order of its operands: after the butterfly, lane 0's value goes to every
// lane. With 48 threads (no whole warps) the threads' values combine through
// shared memory only, every thread folding the 48 slots in order.
// CHECK-LABEL: func.func @select_max
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32
// CHECK-NEXT: arith.cmpf ogt
// CHECK-NEXT: %[[LANE_MAX:.*]] = arith.select
// CHECK-NEXT: gpu.shuffle idx %[[LANE_MAX]], %c0_i32, %c32_i32
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<48xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %{{.*}}[%c0] : memref<48xf32>
// CHECK-NEXT: scf.for %{{.*}} = %c1 to %c48 step %c1
func.func @select_max(%a: memref<4x96xf32>, %out: memref<4xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 32 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c96 = arith.constant 96 : index
    %low = arith.constant -1000.0 : f32
    %m = scf.parallel (%i) = (%c0) to (%c96) step (%c1) init (%low) -> f32 {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      scf.reduce(%x : f32) {
      ^bb0(%l: f32, %r: f32):
        %gt = arith.cmpf ogt, %l, %r : f32
        %t = arith.select %gt, %l, %r : f32
        scf.reduce.return %t : f32
      }
    }
    memref.store %m, %out[%p] : memref<4xf32>
  }
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 48 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c96 = arith.constant 96 : index
    %low = arith.constant -1000.0 : f32
    %m = scf.parallel (%i) = (%c0) to (%c96) step (%c1) init (%low) -> f32 {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      scf.reduce(%x : f32) {
      ^bb0(%l: f32, %r: f32):
        %gt = arith.cmpf ogt, %l, %r : f32
        %t = arith.select %gt, %l, %r : f32
        scf.reduce.return %t : f32
      }
    }
    memref.store %m, %out[%p] : memref<4xf32>
  }
  return
}

// -----

// The default CTA size (256 threads) shared by instances that each run on a
// thread is cut to the largest power of two whose smem scratch fits the
// shared memory: 64 KiB per instance, 2 instances per CTA (3 would fit, but
// CTA sizes stay powers of two).
// CHECK-LABEL: func.func @default_size_fits_shared_memory
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c4, {{.*}}) threads({{.*}}) in (%{{.*}} = %c2, {{.*}}) dynamic_shared_memory_size %c131072_i32
func.func @default_size_fits_shared_memory(%out: memref<8xf32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %big = vx.scratch smem : memref<16384xf32>
    %v = arith.constant 1.0 : f32
    memref.store %v, %big[%c0] : memref<16384xf32>
    %x = memref.load %big[%c0] : memref<16384xf32>
    memref.store %x, %out[%i] : memref<8xf32>
  }
  return
}

// -----

// Owned private scratch in a cyclic layout (element 64 i + t on the thread
// of iteration t): each thread keeps one element per multiple of 64,
// indexed by i, at constant indices once the loop over i is unrolled.
// CHECK-LABEL: func.func @owned_cyclic
// CHECK: %[[PART:.*]] = memref.alloca() {alignment = 16 : i64} : memref<4xf32>
// CHECK-NOT: memref<256xf32>
// CHECK: memref.store %{{.*}}, %[[PART]][%c0] : memref<4xf32>
// CHECK: memref.store %{{.*}}, %[[PART]][%c3] : memref<4xf32>
// CHECK: memref.load %[[PART]][%c0] : memref<4xf32>
// CHECK: memref.load %[[PART]][%c3] : memref<4xf32>
func.func @owned_cyclic(%a: memref<2x256xf32>, %out: memref<2x256xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 64 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %acc = vx.scratch : memref<256xf32>
    scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
      scf.for %i = %c0 to %c4 step %c1 {
        %b = arith.muli %i, %c64 : index
        %e = arith.addi %b, %t : index
        %x = memref.load %a[%p, %e] : memref<2x256xf32>
        memref.store %x, %acc[%e] : memref<256xf32>
      }
    }
    scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
      scf.for %i = %c0 to %c4 step %c1 {
        %b = arith.muli %i, %c64 : index
        %e = arith.addi %b, %t : index
        %x = memref.load %acc[%e] : memref<256xf32>
        memref.store %x, %out[%p, %e] : memref<2x256xf32>
      }
    }
  }
  return
}

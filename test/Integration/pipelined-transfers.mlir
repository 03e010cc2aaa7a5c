// Pipelined transfers (VX_SPEC 2.2) executed on the CPU through the GPU
// mapping (via-gpu): the prefetch indices across two arbitrary dims, the
// guards at the end of the grid and the slot rotation are checked against
// host references at stages 1 to 4, for step counts of 1, of fewer than the
// stages and of non-multiples of them.
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=1" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=2" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=3" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=4" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=3 threads-per-block=3" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=4 reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// On sm_90, with a CTA per grid instance, the tiles are TMA loads with an mbarrier per slot (one slot at
// stages=1; @matmul's clause asks for 4 whatever the option).
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a stages=1 threads-per-block=1" | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a stages=2 threads-per-block=1" | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a stages=3 threads-per-block=1" | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a stages=4 threads-per-block=1" | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a stages=3 threads-per-block=1" | FileCheck %s --check-prefix=TMA
// The CPU path ignores the stages.
// RUN: vx-opt %s --vx-to-llvm="stages=1" | %mlir_runner -e main | FileCheck %s
// The schedule is the one the GPU runs (convert-vx-to-gpu pipelines).
// RUN: vx-opt %s --convert-vx-to-gpu="stages=3 threads-per-block=1" | FileCheck %s --check-prefix=IR

func.func private @printMemrefF32(memref<*xf32>)

// out[p] = sum over steps s = (i, j) of the grid [4, a, b] of
// (s + 1) * sum(in[p, 8 s .. 8 s + 7]): the weight is the step's own, so a
// tile from another step (a wrong prefetch index or slot) changes the sum.
// IR-LABEL: func.func @weighted_tiles
// IR: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// TMA-LABEL: func.func @weighted_tiles
// TMA: nvgpu.mbarrier.try_wait.parity
func.func @weighted_tiles(%in: memref<4x256xf32>, %out: memref<4xf32>, %a: index, %b: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [4, %a, %b] semantics [parallel, arbitrary, arbitrary] {
    %tile = vx.scratch smem : memref<1x8xf32>
    %acc = vx.scratch : memref<1xf32>
    %p = vx.grid_index 0
    %i = vx.grid_index 1
    %j = vx.grid_index 2
    %nb = vx.grid_dim 2
    %ib = arith.muli %i, %nb : index
    %s = arith.addi %ib, %j : index
    %col = arith.muli %s, %c8 : index
    %src = memref.subview %in[%p, %col] [1, 8] [1, 1] : memref<4x256xf32> to memref<1x8xf32, strided<[256, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<1x8xf32, strided<[256, 1], offset: ?>> to memref<1x8xf32>
    %first = arith.cmpi eq, %s, %c0 : index
    scf.if %first {
      memref.store %zero, %acc[%c0] : memref<1xf32>
    }
    vx.await %tok
    %sum = scf.for %c = %c0 to %c8 step %c1 iter_args(%t = %zero) -> f32 {
      %x = memref.load %tile[%c0, %c] : memref<1x8xf32>
      %n = arith.addf %t, %x : f32
      scf.yield %n : f32
    }
    %s1 = arith.addi %s, %c1 : index
    %si = arith.index_cast %s1 : index to i64
    %w = arith.sitofp %si : i64 to f32
    %ws = arith.mulf %w, %sum : f32
    %old = memref.load %acc[%c0] : memref<1xf32>
    %new = arith.addf %old, %ws : f32
    memref.store %new, %acc[%c0] : memref<1xf32>
    memref.store %new, %out[%p] : memref<4xf32>
  }
  return
}

// C = A B, 4x4 tiles of C on a 2x2 parallel grid, K in 4 steps of 8 along
// the arbitrary dim: two pipelined transfers per step, one group. The
// clause asks for 4 stages whatever the option.
// IR-LABEL: func.func @matmul
// IR: nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// One arrival per step announces the bytes of both loads (128 + 128) on
// the step's barrier; the threads read the slots, so the loads follow a
// proxy fence.
// TMA-LABEL: func.func @matmul
// TMA: %[[ONE:.*]] = arith.constant 1 : index
// TMA: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %[[ONE]]
// TMA: nvvm.fence.proxy
// TMA: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%{{.*}}], %c256
// TMA-NOT: nvgpu.mbarrier.arrive.expect_tx
// TMA: nvgpu.tma.async.load
// TMA: nvgpu.tma.async.load
func.func @matmul(%A: memref<8x32xf32>, %B: memref<32x8xf32>, %C: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2, 2, 4] semantics [parallel, parallel, arbitrary] stages 4 {
    %a_tile = vx.scratch smem : memref<4x8xf32>
    %b_tile = vx.scratch smem : memref<8x4xf32>
    %acc = vx.scratch : memref<4x4xf32>
    %bi = vx.grid_index 0
    %bj = vx.grid_index 1
    %k = vx.grid_index 2
    %row = arith.muli %bi, %c4 : index
    %col = arith.muli %bj, %c4 : index
    %k0 = arith.muli %k, %c8 : index
    %a_src = memref.subview %A[%row, %k0] [4, 8] [1, 1] : memref<8x32xf32> to memref<4x8xf32, strided<[32, 1], offset: ?>>
    %b_src = memref.subview %B[%k0, %col] [8, 4] [1, 1] : memref<32x8xf32> to memref<8x4xf32, strided<[8, 1], offset: ?>>
    %ta = vx.transfer_async %a_src to %a_tile : memref<4x8xf32, strided<[32, 1], offset: ?>> to memref<4x8xf32>
    %tb = vx.transfer_async %b_src to %b_tile : memref<8x4xf32, strided<[8, 1], offset: ?>> to memref<8x4xf32>
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      scf.for %r = %c0 to %c4 step %c1 {
        scf.for %c = %c0 to %c4 step %c1 {
          memref.store %zero, %acc[%r, %c] : memref<4x4xf32>
        }
      }
    }
    vx.await %ta
    vx.await %tb
    scf.for %r = %c0 to %c4 step %c1 {
      scf.for %c = %c0 to %c4 step %c1 {
        %init = memref.load %acc[%r, %c] : memref<4x4xf32>
        %dot = scf.for %kk = %c0 to %c8 step %c1 iter_args(%t = %init) -> f32 {
          %x = memref.load %a_tile[%r, %kk] : memref<4x8xf32>
          %y = memref.load %b_tile[%kk, %c] : memref<8x4xf32>
          %xy = arith.mulf %x, %y : f32
          %n = arith.addf %t, %xy : f32
          scf.yield %n : f32
        }
        memref.store %dot, %acc[%r, %c] : memref<4x4xf32>
      }
    }
    scf.for %r = %c0 to %c4 step %c1 {
      scf.for %c = %c0 to %c4 step %c1 {
        %v = memref.load %acc[%r, %c] : memref<4x4xf32>
        %gr = arith.addi %row, %r : index
        %gc = arith.addi %col, %c : index
        memref.store %v, %C[%gr, %gc] : memref<8x8xf32>
      }
    }
  }
  return
}

// in[r, c] = (7 r + 3 c) mod 11, small integers whose sums f32 holds
// exactly.
func.func @fill(%m: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %cols = memref.dim %m, %c1 : memref<?x?xf32>
  scf.for %r = %c0 to %rows step %c1 {
    scf.for %c = %c0 to %cols step %c1 {
      %r7 = arith.muli %r, %c7 : index
      %c3c = arith.muli %c, %c3 : index
      %sum = arith.addi %r7, %c3c : index
      %v = arith.remui %sum, %c11 : index
      %vi = arith.index_cast %v : index to i64
      %f = arith.sitofp %vi : i64 to f32
      memref.store %f, %m[%r, %c] : memref<?x?xf32>
    }
  }
  return
}

// The number of elements where `x` and `y` differ.
func.func @mismatches(%x: memref<?xf32>, %y: memref<?xf32>) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %n = memref.dim %x, %c0 : memref<?xf32>
  %bad = scf.for %i = %c0 to %n step %c1 iter_args(%b = %zero) -> i64 {
    %u = memref.load %x[%i] : memref<?xf32>
    %v = memref.load %y[%i] : memref<?xf32>
    %ne = arith.cmpf une, %u, %v : f32
    %inc = arith.select %ne, %one, %zero : i64
    %nb = arith.addi %b, %inc : i64
    scf.yield %nb : i64
  }
  return %bad : i64
}

// Runs @weighted_tiles on an a x b grid of steps against the host loops.
func.func @check_tiles(%in: memref<4x256xf32>, %a: index, %b: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<4xf32>
  %ref = memref.alloc() : memref<4xf32>
  %steps = arith.muli %a, %b : index
  scf.for %p = %c0 to %c4 step %c1 {
    %total = scf.for %s = %c0 to %steps step %c1 iter_args(%t = %zero) -> f32 {
      %base = arith.muli %s, %c8 : index
      %sum = scf.for %c = %c0 to %c8 step %c1 iter_args(%u = %zero) -> f32 {
        %col = arith.addi %base, %c : index
        %x = memref.load %in[%p, %col] : memref<4x256xf32>
        %n = arith.addf %u, %x : f32
        scf.yield %n : f32
      }
      %s1 = arith.addi %s, %c1 : index
      %si = arith.index_cast %s1 : index to i64
      %w = arith.sitofp %si : i64 to f32
      %ws = arith.mulf %w, %sum : f32
      %nt = arith.addf %t, %ws : f32
      scf.yield %nt : f32
    }
    memref.store %total, %ref[%p] : memref<4xf32>
  }
  func.call @weighted_tiles(%in, %out, %a, %b) : (memref<4x256xf32>, memref<4xf32>, index, index) -> ()
  %dout = memref.cast %out : memref<4xf32> to memref<?xf32>
  %dref = memref.cast %ref : memref<4xf32> to memref<?xf32>
  %bad = func.call @mismatches(%dout, %dref) : (memref<?xf32>, memref<?xf32>) -> i64
  vector.print str "steps "
  vector.print %steps : index
  vector.print str "mismatches "
  vector.print %bad : i64
  %u = memref.cast %out : memref<4xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %out : memref<4xf32>
  memref.dealloc %ref : memref<4xf32>
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %in = memref.alloc() : memref<4x256xf32>
  %din = memref.cast %in : memref<4x256xf32> to memref<?x?xf32>
  func.call @fill(%din) : (memref<?x?xf32>) -> ()
  // 1 step; 2 and 3 (fewer than the stages); 5, 6, 7 and 9 (not multiples
  // of 2, 3 or 4, and 6 = 2 x 3 across both dims).
  // CHECK: steps 1
  // CHECK-NEXT: mismatches 0
  // CHECK-NEXT: [{{[1-9]}}
  func.call @check_tiles(%in, %c1, %c1) : (memref<4x256xf32>, index, index) -> ()
  // CHECK: steps 2
  // CHECK-NEXT: mismatches 0
  func.call @check_tiles(%in, %c2, %c1) : (memref<4x256xf32>, index, index) -> ()
  // CHECK: steps 3
  // CHECK-NEXT: mismatches 0
  func.call @check_tiles(%in, %c1, %c3) : (memref<4x256xf32>, index, index) -> ()
  // CHECK: steps 5
  // CHECK-NEXT: mismatches 0
  func.call @check_tiles(%in, %c1, %c5) : (memref<4x256xf32>, index, index) -> ()
  // CHECK: steps 6
  // CHECK-NEXT: mismatches 0
  func.call @check_tiles(%in, %c2, %c3) : (memref<4x256xf32>, index, index) -> ()
  // CHECK: steps 7
  // CHECK-NEXT: mismatches 0
  func.call @check_tiles(%in, %c7, %c1) : (memref<4x256xf32>, index, index) -> ()
  // CHECK: steps 9
  // CHECK-NEXT: mismatches 0
  func.call @check_tiles(%in, %c3, %c3) : (memref<4x256xf32>, index, index) -> ()
  memref.dealloc %in : memref<4x256xf32>

  %A = memref.alloc() : memref<8x32xf32>
  %B = memref.alloc() : memref<32x8xf32>
  %C = memref.alloc() : memref<8x8xf32>
  %R = memref.alloc() : memref<8x8xf32>
  %dA = memref.cast %A : memref<8x32xf32> to memref<?x?xf32>
  %dB = memref.cast %B : memref<32x8xf32> to memref<?x?xf32>
  func.call @fill(%dA) : (memref<?x?xf32>) -> ()
  func.call @fill(%dB) : (memref<?x?xf32>) -> ()
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %dot = scf.for %k = %c0 to %c32 step %c1 iter_args(%t = %zero) -> f32 {
        %x = memref.load %A[%i, %k] : memref<8x32xf32>
        %y = memref.load %B[%k, %j] : memref<32x8xf32>
        %xy = arith.mulf %x, %y : f32
        %n = arith.addf %t, %xy : f32
        scf.yield %n : f32
      }
      memref.store %dot, %R[%i, %j] : memref<8x8xf32>
    }
  }
  func.call @matmul(%A, %B, %C) : (memref<8x32xf32>, memref<32x8xf32>, memref<8x8xf32>) -> ()
  %fc = memref.collapse_shape %C [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  %fr = memref.collapse_shape %R [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  %dc = memref.cast %fc : memref<64xf32> to memref<?xf32>
  %dr = memref.cast %fr : memref<64xf32> to memref<?xf32>
  %bad = func.call @mismatches(%dc, %dr) : (memref<?xf32>, memref<?xf32>) -> i64
  // CHECK: matmul mismatches 0
  vector.print str "matmul mismatches "
  vector.print %bad : i64
  // CHECK: [{{[1-9]}}
  %row = memref.subview %C[0, 0] [1, 8] [1, 1] : memref<8x8xf32> to memref<8xf32, strided<[1]>>
  %ur = memref.cast %row : memref<8xf32, strided<[1]>> to memref<*xf32>
  func.call @printMemrefF32(%ur) : (memref<*xf32>) -> ()
  return
}

// TMA loads and mbarriers executed on the CPU (convert-gpu-launch-to-scf):
// the test pass lowers copies into workgroup memory with the TMA building
// blocks of the GPU mapping, and via-gpu runs them, in both thread orders
// (a wait is a barrier on the CPU, so the order cannot matter).
// RUN: vx-opt %s --test-vx-tma-copies --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --test-vx-tma-copies --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s

#wg = #gpu.address_space<workgroup>
func.func private @printMemrefF32(memref<*xf32>)

// out = 2 * a, one 16x32 band per block of 32 threads, each thread a column.
func.func @rows(%a: memref<64x32xf32>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
      workgroup(%buffer : memref<16x32xf32, #wg>) {
    // Shared memory as the GPU mapping sees it: in the default space, cast
    // back to workgroup memory for the copy.
    %tile = memref.memory_space_cast %buffer : memref<16x32xf32, #wg> to memref<16x32xf32>
    %target = memref.memory_space_cast %tile : memref<16x32xf32> to memref<16x32xf32, #wg>
    %row = arith.muli %bx, %c16 : index
    %src = memref.subview %a[%row, 0] [16, 32] [1, 1] : memref<64x32xf32> to memref<16x32xf32, strided<[32, 1], offset: ?>>
    memref.copy %src, %target : memref<16x32xf32, strided<[32, 1], offset: ?>> to memref<16x32xf32, #wg>
    scf.for %r = %c0 to %c16 step %c1 {
      %x = memref.load %tile[%r, %tx] : memref<16x32xf32>
      %y = arith.addf %x, %x : f32
      %orow = arith.addi %row, %r : index
      memref.store %y, %out[%orow, %tx] : memref<64x32xf32>
    }
    gpu.terminator
  }
  return
}

// Column sums of a, streamed through an 8x32 tile, and sums of 4-element
// pieces of rows of at through an 8x4 tile: a barrier each, whose parity
// alternates with the step.
func.func @column_sums(%a: memref<64x32xf32>, %at: memref<32x64xf32>,
                       %sums: memref<32xf32>, %sums_t: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
      workgroup(%buffer : memref<8x32xf32, #wg>, %buffer_t : memref<8x4xf32, #wg>) {
    %tile = memref.memory_space_cast %buffer : memref<8x32xf32, #wg> to memref<8x32xf32>
    %target = memref.memory_space_cast %tile : memref<8x32xf32> to memref<8x32xf32, #wg>
    %tile_t = memref.memory_space_cast %buffer_t : memref<8x4xf32, #wg> to memref<8x4xf32>
    %target_t = memref.memory_space_cast %tile_t : memref<8x4xf32> to memref<8x4xf32, #wg>
    %sum, %sum_t = scf.for %k = %c0 to %c64 step %c8 iter_args(%s = %zero, %st = %zero) -> (f32, f32) {
      %src = memref.subview %a[%k, 0] [8, 32] [1, 1] : memref<64x32xf32> to memref<8x32xf32, strided<[32, 1], offset: ?>>
      memref.copy %src, %target : memref<8x32xf32, strided<[32, 1], offset: ?>> to memref<8x32xf32, #wg>
      %src_t = memref.subview %at[0, %k] [8, 4] [1, 1] : memref<32x64xf32> to memref<8x4xf32, strided<[64, 1], offset: ?>>
      memref.copy %src_t, %target_t : memref<8x4xf32, strided<[64, 1], offset: ?>> to memref<8x4xf32, #wg>
      %part = scf.for %r = %c0 to %c8 step %c1 iter_args(%p = %s) -> f32 {
        %x = memref.load %tile[%r, %tx] : memref<8x32xf32>
        %n = arith.addf %p, %x : f32
        scf.yield %n : f32
      }
      // Thread t adds row t mod 4 of the second tile: at[t mod 4, k..k+3].
      %col = arith.remui %tx, %c4 : index
      %part_t = scf.for %j = %c0 to %c4 step %c1 iter_args(%p = %st) -> f32 {
        %x = memref.load %tile_t[%col, %j] : memref<8x4xf32>
        %n = arith.addf %p, %x : f32
        scf.yield %n : f32
      }
      // The next step's loads overwrite what every thread read.
      gpu.barrier
      scf.yield %part, %part_t : f32, f32
    }
    memref.store %sum, %sums[%tx] : memref<32xf32>
    %first = arith.cmpi ult, %tx, %c4 : index
    scf.if %first {
      memref.store %sum_t, %sums_t[%tx] : memref<4xf32>
    }
    gpu.terminator
  }
  return
}

// A 16x32 tile of each (b, h) of a 4-D tensor through a rank-reducing view.
func.func @heads(%k: memref<2x3x64x32xf32>, %out: memref<2x3x32xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%b, %h, %bz) in (%gx = %c2, %gy = %c3, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
      workgroup(%buffer : memref<16x32xf32, #wg>) {
    %tile = memref.memory_space_cast %buffer : memref<16x32xf32, #wg> to memref<16x32xf32>
    %target = memref.memory_space_cast %tile : memref<16x32xf32> to memref<16x32xf32, #wg>
    %head = memref.subview %k[%b, %h, %c16, 0] [1, 1, 32, 32] [1, 1, 1, 1] : memref<2x3x64x32xf32> to memref<32x32xf32, strided<[32, 1], offset: ?>>
    %src = memref.subview %head[%c1, 0] [16, 32] [1, 1] : memref<32x32xf32, strided<[32, 1], offset: ?>> to memref<16x32xf32, strided<[32, 1], offset: ?>>
    memref.copy %src, %target : memref<16x32xf32, strided<[32, 1], offset: ?>> to memref<16x32xf32, #wg>
    // Row 5 of the tile: row 16 + 1 + 5 = 22 of head (b, h).
    %x = memref.load %tile[%c5, %tx] : memref<16x32xf32>
    memref.store %x, %out[%b, %h, %tx] : memref<2x3x32xf32>
    gpu.terminator
  }
  return
}

// A box that runs past the end of the tensor: TMA fills the rest with
// zeros (oob = zero), and so does the CPU.
func.func @past_the_end(%a: memref<20x32xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1)
      workgroup(%buffer : memref<16x32xf32, #wg>) {
    %tile = memref.memory_space_cast %buffer : memref<16x32xf32, #wg> to memref<16x32xf32>
    %target = memref.memory_space_cast %tile : memref<16x32xf32> to memref<16x32xf32, #wg>
    %start = arith.muli %c1, %c16 : index
    %src = memref.subview %a[%start, 0] [16, 32] [1, 1] : memref<20x32xf32> to memref<16x32xf32, strided<[32, 1], offset: ?>>
    memref.copy %src, %target : memref<16x32xf32, strided<[32, 1], offset: ?>> to memref<16x32xf32, #wg>
    %x = memref.load %tile[%tx, %c1] : memref<16x32xf32>
    memref.store %x, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}

// Fills `m` (rank 2) with m[i, j] = i * columns + j.
func.func @iota(%m: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %columns = memref.dim %m, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %columns step %c1 {
      %base = arith.muli %i, %columns : index
      %v = arith.addi %base, %j : index
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f32
      memref.store %vf, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @main() {
  %a = memref.alloc() : memref<64x32xf32>
  %da = memref.cast %a : memref<64x32xf32> to memref<?x?xf32>
  func.call @iota(%da) : (memref<?x?xf32>) -> ()
  %out = memref.alloc() : memref<64x32xf32>
  func.call @rows(%a, %out) : (memref<64x32xf32>, memref<64x32xf32>) -> ()
  // out[r, c] = 2 (32 r + c) at rows 15, 39 and 63 (of blocks 0, 2 and 3),
  // columns 0 and 31.
  // CHECK: [960,   1022]
  // CHECK-NEXT: [2496,   2558]
  // CHECK-NEXT: [4032,   4094]
  %corners = memref.subview %out[15, 0] [3, 2] [24, 31] : memref<64x32xf32> to memref<3x2xf32, strided<[768, 31], offset: 480>>
  %uc = memref.cast %corners : memref<3x2xf32, strided<[768, 31], offset: 480>> to memref<*xf32>
  func.call @printMemrefF32(%uc) : (memref<*xf32>) -> ()

  // Column c of a sums 32 * (0 + ... + 63) + 64 c = 64512 + 64 c. Thread
  // t < 4 sums at[t, k..k+3] (64 t + k..k+3) for k = 0, 8, ..., 56:
  // 2048 t + 944.
  %at = memref.alloc() : memref<32x64xf32>
  %dat = memref.cast %at : memref<32x64xf32> to memref<?x?xf32>
  func.call @iota(%dat) : (memref<?x?xf32>) -> ()
  %sums = memref.alloc() : memref<32xf32>
  %sums_t = memref.alloc() : memref<4xf32>
  func.call @column_sums(%a, %at, %sums, %sums_t) : (memref<64x32xf32>, memref<32x64xf32>, memref<32xf32>, memref<4xf32>) -> ()
  // CHECK: [64512,  64576,  64640
  // CHECK-SAME: 66496]
  %us = memref.cast %sums : memref<32xf32> to memref<*xf32>
  func.call @printMemrefF32(%us) : (memref<*xf32>) -> ()
  // CHECK: [944,  2992,  5040,  7088]
  %ust = memref.cast %sums_t : memref<4xf32> to memref<*xf32>
  func.call @printMemrefF32(%ust) : (memref<*xf32>) -> ()

  // k[b, h, 22, c] = 32 (64 (3 b + h) + 22) + c; columns 0 and 31 printed.
  %k = memref.alloc() : memref<2x3x64x32xf32>
  %kf = memref.collapse_shape %k [[0, 1, 2], [3]] : memref<2x3x64x32xf32> into memref<384x32xf32>
  %dk = memref.cast %kf : memref<384x32xf32> to memref<?x?xf32>
  func.call @iota(%dk) : (memref<?x?xf32>) -> ()
  %heads = memref.alloc() : memref<2x3x32xf32>
  func.call @heads(%k, %heads) : (memref<2x3x64x32xf32>, memref<2x3x32xf32>) -> ()
  // CHECK: [704,   735],
  // CHECK: [2752,   2783],
  // CHECK: [4800,   4831]
  // CHECK: [6848,   6879],
  // CHECK: [8896,   8927],
  // CHECK: [10944,   10975]
  %ends = memref.subview %heads[0, 0, 0] [2, 3, 2] [1, 1, 31] : memref<2x3x32xf32> to memref<2x3x2xf32, strided<[96, 32, 31]>>
  %ue = memref.cast %ends : memref<2x3x2xf32, strided<[96, 32, 31]>> to memref<*xf32>
  func.call @printMemrefF32(%ue) : (memref<*xf32>) -> ()

  // Rows 16..19 of a 20x32 tensor, then zeros: column 1 is 32 r + 1.
  // CHECK: [513,  545,  577,  609,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0]
  %short = memref.alloc() : memref<20x32xf32>
  %ds = memref.cast %short : memref<20x32xf32> to memref<?x?xf32>
  func.call @iota(%ds) : (memref<?x?xf32>) -> ()
  %column = memref.alloc() : memref<16xf32>
  func.call @past_the_end(%short, %column) : (memref<20x32xf32>, memref<16xf32>) -> ()
  %uz = memref.cast %column : memref<16xf32> to memref<*xf32>
  func.call @printMemrefF32(%uz) : (memref<*xf32>) -> ()
  return
}

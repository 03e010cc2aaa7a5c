// Row sums of 2x4 tiles staged into scratch with vx.transfer_async from a
// strided subview of the input; the host path copies at the transfer.
// RUN: vx-opt %s --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true threads-per-block=3 openmp=true" | %mlir_runner -e main | FileCheck %s
// The stages of pipelined transfers (VX_SPEC 2.2) change no number: the
// option, and the clause of @row_sums that overrides it.
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=3" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true via-gpu=true threads-per-block=3 openmp=true" | %mlir_runner -e main | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)

// sums[r] = sum over c of in[r, c] for an 8x8 input, one 2x8 row band per
// parallel instance, staged as two 2x4 tiles along an arbitrary axis.
func.func @row_sums(%in: memref<8x8xf32>, %sums: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [4, 2] semantics [parallel, arbitrary] stages 2 {
    %tile = vx.scratch smem : memref<2x4xf32>
    %acc = vx.scratch : memref<2xf32>
    %band = vx.grid_index 0
    %t = vx.grid_index 1
    %r0 = arith.muli %band, %c2 : index
    %col0 = arith.muli %t, %c4 : index
    %src = memref.subview %in[%r0, %col0] [2, 4] [1, 1] : memref<8x8xf32> to memref<2x4xf32, strided<[8, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<2x4xf32, strided<[8, 1], offset: ?>> to memref<2x4xf32>
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      memref.store %zero, %acc[%c0] : memref<2xf32>
      memref.store %zero, %acc[%c1] : memref<2xf32>
    }
    vx.await %tok
    scf.for %r = %c0 to %c2 step %c1 {
      %s0 = memref.load %acc[%r] : memref<2xf32>
      %s = scf.for %c = %c0 to %c4 step %c1 iter_args(%a = %s0) -> f32 {
        %x = memref.load %tile[%r, %c] : memref<2x4xf32>
        %n = arith.addf %a, %x : f32
        scf.yield %n : f32
      }
      memref.store %s, %acc[%r] : memref<2xf32>
    }
    %is_last = arith.cmpi eq, %t, %c1 : index
    scf.if %is_last {
      scf.for %r = %c0 to %c2 step %c1 {
        %row = arith.addi %r0, %r : index
        %s = memref.load %acc[%r] : memref<2xf32>
        memref.store %s, %sums[%row] : memref<8xf32>
      }
    }
  }
  return
}

// Row sums of 8x16 with each instance (row, half) streaming its half row in
// chunks of 4 through a double buffer: the next chunk's transfer is in
// flight while the current one is summed. The half axis is arbitrary: the
// accumulator carries across it.
func.func @double_buffered_sums(%in: memref<8x16xf32>, %sums: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [8, 2] semantics [parallel, arbitrary] {
    %buf = vx.scratch smem : memref<2x4xf32>
    %acc = vx.scratch : memref<1xf32>
    %row = vx.grid_index 0
    %half = vx.grid_index 1
    %base = arith.muli %half, %c8 : index
    %is_first = arith.cmpi eq, %half, %c0 : index
    scf.if %is_first {
      memref.store %zero, %acc[%c0] : memref<1xf32>
    }
    %first = memref.subview %in[%row, %base] [1, 4] [1, 1] : memref<8x16xf32> to memref<4xf32, strided<[1], offset: ?>>
    %slot0 = memref.subview %buf[0, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1]>>
    %t0 = vx.transfer_async %first to %slot0 : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32, strided<[1]>>
    %last = scf.for %k = %c0 to %c1 step %c1 iter_args(%t = %t0) -> !vx.token {
      %next = arith.addi %k, %c1 : index
      %slot = arith.remui %next, %c2 : index
      %chunk = arith.muli %next, %c4 : index
      %col = arith.addi %base, %chunk : index
      %src = memref.subview %in[%row, %col] [1, 4] [1, 1] : memref<8x16xf32> to memref<4xf32, strided<[1], offset: ?>>
      %dst = memref.subview %buf[%slot, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      %tn = vx.transfer_async %src to %dst : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
      vx.await %t
      %cur = arith.remui %k, %c2 : index
      scf.for %c = %c0 to %c4 step %c1 {
        %x = memref.load %buf[%cur, %c] : memref<2x4xf32>
        %a = memref.load %acc[%c0] : memref<1xf32>
        %n = arith.addf %a, %x : f32
        memref.store %n, %acc[%c0] : memref<1xf32>
      }
      scf.yield %tn : !vx.token
    }
    vx.await %last
    scf.for %c = %c0 to %c4 step %c1 {
      %x = memref.load %buf[%c1, %c] : memref<2x4xf32>
      %a = memref.load %acc[%c0] : memref<1xf32>
      %n = arith.addf %a, %x : f32
      memref.store %n, %acc[%c0] : memref<1xf32>
    }
    %is_last = arith.cmpi eq, %half, %c1 : index
    scf.if %is_last {
      %s = memref.load %acc[%c0] : memref<1xf32>
      memref.store %s, %sums[%row] : memref<8xf32>
    }
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %in = memref.alloc() : memref<8x8xf32>
  %sums = memref.alloc() : memref<8xf32>
  // in[r, c] = 8 * r + c, so sums[r] = 64 * r + 28.
  scf.for %r = %c0 to %c8 step %c1 {
    scf.for %c = %c0 to %c8 step %c1 {
      %r8 = arith.muli %r, %c8 : index
      %v = arith.addi %r8, %c : index
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f32
      memref.store %vf, %in[%r, %c] : memref<8x8xf32>
    }
  }
  func.call @row_sums(%in, %sums) : (memref<8x8xf32>, memref<8xf32>) -> ()
  // CHECK: [28, 92, 156, 220, 284, 348, 412, 476]
  %u = memref.cast %sums : memref<8xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  // wide[r, c] = 16 * r + c, so its row sums are 256 * r + 120.
  %c16 = arith.constant 16 : index
  %wide = memref.alloc() : memref<8x16xf32>
  scf.for %r = %c0 to %c8 step %c1 {
    scf.for %c = %c0 to %c16 step %c1 {
      %r16 = arith.muli %r, %c16 : index
      %v = arith.addi %r16, %c : index
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f32
      memref.store %vf, %wide[%r, %c] : memref<8x16xf32>
    }
  }
  func.call @double_buffered_sums(%wide, %sums) : (memref<8x16xf32>, memref<8xf32>) -> ()
  // CHECK: [120, 376, 632, 888, 1144, 1400, 1656, 1912]
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %wide : memref<8x16xf32>
  memref.dealloc %in : memref<8x8xf32>
  memref.dealloc %sums : memref<8xf32>
  return
}

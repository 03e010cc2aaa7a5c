// Memrefs chosen by arith.select (issue 27), executed on every route.
// @chain writes, in step s, the row that step s + 1 transfers, through a
// select of the transfer's own source: pipelining would prefetch rows
// before they are written, so the transfer is not pipelined (it used to be
// at stages 2 and 3, leaving every row after the second at 1).
// @once_private stores once per instance through a select of two private
// scratches: every thread writes its own copy.
// @carried alternates the buffer its thread loops update with a memref
// that an scf.for carries across their barriers (via-gpu keeps the
// descriptor per thread; it used to refuse the loop), then stores once
// through the loop's result. @chosen writes, after a barrier, through a
// memref that an scf.if chose before it (kept per thread the same way).
// RUN: vx-opt %s --vx-verify-semantics --vx-to-llvm 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=2" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=3" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=3 reverse-parallel=true" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=2 threads-per-block=3" 2>/dev/null | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true via-gpu=true stages=2" 2>/dev/null | %mlir_runner -e main | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)

// rows[p, s + 1, c] = rows[p, s, c] + 1 for the steps s of the arbitrary
// dim, from rows[p, 0, c] = p.
func.func @chain(%rows: memref<2x5x8xf32>, %other: memref<2x5x8xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [2, 4] semantics [parallel, arbitrary] threads 8 {
    %tile = vx.scratch smem : memref<1x1x8xf32>
    %p = vx.grid_index 0
    %s = vx.grid_index 1
    %src = memref.subview %rows[%p, %s, 0] [1, 1, 8] [1, 1, 1] : memref<2x5x8xf32> to memref<1x1x8xf32, strided<[40, 8, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<1x1x8xf32, strided<[40, 8, 1], offset: ?>> to memref<1x1x8xf32>
    vx.await %tok
    %next = arith.addi %s, %c1 : index
    %target = arith.select %flag, %rows, %other : memref<2x5x8xf32>
    scf.parallel (%c) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %tile[%c0, %c0, %c] : memref<1x1x8xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %target[%p, %next, %c] : memref<2x5x8xf32>
      scf.reduce
    }
  }
  return
}

// out[p, t] = t + 10 p, and 100 + p at t = 3 (or 200 + p when %flag is
// false): the store at 3 is once per instance, into the scratch the select
// picks, and thread 3 reads it.
func.func @once_private(%out: memref<2x8xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %hundred = arith.constant 100.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 8 {
    %p = vx.grid_index 0
    %first = vx.scratch : memref<8xf32>
    %second = vx.scratch : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %p10 = arith.muli %p, %c10 : index
      %v = arith.addi %t, %p10 : index
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f32
      memref.store %vf, %first[%t] : memref<8xf32>
      memref.store %vf, %second[%t] : memref<8xf32>
      scf.reduce
    }
    %m = arith.select %flag, %first, %second : memref<8xf32>
    %pi = arith.index_cast %p : index to i64
    %pf = arith.sitofp %pi : i64 to f32
    %mark = arith.addf %hundred, %pf : f32
    memref.store %mark, %m[%c3] : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %first[%t] : memref<8xf32>
      memref.store %x, %out[%p, %t] : memref<2x8xf32>
      scf.reduce
    }
  }
  return
}

// CHECK: [0,   0,   0,   0,   0,   0,   0,   0]
// CHECK: [1,   1,   1,   1,   1,   1,   1,   1]
// CHECK: [2,   2,   2,   2,   2,   2,   2,   2]
// CHECK: [3,   3,   3,   3,   3,   3,   3,   3]
// CHECK: [4,   4,   4,   4,   4,   4,   4,   4]
// CHECK: [1,   1,   1,   1,   1,   1,   1,   1]
// CHECK: [2,   2,   2,   2,   2,   2,   2,   2]
// CHECK: [3,   3,   3,   3,   3,   3,   3,   3]
// CHECK: [4,   4,   4,   4,   4,   4,   4,   4]
// CHECK: [5,   5,   5,   5,   5,   5,   5,   5]
// CHECK: [0,   1,   2,   100,   4,   5,   6,   7]
// CHECK: [10,   11,   12,   101,   14,   15,   16,   17]
// CHECK: [2,   2,   2,   2,   2,   2,   2,   2]
// CHECK: [100,   1,   1,   1,   1,   1,   1,   1]
// CHECK: [2,   2,   2,   2,   2,   2,   2,   2]
// CHECK: [7,   6,   5,   4,   3,   2,   1,   0]
func.func @chosen(%ab: memref<2x8xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %a = memref.subview %ab[0, 0] [1, 8] [1, 1] : memref<2x8xf32> to memref<8xf32, strided<[1]>>
  %b = memref.subview %ab[1, 0] [1, 8] [1, 1] : memref<2x8xf32> to memref<8xf32, strided<[1], offset: 8>>
  %acast = memref.cast %a : memref<8xf32, strided<[1]>> to memref<8xf32, strided<[1], offset: ?>>
  %bcast = memref.cast %b : memref<8xf32, strided<[1], offset: 8>> to memref<8xf32, strided<[1], offset: ?>>
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 4 {
    %s = vx.scratch smem : memref<8xf32>
    %m = scf.if %flag -> (memref<8xf32, strided<[1], offset: ?>>) {
      scf.yield %bcast : memref<8xf32, strided<[1], offset: ?>>
    } else {
      scf.yield %acast : memref<8xf32, strided<[1], offset: ?>>
    }
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %ii = arith.index_cast %i : index to i64
      %if = arith.sitofp %ii : i64 to f32
      memref.store %if, %s[%i] : memref<8xf32>
    }
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %j = arith.subi %c7, %i : index
      %x = memref.load %s[%j] : memref<8xf32>
      memref.store %x, %m[%i] : memref<8xf32, strided<[1], offset: ?>>
    }
  }
  return
}

func.func @carried(%ab: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %hundred = arith.constant 100.0 : f32
  %a = memref.subview %ab[0, 0] [1, 8] [1, 1] : memref<2x8xf32> to memref<8xf32, strided<[1]>>
  %b = memref.subview %ab[1, 0] [1, 8] [1, 1] : memref<2x8xf32> to memref<8xf32, strided<[1], offset: 8>>
  %bcast = memref.cast %b : memref<8xf32, strided<[1], offset: 8>> to memref<8xf32, strided<[1], offset: ?>>
  %acast = memref.cast %a : memref<8xf32, strided<[1]>> to memref<8xf32, strided<[1], offset: ?>>
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 4 {
    %s = vx.scratch smem : memref<8xf32>
    %last = scf.for %k = %c0 to %c3 step %c1 iter_args(%m = %acast) -> (memref<8xf32, strided<[1], offset: ?>>) {
      %ki = arith.index_cast %k : index to i64
      %kf = arith.sitofp %ki : i64 to f32
      scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
        memref.store %kf, %s[%i] : memref<8xf32>
      }
      scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
        %j = arith.subi %c7, %i : index
        %x = memref.load %s[%j] : memref<8xf32>
        %y = memref.load %m[%i] : memref<8xf32, strided<[1], offset: ?>>
        %z = arith.addf %x, %y : f32
        memref.store %z, %m[%i] : memref<8xf32, strided<[1], offset: ?>>
      }
      %parity = arith.remui %k, %c2 : index
      %even = arith.cmpi eq, %parity, %c0 : index
      %next = arith.select %even, %bcast, %acast : memref<8xf32, strided<[1], offset: ?>>
      scf.yield %next : memref<8xf32, strided<[1], offset: ?>>
    }
    memref.store %hundred, %last[%c0] : memref<8xf32, strided<[1], offset: ?>>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %true = arith.constant true
  %zero = arith.constant 0.0 : f32
  %rows = memref.alloc() : memref<2x5x8xf32>
  %other = memref.alloc() : memref<2x5x8xf32>
  scf.for %p = %c0 to %c2 step %c1 {
    %pi = arith.index_cast %p : index to i64
    %pf = arith.sitofp %pi : i64 to f32
    scf.for %r = %c0 to %c5 step %c1 {
      scf.for %c = %c0 to %c8 step %c1 {
        memref.store %pf, %rows[%p, %r, %c] : memref<2x5x8xf32>
        memref.store %zero, %other[%p, %r, %c] : memref<2x5x8xf32>
      }
    }
  }
  call @chain(%rows, %other, %true) : (memref<2x5x8xf32>, memref<2x5x8xf32>, i1) -> ()
  %printed = memref.cast %rows : memref<2x5x8xf32> to memref<*xf32>
  call @printMemrefF32(%printed) : (memref<*xf32>) -> ()
  %out = memref.alloc() : memref<2x8xf32>
  call @once_private(%out, %true) : (memref<2x8xf32>, i1) -> ()
  %printedOut = memref.cast %out : memref<2x8xf32> to memref<*xf32>
  call @printMemrefF32(%printedOut) : (memref<*xf32>) -> ()
  %ab = memref.alloc() : memref<2x8xf32>
  scf.for %r = %c0 to %c2 step %c1 {
    scf.for %c = %c0 to %c8 step %c1 {
      memref.store %zero, %ab[%r, %c] : memref<2x8xf32>
    }
  }
  call @carried(%ab) : (memref<2x8xf32>) -> ()
  %printedFlat = memref.cast %ab : memref<2x8xf32> to memref<*xf32>
  call @printMemrefF32(%printedFlat) : (memref<*xf32>) -> ()
  call @chosen(%ab, %true) : (memref<2x8xf32>, i1) -> ()
  call @printMemrefF32(%printedFlat) : (memref<*xf32>) -> ()
  memref.dealloc %ab : memref<2x8xf32>
  memref.dealloc %rows : memref<2x5x8xf32>
  memref.dealloc %other : memref<2x5x8xf32>
  memref.dealloc %out : memref<2x8xf32>
  return
}

// The CTA mapping's rules, each in a small kernel, against references
// computed by plain loops in @main, on every CPU route: thread loops with
// fewer, more and a non-multiple of the threads' iterations, 2-D and nested
// thread loops, CTA-wide reductions through shuffles and through shared
// memory only, once-per-instance code whose stores later thread loops read,
// a shared tile rewritten at every arbitrary step (a barrier across steps),
// owned per-thread buffers (blocked, and cyclic), and a transfer copied by
// the whole CTA.
// Each line is the largest difference from the reference (0 when right).
// With via-gpu=true the threads of a CTA run phase by phase between the
// barriers the mapping placed, in both orders: a missing barrier changes the
// numbers (missing-barrier.mlir).
// RUN: vx-opt %s --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true openmp=true threads-per-block=3" | %mlir_runner -e main | FileCheck %s
// The mlir-opt plugin runs the same mapping.
// RUN: mlir-opt %s --load-dialect-plugin=%vx_plugin --load-pass-plugin=%vx_plugin --pass-pipeline="builtin.module(vx-to-llvm{via-gpu=true reverse-parallel=true})" | %mlir_runner -e main | FileCheck %s

// CHECK: reverse 0
// CHECK-NEXT: sums 0
// CHECK-NEXT: centered 0
// CHECK-NEXT: once 0
// CHECK-NEXT: steps 0
// CHECK-NEXT: transfer 0
// CHECK-NEXT: nested 0
// CHECK-NEXT: cyclic 0

// out[p, i] = a[p, 95 - i] through a shared tile: 96 iterations on 64
// threads (thread t runs t and t + 64 when below 96).
func.func @reverse(%a: memref<4x96xf32>, %out: memref<4x96xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 64 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c95 = arith.constant 95 : index
    %c96 = arith.constant 96 : index
    %tile = vx.scratch smem : memref<96xf32>
    scf.parallel (%i) = (%c0) to (%c96) step (%c1) {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      memref.store %x, %tile[%i] : memref<96xf32>
    }
    scf.parallel (%i) = (%c0) to (%c96) step (%c1) {
      %j = arith.subi %c95, %i : index
      %x = memref.load %tile[%j] : memref<96xf32>
      memref.store %x, %out[%p, %i] : memref<4x96xf32>
    }
  }
  return
}

// sums[p] = the sum of row p (96 elements on 48 threads: the warps' values
// combine through shared memory only), and centered[p, i] = a[p, i] - the
// row's largest element (64 threads: shuffle butterflies), which every
// thread uses.
func.func @row_stats(%a: memref<4x96xf32>, %sums: memref<4xf32>, %centered: memref<4x96xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 48 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c96 = arith.constant 96 : index
    %zero = arith.constant 0.0 : f32
    %s = scf.parallel (%i) = (%c0) to (%c96) step (%c1) init (%zero) -> f32 {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      scf.reduce(%x : f32) {
      ^bb0(%l: f32, %r: f32):
        %t = arith.addf %l, %r : f32
        scf.reduce.return %t : f32
      }
    }
    memref.store %s, %sums[%p] : memref<4xf32>
  }
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 64 {
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
    scf.parallel (%i) = (%c0) to (%c96) step (%c1) {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      %y = arith.subf %x, %m : f32
      memref.store %y, %centered[%p, %i] : memref<4x96xf32>
    }
  }
  return
}

// Once per instance: base = a[p, 0] * 10 stored in shared memory (by one
// thread), then out[p, i] = base + a[p, i] for i < 8 (fewer iterations than
// threads) read by every thread.
func.func @once(%a: memref<4x96xf32>, %out: memref<4x8xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 32 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %ten = arith.constant 10.0 : f32
    %base = vx.scratch smem : memref<1xf32>
    %x0 = memref.load %a[%p, %c0] : memref<4x96xf32>
    %b = arith.mulf %x0, %ten : f32
    memref.store %b, %base[%c0] : memref<1xf32>
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %v = memref.load %base[%c0] : memref<1xf32>
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      %y = arith.addf %v, %x : f32
      memref.store %y, %out[%p, %i] : memref<4x8xf32>
    }
  }
  return
}

// out[p, i] = the sum over steps k of a[p, 32 k + 31 - i]: each step fills
// a 32-element shared tile from row p and adds it, reversed, to a private
// accumulator that each thread owns (acc[i] on thread i), kept across the 3
// steps; the next step's fill overwrites what other threads read.
func.func @steps(%a: memref<4x96xf32>, %out: memref<4x32xf32>) {
  vx.spawn on tensor_core grid [4, 3] semantics [parallel, arbitrary] threads 32 {
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c31 = arith.constant 31 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %tile = vx.scratch smem : memref<32xf32>
    %acc = vx.scratch : memref<32xf32>
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
        memref.store %zero, %acc[%i] : memref<32xf32>
      }
    }
    %offset = arith.muli %k, %c32 : index
    scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
      %col = arith.addi %offset, %i : index
      %x = memref.load %a[%p, %col] : memref<4x96xf32>
      memref.store %x, %tile[%i] : memref<32xf32>
    }
    scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
      %j = arith.subi %c31, %i : index
      %x = memref.load %tile[%j] : memref<32xf32>
      %s = memref.load %acc[%i] : memref<32xf32>
      %n = arith.addf %s, %x : f32
      memref.store %n, %acc[%i] : memref<32xf32>
    }
    %last = arith.cmpi eq, %k, %c2 : index
    scf.if %last {
      scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
        %s = memref.load %acc[%i] : memref<32xf32>
        memref.store %s, %out[%p, %i] : memref<4x32xf32>
      }
    }
  }
  return
}

// out[p, i] = a[p, 95 - i] through a tile that the CTA's 32 threads copy
// together with one transfer.
func.func @transfer(%a: memref<4x96xf32>, %out: memref<4x96xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 32 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c95 = arith.constant 95 : index
    %c96 = arith.constant 96 : index
    %tile = vx.scratch smem : memref<96xf32>
    %row = memref.subview %a[%p, 0] [1, 96] [1, 1] : memref<4x96xf32> to memref<96xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %row to %tile : memref<96xf32, strided<[1], offset: ?>> to memref<96xf32>
    vx.await %t
    scf.parallel (%i) = (%c0) to (%c96) step (%c1) {
      %j = arith.subi %c95, %i : index
      %x = memref.load %tile[%j] : memref<96xf32>
      memref.store %x, %out[%p, %i] : memref<4x96xf32>
    }
  }
  return
}

// out[p, r, c] = the sum of a[p, 8 c + e] * (r + 1) over e < 4: a 2-D
// thread loop (12 x 8 on 32 threads) with an scf.parallel inside that
// runs sequentially in its thread.
func.func @nested(%a: memref<4x96xf32>, %out: memref<4x12x8xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 32 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c12 = arith.constant 12 : index
    %zero = arith.constant 0.0 : f32
    scf.parallel (%r, %c) = (%c0, %c0) to (%c12, %c8) step (%c1, %c1) {
      %r1 = arith.addi %r, %c1 : index
      %ri = arith.index_cast %r1 : index to i32
      %rf = arith.sitofp %ri : i32 to f32
      %base = arith.muli %c, %c8 : index
      %s = scf.parallel (%e) = (%c0) to (%c4) step (%c1) init (%zero) -> f32 {
        %col = arith.addi %base, %e : index
        %x = memref.load %a[%p, %col] : memref<4x96xf32>
        %y = arith.mulf %x, %rf : f32
        scf.reduce(%y : f32) {
        ^bb0(%l: f32, %rr: f32):
          %t = arith.addf %l, %rr : f32
          scf.reduce.return %t : f32
        }
      }
      memref.store %s, %out[%p, %r, %c] : memref<4x12x8xf32>
    }
  }
  return
}

// out[p, 32 i + t] = 2 a[p, 32 i + t] + 1 through a private buffer that
// each thread owns cyclically (element 32 i + t on thread t): each thread
// keeps its 3 elements.
func.func @cyclic(%a: memref<4x96xf32>, %out: memref<4x96xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 32 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f32
    %acc = vx.scratch : memref<96xf32>
    scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
      scf.for %i = %c0 to %c3 step %c1 {
        %b = arith.muli %i, %c32 : index
        %e = arith.addi %b, %t : index
        %x = memref.load %a[%p, %e] : memref<4x96xf32>
        %y = arith.addf %x, %x : f32
        memref.store %y, %acc[%e] : memref<96xf32>
      }
    }
    scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
      scf.for %i = %c0 to %c3 step %c1 {
        %b = arith.muli %i, %c32 : index
        %e = arith.addi %t, %b : index
        %y = memref.load %acc[%e] : memref<96xf32>
        %z = arith.addf %y, %one : f32
        memref.store %z, %out[%p, %e] : memref<4x96xf32>
      }
    }
  }
  return
}

// The largest |x - y| over two buffers of n elements, printed after `label`.
func.func @report(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %a = memref.load %x[%i] : memref<?xf32>
    %b = memref.load %y[%i] : memref<?xf32>
    %d = arith.subf %a, %b : f32
    %ad = math.absf %d : f32
    %mx = arith.maximumf %acc, %ad : f32
    scf.yield %mx : f32
  }
  vector.print %m : f32
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c11 = arith.constant 11 : index
  %c12 = arith.constant 12 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %c95 = arith.constant 95 : index
  %c96 = arith.constant 96 : index
  %zero = arith.constant 0.0 : f32
  %ten = arith.constant 10.0 : f32
  // a[p, i] = (7 p + 3 i) mod 11 - 5: small integers, so every sum is exact.
  %a = memref.alloc() : memref<4x96xf32>
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %i = %c0 to %c96 step %c1 {
      %p7 = arith.muli %p, %c8 : index
      %pp = arith.subi %p7, %p : index
      %i3 = arith.muli %i, %c3 : index
      %s = arith.addi %pp, %i3 : index
      %r = arith.remui %s, %c11 : index
      %ri = arith.index_cast %r : index to i32
      %rf = arith.sitofp %ri : i32 to f32
      %five = arith.constant 5.0 : f32
      %v = arith.subf %rf, %five : f32
      memref.store %v, %a[%p, %i] : memref<4x96xf32>
    }
  }

  %out = memref.alloc() : memref<4x96xf32>
  %ref = memref.alloc() : memref<4x96xf32>
  %out_flat = memref.collapse_shape %out [[0, 1]] : memref<4x96xf32> into memref<384xf32>
  %ref_flat = memref.collapse_shape %ref [[0, 1]] : memref<4x96xf32> into memref<384xf32>
  %outd = memref.cast %out_flat : memref<384xf32> to memref<?xf32>
  %refd = memref.cast %ref_flat : memref<384xf32> to memref<?xf32>

  call @reverse(%a, %out) : (memref<4x96xf32>, memref<4x96xf32>) -> ()
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %i = %c0 to %c96 step %c1 {
      %j = arith.subi %c95, %i : index
      %x = memref.load %a[%p, %j] : memref<4x96xf32>
      memref.store %x, %ref[%p, %i] : memref<4x96xf32>
    }
  }
  vector.print str "reverse "
  call @report(%outd, %refd) : (memref<?xf32>, memref<?xf32>) -> ()

  %sums = memref.alloc() : memref<4xf32>
  %ref_sums = memref.alloc() : memref<4xf32>
  call @row_stats(%a, %sums, %out) : (memref<4x96xf32>, memref<4xf32>, memref<4x96xf32>) -> ()
  scf.for %p = %c0 to %c4 step %c1 {
    %low = arith.constant -1000.0 : f32
    %s, %m = scf.for %i = %c0 to %c96 step %c1 iter_args(%acc = %zero, %mx = %low) -> (f32, f32) {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      %n = arith.addf %acc, %x : f32
      %nm = arith.maximumf %mx, %x : f32
      scf.yield %n, %nm : f32, f32
    }
    memref.store %s, %ref_sums[%p] : memref<4xf32>
    scf.for %i = %c0 to %c96 step %c1 {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      %y = arith.subf %x, %m : f32
      memref.store %y, %ref[%p, %i] : memref<4x96xf32>
    }
  }
  %sumsd = memref.cast %sums : memref<4xf32> to memref<?xf32>
  %ref_sumsd = memref.cast %ref_sums : memref<4xf32> to memref<?xf32>
  vector.print str "sums "
  call @report(%sumsd, %ref_sumsd) : (memref<?xf32>, memref<?xf32>) -> ()
  vector.print str "centered "
  call @report(%outd, %refd) : (memref<?xf32>, memref<?xf32>) -> ()

  %small = memref.alloc() : memref<4x8xf32>
  %ref_small = memref.alloc() : memref<4x8xf32>
  call @once(%a, %small) : (memref<4x96xf32>, memref<4x8xf32>) -> ()
  scf.for %p = %c0 to %c4 step %c1 {
    %x0 = memref.load %a[%p, %c0] : memref<4x96xf32>
    %b = arith.mulf %x0, %ten : f32
    scf.for %i = %c0 to %c8 step %c1 {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      %y = arith.addf %b, %x : f32
      memref.store %y, %ref_small[%p, %i] : memref<4x8xf32>
    }
  }
  %small_flat = memref.collapse_shape %small [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  %ref_small_flat = memref.collapse_shape %ref_small [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  %smalld = memref.cast %small_flat : memref<32xf32> to memref<?xf32>
  %ref_smalld = memref.cast %ref_small_flat : memref<32xf32> to memref<?xf32>
  vector.print str "once "
  call @report(%smalld, %ref_smalld) : (memref<?xf32>, memref<?xf32>) -> ()

  %acc = memref.alloc() : memref<4x32xf32>
  %ref_acc = memref.alloc() : memref<4x32xf32>
  call @steps(%a, %acc) : (memref<4x96xf32>, memref<4x32xf32>) -> ()
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %i = %c0 to %c32 step %c1 {
      %s = scf.for %k = %c0 to %c3 step %c1 iter_args(%sum = %zero) -> f32 {
        %off = arith.muli %k, %c32 : index
        %j = arith.subi %c31, %i : index
        %col = arith.addi %off, %j : index
        %x = memref.load %a[%p, %col] : memref<4x96xf32>
        %n = arith.addf %sum, %x : f32
        scf.yield %n : f32
      }
      memref.store %s, %ref_acc[%p, %i] : memref<4x32xf32>
    }
  }
  %acc_flat = memref.collapse_shape %acc [[0, 1]] : memref<4x32xf32> into memref<128xf32>
  %ref_acc_flat = memref.collapse_shape %ref_acc [[0, 1]] : memref<4x32xf32> into memref<128xf32>
  %accd = memref.cast %acc_flat : memref<128xf32> to memref<?xf32>
  %ref_accd = memref.cast %ref_acc_flat : memref<128xf32> to memref<?xf32>
  vector.print str "steps "
  call @report(%accd, %ref_accd) : (memref<?xf32>, memref<?xf32>) -> ()

  // The reference of @reverse again.
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %i = %c0 to %c96 step %c1 {
      %j = arith.subi %c95, %i : index
      %x = memref.load %a[%p, %j] : memref<4x96xf32>
      memref.store %x, %ref[%p, %i] : memref<4x96xf32>
    }
  }
  call @transfer(%a, %out) : (memref<4x96xf32>, memref<4x96xf32>) -> ()
  vector.print str "transfer "
  call @report(%outd, %refd) : (memref<?xf32>, memref<?xf32>) -> ()

  %grid = memref.alloc() : memref<4x12x8xf32>
  %ref_grid = memref.alloc() : memref<4x12x8xf32>
  call @nested(%a, %grid) : (memref<4x96xf32>, memref<4x12x8xf32>) -> ()
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %r = %c0 to %c12 step %c1 {
      scf.for %c = %c0 to %c8 step %c1 {
        %r1 = arith.addi %r, %c1 : index
        %ri = arith.index_cast %r1 : index to i32
        %rf = arith.sitofp %ri : i32 to f32
        %base = arith.muli %c, %c8 : index
        %s = scf.for %e = %c0 to %c4 step %c1 iter_args(%sum = %zero) -> f32 {
          %col = arith.addi %base, %e : index
          %x = memref.load %a[%p, %col] : memref<4x96xf32>
          %y = arith.mulf %x, %rf : f32
          %n = arith.addf %sum, %y : f32
          scf.yield %n : f32
        }
        memref.store %s, %ref_grid[%p, %r, %c] : memref<4x12x8xf32>
      }
    }
  }
  %grid_flat = memref.collapse_shape %grid [[0, 1, 2]] : memref<4x12x8xf32> into memref<384xf32>
  %ref_grid_flat = memref.collapse_shape %ref_grid [[0, 1, 2]] : memref<4x12x8xf32> into memref<384xf32>
  %gridd = memref.cast %grid_flat : memref<384xf32> to memref<?xf32>
  %ref_gridd = memref.cast %ref_grid_flat : memref<384xf32> to memref<?xf32>
  vector.print str "nested "
  call @report(%gridd, %ref_gridd) : (memref<?xf32>, memref<?xf32>) -> ()

  call @cyclic(%a, %out) : (memref<4x96xf32>, memref<4x96xf32>) -> ()
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %i = %c0 to %c96 step %c1 {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      %y = arith.addf %x, %x : f32
      %one = arith.constant 1.0 : f32
      %z = arith.addf %y, %one : f32
      memref.store %z, %ref[%p, %i] : memref<4x96xf32>
    }
  }
  vector.print str "cyclic "
  call @report(%outd, %refd) : (memref<?xf32>, memref<?xf32>) -> ()

  memref.dealloc %a : memref<4x96xf32>
  memref.dealloc %out : memref<4x96xf32>
  memref.dealloc %ref : memref<4x96xf32>
  memref.dealloc %sums : memref<4xf32>
  memref.dealloc %ref_sums : memref<4xf32>
  memref.dealloc %small : memref<4x8xf32>
  memref.dealloc %ref_small : memref<4x8xf32>
  memref.dealloc %acc : memref<4x32xf32>
  memref.dealloc %ref_acc : memref<4x32xf32>
  memref.dealloc %grid : memref<4x12x8xf32>
  memref.dealloc %ref_grid : memref<4x12x8xf32>
  return
}

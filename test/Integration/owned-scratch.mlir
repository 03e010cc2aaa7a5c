// Owned private scratch at CTA sizes that do not divide the thread loops'
// trip counts (VX_SPEC 2.1: iteration i runs on thread i mod N). A K x K
// private tile is written by an (r, c) thread loop and read by a (c, r)
// one: element (r, c) is reached by iterations r K + c and c K + r, which
// differ by (K - 1)(r - c), so N threads own it when N divides K - 1, in
// different rounds of the two loops (the mapping keeps the thread's part
// indexed by element). Then a tile filled by a thread loop and read by
// once-per-instance code, owned with one thread. Each line is the largest
// difference from the reference (0 when right); with via-gpu=true the
// threads run phase by phase, in both orders.
// RUN: vx-opt %s --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true" | %mlir_runner -e main | FileCheck %s

// CHECK: transposed 4x4 on 3 threads 0
// CHECK-NEXT: transposed 6x6 on 5 threads 0
// CHECK-NEXT: transposed 7x7 on 6 threads 0
// CHECK-NEXT: transposed 8x8 on 7 threads 0
// CHECK-NEXT: once on 1 thread 0

// out[p, r 4 + c] = 2 a[p, r 4 + c] + 1 through a private 4x4 tile
// (16 iterations on 3 threads).
func.func @transposed_4(%a: memref<2x64xf32>, %out: memref<2x64xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 3 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ck = arith.constant 4 : index
    %one = arith.constant 1.0 : f32
    %tile = vx.scratch : memref<4x4xf32>
    scf.parallel (%r, %c) = (%c0, %c0) to (%ck, %ck) step (%c1, %c1) {
      %rk = arith.muli %r, %ck : index
      %e = arith.addi %rk, %c : index
      %x = memref.load %a[%p, %e] : memref<2x64xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %tile[%r, %c] : memref<4x4xf32>
    }
    scf.parallel (%c, %r) = (%c0, %c0) to (%ck, %ck) step (%c1, %c1) {
      %y = memref.load %tile[%r, %c] : memref<4x4xf32>
      %z = arith.addf %y, %one : f32
      %rk = arith.muli %r, %ck : index
      %e = arith.addi %rk, %c : index
      memref.store %z, %out[%p, %e] : memref<2x64xf32>
    }
  }
  return
}

// out[p, r 6 + c] = 2 a[p, r 6 + c] + 1 through a private 6x6 tile
// (36 iterations on 5 threads).
func.func @transposed_6(%a: memref<2x64xf32>, %out: memref<2x64xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 5 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ck = arith.constant 6 : index
    %one = arith.constant 1.0 : f32
    %tile = vx.scratch : memref<6x6xf32>
    scf.parallel (%r, %c) = (%c0, %c0) to (%ck, %ck) step (%c1, %c1) {
      %rk = arith.muli %r, %ck : index
      %e = arith.addi %rk, %c : index
      %x = memref.load %a[%p, %e] : memref<2x64xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %tile[%r, %c] : memref<6x6xf32>
    }
    scf.parallel (%c, %r) = (%c0, %c0) to (%ck, %ck) step (%c1, %c1) {
      %y = memref.load %tile[%r, %c] : memref<6x6xf32>
      %z = arith.addf %y, %one : f32
      %rk = arith.muli %r, %ck : index
      %e = arith.addi %rk, %c : index
      memref.store %z, %out[%p, %e] : memref<2x64xf32>
    }
  }
  return
}

// out[p, r 7 + c] = 2 a[p, r 7 + c] + 1 through a private 7x7 tile
// (49 iterations on 6 threads).
func.func @transposed_7(%a: memref<2x64xf32>, %out: memref<2x64xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 6 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ck = arith.constant 7 : index
    %one = arith.constant 1.0 : f32
    %tile = vx.scratch : memref<7x7xf32>
    scf.parallel (%r, %c) = (%c0, %c0) to (%ck, %ck) step (%c1, %c1) {
      %rk = arith.muli %r, %ck : index
      %e = arith.addi %rk, %c : index
      %x = memref.load %a[%p, %e] : memref<2x64xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %tile[%r, %c] : memref<7x7xf32>
    }
    scf.parallel (%c, %r) = (%c0, %c0) to (%ck, %ck) step (%c1, %c1) {
      %y = memref.load %tile[%r, %c] : memref<7x7xf32>
      %z = arith.addf %y, %one : f32
      %rk = arith.muli %r, %ck : index
      %e = arith.addi %rk, %c : index
      memref.store %z, %out[%p, %e] : memref<2x64xf32>
    }
  }
  return
}

// out[p, r 8 + c] = 2 a[p, r 8 + c] + 1 through a private 8x8 tile
// (64 iterations on 7 threads).
func.func @transposed_8(%a: memref<2x64xf32>, %out: memref<2x64xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 7 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ck = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %tile = vx.scratch : memref<8x8xf32>
    scf.parallel (%r, %c) = (%c0, %c0) to (%ck, %ck) step (%c1, %c1) {
      %rk = arith.muli %r, %ck : index
      %e = arith.addi %rk, %c : index
      %x = memref.load %a[%p, %e] : memref<2x64xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %tile[%r, %c] : memref<8x8xf32>
    }
    scf.parallel (%c, %r) = (%c0, %c0) to (%ck, %ck) step (%c1, %c1) {
      %y = memref.load %tile[%r, %c] : memref<8x8xf32>
      %z = arith.addf %y, %one : f32
      %rk = arith.muli %r, %ck : index
      %e = arith.addi %rk, %c : index
      memref.store %z, %out[%p, %e] : memref<2x64xf32>
    }
  }
  return
}

// out[p, 0] = the sum of 2 a[p, i] over i < 8: a thread loop fills the
// tile, once-per-instance code reads all of it (owned: one thread).
func.func @once_on_one_thread(%a: memref<2x64xf32>, %out: memref<2x64xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 1 {
    %p = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %tile = vx.scratch : memref<8xf32>
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %a[%p, %i] : memref<2x64xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %tile[%i] : memref<8xf32>
    }
    %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
      %y = memref.load %tile[%i] : memref<8xf32>
      %t = arith.addf %acc, %y : f32
      scf.yield %t : f32
    }
    memref.store %s, %out[%p, %c0] : memref<2x64xf32>
  }
  return
}

// The largest |x - y| over two buffers, printed after `label`.
func.func @report(%x: memref<2x64xf32>, %y: memref<2x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = scf.for %p = %c0 to %c2 step %c1 iter_args(%outer = %zero) -> f32 {
    %row = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %outer) -> f32 {
      %a = memref.load %x[%p, %i] : memref<2x64xf32>
      %b = memref.load %y[%p, %i] : memref<2x64xf32>
      %d = arith.subf %a, %b : f32
      %ad = math.absf %d : f32
      %mx = arith.maximumf %acc, %ad : f32
      scf.yield %mx : f32
    }
    scf.yield %row : f32
  }
  vector.print %m : f32
  return
}

// Both buffers to zero.
func.func @clear(%x: memref<2x64xf32>, %y: memref<2x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%x : memref<2x64xf32>)
  linalg.fill ins(%zero : f32) outs(%y : memref<2x64xf32>)
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c11 = arith.constant 11 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %five = arith.constant 5.0 : f32
  // a[p, i] = (7 p + 3 i) mod 11 - 5: small integers, so every sum is exact.
  %a = memref.alloc() : memref<2x64xf32>
  scf.for %p = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %c64 step %c1 {
      %p8 = arith.muli %p, %c8 : index
      %p7 = arith.subi %p8, %p : index
      %i3 = arith.muli %i, %c3 : index
      %s = arith.addi %p7, %i3 : index
      %r = arith.remui %s, %c11 : index
      %ri = arith.index_cast %r : index to i32
      %rf = arith.sitofp %ri : i32 to f32
      %v = arith.subf %rf, %five : f32
      memref.store %v, %a[%p, %i] : memref<2x64xf32>
    }
  }
  %out = memref.alloc() : memref<2x64xf32>
  %ref = memref.alloc() : memref<2x64xf32>


  call @clear(%out, %ref) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
  call @transposed_4(%a, %out) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
  %n4 = arith.constant 16 : index
  scf.for %p = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %n4 step %c1 {
      %x = memref.load %a[%p, %i] : memref<2x64xf32>
      %y = arith.addf %x, %x : f32
      %z = arith.addf %y, %one : f32
      memref.store %z, %ref[%p, %i] : memref<2x64xf32>
    }
  }
  vector.print str "transposed 4x4 on 3 threads "
  call @report(%out, %ref) : (memref<2x64xf32>, memref<2x64xf32>) -> ()

  call @clear(%out, %ref) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
  call @transposed_6(%a, %out) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
  %n6 = arith.constant 36 : index
  scf.for %p = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %n6 step %c1 {
      %x = memref.load %a[%p, %i] : memref<2x64xf32>
      %y = arith.addf %x, %x : f32
      %z = arith.addf %y, %one : f32
      memref.store %z, %ref[%p, %i] : memref<2x64xf32>
    }
  }
  vector.print str "transposed 6x6 on 5 threads "
  call @report(%out, %ref) : (memref<2x64xf32>, memref<2x64xf32>) -> ()

  call @clear(%out, %ref) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
  call @transposed_7(%a, %out) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
  %n7 = arith.constant 49 : index
  scf.for %p = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %n7 step %c1 {
      %x = memref.load %a[%p, %i] : memref<2x64xf32>
      %y = arith.addf %x, %x : f32
      %z = arith.addf %y, %one : f32
      memref.store %z, %ref[%p, %i] : memref<2x64xf32>
    }
  }
  vector.print str "transposed 7x7 on 6 threads "
  call @report(%out, %ref) : (memref<2x64xf32>, memref<2x64xf32>) -> ()

  call @clear(%out, %ref) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
  call @transposed_8(%a, %out) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
  %n8 = arith.constant 64 : index
  scf.for %p = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %n8 step %c1 {
      %x = memref.load %a[%p, %i] : memref<2x64xf32>
      %y = arith.addf %x, %x : f32
      %z = arith.addf %y, %one : f32
      memref.store %z, %ref[%p, %i] : memref<2x64xf32>
    }
  }
  vector.print str "transposed 8x8 on 7 threads "
  call @report(%out, %ref) : (memref<2x64xf32>, memref<2x64xf32>) -> ()

  call @clear(%out, %ref) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
  call @once_on_one_thread(%a, %out) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
  scf.for %p = %c0 to %c2 step %c1 {
    %zero = arith.constant 0.0 : f32
    %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
      %x = memref.load %a[%p, %i] : memref<2x64xf32>
      %y = arith.addf %x, %x : f32
      %t = arith.addf %acc, %y : f32
      scf.yield %t : f32
    }
    memref.store %s, %ref[%p, %c0] : memref<2x64xf32>
  }
  vector.print str "once on 1 thread "
  call @report(%out, %ref) : (memref<2x64xf32>, memref<2x64xf32>) -> ()

  memref.dealloc %a : memref<2x64xf32>
  memref.dealloc %out : memref<2x64xf32>
  memref.dealloc %ref : memref<2x64xf32>
  return
}

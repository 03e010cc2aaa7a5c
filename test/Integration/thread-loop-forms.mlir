// Thread loops written other ways than a plain scf.parallel, against
// references computed by plain loops in @main, on every CPU route and
// through via-gpu in both thread orders: affine.parallel loops (thread loops
// like scf.parallel, VX_SPEC 2.1) that communicate through shared memory,
// keep owned private scratch and reduce across the CTA, in a body with no
// scf.parallel; and a transfer awaited inside the thread-loop iteration that
// started it (each thread copies and waits for its own rows).
// Each line is the largest difference from the reference (0 when right).
// RUN: vx-opt %s --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true threads-per-block=3" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=3" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true via-gpu=true threads-per-block=3" | %mlir_runner -e main | FileCheck %s
// The PTX simulator runs the same kernels: PTXSim/thread-loop-forms.mlir.

// CHECK: reverse 0
// CHECK-NEXT: owned 0
// CHECK-NEXT: sums 0
// CHECK-NEXT: rows 0

// out[p, i] = a[p, 95 - i] through a shared tile: the second affine.parallel
// reads what other threads wrote (a barrier between the loops).
func.func @reverse(%a: memref<4x96xf32>, %out: memref<4x96xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %tile = vx.scratch smem : memref<96xf32>
    affine.parallel (%i) = (0) to (96) {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      memref.store %x, %tile[%i] : memref<96xf32>
    }
    affine.parallel (%i) = (0) to (96) {
      %j = affine.apply affine_map<(d0) -> (95 - d0)>(%i)
      %x = memref.load %tile[%j] : memref<96xf32>
      memref.store %x, %out[%p, %i] : memref<4x96xf32>
    }
  }
  return
}

// out[p, i] = 2 a[p, i] + 1 through private scratch that each thread owns
// (iteration i writes and reads element i).
func.func @owned(%a: memref<4x96xf32>, %out: memref<4x96xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %buf = vx.scratch : memref<96xf32>
    affine.parallel (%i) = (0) to (96) {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %buf[%i] : memref<96xf32>
    }
    affine.parallel (%i) = (0) to (96) {
      %y = memref.load %buf[%i] : memref<96xf32>
      %one = arith.constant 1.0 : f32
      %z = arith.addf %y, %one : f32
      memref.store %z, %out[%p, %i] : memref<4x96xf32>
    }
  }
  return
}

// sums[p] = the sum of row p: an affine.parallel reduction across the CTA,
// stored once per instance.
func.func @sums(%a: memref<4x96xf32>, %sums: memref<4xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %s = affine.parallel (%i) = (0) to (96) reduce ("addf") -> f32 {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      affine.yield %x : f32
    }
    memref.store %s, %sums[%p] : memref<4xf32>
  }
  return
}

// out[p, r, j] = a[p, r, 15 - j] + r: each iteration r of the thread loop
// copies row r into the shared tile and waits for its own transfer before
// reading it back reversed.
func.func @rows(%a: memref<4x8x16xf32>, %out: memref<4x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %p = vx.grid_index 0
    %tile = vx.scratch smem : memref<8x16xf32>
    scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
      %src = memref.subview %a[%p, %r, 0] [1, 1, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %dst = memref.subview %tile[%r, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %t = vx.transfer_async %src to %dst : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
      vx.await %t
      %ri = arith.index_cast %r : index to i32
      %rf = arith.sitofp %ri : i32 to f32
      scf.for %j = %c0 to %c16 step %c1 {
        %k = arith.subi %c15, %j : index
        %x = memref.load %dst[%k] : memref<16xf32, strided<[1], offset: ?>>
        %y = arith.addf %x, %rf : f32
        memref.store %y, %out[%p, %r, %j] : memref<4x8x16xf32>
      }
    }
  }
  return
}

// Prints the largest |x - y|.
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
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c11 = arith.constant 11 : index
  %c95 = arith.constant 95 : index
  %c96 = arith.constant 96 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %five = arith.constant 5.0 : f32
  // a[p, i] = (7 p + 3 i) mod 11 - 5: small integers, so every sum is exact.
  %a = memref.alloc() : memref<4x96xf32>
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %i = %c0 to %c96 step %c1 {
      %p7 = arith.muli %p, %c7 : index
      %i3 = arith.muli %i, %c3 : index
      %s = arith.addi %p7, %i3 : index
      %r = arith.remui %s, %c11 : index
      %ri = arith.index_cast %r : index to i32
      %rf = arith.sitofp %ri : i32 to f32
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

  call @owned(%a, %out) : (memref<4x96xf32>, memref<4x96xf32>) -> ()
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %i = %c0 to %c96 step %c1 {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      %y = arith.addf %x, %x : f32
      %z = arith.addf %y, %one : f32
      memref.store %z, %ref[%p, %i] : memref<4x96xf32>
    }
  }
  vector.print str "owned "
  call @report(%outd, %refd) : (memref<?xf32>, memref<?xf32>) -> ()

  %sums = memref.alloc() : memref<4xf32>
  %ref_sums = memref.alloc() : memref<4xf32>
  call @sums(%a, %sums) : (memref<4x96xf32>, memref<4xf32>) -> ()
  scf.for %p = %c0 to %c4 step %c1 {
    %s = scf.for %i = %c0 to %c96 step %c1 iter_args(%acc = %zero) -> f32 {
      %x = memref.load %a[%p, %i] : memref<4x96xf32>
      %n = arith.addf %acc, %x : f32
      scf.yield %n : f32
    }
    memref.store %s, %ref_sums[%p] : memref<4xf32>
  }
  %sumsd = memref.cast %sums : memref<4xf32> to memref<?xf32>
  %ref_sumsd = memref.cast %ref_sums : memref<4xf32> to memref<?xf32>
  vector.print str "sums "
  call @report(%sumsd, %ref_sumsd) : (memref<?xf32>, memref<?xf32>) -> ()

  // The same numbers as rows of 16: a3[p, r, j] = a[p, 16 r + j] (r < 6),
  // padded to 8 rows by a[p, 16 (r - 6) + j] + 1.
  %a3 = memref.alloc() : memref<4x8x16xf32>
  %out3 = memref.alloc() : memref<4x8x16xf32>
  %ref3 = memref.alloc() : memref<4x8x16xf32>
  %c6 = arith.constant 6 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %r = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %rr = arith.remui %r, %c6 : index
        %base = arith.muli %rr, %c16 : index
        %i = arith.addi %base, %j : index
        %x = memref.load %a[%p, %i] : memref<4x96xf32>
        %wrapped = arith.cmpi uge, %r, %c6 : index
        %x1 = arith.addf %x, %one : f32
        %v = arith.select %wrapped, %x1, %x : f32
        memref.store %v, %a3[%p, %r, %j] : memref<4x8x16xf32>
      }
    }
  }
  call @rows(%a3, %out3) : (memref<4x8x16xf32>, memref<4x8x16xf32>) -> ()
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %r = %c0 to %c8 step %c1 {
      %ri = arith.index_cast %r : index to i32
      %rf = arith.sitofp %ri : i32 to f32
      scf.for %j = %c0 to %c16 step %c1 {
        %k = arith.subi %c15, %j : index
        %x = memref.load %a3[%p, %r, %k] : memref<4x8x16xf32>
        %y = arith.addf %x, %rf : f32
        memref.store %y, %ref3[%p, %r, %j] : memref<4x8x16xf32>
      }
    }
  }
  %out3_flat = memref.collapse_shape %out3 [[0, 1, 2]] : memref<4x8x16xf32> into memref<512xf32>
  %ref3_flat = memref.collapse_shape %ref3 [[0, 1, 2]] : memref<4x8x16xf32> into memref<512xf32>
  %out3d = memref.cast %out3_flat : memref<512xf32> to memref<?xf32>
  %ref3d = memref.cast %ref3_flat : memref<512xf32> to memref<?xf32>
  vector.print str "rows "
  call @report(%out3d, %ref3d) : (memref<?xf32>, memref<?xf32>) -> ()

  memref.dealloc %a : memref<4x96xf32>
  memref.dealloc %out : memref<4x96xf32>
  memref.dealloc %ref : memref<4x96xf32>
  memref.dealloc %sums : memref<4xf32>
  memref.dealloc %ref_sums : memref<4xf32>
  memref.dealloc %a3 : memref<4x8x16xf32>
  memref.dealloc %out3 : memref<4x8x16xf32>
  memref.dealloc %ref3 : memref<4x8x16xf32>
  return
}

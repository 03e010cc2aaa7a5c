// Ops that the device check admits and that once failed to lower or
// lowered wrongly, run on every CPU route against references computed by
// plain loops in @main: affine loads, stores and loops indexed by grid
// indices, arith.remf, masked vector transfers, an scf.parallel whose
// reduction is more than one op (OpenMP runs it sequentially), and
// memref.generic_atomic_rmw.
// RUN: vx-opt %s --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true threads-per-block=3 openmp=true" | %mlir_runner -e main | FileCheck %s

// CHECK: affine error 0
// CHECK-NEXT: remf error 0
// CHECK-NEXT: masked error 0
// CHECK-NEXT: reduce error 0
// CHECK-NEXT: atomic error 0

// y[b * 8 + t] = 2 * x[b * 8 + t]; rows[b] = the sum of row b of x.
func.func @affine_kernel(%x: memref<64xf32>, %y: memref<64xf32>, %rows: memref<8xf32>) {
  vx.spawn on tensor_core grid [8, 8] semantics [parallel, arbitrary] {
    %b = vx.grid_index 0
    %t = vx.grid_index 1
    %v = affine.load %x[%b * 8 + %t] : memref<64xf32>
    %two = arith.addf %v, %v : f32
    affine.store %two, %y[%b * 8 + %t] : memref<64xf32>
    affine.if affine_set<(d0) : (d0 == 0)>(%t) {
      %zero = arith.constant 0.0 : f32
      %s = affine.for %k = 0 to 8 iter_args(%acc = %zero) -> f32 {
        %e = affine.load %x[%b * 8 + %k] : memref<64xf32>
        %n = arith.addf %acc, %e : f32
        affine.yield %n : f32
      }
      affine.store %s, %rows[%b] : memref<8xf32>
    }
  }
  return
}

func.func @remf_kernel(%x: memref<64xf32>, %y: memref<64xf32>) {
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %v = memref.load %x[%i] : memref<64xf32>
    %c = arith.constant 3.0 : f32
    %r = arith.remf %v, %c : f32
    memref.store %r, %y[%i] : memref<64xf32>
  }
  return
}

// out[i] = the sum of 8 lanes read from the 5 leading elements of row i,
// the others padded with -1, plus the lanes kept by a mask of 2.
func.func @masked_kernel(%x: memref<8x8xf32>, %out: memref<8xf32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %pad = arith.constant -1.0 : f32
    %row = memref.subview %x[%i, 0] [1, 5] [1, 1] : memref<8x8xf32> to memref<5xf32, strided<[1], offset: ?>>
    %v = vector.transfer_read %row[%c0], %pad : memref<5xf32, strided<[1], offset: ?>>, vector<8xf32>
    %mask = vector.create_mask %c2 : vector<8xi1>
    %m = vector.transfer_read %row[%c0], %pad, %mask : memref<5xf32, strided<[1], offset: ?>>, vector<8xf32>
    %s = vector.reduction <add>, %v : vector<8xf32> into f32
    %t = vector.reduction <add>, %m : vector<8xf32> into f32
    %u = arith.addf %s, %t : f32
    %sum = vector.broadcast %u : f32 to vector<1xf32>
    %o = memref.subview %out[%i] [1] [1] : memref<8xf32> to memref<1xf32, strided<[1], offset: ?>>
    vector.transfer_write %sum, %o[%c0] {in_bounds = [true]} : vector<1xf32>, memref<1xf32, strided<[1], offset: ?>>
  }
  return
}

// out[i] = max over k of x[i, k] * x[i, k], as a two-op reduction.
func.func @reduce_kernel(%x: memref<8x8xf32>, %out: memref<8xf32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %m = scf.parallel (%k) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
      %v = memref.load %x[%i, %k] : memref<8x8xf32>
      scf.reduce(%v : f32) {
      ^bb0(%l: f32, %r: f32):
        %sq = arith.mulf %r, %r : f32
        %mx = arith.maximumf %l, %sq : f32
        scf.reduce.return %mx : f32
      }
    }
    memref.store %m, %out[%i] : memref<8xf32>
  }
  return
}

// total[0] += the integer part of every element, atomically.
func.func @atomic_kernel(%x: memref<64xf32>, %total: memref<1xi32>) {
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%i] : memref<64xf32>
    %n = arith.fptosi %v : f32 to i32
    %r = memref.generic_atomic_rmw %total[%c0] : memref<1xi32> {
    ^bb0(%cur: i32):
      %next = arith.addi %cur, %n : i32
      memref.atomic_yield %next : i32
    }
  }
  return
}

// The largest |a[k] - b[k]| over n elements.
func.func @max_error(%a: memref<?xf32>, %b: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %a, %c0 : memref<?xf32>
  %e = scf.for %k = %c0 to %n step %c1 iter_args(%m = %zero) -> f32 {
    %x = memref.load %a[%k] : memref<?xf32>
    %y = memref.load %b[%k] : memref<?xf32>
    %d = arith.subf %x, %y : f32
    %ad = math.absf %d : f32
    %n2 = arith.maximumf %m, %ad : f32
    scf.yield %n2 : f32
  }
  return %e : f32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3.0 : f32
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<64xf32>
  scf.for %k = %c0 to %c64 step %c1 {
    %ki = arith.index_cast %k : index to i32
    %c29 = arith.constant 29 : i32
    %c61 = arith.constant 61 : i32
    %c30 = arith.constant 30 : i32
    %m = arith.muli %ki, %c29 : i32
    %r = arith.remui %m, %c61 : i32
    %s = arith.subi %r, %c30 : i32
    %f = arith.sitofp %s : i32 to f32
    %q = arith.constant 0.75 : f32
    %v = arith.mulf %f, %q : f32
    memref.store %v, %x[%k] : memref<64xf32>
  }
  %x2 = memref.expand_shape %x [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  %xd = memref.cast %x : memref<64xf32> to memref<?xf32>

  // Affine: 2x and the row sums.
  %y = memref.alloc() : memref<64xf32>
  %rows = memref.alloc() : memref<8xf32>
  call @affine_kernel(%x, %y, %rows) : (memref<64xf32>, memref<64xf32>, memref<8xf32>) -> ()
  %yref = memref.alloc() : memref<64xf32>
  %rowsref = memref.alloc() : memref<8xf32>
  scf.for %b = %c0 to %c8 step %c1 {
    %s = scf.for %t = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
      %v = memref.load %x2[%b, %t] : memref<8x8xf32>
      %bt = arith.muli %b, %c8 : index
      %l = arith.addi %bt, %t : index
      %two = arith.addf %v, %v : f32
      memref.store %two, %yref[%l] : memref<64xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %rowsref[%b] : memref<8xf32>
  }
  %yd = memref.cast %y : memref<64xf32> to memref<?xf32>
  %yrefd = memref.cast %yref : memref<64xf32> to memref<?xf32>
  %rowsd = memref.cast %rows : memref<8xf32> to memref<?xf32>
  %rowsrefd = memref.cast %rowsref : memref<8xf32> to memref<?xf32>
  %e1 = call @max_error(%yd, %yrefd) : (memref<?xf32>, memref<?xf32>) -> f32
  %e2 = call @max_error(%rowsd, %rowsrefd) : (memref<?xf32>, memref<?xf32>) -> f32
  %eaff = arith.maximumf %e1, %e2 : f32
  vector.print str "affine error "
  vector.print %eaff : f32

  // remf: x - 3 * trunc(x / 3).
  call @remf_kernel(%x, %y) : (memref<64xf32>, memref<64xf32>) -> ()
  scf.for %k = %c0 to %c64 step %c1 {
    %v = memref.load %x[%k] : memref<64xf32>
    %q = arith.divf %v, %c3 : f32
    %t = math.trunc %q : f32
    %p = arith.mulf %t, %c3 : f32
    %r = arith.subf %v, %p : f32
    memref.store %r, %yref[%k] : memref<64xf32>
  }
  %erem = call @max_error(%yd, %yrefd) : (memref<?xf32>, memref<?xf32>) -> f32
  vector.print str "remf error "
  vector.print %erem : f32

  // Masked: sum of the 5 leading elements - 3, plus the 2 leading ones - 6.
  call @masked_kernel(%x2, %rows) : (memref<8x8xf32>, memref<8xf32>) -> ()
  scf.for %b = %c0 to %c8 step %c1 {
    %s5 = scf.for %t = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> f32 {
      %v = memref.load %x2[%b, %t] : memref<8x8xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    %v0 = memref.load %x2[%b, %c0] : memref<8x8xf32>
    %v1 = memref.load %x2[%b, %c1] : memref<8x8xf32>
    %s2 = arith.addf %v0, %v1 : f32
    %nine = arith.constant -9.0 : f32
    %a = arith.addf %s5, %s2 : f32
    %r = arith.addf %a, %nine : f32
    memref.store %r, %rowsref[%b] : memref<8xf32>
  }
  %emask = call @max_error(%rowsd, %rowsrefd) : (memref<?xf32>, memref<?xf32>) -> f32
  vector.print str "masked error "
  vector.print %emask : f32

  // Reduce: the largest square of a row.
  call @reduce_kernel(%x2, %rows) : (memref<8x8xf32>, memref<8xf32>) -> ()
  scf.for %b = %c0 to %c8 step %c1 {
    %m = scf.for %t = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
      %v = memref.load %x2[%b, %t] : memref<8x8xf32>
      %sq = arith.mulf %v, %v : f32
      %n = arith.maximumf %acc, %sq : f32
      scf.yield %n : f32
    }
    memref.store %m, %rowsref[%b] : memref<8xf32>
  }
  %ered = call @max_error(%rowsd, %rowsrefd) : (memref<?xf32>, memref<?xf32>) -> f32
  vector.print str "reduce error "
  vector.print %ered : f32

  // Atomic: the sum of the integer parts.
  %total = memref.alloc() : memref<1xi32>
  %iz = arith.constant 0 : i32
  memref.store %iz, %total[%c0] : memref<1xi32>
  call @atomic_kernel(%x, %total) : (memref<64xf32>, memref<1xi32>) -> ()
  %ref = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %iz) -> i32 {
    %v = memref.load %x[%k] : memref<64xf32>
    %n = arith.fptosi %v : f32 to i32
    %a = arith.addi %acc, %n : i32
    scf.yield %a : i32
  }
  %got = memref.load %total[%c0] : memref<1xi32>
  %eat = arith.subi %got, %ref : i32
  vector.print str "atomic error "
  vector.print %eat : i32
  memref.dealloc %x : memref<64xf32>
  memref.dealloc %y : memref<64xf32>
  memref.dealloc %yref : memref<64xf32>
  memref.dealloc %rows : memref<8xf32>
  memref.dealloc %rowsref : memref<8xf32>
  memref.dealloc %total : memref<1xi32>
  return
}

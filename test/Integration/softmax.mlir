// examples/softmax.mlir (one CTA per row, thread-loop reductions) against a
// sequential loop nest per row, and the invariant that each output row sums
// to 1. Row r lies in [20 r, 20 r + 6]: exp without the max subtraction
// would overflow f32 from row 5 on.
// RUN: cat %S/../../examples/softmax.mlir %s | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/softmax.mlir %s | vx-opt --vx-to-llvm="reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/softmax.mlir %s | vx-opt --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/softmax.mlir %s | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/softmax.mlir %s | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/softmax.mlir %s | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=4 openmp=true" | %mlir_runner -e main | FileCheck %s

func.func @reference(%x: memref<6x2048xf32>, %y: memref<6x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  scf.for %r = %c0 to %c6 step %c1 {
    %max = scf.for %c = %c0 to %c2048 step %c1 iter_args(%m = %neg_inf) -> f32 {
      %v = memref.load %x[%r, %c] : memref<6x2048xf32>
      %n = arith.maximumf %m, %v : f32
      scf.yield %n : f32
    }
    %sum = scf.for %c = %c0 to %c2048 step %c1 iter_args(%s = %zero) -> f32 {
      %v = memref.load %x[%r, %c] : memref<6x2048xf32>
      %d = arith.subf %v, %max : f32
      %e = math.exp %d : f32
      %n = arith.addf %s, %e : f32
      scf.yield %n : f32
    }
    scf.for %c = %c0 to %c2048 step %c1 {
      %v = memref.load %x[%r, %c] : memref<6x2048xf32>
      %d = arith.subf %v, %max : f32
      %e = math.exp %d : f32
      %p = arith.divf %e, %sum : f32
      memref.store %p, %y[%r, %c] : memref<6x2048xf32>
    }
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c13 = arith.constant 13 : index
  %c20 = arith.constant 20 : index
  %c2048 = arith.constant 2048 : index
  %half = arith.constant 0.5 : f32
  %x = memref.alloc() : memref<6x2048xf32>
  %y = memref.alloc() : memref<6x2048xf32>
  %ref = memref.alloc() : memref<6x2048xf32>
  // x[r, c] = ((5 r + 7 c) mod 13) / 2 + 20 r.
  scf.for %r = %c0 to %c6 step %c1 {
    scf.for %c = %c0 to %c2048 step %c1 {
      %r5 = arith.muli %r, %c5 : index
      %c7c = arith.muli %c, %c7 : index
      %s = arith.addi %r5, %c7c : index
      %m = arith.remui %s, %c13 : index
      %r20 = arith.muli %r, %c20 : index
      %mi = arith.index_cast %m : index to i64
      %ri = arith.index_cast %r20 : index to i64
      %mf = arith.sitofp %mi : i64 to f32
      %rf = arith.sitofp %ri : i64 to f32
      %h = arith.mulf %mf, %half : f32
      %v = arith.addf %h, %rf : f32
      memref.store %v, %x[%r, %c] : memref<6x2048xf32>
    }
  }
  func.call @softmax(%x, %y) : (memref<6x2048xf32>, memref<6x2048xf32>) -> ()
  func.call @reference(%x, %ref) : (memref<6x2048xf32>, memref<6x2048xf32>) -> ()
  // Entries off by more than 1e-5 relative, and rows whose sum (in f64) is
  // off 1 by more than 1e-5.
  %tolerance = arith.constant 1.0e-5 : f32
  %dtolerance = arith.constant 1.0e-5 : f64
  %done = arith.constant 1.0 : f64
  %dzero = arith.constant 0.0 : f64
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %counts:2 = scf.for %r = %c0 to %c6 step %c1 iter_args(%bad = %zero, %bad_rows = %zero) -> (i64, i64) {
    %row:2 = scf.for %c = %c0 to %c2048 step %c1 iter_args(%b = %bad, %sum = %dzero) -> (i64, f64) {
      %got = memref.load %y[%r, %c] : memref<6x2048xf32>
      %want = memref.load %ref[%r, %c] : memref<6x2048xf32>
      %d = arith.subf %got, %want : f32
      %ad = math.absf %d : f32
      %limit = arith.mulf %want, %tolerance : f32
      %off = arith.cmpf ugt, %ad, %limit : f32
      %inc = arith.select %off, %one, %zero : i64
      %nb = arith.addi %b, %inc : i64
      %wide = arith.extf %got : f32 to f64
      %ns = arith.addf %sum, %wide : f64
      scf.yield %nb, %ns : i64, f64
    }
    %dsum = arith.subf %row#1, %done : f64
    %adsum = math.absf %dsum : f64
    %off = arith.cmpf ugt, %adsum, %dtolerance : f64
    %inc = arith.select %off, %one, %zero : i64
    %nr = arith.addi %bad_rows, %inc : i64
    scf.yield %row#0, %nr : i64, i64
  }
  // CHECK: mismatches: 0
  vector.print str "mismatches: "
  vector.print %counts#0 : i64
  // CHECK: rows not summing to 1: 0
  vector.print str "rows not summing to 1: "
  vector.print %counts#1 : i64
  memref.dealloc %x : memref<6x2048xf32>
  memref.dealloc %y : memref<6x2048xf32>
  memref.dealloc %ref : memref<6x2048xf32>
  return
}

// examples/attention.mlir (flash attention in the CTA model: online softmax
// over KV blocks of 64 keys in base 2) against a plain softmax attention over
// the whole sequence with exp. The inputs give later keys a larger or smaller
// scale than earlier ones, so the second KV block raises the running max of
// some rows and not of others: both branches of the rescaling run.
// RUN: cat %S/../../examples/attention.mlir %s | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/attention.mlir %s | vx-opt --vx-to-llvm="reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/attention.mlir %s | vx-opt --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/attention.mlir %s | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/attention.mlir %s | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/attention.mlir %s | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=3 openmp=true" | %mlir_runner -e main | FileCheck %s
// Pipelined transfers (stages=4) change no number.
// RUN: cat %S/../../examples/attention.mlir %s | vx-opt --vx-to-llvm="via-gpu=true stages=4" | %mlir_runner -e main | FileCheck %s
// On sm_90 the tiles are TMA loads issued by thread 0 of the CTA.
// RUN: cat %S/../../examples/attention.mlir %s | vx-opt --convert-vx-to-gpu="chip=sm_90a stages=4" | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/attention.mlir %s | vx-opt --convert-vx-to-gpu="chip=sm_90a stages=4" | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// The same through vx-to-llvm's chip option.
// RUN: cat %S/../../examples/attention.mlir %s | vx-opt --vx-to-llvm="via-gpu=true chip=sm_90a stages=4" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/attention.mlir %s | vx-opt --vx-to-llvm="detect-races=true" | %mlir_runner -e main | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)

func.func @reference(%q: memref<1x2x128x64xf32>, %k: memref<1x2x128x64xf32>,
                     %v: memref<1x2x128x64xf32>, %o: memref<1x2x128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %scores = memref.alloc() : memref<128xf32>
  scf.for %h = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %j = %c0 to %c128 step %c1 {
        %dot = scf.for %d = %c0 to %c64 step %c1 iter_args(%s = %zero) -> f32 {
          %x = memref.load %q[%c0, %h, %i, %d] : memref<1x2x128x64xf32>
          %y = memref.load %k[%c0, %h, %j, %d] : memref<1x2x128x64xf32>
          %p = arith.mulf %x, %y : f32
          %n = arith.addf %s, %p : f32
          scf.yield %n : f32
        }
        %scaled = arith.mulf %dot, %scale : f32
        memref.store %scaled, %scores[%j] : memref<128xf32>
      }
      %max = scf.for %j = %c0 to %c128 step %c1 iter_args(%mx = %neg_inf) -> f32 {
        %s = memref.load %scores[%j] : memref<128xf32>
        %n = arith.maximumf %mx, %s : f32
        scf.yield %n : f32
      }
      %sum = scf.for %j = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> f32 {
        %s = memref.load %scores[%j] : memref<128xf32>
        %sd = arith.subf %s, %max : f32
        %e = math.exp %sd : f32
        memref.store %e, %scores[%j] : memref<128xf32>
        %n = arith.addf %acc, %e : f32
        scf.yield %n : f32
      }
      scf.for %d = %c0 to %c64 step %c1 {
        %out = scf.for %j = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> f32 {
          %e = memref.load %scores[%j] : memref<128xf32>
          %vv = memref.load %v[%c0, %h, %j, %d] : memref<1x2x128x64xf32>
          %p = arith.mulf %e, %vv : f32
          %n = arith.addf %acc, %p : f32
          scf.yield %n : f32
        }
        %norm = arith.divf %out, %sum : f32
        memref.store %norm, %o[%c0, %h, %i, %d] : memref<1x2x128x64xf32>
      }
    }
  }
  memref.dealloc %scores : memref<128xf32>
  return
}

// Over the 256x64 view: %m[i, j] = (((7 i + 3 j + seed) mod 11) - 5)
// * ((37 i mod 128) + 32) / 256.
func.func @fill(%m: memref<1x2x128x64xf32>, %seed: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c32 = arith.constant 32 : index
  %c37 = arith.constant 37 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %inv256 = arith.constant 0.00390625 : f32
  %flat = memref.collapse_shape %m [[0, 1, 2], [3]] : memref<1x2x128x64xf32> into memref<256x64xf32>
  scf.for %i = %c0 to %c256 step %c1 {
    %i37 = arith.muli %i, %c37 : index
    %spread = arith.remui %i37, %c128 : index
    %factor = arith.addi %spread, %c32 : index
    scf.for %j = %c0 to %c64 step %c1 {
      %i7 = arith.muli %i, %c7 : index
      %j3 = arith.muli %j, %c3 : index
      %s0 = arith.addi %i7, %j3 : index
      %s = arith.addi %s0, %seed : index
      %r = arith.remui %s, %c11 : index
      %w = arith.subi %r, %c5 : index
      %wf = arith.muli %w, %factor : index
      %wi = arith.index_cast %wf : index to i64
      %vf = arith.sitofp %wi : i64 to f32
      %scaled = arith.mulf %vf, %inv256 : f32
      memref.store %scaled, %flat[%i, %j] : memref<256x64xf32>
    }
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %q = memref.alloc() : memref<1x2x128x64xf32>
  %k = memref.alloc() : memref<1x2x128x64xf32>
  %v = memref.alloc() : memref<1x2x128x64xf32>
  %o = memref.alloc() : memref<1x2x128x64xf32>
  %r = memref.alloc() : memref<1x2x128x64xf32>
  func.call @fill(%q, %c0) : (memref<1x2x128x64xf32>, index) -> ()
  func.call @fill(%k, %c4) : (memref<1x2x128x64xf32>, index) -> ()
  func.call @fill(%v, %c8) : (memref<1x2x128x64xf32>, index) -> ()
  func.call @attention(%q, %k, %v, %o) : (memref<1x2x128x64xf32>, memref<1x2x128x64xf32>, memref<1x2x128x64xf32>, memref<1x2x128x64xf32>) -> ()
  func.call @reference(%q, %k, %v, %r) : (memref<1x2x128x64xf32>, memref<1x2x128x64xf32>, memref<1x2x128x64xf32>, memref<1x2x128x64xf32>) -> ()
  // Count entries differing from the reference by more than 1e-5 (outputs
  // are at most about 3 in magnitude).
  %tol = arith.constant 1.0e-5 : f32
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %bad = scf.for %h = %c0 to %c2 step %c1 iter_args(%n0 = %zero) -> i64 {
    %n1 = scf.for %i = %c0 to %c128 step %c1 iter_args(%n2 = %n0) -> i64 {
      %n3 = scf.for %d = %c0 to %c64 step %c1 iter_args(%n4 = %n2) -> i64 {
        %x = memref.load %o[%c0, %h, %i, %d] : memref<1x2x128x64xf32>
        %y = memref.load %r[%c0, %h, %i, %d] : memref<1x2x128x64xf32>
        %diff = arith.subf %x, %y : f32
        %abs = math.absf %diff : f32
        // Also catches NaN: unordered or greater than the tolerance.
        %off = arith.cmpf ugt, %abs, %tol : f32
        %inc = arith.select %off, %one, %zero : i64
        %n5 = arith.addi %n4, %inc : i64
        scf.yield %n5 : i64
      }
      scf.yield %n3 : i64
    }
    scf.yield %n1 : i64
  }
  // CHECK: mismatches: 0
  vector.print str "mismatches: "
  vector.print %bad : i64
  // The first four outputs of the first row and the last four of the last
  // row, as numpy's softmax attention gives them.
  // CHECK: Unranked Memref
  // CHECK-NEXT: {{\[\[\[\[}}-0.48553{{[0-9]*}}, 0.96813{{[0-9]*}}, 1.9856{{[0-9]*}}, -1.4438{{[0-9]*}}]]]]
  // CHECK: Unranked Memref
  // CHECK-NEXT: {{\[\[\[\[}}-2.8802{{[0-9]*}}, -1.1524{{[0-9]*}}, 0.57614{{[0-9]*}}, 2.3047{{[0-9]*}}]]]]
  %first = memref.subview %o[0, 0, 0, 0] [1, 1, 1, 4] [1, 1, 1, 1] : memref<1x2x128x64xf32> to memref<1x1x1x4xf32, strided<[16384, 8192, 64, 1]>>
  %final = memref.subview %o[0, 1, 127, 60] [1, 1, 1, 4] [1, 1, 1, 1] : memref<1x2x128x64xf32> to memref<1x1x1x4xf32, strided<[16384, 8192, 64, 1], offset: 16380>>
  %u0 = memref.cast %first : memref<1x1x1x4xf32, strided<[16384, 8192, 64, 1]>> to memref<*xf32>
  %u1 = memref.cast %final : memref<1x1x1x4xf32, strided<[16384, 8192, 64, 1], offset: 16380>> to memref<*xf32>
  func.call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
  func.call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  memref.dealloc %q : memref<1x2x128x64xf32>
  memref.dealloc %k : memref<1x2x128x64xf32>
  memref.dealloc %v : memref<1x2x128x64xf32>
  memref.dealloc %o : memref<1x2x128x64xf32>
  memref.dealloc %r : memref<1x2x128x64xf32>
  return
}

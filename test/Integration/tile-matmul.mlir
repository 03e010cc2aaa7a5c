// examples/tile_matmul.mlir (a bf16 GEMM with tile ops: linalg.fill,
// linalg.matmul and memref.copy computed by the whole CTA, K along an
// arbitrary dim, stages 3) against a plain triple loop in f32. The inputs
// are small integers, exact in bf16, so the sums are exact and the
// comparison demands equality.
// RUN: cat %S/../../examples/tile_matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/tile_matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/tile_matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// The spawn's `stages 3` clause overrides the option; with two stages:
// RUN: sed 's/stages 3/stages 2/' %S/../../examples/tile_matmul.mlir | cat - %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/tile_matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true chip=sm_90a" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/tile_matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true detect-races=true" | %mlir_runner -e main | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)

func.func @reference(%a: memref<128x96xbf16>, %b: memref<96x128xbf16>,
                     %c: memref<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c96 = arith.constant 96 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      %sum = scf.for %k = %c0 to %c96 step %c1 iter_args(%s = %zero) -> f32 {
        %x = memref.load %a[%i, %k] : memref<128x96xbf16>
        %y = memref.load %b[%k, %j] : memref<96x128xbf16>
        %xf = arith.extf %x : bf16 to f32
        %yf = arith.extf %y : bf16 to f32
        %p = arith.mulf %xf, %yf : f32
        %n = arith.addf %s, %p : f32
        scf.yield %n : f32
      }
      memref.store %sum, %c[%i, %j] : memref<128x128xf32>
    }
  }
  return
}

// Fills %m[i, j] with ((i * 7 + j * 3 + seed) mod 11) - 5.
func.func @fill(%m: memref<?x?xbf16>, %seed: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %rows = memref.dim %m, %c0 : memref<?x?xbf16>
  %cols = memref.dim %m, %c1 : memref<?x?xbf16>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %i7 = arith.muli %i, %c7 : index
      %j3 = arith.muli %j, %c3 : index
      %s0 = arith.addi %i7, %j3 : index
      %s = arith.addi %s0, %seed : index
      %r = arith.remui %s, %c11 : index
      %v = arith.subi %r, %c5 : index
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to bf16
      memref.store %vf, %m[%i, %j] : memref<?x?xbf16>
    }
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %a = memref.alloc() : memref<128x96xbf16>
  %b = memref.alloc() : memref<96x128xbf16>
  %c = memref.alloc() : memref<128x128xf32>
  %r = memref.alloc() : memref<128x128xf32>
  %au = memref.cast %a : memref<128x96xbf16> to memref<*xbf16>
  %bu = memref.cast %b : memref<96x128xbf16> to memref<*xbf16>
  %cu = memref.cast %c : memref<128x128xf32> to memref<*xf32>
  func.call @make_device_visible_bf16(%au) : (memref<*xbf16>) -> ()
  func.call @make_device_visible_bf16(%bu) : (memref<*xbf16>) -> ()
  func.call @make_device_visible_f32(%cu) : (memref<*xf32>) -> ()
  %ad = memref.cast %a : memref<128x96xbf16> to memref<?x?xbf16>
  %bd = memref.cast %b : memref<96x128xbf16> to memref<?x?xbf16>
  func.call @fill(%ad, %c0) : (memref<?x?xbf16>, index) -> ()
  func.call @fill(%bd, %c2) : (memref<?x?xbf16>, index) -> ()
  func.call @tile_matmul(%a, %b, %c) : (memref<128x96xbf16>, memref<96x128xbf16>, memref<128x128xf32>) -> ()
  func.call @reference(%a, %b, %r) : (memref<128x96xbf16>, memref<96x128xbf16>, memref<128x128xf32>) -> ()
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %diff = scf.for %i = %c0 to %c128 step %c1 iter_args(%d = %zero) -> i64 {
    %row = scf.for %j = %c0 to %c128 step %c1 iter_args(%e = %d) -> i64 {
      %x = memref.load %c[%i, %j] : memref<128x128xf32>
      %y = memref.load %r[%i, %j] : memref<128x128xf32>
      %ne = arith.cmpf une, %x, %y : f32
      %inc = arith.select %ne, %one, %zero : i64
      %n = arith.addi %e, %inc : i64
      scf.yield %n : i64
    }
    scf.yield %row : i64
  }
  // CHECK: mismatches: 0
  vector.print str "mismatches: "
  vector.print %diff : i64
  // Row 127, columns 120-127, as numpy computes them.
  // CHECK: Unranked Memref
  // CHECK-NEXT: {{\[\[}}476, -100, -5, -273, 86, 82, -296, 30]]
  %s = memref.subview %c[127, 120] [1, 8] [1, 1] : memref<128x128xf32> to memref<1x8xf32, strided<[128, 1], offset: 16376>>
  %u = memref.cast %s : memref<1x8xf32, strided<[128, 1], offset: 16376>> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %a : memref<128x96xbf16>
  memref.dealloc %b : memref<96x128xbf16>
  memref.dealloc %c : memref<128x128xf32>
  memref.dealloc %r : memref<128x128xf32>
  return
}

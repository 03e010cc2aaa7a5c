// examples/gemm_bf16.mlir (a bf16 GEMM, C = A B^T with B stored N x K, in
// tile ops: 128x256 tiles of C, K steps of 64 along an arbitrary dim,
// stages 4; C stored as bf16) against a plain triple loop in f32 whose sums
// are rounded to bf16. The inputs are small integers, exact in bf16, and
// the sums stay exact in f32, so both round the same value to nearest even
// and the comparison demands equality. test/Integration/PTXSim/gemm-bf16.mlir runs it on the
// PTX simulator (wgmma on sm_90a, mma.sync on sm_80).
// RUN: cat %S/../../examples/gemm_bf16.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/gemm_bf16.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/gemm_bf16.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/gemm_bf16.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true chip=sm_90a" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/gemm_bf16.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true detect-races=true" | %mlir_runner -e main | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)

// C = A B^T, one dot product of a row of A and a row of B per element.
func.func @reference(%a: memref<256x512xbf16>, %b: memref<512x512xbf16>,
                     %c: memref<256x512xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c256 step %c1 {
    scf.for %j = %c0 to %c512 step %c1 {
      %sum = scf.for %k = %c0 to %c512 step %c1 iter_args(%s = %zero) -> f32 {
        %x = memref.load %a[%i, %k] : memref<256x512xbf16>
        %y = memref.load %b[%j, %k] : memref<512x512xbf16>
        %xf = arith.extf %x : bf16 to f32
        %yf = arith.extf %y : bf16 to f32
        %p = arith.mulf %xf, %yf : f32
        %n = arith.addf %s, %p : f32
        scf.yield %n : f32
      }
      %rounded = arith.truncf %sum : f32 to bf16
      memref.store %rounded, %c[%i, %j] : memref<256x512xbf16>
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
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %a = memref.alloc() : memref<256x512xbf16>
  %b = memref.alloc() : memref<512x512xbf16>
  %c = memref.alloc() : memref<256x512xbf16>
  %r = memref.alloc() : memref<256x512xbf16>
  %au = memref.cast %a : memref<256x512xbf16> to memref<*xbf16>
  %bu = memref.cast %b : memref<512x512xbf16> to memref<*xbf16>
  %cu = memref.cast %c : memref<256x512xbf16> to memref<*xbf16>
  func.call @make_device_visible_bf16(%au) : (memref<*xbf16>) -> ()
  func.call @make_device_visible_bf16(%bu) : (memref<*xbf16>) -> ()
  func.call @make_device_visible_bf16(%cu) : (memref<*xbf16>) -> ()
  %ad = memref.cast %a : memref<256x512xbf16> to memref<?x?xbf16>
  %bd = memref.cast %b : memref<512x512xbf16> to memref<?x?xbf16>
  func.call @fill(%ad, %c0) : (memref<?x?xbf16>, index) -> ()
  func.call @fill(%bd, %c2) : (memref<?x?xbf16>, index) -> ()
  func.call @gemm_bf16(%a, %b, %c) : (memref<256x512xbf16>, memref<512x512xbf16>, memref<256x512xbf16>) -> ()
  func.call @reference(%a, %b, %r) : (memref<256x512xbf16>, memref<512x512xbf16>, memref<256x512xbf16>) -> ()
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %diff = scf.for %i = %c0 to %c256 step %c1 iter_args(%d = %zero) -> i64 {
    %row = scf.for %j = %c0 to %c512 step %c1 iter_args(%e = %d) -> i64 {
      %xh = memref.load %c[%i, %j] : memref<256x512xbf16>
      %yh = memref.load %r[%i, %j] : memref<256x512xbf16>
      %x = arith.extf %xh : bf16 to f32
      %y = arith.extf %yh : bf16 to f32
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
  // Row 255, columns 248-255 (the last tile's last row), as numpy computes
  // them (-1014, -2048, 5102, -2048, -1014, 2572, -2565, 504), rounded to
  // bf16 (8 significant bits).
  // CHECK: Unranked Memref
  // CHECK-NEXT: {{\[\[}}-1016, -2048, 5088, -2048, -1016, 2576, -2560, 504]]
  %s = memref.alloc() : memref<1x8xf32>
  %c8 = arith.constant 8 : index
  %c255 = arith.constant 255 : index
  scf.for %j = %c0 to %c8 step %c1 {
    %c248 = arith.constant 248 : index
    %column = arith.addi %j, %c248 : index
    %h = memref.load %c[%c255, %column] : memref<256x512xbf16>
    %f = arith.extf %h : bf16 to f32
    memref.store %f, %s[%c0, %j] : memref<1x8xf32>
  }
  %u = memref.cast %s : memref<1x8xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %s : memref<1x8xf32>
  memref.dealloc %a : memref<256x512xbf16>
  memref.dealloc %b : memref<512x512xbf16>
  memref.dealloc %c : memref<256x512xbf16>
  memref.dealloc %r : memref<256x512xbf16>
  return
}

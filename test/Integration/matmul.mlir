// The examples/matmul.mlir kernel (128x128 CTA tiles, thread loops, smem
// tiles) against a plain triple loop.
// RUN: cat %S/../../examples/matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=3 openmp=true" | %mlir_runner -e main | FileCheck %s
// Pipelined transfers (stages=3) change no number.
// RUN: cat %S/../../examples/matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true stages=3" | %mlir_runner -e main | FileCheck %s
// On sm_90 the tiles are TMA loads issued by thread 0 of the CTA.
// RUN: cat %S/../../examples/matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --convert-vx-to-gpu="chip=sm_90a stages=3" | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --convert-vx-to-gpu="chip=sm_90a stages=3" | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// The same through vx-to-llvm's chip option.
// RUN: cat %S/../../examples/matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true chip=sm_90a stages=3" | %mlir_runner -e main | FileCheck %s
// RUN: cat %S/../../examples/matmul.mlir %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="detect-races=true" | %mlir_runner -e main | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)

func.func @reference(%a: memref<256x32xf32>, %b: memref<32x384xf32>, %c: memref<256x384xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %c384 = arith.constant 384 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c256 step %c1 {
    scf.for %j = %c0 to %c384 step %c1 {
      %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%s = %zero) -> f32 {
        %x = memref.load %a[%i, %k] : memref<256x32xf32>
        %y = memref.load %b[%k, %j] : memref<32x384xf32>
        %p = arith.mulf %x, %y : f32
        %n = arith.addf %s, %p : f32
        scf.yield %n : f32
      }
      memref.store %sum, %c[%i, %j] : memref<256x384xf32>
    }
  }
  return
}

// Fills %m[i, j] with ((i * 7 + j * 3) mod 11) - 5: small integers, so the
// float sums are exact and the comparison can demand equality.
func.func @fill(%m: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %cols = memref.dim %m, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %i7 = arith.muli %i, %c7 : index
      %j3 = arith.muli %j, %c3 : index
      %s = arith.addi %i7, %j3 : index
      %r = arith.remui %s, %c11 : index
      %v = arith.subi %r, %c5 : index
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f32
      memref.store %vf, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @main() {
  %a = memref.alloc() : memref<256x32xf32>
  %b = memref.alloc() : memref<32x384xf32>
  %c = memref.alloc() : memref<256x384xf32>
  %r = memref.alloc() : memref<256x384xf32>
  %au = memref.cast %a : memref<256x32xf32> to memref<*xf32>
  %bu = memref.cast %b : memref<32x384xf32> to memref<*xf32>
  %cu = memref.cast %c : memref<256x384xf32> to memref<*xf32>
  func.call @make_device_visible_f32(%au) : (memref<*xf32>) -> ()
  func.call @make_device_visible_f32(%bu) : (memref<*xf32>) -> ()
  func.call @make_device_visible_f32(%cu) : (memref<*xf32>) -> ()
  %ad = memref.cast %a : memref<256x32xf32> to memref<?x?xf32>
  %bd = memref.cast %b : memref<32x384xf32> to memref<?x?xf32>
  func.call @fill(%ad) : (memref<?x?xf32>) -> ()
  func.call @fill(%bd) : (memref<?x?xf32>) -> ()
  func.call @matmul(%a, %b, %c) : (memref<256x32xf32>, memref<32x384xf32>, memref<256x384xf32>) -> ()
  func.call @reference(%a, %b, %r) : (memref<256x32xf32>, memref<32x384xf32>, memref<256x384xf32>) -> ()
  // Count the entries where the kernel and the reference differ.
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c384 = arith.constant 384 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %diff = scf.for %i = %c0 to %c256 step %c1 iter_args(%d = %zero) -> i64 {
    %row = scf.for %j = %c0 to %c384 step %c1 iter_args(%e = %d) -> i64 {
      %x = memref.load %c[%i, %j] : memref<256x384xf32>
      %y = memref.load %r[%i, %j] : memref<256x384xf32>
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
  // Three rows of eight from different tiles, as numpy computes them:
  // f(256,32) @ f(32,384), rows 0, 130 and 255.
  // CHECK: Unranked Memref
  // CHECK-NEXT: {{\[\[}}168, -39, -15, -90, 33, 24, -84, 6]]
  // CHECK: Unranked Memref
  // CHECK-NEXT: {{\[\[}}-33, 165, -132, 165, -33, 0, -99, 33]]
  // CHECK: Unranked Memref
  // CHECK-NEXT: {{\[\[}}25, -48, 165, -117, 140, -43, 5, -79]]
  %s0 = memref.subview %c[0, 0] [1, 8] [1, 1] : memref<256x384xf32> to memref<1x8xf32, strided<[384, 1]>>
  %s1 = memref.subview %c[130, 200] [1, 8] [1, 1] : memref<256x384xf32> to memref<1x8xf32, strided<[384, 1], offset: 50120>>
  %s2 = memref.subview %c[255, 376] [1, 8] [1, 1] : memref<256x384xf32> to memref<1x8xf32, strided<[384, 1], offset: 98296>>
  %u0 = memref.cast %s0 : memref<1x8xf32, strided<[384, 1]>> to memref<*xf32>
  %u1 = memref.cast %s1 : memref<1x8xf32, strided<[384, 1], offset: 50120>> to memref<*xf32>
  %u2 = memref.cast %s2 : memref<1x8xf32, strided<[384, 1], offset: 98296>> to memref<*xf32>
  func.call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
  func.call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  func.call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  memref.dealloc %a : memref<256x32xf32>
  memref.dealloc %b : memref<32x384xf32>
  memref.dealloc %c : memref<256x384xf32>
  memref.dealloc %r : memref<256x384xf32>
  return
}

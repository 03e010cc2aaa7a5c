// wgmma operand tiles whose rows are several 128-byte swizzle widths: a bf16
// GEMM C = A B with B stored K x N (MN-major B tiles of 128 columns, two
// panels of 64) and K steps of 128 (K-major A tiles with rows of 256 bytes,
// two panels along K), 128x128 tiles of C on one warpgroup (two m64 rows of
// wgmma.mma_async.m64n128k16 each), two stages. Each panel is a TMA box of
// its own; the descriptors step from panel to panel. Checked on the PTX
// simulator against a plain triple loop (small integers: exact), as is the
// same kernel on sm_80 (mma.sync) and on the CPU.
// REQUIRES: ptxas
// RUN: cat %s %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %s
// RUN: cat %s %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %s
// RUN: cat %s %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %s
// RUN: cat %s %S/../Inputs/host-memory.mlir | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/../Inputs/gpu-memory.mlir | vx-opt --vx-distribute-tile-ops="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: remark: computed on the tensor cores: wgmma.mma_async.m64n128k16 on 1 warpgroup, 128x128 of the accumulator per warpgroup; A and B in shared memory with the 128B and 128B swizzles of their TMA transfers; A in 2 panels of 64 columns, a TMA box each; B in 2 panels of 64 columns, a TMA box each

func.func private @printMemrefF32(memref<*xf32>)

func.func @gemm_nn(%a: memref<256x384xbf16>, %b: memref<384x256xbf16>,
                   %c: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2, 2, 3]
      semantics [parallel, parallel, arbitrary] threads 128 stages 2 {
    %a_tile = vx.scratch smem : memref<128x128xbf16>
    %b_tile = vx.scratch smem : memref<128x128xbf16>
    %acc = vx.scratch : memref<128x128xf32>
    %bm = vx.grid_index 0
    %bn = vx.grid_index 1
    %kb = vx.grid_index 2
    %nk = vx.grid_dim 2
    %m0 = arith.muli %bm, %c128 : index
    %n0 = arith.muli %bn, %c128 : index
    %k0 = arith.muli %kb, %c128 : index
    %a_src = memref.subview %a[%m0, %k0] [128, 128] [1, 1]
        : memref<256x384xbf16> to memref<128x128xbf16, strided<[384, 1], offset: ?>>
    %b_src = memref.subview %b[%k0, %n0] [128, 128] [1, 1]
        : memref<384x256xbf16> to memref<128x128xbf16, strided<[256, 1], offset: ?>>
    %ta = vx.transfer_async %a_src to %a_tile
        : memref<128x128xbf16, strided<[384, 1], offset: ?>> to memref<128x128xbf16>
    %tb = vx.transfer_async %b_src to %b_tile
        : memref<128x128xbf16, strided<[256, 1], offset: ?>> to memref<128x128xbf16>
    %is_first = arith.cmpi eq, %kb, %c0 : index
    scf.if %is_first {
      linalg.fill ins(%zero : f32) outs(%acc : memref<128x128xf32>)
    }
    vx.await %ta
    vx.await %tb
    linalg.matmul ins(%a_tile, %b_tile : memref<128x128xbf16>, memref<128x128xbf16>)
                  outs(%acc : memref<128x128xf32>)
    %last = arith.subi %nk, %c1 : index
    %is_last = arith.cmpi eq, %kb, %last : index
    scf.if %is_last {
      %c_tile = memref.subview %c[%m0, %n0] [128, 128] [1, 1]
          : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      memref.copy %acc, %c_tile
          : memref<128x128xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
    }
  }
  return
}

func.func @reference(%a: memref<256x384xbf16>, %b: memref<384x256xbf16>,
                     %c: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c384 = arith.constant 384 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c256 step %c1 {
    scf.for %j = %c0 to %c256 step %c1 {
      %sum = scf.for %k = %c0 to %c384 step %c1 iter_args(%s = %zero) -> f32 {
        %x = memref.load %a[%i, %k] : memref<256x384xbf16>
        %y = memref.load %b[%k, %j] : memref<384x256xbf16>
        %xf = arith.extf %x : bf16 to f32
        %yf = arith.extf %y : bf16 to f32
        %p = arith.mulf %xf, %yf : f32
        %n = arith.addf %s, %p : f32
        scf.yield %n : f32
      }
      memref.store %sum, %c[%i, %j] : memref<256x256xf32>
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
  %a = memref.alloc() : memref<256x384xbf16>
  %b = memref.alloc() : memref<384x256xbf16>
  %c = memref.alloc() : memref<256x256xf32>
  %r = memref.alloc() : memref<256x256xf32>
  %au = memref.cast %a : memref<256x384xbf16> to memref<*xbf16>
  %bu = memref.cast %b : memref<384x256xbf16> to memref<*xbf16>
  %cu = memref.cast %c : memref<256x256xf32> to memref<*xf32>
  func.call @make_device_visible_bf16(%au) : (memref<*xbf16>) -> ()
  func.call @make_device_visible_bf16(%bu) : (memref<*xbf16>) -> ()
  func.call @make_device_visible_f32(%cu) : (memref<*xf32>) -> ()
  %ad = memref.cast %a : memref<256x384xbf16> to memref<?x?xbf16>
  %bd = memref.cast %b : memref<384x256xbf16> to memref<?x?xbf16>
  func.call @fill(%ad, %c0) : (memref<?x?xbf16>, index) -> ()
  func.call @fill(%bd, %c2) : (memref<?x?xbf16>, index) -> ()
  func.call @gemm_nn(%a, %b, %c) : (memref<256x384xbf16>, memref<384x256xbf16>, memref<256x256xf32>) -> ()
  func.call @reference(%a, %b, %r) : (memref<256x384xbf16>, memref<384x256xbf16>, memref<256x256xf32>) -> ()
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %diff = scf.for %i = %c0 to %c256 step %c1 iter_args(%d = %zero) -> i64 {
    %row = scf.for %j = %c0 to %c256 step %c1 iter_args(%e = %d) -> i64 {
      %x = memref.load %c[%i, %j] : memref<256x256xf32>
      %y = memref.load %r[%i, %j] : memref<256x256xf32>
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
  // Row 255, columns 248-255, as numpy computes them.
  // CHECK: Unranked Memref
  // CHECK-NEXT: {{\[\[}}-400, 1925, -1525, 1900, -395, 5, -1135, 365]]
  %s = memref.subview %c[255, 248] [1, 8] [1, 1] : memref<256x256xf32> to memref<1x8xf32, strided<[256, 1], offset: 65528>>
  %u = memref.cast %s : memref<1x8xf32, strided<[256, 1], offset: 65528>> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %a : memref<256x384xbf16>
  memref.dealloc %b : memref<384x256xbf16>
  memref.dealloc %c : memref<256x256xf32>
  memref.dealloc %r : memref<256x256xf32>
  return
}

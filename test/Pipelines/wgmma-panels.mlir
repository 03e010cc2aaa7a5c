// A B tile of 128 bf16 columns (256-byte rows, K x N) that wgmma reads
// 128B-swizzled: TMA loads it as two panels of 64 columns, each a 64x64 box
// of the one tensor map (coordinates n0 and n0 + 64) into the next 64 rows
// x 128 bytes of the tile, on the step's one expect_tx of the bytes of all
// its loads (A's 16 KiB and B's two panels of 8 KiB; one arrival per
// phase). The PTX assembles without spills or stack.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %s --vx-to-gpu="chip=sm_90a" 2>/dev/null | FileCheck %s
// RUN: vx-opt %s --vx-to-ptx="chip=sm_90a" -o %t/ptx.mlir 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=warning
// RUN: %extract_ptx %t/ptx.mlir %t/ptx
// RUN: %ptxas -arch=sm_90a -v %t/ptx/panels_kernel.ptx -o %t/panels.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c64] {{.*}} swizzle = swizzle_128b
// CHECK: %[[MAP:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c64, %c64] {{.*}} swizzle = swizzle_128b
// CHECK: nvgpu.mbarrier.init %{{.*}}, %c1,
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c32768
// CHECK-NOT: expect_tx
// CHECK: nvgpu.tma.async.load
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<64x128xbf16, {{.*}}> into memref<8192xbf16
// CHECK: %[[P0:.*]] = memref.subview %[[FLAT]][0] [4096] [1]
// CHECK: %[[B0:.*]] = memref.expand_shape %[[P0]] {{.*}} output_shape [64, 64]
// CHECK: nvgpu.tma.async.load %[[ARG:.*]][%[[N0:.*]], %c0], %{{.*}} to %[[B0]]
// CHECK: %[[N64:.*]] = arith.addi %[[N0]], %c64
// CHECK: %[[P1:.*]] = memref.subview %[[FLAT]][4096] [4096] [1]
// CHECK: %[[B1:.*]] = memref.expand_shape %[[P1]] {{.*}} output_shape [64, 64]
// CHECK: nvgpu.tma.async.load %[[ARG]][%[[N64]], %c0], %{{.*}} to %[[B1]]
// REMARK: remark: computed on the tensor cores: wgmma.mma_async.m64n128k16 on 1 warpgroup, 128x128 of the accumulator per warpgroup; A and B in shared memory with the 128B and 128B swizzles of their TMA transfers; B in 2 panels of 64 columns, a TMA box each
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @panels(%a: memref<128x128xbf16>, %b: memref<128x256xbf16>,
                  %c: memref<128x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2, 2] semantics [parallel, arbitrary]
      threads 128 stages 2 {
    %as = vx.scratch smem : memref<128x64xbf16>
    %bs = vx.scratch smem : memref<64x128xbf16>
    %acc = vx.scratch : memref<128x128xf32>
    %bn = vx.grid_index 0
    %kb = vx.grid_index 1
    %n0 = arith.muli %bn, %c128 : index
    %k0 = arith.muli %kb, %c64 : index
    %a_src = memref.subview %a[0, %k0] [128, 64] [1, 1]
        : memref<128x128xbf16> to memref<128x64xbf16, strided<[128, 1], offset: ?>>
    %b_src = memref.subview %b[%k0, %n0] [64, 128] [1, 1]
        : memref<128x256xbf16> to memref<64x128xbf16, strided<[256, 1], offset: ?>>
    %ta = vx.transfer_async %a_src to %as
        : memref<128x64xbf16, strided<[128, 1], offset: ?>> to memref<128x64xbf16>
    %tb = vx.transfer_async %b_src to %bs
        : memref<64x128xbf16, strided<[256, 1], offset: ?>> to memref<64x128xbf16>
    %is_first = arith.cmpi eq, %kb, %c0 : index
    scf.if %is_first {
      linalg.fill ins(%zero : f32) outs(%acc : memref<128x128xf32>)
    }
    vx.await %ta
    vx.await %tb
    linalg.matmul ins(%as, %bs : memref<128x64xbf16>, memref<64x128xbf16>)
                  outs(%acc : memref<128x128xf32>)
    %is_last = arith.cmpi eq, %kb, %c1 : index
    scf.if %is_last {
      %c_tile = memref.subview %c[0, %n0] [128, 128] [1, 1]
          : memref<128x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      memref.copy %acc, %c_tile
          : memref<128x128xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
    }
  }
  return
}

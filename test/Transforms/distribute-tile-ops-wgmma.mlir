// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-distribute-tile-ops="chip=sm_90a" | FileCheck %s
// RUN: vx-opt %s -split-input-file --vx-verify-semantics="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=CHECKER

// On sm_90a a bf16 matmul of TMA-loaded smem tiles into a private f32
// accumulator is a thread loop over the lanes of the CTA's warpgroups
// (warpgroup, warp, lane / 4, lane % 4): per K step of 16 a
// wgmma.mma_async on matrix descriptors of the tiles, between a fence and
// a commit + wait of its group. The accumulator is in the wgmma fragment
// layout (each lane's values of each 64-row fragment, N / 2 of them), the
// operand tiles carry the swizzle of their 64- and 128-byte rows. The
// spawn's only matmul reads tiles that only transfers write: its wait may
// leave the group in flight (vx.deferrable_wait, for vx-pipeline-transfers),
// so the fill and the copy wait for every group first.
// CHECKER-NOT: warning

// CHECK-LABEL: func.func @two_warpgroups
// CHECK-DAG: %[[A:.*]] = vx.scratch smem {vx.swizzle = 64 : i64} : memref<128x32xbf16>
// CHECK-DAG: %[[B:.*]] = vx.scratch smem {vx.swizzle = 128 : i64} : memref<32x64xbf16>
// CHECK-DAG: %[[ACC:.*]] = vx.scratch : memref<2x4x8x4x32xf32>
// Fill: every value of the lane's part.
// CHECK: scf.parallel (%[[WG:.*]], %[[WARP:.*]], %[[G:.*]], %[[P:.*]]) =
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned {vx.tensor_core} 0
// CHECK: memref.store %{{.*}}, %[[ACC]][%[[WG]], %[[WARP]], %[[G]], %[[P]], %{{.*}}]
// The fill's register writes are fenced before the next wgmma.
// CHECK: nvvm.wgmma.fence.aligned {vx.tensor_core}
// The matmul: A's descriptor starts at the warpgroup's 64 rows of 64 bytes.
// CHECK: scf.parallel (%[[WG:.*]], %[[WARP:.*]], %[[G:.*]], %[[P:.*]]) =
// CHECK: memref.extract_strided_metadata %[[A]] : {{.*}} {vx.tensor_core}
// CHECK: memref.extract_strided_metadata %[[B]] : {{.*}} {vx.tensor_core}
// CHECK: vector.load %[[ACC]][%[[WG]], %[[WARP]], %[[G]], %[[P]], %c0{{.*}}] : memref<2x4x8x4x32xf32>, vector<32xf32>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// The second K step: A 32 bytes on, B 16 rows of 128 bytes on (>> 4).
// CHECK: arith.addi %{{.*}}, %c2_i64
// CHECK: arith.addi %{{.*}}, %c128_i64
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned {vx.deferrable_wait, vx.tensor_core} 0
// CHECK: vector.store %{{.*}}, %[[ACC]][%[[WG]], %[[WARP]], %[[G]], %[[P]], %{{.*}}]
// The copy out: row 64 wg + 16 warp + g (+ 8), columns 8 j + 2 p and + 1,
// a pair that one 8-byte store writes (C's rows are an even 64 elements).
// CHECK: scf.parallel
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned {vx.tensor_core} 0
// CHECK: memref.load %[[ACC]]
// CHECK: memref.load %[[ACC]]
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<128x64xf32>, vector<2xf32>
func.func @two_warpgroups(%a: memref<128x32xbf16>, %b: memref<32x64xbf16>,
                          %c: memref<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 256 {
    %as = vx.scratch smem : memref<128x32xbf16>
    %bs = vx.scratch smem : memref<32x64xbf16>
    %acc = vx.scratch : memref<128x64xf32>
    %ta = vx.transfer_async %a to %as : memref<128x32xbf16> to memref<128x32xbf16>
    %tb = vx.transfer_async %b to %bs : memref<32x64xbf16> to memref<32x64xbf16>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x64xf32>)
    vx.await %ta
    vx.await %tb
    // expected-remark @+1 {{computed on the tensor cores: wgmma.mma_async.m64n64k16 on 2 warpgroups, 64x64 of the accumulator per warpgroup; A and B in shared memory with the 64B and 128B swizzles of their TMA transfers}}
    linalg.matmul ins(%as, %bs : memref<128x32xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<128x64xf32>)
    memref.copy %acc, %c : memref<128x64xf32> to memref<128x64xf32>
  }
  return
}

// -----

// B stored N x K (a transposing map): K-major, 64-byte rows for K = 32;
// one warpgroup takes both 64-row fragments of M = 128.
// CHECK-LABEL: func.func @transposed_b
// CHECK: vx.scratch : memref<1x4x8x4x32xf32>
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
func.func @transposed_b(%a: memref<128x32xf16>, %b: memref<32x32xf16>,
                        %c: memref<128x32xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<128x32xf16>
    %bs = vx.scratch smem : memref<32x32xf16>
    %acc = vx.scratch : memref<128x32xf32>
    %ta = vx.transfer_async %a to %as : memref<128x32xf16> to memref<128x32xf16>
    %tb = vx.transfer_async %b to %bs : memref<32x32xf16> to memref<32x32xf16>
    vx.await %ta
    vx.await %tb
    // expected-remark @+1 {{computed on the tensor cores: wgmma.mma_async.m64n32k16 on 1 warpgroup, 128x32 of the accumulator per warpgroup; A and B in shared memory with the 64B and 64B swizzles of their TMA transfers}}
    linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>]
                  ins(%as, %bs : memref<128x32xf16>, memref<32x32xf16>)
                  outs(%acc : memref<128x32xf32>)
    memref.copy %acc, %c : memref<128x32xf32> to memref<128x32xf32>
  }
  return
}

// -----

// Rows of 256 bytes are two panels of the 128B swizzle, each the next 64
// columns of every row, one after the other (TMA loads each as a box). A
// (64 x 128, K-major): K steps 0-3 in panel 0 (32 bytes apart), 4-7 in
// panel 1, 64 rows x 128 bytes (512 >> 4) on. B (128 x 128, K x N,
// MN-major): the leading byte offset is the distance between the panels
// that one m64n128k16 spans (128 rows x 128 bytes: 1024 << 16 after >> 4),
// the stride 8 rows of 128 bytes (64 << 32), K steps 16 rows (128 >> 4)
// apart. A's leading offset is unused (16 bytes: 1 << 16).
// CHECK-LABEL: func.func @wide_rows
// CHECK-DAG: vx.scratch smem {vx.swizzle = 128 : i64} : memref<64x128xbf16>
// CHECK-DAG: vx.scratch smem {vx.swizzle = 128 : i64} : memref<128x128xbf16>
// CHECK: %[[DA:.*]] = arith.ori %{{.*}}, %c4611686293305360384_i64
// CHECK: %[[DB:.*]] = arith.ori %{{.*}}, %c4611686293372403712_i64
// CHECK: nvvm.wgmma.mma_async %[[DA]], %[[DB]], {{.*}} <m = 64, n = 128, k = 16>, {{.*}} A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: arith.addi %[[DA]], %c2_i64
// CHECK: arith.addi %[[DB]], %c128_i64
// CHECK: arith.addi %[[DA]], %c6_i64
// CHECK: arith.addi %[[DB]], %c384_i64
// CHECK: arith.addi %[[DA]], %c512_i64
// CHECK: arith.addi %[[DB]], %c512_i64
// CHECK: arith.addi %[[DA]], %c514_i64
// CHECK: arith.addi %[[DB]], %c640_i64
// CHECK: arith.addi %[[DA]], %c518_i64
// CHECK: arith.addi %[[DB]], %c896_i64
// CHECK-COUNT-1: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
func.func @wide_rows(%a: memref<64x128xbf16>, %b: memref<128x128xbf16>,
                     %c: memref<64x128xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<64x128xbf16>
    %bs = vx.scratch smem : memref<128x128xbf16>
    %acc = vx.scratch : memref<64x128xf32>
    %ta = vx.transfer_async %a to %as : memref<64x128xbf16> to memref<64x128xbf16>
    %tb = vx.transfer_async %b to %bs : memref<128x128xbf16> to memref<128x128xbf16>
    vx.await %ta
    vx.await %tb
    // expected-remark @+1 {{computed on the tensor cores: wgmma.mma_async.m64n128k16 on 1 warpgroup, 64x128 of the accumulator per warpgroup; A and B in shared memory with the 128B and 128B swizzles of their TMA transfers; A in 2 panels of 64 columns, a TMA box each; B in 2 panels of 64 columns, a TMA box each}}
    linalg.matmul ins(%as, %bs : memref<64x128xbf16>, memref<128x128xbf16>)
                  outs(%acc : memref<64x128xf32>)
    memref.copy %acc, %c : memref<64x128xf32> to memref<64x128xf32>
  }
  return
}

// -----

// N = 96: B's rows of 192 bytes are three panels of the 64B swizzle, the
// widest that divides them (32 columns each, 32 rows x 64 bytes apart:
// 128 << 16 after >> 4; the stride 8 rows of 64 bytes, 32 << 32; mode 2).
// CHECK-LABEL: func.func @three_panels
// CHECK: vx.scratch smem {vx.swizzle = 64 : i64} : memref<32x96xbf16>
// CHECK: arith.ori %{{.*}}, %c-9223371899407433728_i64
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 96, k = 16>
func.func @three_panels(%a: memref<64x32xbf16>, %b: memref<32x96xbf16>,
                        %c: memref<64x96xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<64x32xbf16>
    %bs = vx.scratch smem : memref<32x96xbf16>
    %acc = vx.scratch : memref<64x96xf32>
    %ta = vx.transfer_async %a to %as : memref<64x32xbf16> to memref<64x32xbf16>
    %tb = vx.transfer_async %b to %bs : memref<32x96xbf16> to memref<32x96xbf16>
    vx.await %ta
    vx.await %tb
    // expected-remark @+1 {{computed on the tensor cores: wgmma.mma_async.m64n96k16 on 1 warpgroup, 64x96 of the accumulator per warpgroup; A and B in shared memory with the 64B and 64B swizzles of their TMA transfers; B in 3 panels of 32 columns, a TMA box each}}
    linalg.matmul ins(%as, %bs : memref<64x32xbf16>, memref<32x96xbf16>)
                  outs(%acc : memref<64x96xf32>)
    memref.copy %acc, %c : memref<64x96xf32> to memref<64x96xf32>
  }
  return
}

// -----

// The epilogue stores the accumulator as bf16 (a linalg.map of arith.truncf
// into a subview of C): per 8 columns and half, each lane converts its pair
// of values and stores them with one 4-byte store (bf16x2); the subview's
// rows (512 elements) and its column offset (a multiple of 64) are even, so
// every pair is 4-byte aligned.
// CHECK-LABEL: func.func @bf16_epilogue
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: scf.parallel
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned {vx.tensor_core} 0
// CHECK: %[[X:.*]] = memref.load
// CHECK-NEXT: %[[XH:.*]] = arith.truncf %[[X]] : f32 to bf16
// CHECK: %[[Y:.*]] = memref.load
// CHECK-NEXT: %[[YH:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK-NEXT: %[[PAIR:.*]] = vector.from_elements %[[XH]], %[[YH]] : vector<2xbf16>
// CHECK-NEXT: vector.store %[[PAIR]], %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<64x64xbf16, strided<[512, 1], offset: ?>>, vector<2xbf16>
func.func @bf16_epilogue(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>,
                         %c: memref<64x512xbf16>) {
  %c64 = arith.constant 64 : index
  vx.spawn on tensor_core grid [8] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<64x64xbf16>
    %bs = vx.scratch smem : memref<64x64xbf16>
    %acc = vx.scratch : memref<64x64xf32>
    %n = vx.grid_index 0
    %n0 = arith.muli %n, %c64 : index
    %ta = vx.transfer_async %a to %as : memref<64x64xbf16> to memref<64x64xbf16>
    %tb = vx.transfer_async %b to %bs : memref<64x64xbf16> to memref<64x64xbf16>
    vx.await %ta
    vx.await %tb
    // expected-remark @+1 {{computed on the tensor cores: wgmma.mma_async.m64n64k16}}
    linalg.matmul ins(%as, %bs : memref<64x64xbf16>, memref<64x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
    %tile = memref.subview %c[0, %n0] [64, 64] [1, 1]
        : memref<64x512xbf16> to memref<64x64xbf16, strided<[512, 1], offset: ?>>
    linalg.map { arith.truncf } ins(%acc : memref<64x64xf32>)
        outs(%tile : memref<64x64xbf16, strided<[512, 1], offset: ?>>)
  }
  return
}

// -----

// A column offset that may be odd (65 times the grid index): the pairs may
// straddle 4 bytes, so each value is stored by itself (converted by a
// linalg.generic this time).
// CHECK-LABEL: func.func @bf16_epilogue_odd_offset
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: vector.store
// CHECK: memref.store %{{.*}} : memref<64x64xbf16, strided<[512, 1], offset: ?>>
// CHECK-NEXT: memref.store %{{.*}} : memref<64x64xbf16, strided<[512, 1], offset: ?>>
func.func @bf16_epilogue_odd_offset(%a: memref<64x64xbf16>,
                                    %b: memref<64x64xbf16>,
                                    %c: memref<64x512xbf16>) {
  %c65 = arith.constant 65 : index
  vx.spawn on tensor_core grid [7] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<64x64xbf16>
    %bs = vx.scratch smem : memref<64x64xbf16>
    %acc = vx.scratch : memref<64x64xf32>
    %index = vx.grid_index 0
    %n = arith.muli %index, %c65 : index
    %ta = vx.transfer_async %a to %as : memref<64x64xbf16> to memref<64x64xbf16>
    %tb = vx.transfer_async %b to %bs : memref<64x64xbf16> to memref<64x64xbf16>
    vx.await %ta
    vx.await %tb
    // expected-remark @+1 {{computed on the tensor cores: wgmma.mma_async.m64n64k16}}
    linalg.matmul ins(%as, %bs : memref<64x64xbf16>, memref<64x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
    %tile = memref.subview %c[0, %n] [64, 64] [1, 1]
        : memref<64x512xbf16> to memref<64x64xbf16, strided<[512, 1], offset: ?>>
    linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>,
                         affine_map<(i, j) -> (i, j)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%acc : memref<64x64xf32>)
        outs(%tile : memref<64x64xbf16, strided<[512, 1], offset: ?>>) {
    ^bb0(%x: f32, %unused: bf16):
      %y = arith.truncf %x : f32 to bf16
      linalg.yield %y : bf16
    }
  }
  return
}

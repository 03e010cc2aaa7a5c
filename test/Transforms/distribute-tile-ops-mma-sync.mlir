// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-distribute-tile-ops="chip=sm_80" | FileCheck %s
// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics="chip=sm_80" --vx-distribute-tile-ops="chip=sm_80" -o /dev/null

// With a chip of sm_80 or newer, a linalg.matmul of bf16 or f16 tiles into
// a private f32 accumulator runs on mma.sync.m16n8k16: the accumulator
// becomes a private scratch in the fragment layout [warp m][warp n]
// [lane / 4][lane % 4][value], and its fill, matmul and copy are thread
// loops over (warp m, warp n, lane / 4, lane % 4). The checker proves the
// accumulator owned in that layout: run before the distribution, it adds
// no diagnostic to the expected remarks.

// CHECK-LABEL: func.func @fill_matmul_copy
// CHECK: %[[ACC:.*]] = vx.scratch : memref<2x2x8x4x32xf32>
// CHECK: scf.parallel (%[[WM:.*]], %[[WN:.*]], %[[G:.*]], %[[T:.*]]) = ({{.*}}) to (%c2{{.*}}, %c2{{.*}}, %c8{{.*}}, %c4{{.*}})
// CHECK: scf.for %[[V:.*]] =
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%[[WM]], %[[WN]], %[[G]], %[[T]], %[[V]]]
// CHECK: scf.parallel (%[[WM:.*]], %[[WN:.*]], %[[G:.*]], %[[T:.*]]) =
// CHECK: memref.load %{{.*}} : memref<64x32xbf16>
// CHECK: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: memref.load %{{.*}} : memref<32x64xbf16>
// CHECK: memref.load %[[ACC]][%[[WM]], %[[WN]], %[[G]], %[[T]], %{{.*}}]
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>, vx.tensor_core}
// CHECK: llvm.extractvalue {{.*}} {vx.tensor_core}
// CHECK: memref.store %{{.*}}, %[[ACC]][%[[WM]], %[[WN]], %[[G]], %[[T]], %{{.*}}]
// CHECK: scf.if
// CHECK: scf.parallel (%[[WM:.*]], %[[WN:.*]], %[[G:.*]], %[[T:.*]]) =
// CHECK: %[[X:.*]] = memref.load %[[ACC]][%[[WM]], %[[WN]], %[[G]], %[[T]], %{{.*}}]
// CHECK-NEXT: memref.store %[[X]], %{{.*}} : memref<64x64xf32, strided<[128, 1], offset: ?>>
// CHECK-NOT: linalg.
func.func @fill_matmul_copy(%a: memref<64x32xbf16>, %b: memref<32x64xbf16>,
                            %c: memref<128x128xf32>, %last: i1) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<64x32xbf16>
    %bs = vx.scratch smem : memref<32x64xbf16>
    %acc = vx.scratch : memref<64x64xf32>
    %i = vx.grid_index 0
    %ta = vx.transfer_async %a to %as : memref<64x32xbf16> to memref<64x32xbf16>
    %tb = vx.transfer_async %b to %bs : memref<32x64xbf16> to memref<32x64xbf16>
    vx.await %ta
    vx.await %tb
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-remark @+1 {{computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (2x2), 32x32 of the accumulator per warp}}
    linalg.matmul ins(%as, %bs : memref<64x32xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
    scf.if %last {
      %c64 = arith.constant 64 : index
      %row = arith.muli %i, %c64 : index
      %dst = memref.subview %c[%row, 0] [64, 64] [1, 1]
          : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
      memref.copy %acc, %dst
          : memref<64x64xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    }
  }
  return
}

// -----

// f16 operands, B transposed (N x K) by the indexing maps, on a CTA of 256
// threads: eight warps, each a 32x16 part (2 x 2 fragments) of the 64x64
// accumulator; B's loads swap their indices.
// CHECK-LABEL: func.func @transposed_f16
// CHECK: %[[AS:.*]] = vx.scratch smem : memref<64x32xf16>
// CHECK: %[[BT:.*]] = vx.scratch smem : memref<64x32xf16>
// CHECK: vx.scratch : memref<2x4x8x4x16xf32>
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: memref.load %[[AS]][%{{[0-9]+}}, %[[K0:[0-9]+]]] : memref<64x32xf16>
// CHECK-NEXT: memref.load %[[AS]][%{{[0-9]+}}, %[[K1:[0-9]+]]] : memref<64x32xf16>
// CHECK: memref.load %[[BT]][%{{[0-9]+}}, %[[K0]]] : memref<64x32xf16>
// CHECK-NEXT: memref.load %[[BT]][%{{[0-9]+}}, %[[K1]]] : memref<64x32xf16>
// The f16 PTX types are the ones the f16 operands imply: not printed.
// CHECK: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>, vx.tensor_core} : (vector<2xf16>, vector<2xf16>, f32)
func.func @transposed_f16(%c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 256 {
    %as = vx.scratch smem : memref<64x32xf16>
    %bt = vx.scratch smem : memref<64x32xf16>
    %acc = vx.scratch : memref<64x64xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-remark @+1 {{computed on the tensor cores: mma.sync.m16n8k16 on 8 warps (2x4), 32x16 of the accumulator per warp}}
    linalg.matmul
        indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                         affine_map<(m, n, k) -> (n, k)>,
                         affine_map<(m, n, k) -> (m, n)>]
        ins(%as, %bt : memref<64x32xf16>, memref<64x32xf16>)
        outs(%acc : memref<64x64xf32>)
    linalg.copy ins(%acc : memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  }
  return
}

// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-distribute-tile-ops="chip=sm_90a" | FileCheck %s
// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics="chip=sm_90a" --vx-distribute-tile-ops="chip=sm_90a" -o /dev/null

// Fragment groups on wgmma.mma_async (sm_90a; docs/design.md, "Tile ops in
// the fragment layout"): a group whose rows are whole 64-row fragments of
// whole warpgroups and whose smem operands TMA writes takes wgmma's
// accumulator layout, per warp the mma.sync one: 2 warpgroups of 4 warps
// split the 128 rows (16 per warp), a 128x64 tile is 32 values per lane, a
// row vector 2 (rows g and g + 8). S = Q K^T reads Q and K through
// descriptors of their 128B-swizzled tiles; P V reads P's bf16 pairs as
// wgmma's register A operand (inline PTX) and V (K x N: MN-major, the
// transposing imm-trans-b) through a descriptor.

#rows = affine_map<(d0, d1) -> (d0)>
#tile = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @attention_step
func.func @attention_step(%q: memref<128x64xbf16>, %k: memref<64x64xbf16>,
                          %v: memref<64x64xbf16>, %o: memref<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 256 {
    // CHECK-DAG: %[[Q:.*]] = vx.scratch smem {vx.swizzle = 128 : i64} : memref<128x64xbf16>
    // CHECK-DAG: %[[K:.*]] = vx.scratch smem {vx.swizzle = 128 : i64} : memref<64x64xbf16>
    // CHECK-DAG: %[[V:.*]] = vx.scratch smem {vx.swizzle = 128 : i64} : memref<64x64xbf16>
    // CHECK-DAG: %[[S:.*]] = vx.scratch : memref<2x4x8x4x32xf32>
    // CHECK-DAG: %[[P:.*]] = vx.scratch : memref<2x4x8x4x32xbf16>
    // CHECK-DAG: %[[OUT:.*]] = vx.scratch : memref<2x4x8x4x32xf32>
    // CHECK-DAG: %[[M:.*]] = vx.scratch : memref<2x4x8x4x2xf32>
    %q_tile = vx.scratch smem : memref<128x64xbf16>
    %k_tile = vx.scratch smem : memref<64x64xbf16>
    %v_tile = vx.scratch smem : memref<64x64xbf16>
    %s = vx.scratch : memref<128x64xf32>
    %p = vx.scratch : memref<128x64xbf16>
    %out = vx.scratch : memref<128x64xf32>
    %m = vx.scratch : memref<128xf32>
    %tq = vx.transfer_async %q to %q_tile
        : memref<128x64xbf16> to memref<128x64xbf16>
    %tk = vx.transfer_async %k to %k_tile
        : memref<64x64xbf16> to memref<64x64xbf16>
    %tv = vx.transfer_async %v to %v_tile
        : memref<64x64xbf16> to memref<64x64xbf16>
    vx.await %tq
    vx.await %tk
    vx.await %tv
    linalg.fill ins(%zero : f32) outs(%s : memref<128x64xf32>)
    // S = Q K^T: A's descriptor at the warpgroup's 64 rows, 4 K steps,
    // waited for at once. S was just filled with zeros: the first K step
    // overwrites it (scale-d 0), so S is not read.
    // CHECK: scf.parallel (%[[WG:.*]], %[[W:.*]], %[[G:.*]], %[[T:.*]]) = {{.*}} to (%c2{{.*}}, %c4{{.*}}, %c8{{.*}}, %c4{{.*}})
    // CHECK: memref.extract_strided_metadata %[[Q]] : {{.*}} {vx.tensor_core}
    // CHECK: memref.extract_strided_metadata %[[K]] : {{.*}} {vx.tensor_core}
    // CHECK-NOT: vector.load
    // CHECK: nvvm.wgmma.fence.aligned
    // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
    // CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
    // CHECK: nvvm.wgmma.commit.group.sync.aligned
    // CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned {vx.tensor_core} 0
    // CHECK: vector.store %{{.*}}, %[[S]][%[[WG]], %[[W]], %[[G]], %[[T]], %c0{{.*}}]
    // expected-remark @+1 {{computed on the tensor cores: wgmma.mma_async.m64n64k16 on 2 warpgroups, 64x64 of the accumulator per warpgroup, with the row and elementwise tile ops of its 4 private tiles in the fragment layout; A and B in shared memory through descriptors}}
    linalg.matmul
        indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                         affine_map<(d0, d1, d2) -> (d1, d2)>,
                         affine_map<(d0, d1, d2) -> (d0, d1)>]
        ins(%q_tile, %k_tile : memref<128x64xbf16>, memref<64x64xbf16>)
        outs(%s : memref<128x64xf32>)
    // The row max: the lane's values of its row, then the quad's shuffles.
    // CHECK: scf.parallel (%[[WG:.*]], %[[W:.*]], %[[G:.*]], %[[T:.*]]) = {{.*}} to (%c2{{.*}}, %c4{{.*}}, %c8{{.*}}, %c4{{.*}})
    // CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} {vx.tensor_core} : f32
    // CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} {vx.tensor_core} : f32
    // CHECK: memref.store %{{.*}}, %[[M]][%[[WG]], %[[W]], %[[G]], %[[T]], %{{.*}}] : memref<2x4x8x4x2xf32>
    linalg.fill ins(%neg_inf : f32) outs(%m : memref<128xf32>)
    linalg.reduce ins(%s : memref<128x64xf32>) outs(%m : memref<128xf32>)
        dimensions = [1]
      (%x: f32, %acc: f32) {
        %max = arith.maximumf %x, %acc : f32
        linalg.yield %max : f32
      }
    linalg.generic {indexing_maps = [#rows, #tile],
                    iterator_types = ["parallel", "parallel"]}
        ins(%m : memref<128xf32>) outs(%s : memref<128x64xf32>) {
      ^bb0(%mx: f32, %x: f32):
        %d = arith.subf %x, %mx : f32
        %e = math.exp2 %d : f32
        linalg.yield %e : f32
    }
    linalg.map ins(%s : memref<128x64xf32>) outs(%p : memref<128x64xbf16>)
      (%x: f32, %unused: bf16) {
        %t = arith.truncf %x : f32 to bf16
        linalg.yield %t : bf16
      }
    linalg.fill ins(%zero : f32) outs(%out : memref<128x64xf32>)
    linalg.generic {indexing_maps = [#rows, #tile],
                    iterator_types = ["parallel", "parallel"]}
        ins(%m : memref<128xf32>) outs(%out : memref<128x64xf32>) {
      ^bb0(%mx: f32, %x: f32):
        %r = arith.mulf %x, %mx : f32
        linalg.yield %r : f32
    }
    // P V: the four A registers of each K step from the lane's values of P
    // (one vector; columns 16 k to 16 k + 15), packed to i32 before the
    // fence; V's descriptor. The output was rescaled since its fill: read.
    // CHECK: scf.parallel (%[[WG:.*]], %[[W:.*]], %[[G:.*]], %[[T:.*]]) = {{.*}} to (%c2{{.*}}, %c4{{.*}}, %c8{{.*}}, %c4{{.*}})
    // CHECK-NOT: memref.extract_strided_metadata %[[Q]]
    // CHECK: memref.extract_strided_metadata %[[V]] : {{.*}} {vx.tensor_core}
    // CHECK: vector.load %[[OUT]][%[[WG]], %[[W]], %[[G]], %[[T]], %c0{{.*}}] : memref<2x4x8x4x32xf32>, vector<32xf32>
    // CHECK: vector.load %[[P]][%[[WG]], %[[W]], %[[G]], %[[T]], %c0{{.*}}] : memref<2x4x8x4x32xbf16>, vector<32xbf16>
    // CHECK: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
    // CHECK: nvvm.wgmma.fence.aligned
    // CHECK-NOT: memref.load
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att {vx.tensor_core} "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, $1, {{.*}}, $31}, {$64, $65, $66, $67}, $68, 1, 1, 1, 1;", "=f,{{.*}},=f,0,1,{{.*}},31,r,r,r,r,l"
    // CHECK-COUNT-3: llvm.inline_asm
    // CHECK: nvvm.wgmma.commit.group.sync.aligned
    // CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned {vx.tensor_core} 0
    // expected-remark @+1 {{computed on the tensor cores: wgmma.mma_async.m64n64k16 on 2 warpgroups, 64x64 of the accumulator per warpgroup, with the row and elementwise tile ops of its 4 private tiles in the fragment layout; A from registers, B in shared memory through descriptors}}
    linalg.matmul ins(%p, %v_tile : memref<128x64xbf16>, memref<64x64xbf16>)
                  outs(%out : memref<128x64xf32>)
    // The copy out: row 64 warpgroup + 16 warp + 8 h + g.
    // CHECK: scf.parallel (%[[WG:.*]], %[[W:.*]], %[[G:.*]], %[[T:.*]]) = {{.*}} to (%c2{{.*}}, %c4{{.*}}, %c8{{.*}}, %c4{{.*}})
    // CHECK: %[[ROW0:.*]] = arith.muli %[[WG]], %c64
    // CHECK: %[[ROW1:.*]] = arith.addi %[[ROW0]],
    // CHECK: arith.muli %[[W]], %c16
    // CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x64xf32>
    memref.copy %out, %o : memref<128x64xf32> to memref<128x64xf32>
    // CHECK-NOT: linalg.
  }
  return
}

// -----

// Fallbacks: a group that does not fit wgmma keeps mma.sync, with the
// reason in its remarks. A CTA that is not whole warpgroups.

func.func @not_warpgroups(%q: memref<64x64xbf16>, %k: memref<64x64xbf16>,
                          %o: memref<64x64xbf16>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 96 {
    // expected-remark @+1 {{ldmatrix reads this tile with dense rows of 128 bytes, the layout TMA writes on sm_90a: 8-way bank conflicts}}
    %q_tile = vx.scratch smem : memref<64x64xbf16>
    // expected-remark @+1 {{ldmatrix reads this tile with dense rows of 128 bytes, the layout TMA writes on sm_90a: 8-way bank conflicts}}
    %k_tile = vx.scratch smem : memref<64x64xbf16>
    %s = vx.scratch : memref<64x64xf32>
    %tq = vx.transfer_async %q to %q_tile
        : memref<64x64xbf16> to memref<64x64xbf16>
    %tk = vx.transfer_async %k to %k_tile
        : memref<64x64xbf16> to memref<64x64xbf16>
    vx.await %tq
    vx.await %tk
    linalg.fill ins(%zero : f32) outs(%s : memref<64x64xf32>)
    // expected-remark @+1 {{computed on the tensor cores: mma.sync.m16n8k16 on 2 warps (2x1), 32x64 of the accumulator per warp, with the row and elementwise tile ops of its 1 private tiles in the fragment layout; not wgmma.mma_async: the CTA has 96 threads, not whole warpgroups of 128}}
    linalg.matmul ins(%q_tile, %k_tile : memref<64x64xbf16>, memref<64x64xbf16>)
                  outs(%s : memref<64x64xf32>)
    linalg.map ins(%s : memref<64x64xf32>) outs(%o : memref<64x64xbf16>)
      (%x: f32, %unused: bf16) {
        %e = math.exp2 %x : f32
        %t = arith.truncf %e : f32 to bf16
        linalg.yield %t : bf16
      }
  }
  return
}

// -----

// B in captured memory: wgmma reads whole smem tiles.

func.func @captured_b(%q: memref<64x64xbf16>, %k: memref<64x64xbf16>,
                      %o: memref<64x64xbf16>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    // expected-remark @+1 {{ldmatrix reads this tile with dense rows of 128 bytes, the layout TMA writes on sm_90a: 8-way bank conflicts}}
    %q_tile = vx.scratch smem : memref<64x64xbf16>
    %s = vx.scratch : memref<64x64xf32>
    %tq = vx.transfer_async %q to %q_tile
        : memref<64x64xbf16> to memref<64x64xbf16>
    vx.await %tq
    linalg.fill ins(%zero : f32) outs(%s : memref<64x64xf32>)
    // expected-remark @+1 {{computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (4x1), 16x64 of the accumulator per warp, with the row and elementwise tile ops of its 1 private tiles in the fragment layout; not wgmma.mma_async: the B tile is not an smem scratch tile (wgmma reads whole tiles in shared memory)}}
    linalg.matmul ins(%q_tile, %k : memref<64x64xbf16>, memref<64x64xbf16>)
                  outs(%s : memref<64x64xf32>)
    // expected-remark @-2 {{operand B is loaded element by element}}
    linalg.map ins(%s : memref<64x64xf32>) outs(%o : memref<64x64xbf16>)
      (%x: f32, %unused: bf16) {
        %e = math.exp2 %x : f32
        %t = arith.truncf %e : f32 to bf16
        linalg.yield %t : bf16
      }
  }
  return
}

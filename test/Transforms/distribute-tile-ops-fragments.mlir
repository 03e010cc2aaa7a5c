// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-distribute-tile-ops="chip=sm_80" | FileCheck %s
// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics="chip=sm_80" --vx-distribute-tile-ops="chip=sm_80" -o /dev/null
// RUN: vx-opt %s -split-input-file --vx-distribute-tile-ops="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90A

// Tile ops in the mma.sync fragment layout (docs/design.md, "Tile ops in
// the fragment layout"): the private tiles that a row reduction, an
// elementwise op with a row broadcast and a conversion connect to the
// accumulator of S = A B, and the P that P V reads as its A operand, all
// become per-lane fragments. Two warps split the 32 rows (16 each, warpsN
// = 1); a 32x16 tile is 2 fragments of 16x8 per warp, 8 values per lane; a
// row vector 2 values per lane (rows g and g + 8). sm_90a takes the same
// path, the group's 32 rows being too few for wgmma (its groups on wgmma:
// distribute-tile-ops-fragments-wgmma.mlir).

// SM90A: remark: computed on the tensor cores: mma.sync.m16n8k16 on 2 warps (2x1), 16x16 of the accumulator per warp, with the row and elementwise tile ops of its 5 private tiles in the fragment layout; not wgmma.mma_async: its group's tiles have 32 rows, not a multiple of wgmma's 64{{$}}
// SM90A: remark: computed on the tensor cores: mma.sync.m16n8k16 on 2 warps (2x1), 16x16 of the accumulator per warp, with the row and elementwise tile ops of its 5 private tiles in the fragment layout; A from registers; not wgmma.mma_async: its group's tiles have 32 rows, not a multiple of wgmma's 64{{$}}

#rows = affine_map<(d0, d1) -> (d0)>
#tile = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @softmax_then_pv
func.func @softmax_then_pv(%a: memref<32x16xbf16>, %b: memref<16x16xbf16>,
                           %v: memref<16x16xbf16>, %o: memref<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    // CHECK-DAG: %[[S:.*]] = vx.scratch : memref<2x1x8x4x8xf32>
    // CHECK-DAG: %[[P:.*]] = vx.scratch : memref<2x1x8x4x8xbf16>
    // CHECK-DAG: %[[OUT:.*]] = vx.scratch : memref<2x1x8x4x8xf32>
    // CHECK-DAG: %[[M:.*]] = vx.scratch : memref<2x1x8x4x2xf32>
    // CHECK-DAG: %[[L:.*]] = vx.scratch : memref<2x1x8x4x2xf32>
    // CHECK-DAG: %[[L_WHOLE:.*]] = vx.scratch : memref<2x1x8x4x2xf32>
    %s = vx.scratch : memref<32x16xf32>
    %p = vx.scratch : memref<32x16xbf16>
    %out = vx.scratch : memref<32x16xf32>
    %m = vx.scratch : memref<32xf32>
    %l = vx.scratch : memref<32xf32>
    linalg.fill ins(%zero : f32) outs(%s : memref<32x16xf32>)
    linalg.fill ins(%zero : f32) outs(%out : memref<32x16xf32>)
    // expected-remark @+1 {{computed on the tensor cores: mma.sync.m16n8k16 on 2 warps (2x1), 16x16 of the accumulator per warp, with the row and elementwise tile ops of its 5 private tiles in the fragment layout}}
    linalg.matmul ins(%a, %b : memref<32x16xbf16>, memref<16x16xbf16>)
                  outs(%s : memref<32x16xf32>)
    // expected-remark @-2 {{operand A is loaded element by element}}
    // expected-remark @-3 {{operand B is loaded element by element}}
    // The row max: each lane's four values of its row, then the quad's.
    linalg.fill ins(%neg_inf : f32) outs(%m : memref<32xf32>)
    // CHECK: scf.parallel (%[[W:.*]], %[[N:.*]], %[[G:.*]], %[[T:.*]]) = {{.*}} to (%c2{{.*}}, %c1{{.*}}, %c8{{.*}}, %c4{{.*}})
    // CHECK: %[[PARTIAL:.*]] = scf.for %{{.*}} = %c1
    // CHECK: arith.maximumf
    // CHECK: gpu.shuffle  xor %[[PARTIAL]], %c1_i32{{.*}}, %c32_i32{{.*}} {vx.tensor_core} : f32
    // CHECK: arith.maximumf
    // CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} {vx.tensor_core} : f32
    // CHECK: memref.load %[[M]][%[[W]], %[[N]], %[[G]], %[[T]], %{{.*}}] : memref<2x1x8x4x2xf32>
    // CHECK: arith.maximumf
    // CHECK: memref.store %{{.*}}, %[[M]][%[[W]], %[[N]], %[[G]], %[[T]], %{{.*}}] : memref<2x1x8x4x2xf32>
    linalg.reduce ins(%s : memref<32x16xf32>) outs(%m : memref<32xf32>)
        dimensions = [1]
      (%x: f32, %acc: f32) {
        %max = arith.maximumf %x, %acc : f32
        linalg.yield %max : f32
      }
    // exp2(s - m): the row vector's value of the lane's row.
    // CHECK: scf.parallel
    // CHECK: memref.load %[[M]]
    // CHECK: memref.load %[[S]]
    // CHECK: math.exp2
    // CHECK: memref.store %{{.*}}, %[[S]]
    linalg.generic {indexing_maps = [#rows, #tile],
                    iterator_types = ["parallel", "parallel"]}
        ins(%m : memref<32xf32>) outs(%s : memref<32x16xf32>) {
      ^bb0(%mx: f32, %x: f32):
        %d = arith.subf %x, %mx : f32
        %e = math.exp2 %d : f32
        linalg.yield %e : f32
    }
    linalg.fill ins(%zero : f32) outs(%l : memref<32xf32>)
    // The row sums stay per lane (getPartialRowSums): the lane's values
    // added to its partial sum, no shuffle.
    // CHECK: scf.parallel
    // CHECK-NOT: gpu.shuffle
    // CHECK: arith.addf
    // CHECK-NOT: gpu.shuffle
    // CHECK: memref.store %{{.*}}, %[[L]]
    // CHECK-NOT: gpu.shuffle
    linalg.reduce ins(%s : memref<32x16xf32>) outs(%l : memref<32xf32>)
        dimensions = [1]
      (%x: f32, %acc: f32) {
        %sum = arith.addf %x, %acc : f32
        linalg.yield %sum : f32
      }
    // CHECK: arith.truncf
    // CHECK: memref.store %{{.*}}, %[[P]]
    linalg.map ins(%s : memref<32x16xf32>) outs(%p : memref<32x16xbf16>)
      (%x: f32, %unused: bf16) {
        %t = arith.truncf %x : f32 to bf16
        linalg.yield %t : bf16
      }
    // P V: A's registers from P's fragments (N fragments 2k and 2k + 1).
    // CHECK: scf.parallel
    // CHECK: memref.load %[[P]]
    // CHECK: vector.from_elements {{.*}} : vector<2xbf16>
    // CHECK: nvvm.mma.sync
    // expected-remark @+1 {{computed on the tensor cores: mma.sync.m16n8k16 on 2 warps (2x1), 16x16 of the accumulator per warp, with the row and elementwise tile ops of its 5 private tiles in the fragment layout; A from registers}}
    linalg.matmul ins(%p, %v : memref<32x16xbf16>, memref<16x16xbf16>)
                  outs(%out : memref<32x16xf32>)
    // expected-remark @-2 {{operand B is loaded element by element}}
    // out / l into captured memory: row 16 w + 16 fm + 8 h + g, column
    // 8 fn + 2 t + e.
    // Before it, the quad's partial sums of l summed into every lane.
    // CHECK: scf.parallel
    // CHECK: %[[PART:.*]] = memref.load %[[L]]
    // CHECK: %[[ONE:.*]], %{{.*}} = gpu.shuffle  xor %[[PART]], %c1_i32
    // CHECK: %[[SUM:.*]] = arith.addf %[[ONE]], %[[PART]]
    // CHECK: %[[TWO:.*]], %{{.*}} = gpu.shuffle  xor %[[SUM]], %c2_i32
    // CHECK: %[[WHOLE:.*]] = arith.addf %[[TWO]], %[[SUM]]
    // CHECK: memref.store %[[WHOLE]], %[[L_WHOLE]]
    // CHECK: scf.parallel
    // CHECK: memref.load %[[L_WHOLE]]
    // CHECK: arith.divf
    // CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x16xf32>
    linalg.generic {indexing_maps = [#tile, #rows, #tile],
                    iterator_types = ["parallel", "parallel"]}
        ins(%out, %l : memref<32x16xf32>, memref<32xf32>)
        outs(%o : memref<32x16xf32>) {
      ^bb0(%x: f32, %sum: f32, %unused: f32):
        %n = arith.divf %x, %sum : f32
        linalg.yield %n : f32
    }
    // CHECK-NOT: linalg.
  }
  return
}

// -----

// A row sum that another writer updates other than linearly (l + 1: the
// quad's four partial sums would add it four times) stays whole: its
// reduction shuffles.
#rows = affine_map<(d0, d1) -> (d0)>
#tile = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @row_sum_kept_whole
func.func @row_sum_kept_whole(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>,
                              %o: memref<16x16xf32>) {
  // CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %s = vx.scratch : memref<16x16xf32>
    %l = vx.scratch : memref<16xf32>
    // expected-remark @+3 {{computed on the tensor cores}}
    // expected-remark @+2 {{operand A is loaded element by element}}
    // expected-remark @+1 {{operand B is loaded element by element}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%s : memref<16x16xf32>)
    // CHECK: gpu.shuffle  xor
    // CHECK: gpu.shuffle  xor
    linalg.reduce ins(%s : memref<16x16xf32>) outs(%l : memref<16xf32>)
        dimensions = [1]
      (%x: f32, %acc: f32) {
        %sum = arith.addf %x, %acc : f32
        linalg.yield %sum : f32
      }
    // CHECK: arith.addf %{{.*}}, %[[ONE]]
    // CHECK-NOT: gpu.shuffle
    // CHECK: arith.divf
    linalg.map ins(%l : memref<16xf32>) outs(%l : memref<16xf32>)
      (%x: f32, %unused: f32) {
        %y = arith.addf %x, %one : f32
        linalg.yield %y : f32
      }
    linalg.generic {indexing_maps = [#tile, #rows, #tile],
                    iterator_types = ["parallel", "parallel"]}
        ins(%s, %l : memref<16x16xf32>, memref<16xf32>)
        outs(%o : memref<16x16xf32>) {
      ^bb0(%x: f32, %sum: f32, %unused: f32):
        %n = arith.divf %x, %sum : f32
        linalg.yield %n : f32
    }
  }
  return
}

// -----

// Fallbacks: the group keeps the row distribution and FMA code, with the
// reason on its matmul (a column reduction or broadcast of a private tile
// is the checker's error on any distribution, verify-tile-ops.mlir).

func.func @column_broadcast(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %s = vx.scratch : memref<16x16xf32>
    %c = vx.scratch smem : memref<16xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but 'linalg.generic' of its group reads with a map that is neither the identity nor a row broadcast: computed with FMA code}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%s : memref<16x16xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>,
                                     affine_map<(d0, d1) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%c : memref<16xf32>) outs(%s : memref<16x16xf32>) {
      ^bb0(%x: f32, %y: f32):
        %z = arith.mulf %x, %y : f32
        linalg.yield %z : f32
    }
  }
  return
}

// -----

func.func @ordered_combiner(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %s = vx.scratch : memref<16x16xf32>
    %m = vx.scratch : memref<16xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but a row reduction of its group combines with other than one commutative arith op (the quad's shuffles reorder it): computed with FMA code}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%s : memref<16x16xf32>)
    linalg.reduce ins(%s : memref<16x16xf32>) outs(%m : memref<16xf32>)
        dimensions = [1]
      (%x: f32, %acc: f32) {
        %d = arith.subf %x, %acc : f32
        linalg.yield %d : f32
      }
  }
  return
}

// -----

func.func @row_vector_to_memory(%a: memref<16x16xbf16>,
                                %b: memref<16x16xbf16>,
                                %r: memref<16xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %s = vx.scratch : memref<16x16xf32>
    %m = vx.scratch : memref<16xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but 'memref.copy' of its group writes a row vector outside it (the quad holds each row four times): computed with FMA code}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%s : memref<16x16xf32>)
    linalg.reduce ins(%s : memref<16x16xf32>) outs(%m : memref<16xf32>)
        dimensions = [1]
      (%x: f32, %acc: f32) {
        %sum = arith.addf %x, %acc : f32
        linalg.yield %sum : f32
      }
    memref.copy %m, %r : memref<16xf32> to memref<16xf32>
  }
  return
}

// -----

func.func @narrow_tile(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>,
                       %n: memref<16x12xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %s = vx.scratch : memref<16x16xf32>
    %t = vx.scratch : memref<16x12xf32>
    %m = vx.scratch : memref<16xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but a private tile of its group has 12 columns, not a multiple of 8: computed with FMA code}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%s : memref<16x16xf32>)
    linalg.reduce ins(%s : memref<16x16xf32>) outs(%m : memref<16xf32>)
        dimensions = [1]
      (%x: f32, %acc: f32) {
        %sum = arith.addf %x, %acc : f32
        linalg.yield %sum : f32
      }
    memref.copy %n, %t : memref<16x12xf32> to memref<16x12xf32>
    linalg.reduce ins(%t : memref<16x12xf32>) outs(%m : memref<16xf32>)
        dimensions = [1]
      (%x: f32, %acc: f32) {
        %sum = arith.addf %x, %acc : f32
        linalg.yield %sum : f32
      }
  }
  return
}


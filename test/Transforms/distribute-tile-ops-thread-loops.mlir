// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics="chip=sm_80" --vx-distribute-tile-ops="chip=sm_80" | FileCheck %s
// RUN: vx-opt %s -split-input-file --vx-verify-semantics --vx-distribute-tile-ops | FileCheck %s --check-prefix=ROWS

// Thread loops of the user's over the private tiles of tile ops are mapped
// onto the tiles' distribution (VX_SPEC 2.3). In a fragment group (sm_80:
// two warps split the 32 rows, lane l holds rows l / 4 and l / 4 + 8 of its
// warp's 16, columns 2 (l % 4) + e of each fragment of 8) the loop becomes
// a thread loop over the lanes that runs its body for the lane's (row,
// column) pairs, the group's tiles read and written at the lane's values.
// Without a chip (the CPU and via-gpu routes) the group's tile ops go by
// rows, and so does the loop: row r on row r's thread, its columns in
// turn. The checker proves both (no diagnostic but the remarks).

// CHECK-LABEL: func.func @prologue_and_epilogue
// ROWS-LABEL: func.func @prologue_and_epilogue
func.func @prologue_and_epilogue(%a: memref<32x16xbf16>,
                                 %b: memref<16x16xbf16>,
                                 %o: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    // CHECK-DAG: %[[S:.*]] = vx.scratch : memref<2x1x8x4x8xf32>
    // CHECK-DAG: %[[M:.*]] = vx.scratch : memref<2x1x8x4x2xf32>
    %s = vx.scratch : memref<32x16xf32>
    %m = vx.scratch : memref<32xf32>
    // The tile's elements: per lane, fragment rows fm, halves h, fragment
    // columns fn, columns e.
    // CHECK: scf.parallel (%[[W:.*]], %[[N:.*]], %[[G:.*]], %[[T:.*]]) = {{.*}} to (%c2{{.*}}, %c1{{.*}}, %c8{{.*}}, %c4{{.*}})
    // CHECK: scf.for
    // CHECK: scf.for
    // CHECK: scf.for
    // CHECK: scf.for
    // CHECK: memref.store %cst, %[[S]][%[[W]], %[[N]], %[[G]], %[[T]], %{{.*}}] : memref<2x1x8x4x8xf32>
    // ROWS: scf.parallel (%[[R:.*]]) = (%c0) to (%c32) step (%c1) {
    // ROWS-NEXT: scf.parallel (%[[C:.*]]) = (%c0) to (%c16) step (%c1) {
    // ROWS-NEXT: memref.store %cst, %{{.*}}[%[[R]], %[[C]]] : memref<32x16xf32>
    scf.parallel (%r, %c) = (%c0, %c0) to (%c32, %c16) step (%c1, %c1) {
      memref.store %zero, %s[%r, %c] : memref<32x16xf32>
    }
    // A row vector: the lane's rows (each lane of a quad keeps its copy).
    // CHECK: scf.parallel
    // CHECK: memref.store %cst_0, %[[M]][{{.*}}] : memref<2x1x8x4x2xf32>
    scf.parallel (%r) = (%c0) to (%c32) step (%c1) {
      memref.store %neg_inf, %m[%r] : memref<32xf32>
    }
    // expected-remark @+3 {{computed on the tensor cores: mma.sync.m16n8k16 on 2 warps (2x1), 16x16 of the accumulator per warp, with the row and elementwise tile ops of its 2 private tiles in the fragment layout}}
    // expected-remark @+2 {{operand A is loaded element by element}}
    // expected-remark @+1 {{operand B is loaded element by element}}
    linalg.matmul ins(%a, %b : memref<32x16xbf16>, memref<16x16xbf16>)
                  outs(%s : memref<32x16xf32>)
    // CHECK: gpu.shuffle  xor
    // ROWS: arith.maximumf
    linalg.reduce ins(%s : memref<32x16xf32>) outs(%m : memref<32xf32>)
        dimensions = [1]
      (%x: f32, %acc: f32) {
        %max = arith.maximumf %x, %acc : f32
        linalg.yield %max : f32
      }
    // The epilogue: row 16 w + 16 fm + 16 n + 8 h + g (n, the warp of a
    // warpgroup on wgmma, is 0 here), column 8 fn + 2 t + e.
    // CHECK: scf.parallel (%[[W:.*]], %[[N:.*]], %[[G:.*]], %[[T:.*]]) =
    // CHECK: scf.for %[[FM:.*]] =
    // CHECK: scf.for %[[H:.*]] =
    // CHECK: scf.for %[[FN:.*]] =
    // CHECK: scf.for %[[E:.*]] =
    // CHECK: %[[ROW0:.*]] = arith.muli %[[W]], %c16
    // CHECK: %[[ROW1:.*]] = arith.muli %[[FM]], %c16
    // CHECK: %[[ROW2:.*]] = arith.addi %[[ROW0]], %[[ROW1]]
    // CHECK: %[[ROWN:.*]] = arith.muli %[[N]], %c16
    // CHECK: %[[ROW2N:.*]] = arith.addi %[[ROW2]], %[[ROWN]]
    // CHECK: %[[ROW3:.*]] = arith.muli %[[H]], %c8
    // CHECK: %[[ROW4:.*]] = arith.addi %[[ROW2N]], %[[ROW3]]
    // CHECK: %[[ROW:.*]] = arith.addi %[[ROW4]], %[[G]]
    // CHECK: %[[COL0:.*]] = arith.muli %[[FN]], %c8
    // CHECK: %[[COL1:.*]] = arith.muli %[[T]], %c2
    // CHECK: %[[COL2:.*]] = arith.addi %[[COL0]], %[[COL1]]
    // CHECK: %[[COL:.*]] = arith.addi %[[COL2]], %[[E]]
    // CHECK: %[[X:.*]] = memref.load %[[S]][%[[W]], %[[N]], %[[G]], %[[T]], %{{.*}}] : memref<2x1x8x4x8xf32>
    // CHECK: %[[MX:.*]] = memref.load %[[M]][%[[W]], %[[N]], %[[G]], %[[T]], %{{.*}}] : memref<2x1x8x4x2xf32>
    // CHECK: %[[D:.*]] = arith.subf %[[X]], %[[MX]]
    // CHECK: memref.store %[[D]], %{{.*}}[%[[ROW]], %[[COL]]] : memref<32x16xf32>
    // ROWS: scf.parallel (%[[R:.*]]) = (%c0) to (%c32) step (%c1) {
    // ROWS-NEXT: scf.parallel (%[[C:.*]]) = (%c0) to (%c16) step (%c1) {
    // ROWS-NEXT: memref.load %{{.*}}[%[[R]], %[[C]]] : memref<32x16xf32>
    scf.parallel (%r, %c) = (%c0, %c0) to (%c32, %c16) step (%c1, %c1) {
      %x = memref.load %s[%r, %c] : memref<32x16xf32>
      %mx = memref.load %m[%r] : memref<32xf32>
      %d = arith.subf %x, %mx : f32
      memref.store %d, %o[%r, %c] : memref<32x16xf32>
    }
  }
  return
}

// -----

// A GEMM whose accumulator a thread loop stores: the accumulator and the
// loop in the fragment layout (a group of one tile, the warps splitting the
// rows).
// CHECK-LABEL: func.func @gemm_epilogue
func.func @gemm_epilogue(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>,
                         %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    // CHECK: %[[ACC:.*]] = vx.scratch : memref<1x1x8x4x8xf32>
    %acc = vx.scratch : memref<16x16xf32>
    // CHECK: nvvm.mma.sync
    // expected-remark @+3 {{computed on the tensor cores: mma.sync.m16n8k16 on 1 warps (1x1), 16x16 of the accumulator per warp, with the row and elementwise tile ops of its 1 private tiles in the fragment layout}}
    // expected-remark @+2 {{operand A is loaded element by element}}
    // expected-remark @+1 {{operand B is loaded element by element}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%acc : memref<16x16xf32>)
    // CHECK: memref.load %[[ACC]]
    // CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<16x16xf32>
    // CHECK-NOT: memref<16x16xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      %x = memref.load %acc[%i, %j] : memref<16x16xf32>
      memref.store %x, %c[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// -----

// A thread loop joins the group with the private tiles it accesses: the two
// accumulators and the temporary that it writes and a second loop reads are
// one group, each loop rewritten once.
// CHECK-LABEL: func.func @two_accumulators_and_a_temporary
func.func @two_accumulators_and_a_temporary(%a: memref<16x16xbf16>,
                                            %b: memref<16x16xbf16>,
                                            %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    // CHECK-COUNT-3: vx.scratch : memref<1x1x8x4x8xf32>
    // CHECK-NOT: vx.scratch
    %acc = vx.scratch : memref<16x16xf32>
    %acc2 = vx.scratch : memref<16x16xf32>
    %t = vx.scratch : memref<16x16xf32>
    // expected-remark @+3 {{with the row and elementwise tile ops of its 3 private tiles in the fragment layout}}
    // expected-remark @+2 {{operand A is loaded element by element}}
    // expected-remark @+1 {{operand B is loaded element by element}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%acc : memref<16x16xf32>)
    // expected-remark @+3 {{with the row and elementwise tile ops of its 3 private tiles in the fragment layout}}
    // expected-remark @+2 {{operand A is loaded element by element}}
    // expected-remark @+1 {{operand B is loaded element by element}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%acc2 : memref<16x16xf32>)
    // CHECK-COUNT-2: nvvm.mma.sync
    // CHECK: arith.addf
    // CHECK: memref.store %{{.*}} : memref<1x1x8x4x8xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      %x = memref.load %acc[%i, %j] : memref<16x16xf32>
      %y = memref.load %acc2[%i, %j] : memref<16x16xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %t[%i, %j] : memref<16x16xf32>
    }
    // CHECK: memref.load %{{.*}} : memref<1x1x8x4x8xf32>
    // CHECK: memref.store %{{.*}} : memref<16x16xf32>
    // CHECK-NOT: memref<16x16xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      %x = memref.load %t[%i, %j] : memref<16x16xf32>
      memref.store %x, %c[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

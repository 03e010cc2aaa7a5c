// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-distribute-tile-ops | FileCheck %s

// Tile ops in once-per-instance code of device spawns (VX_SPEC 2.3) become
// thread loops over their output's elements, reductions sequential inside.

// CHECK-LABEL: func.func @fill_matmul_copy
// CHECK: %[[ACC:.*]] = vx.scratch : memref<64x64xf32>
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%[[I]], %[[J]]]
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NEXT: scf.for %[[K:.*]] =
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[K]]] : memref<64x32xbf16>
// CHECK-NEXT: memref.load %{{.*}}[%[[K]], %[[J]]] : memref<32x64xbf16>
// CHECK-NEXT: memref.load %[[ACC]][%[[I]], %[[J]]]
// CHECK: memref.store %{{.*}}, %[[ACC]][%[[I]], %[[J]]]
// CHECK: scf.if
// CHECK: memref.subview
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NEXT: %[[V:.*]] = memref.load %[[ACC]][%[[I]], %[[J]]]
// CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[I]], %[[J]]] : memref<64x64xf32, strided<[128, 1], offset: ?>>
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
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but this route computes it with FMA code (the tensor cores need a GPU route's chip)}}
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

// A transposing indexing map reads B by rows; f32 operands are exact FMA
// code without a remark (no tf32).
// CHECK-LABEL: func.func @transposed_matmul
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NEXT: scf.for %[[K:.*]] =
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[K]]]
// CHECK-NEXT: memref.load %{{.*}}[%[[J]], %[[K]]]
func.func @transposed_matmul(%q: memref<64x16xf32>, %k: memref<32x16xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    %s = vx.scratch : memref<64x32xf32>
    linalg.matmul
        indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                         affine_map<(d0, d1, d2) -> (d1, d2)>,
                         affine_map<(d0, d1, d2) -> (d0, d1)>]
        ins(%q, %k : memref<64x16xf32>, memref<32x16xf32>)
        outs(%s : memref<64x32xf32>)
  }
  return
}

// -----

// A reduction along dim 0 iterates its output (dim 1) across the threads,
// the reduced dim sequentially in each thread.
// CHECK-LABEL: func.func @column_sums
// CHECK: scf.parallel (%[[J:.*]]) =
// CHECK-NEXT: scf.for %[[I:.*]] =
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]] : memref<16x32xf32>
// CHECK-NEXT: memref.load %{{.*}}[%[[J]]] : memref<32xf32>
// The copy after it, in program order.
// CHECK: scf.parallel (%[[J:.*]]) =
// CHECK-NEXT: memref.load %{{.*}}[%[[J]]] : memref<32xf32>
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[J]]] : memref<32xf32>
func.func @column_sums(%x: memref<16x32xf32>, %out: memref<32xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %t = vx.scratch smem : memref<16x32xf32>
    %sums = vx.scratch smem : memref<32xf32>
    %tt = vx.transfer_async %x to %t : memref<16x32xf32> to memref<16x32xf32>
    vx.await %tt
    linalg.reduce ins(%t : memref<16x32xf32>) outs(%sums : memref<32xf32>)
        dimensions = [0]
      (%e: f32, %s: f32) {
        %n = arith.addf %e, %s : f32
        linalg.yield %n : f32
      }
    memref.copy %sums, %out : memref<32xf32> to memref<32xf32>
  }
  return
}

// -----

// A row reduction and a row broadcast of private tiles: their ops (and every
// op that shares a private tile with them) go by rows, the thread loop over
// the first output dim and an scf.parallel inside that runs in its thread.
// The smem tile's fill keeps the element distribution.
// CHECK-LABEL: func.func @rows
// CHECK: %[[S:.*]] = vx.scratch : memref<64x64xf32>
// CHECK: %[[M:.*]] = vx.scratch : memref<64xf32>
// CHECK: %[[T:.*]] = vx.scratch smem : memref<64x64xf32>
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK-NEXT: memref.store %{{.*}}, %[[T]]
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NEXT: scf.parallel (%[[J:.*]]) =
// CHECK-NEXT: memref.load %[[T]][%[[I]], %[[J]]]
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[I]], %[[J]]]
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NEXT: memref.store %{{.*}}, %[[M]][%[[I]]]
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK-NEXT: memref.load %[[S]][%[[I]], %[[J]]]
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NEXT: scf.parallel (%[[J:.*]]) =
// CHECK-NEXT: memref.load %[[S]][%[[I]], %[[J]]]
// CHECK-NEXT: memref.load %[[M]][%[[I]]]
func.func @rows(%out: memref<64x64xf32>) {
  %z = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    %s = vx.scratch : memref<64x64xf32>
    %m = vx.scratch : memref<64xf32>
    %t = vx.scratch smem : memref<64x64xf32>
    linalg.fill ins(%z : f32) outs(%t : memref<64x64xf32>)
    linalg.copy ins(%t : memref<64x64xf32>) outs(%s : memref<64x64xf32>)
    linalg.fill ins(%z : f32) outs(%m : memref<64xf32>)
    linalg.reduce ins(%s : memref<64x64xf32>) outs(%m : memref<64xf32>)
        dimensions = [1]
      (%e: f32, %mx: f32) {
        %n = arith.maximumf %e, %mx : f32
        linalg.yield %n : f32
      }
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                     affine_map<(d0, d1) -> (d0)>,
                                     affine_map<(d0, d1) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%s, %m : memref<64x64xf32>, memref<64xf32>)
        outs(%out : memref<64x64xf32>) {
      ^bb0(%e: f32, %mx: f32, %o: f32):
        %d = arith.subf %e, %mx : f32
        linalg.yield %d : f32
    }
  }
  return
}

// -----

// Host spawns keep their linalg ops (loops on the CPU); a device body with
// neither tile ops nor thread loops keeps its copies (Stage 1: an instance
// per thread).
// CHECK-LABEL: func.func @untouched
// CHECK: vx.spawn on host
// CHECK-NEXT: linalg.fill
// CHECK: vx.spawn on tensor_core
// CHECK-NEXT: memref.copy
func.func @untouched(%a: memref<64xf32>, %b: memref<64xf32>) {
  %z = arith.constant 0.0 : f32
  vx.spawn on host grid [1] semantics [parallel] {
    linalg.fill ins(%z : f32) outs(%a : memref<64xf32>)
  }
  vx.spawn on tensor_core grid [1] semantics [parallel] {
    memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  }
  return
}

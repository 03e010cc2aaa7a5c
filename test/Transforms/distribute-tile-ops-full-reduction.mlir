// RUN: vx-opt %s -verify-diagnostics --vx-distribute-tile-ops="chip=sm_80" | FileCheck %s

// A full reduction of an accumulator into a rank-0 private scratch: no
// fragment group (its scalar is neither a tile nor a row vector), and the
// FMA distribution, which has no parallel loop to split by rows, keeps it
// a sequential loop (it used to crash there). The checker refuses the
// spawn (every thread reads the tile that the threads own by rows), so
// this runs the pass alone.
// CHECK-LABEL: func.func @full_reduction
// CHECK: scf.for
// CHECK-NOT: nvvm.mma.sync
func.func @full_reduction(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %s = vx.scratch : memref<16x16xf32>
    %t = vx.scratch : memref<f32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but a private tile of its group is not a static tile or row vector: computed with FMA code}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%s : memref<16x16xf32>)
    linalg.reduce ins(%s : memref<16x16xf32>) outs(%t : memref<f32>)
        dimensions = [0, 1]
      (%x: f32, %acc: f32) {
        %sum = arith.addf %x, %acc : f32
        linalg.yield %sum : f32
      }
  }
  return
}

// RUN: vx-opt %s -verify-diagnostics --vx-distribute-tile-ops="tf32=true" -o /dev/null

// With tf32, f32 matmuls would suit the tensor cores too; f16 operands with
// an f16 accumulator do; an i8 matmul is not one the remark concerns.
func.func @remarks(%a: memref<16x16xf32>, %h: memref<16x16xf16>,
                   %i: memref<16x16xi8>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %f32 = vx.scratch : memref<16x16xf32>
    %f16 = vx.scratch : memref<16x16xf16>
    %i32 = vx.scratch : memref<16x16xi32>
    // expected-remark @+1 {{the f32 operands (tf32=true) would suit the tensor cores, but this route computes it with FMA code (the tensor cores need a GPU route's chip)}}
    linalg.matmul ins(%a, %a : memref<16x16xf32>, memref<16x16xf32>)
                  outs(%f32 : memref<16x16xf32>)
    // expected-remark @+1 {{the f16 operands would suit the tensor cores}}
    linalg.matmul ins(%h, %h : memref<16x16xf16>, memref<16x16xf16>)
                  outs(%f16 : memref<16x16xf16>)
    linalg.matmul ins(%i, %i : memref<16x16xi8>, memref<16x16xi8>)
                  outs(%i32 : memref<16x16xi32>)
  }
  return
}

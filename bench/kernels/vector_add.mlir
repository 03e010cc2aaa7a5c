// c = a + b over 2^22 elements: one grid instance per element.
func.func @vector_add(%a: memref<4194304xf32>, %b: memref<4194304xf32>,
                      %c: memref<4194304xf32>) {
  vx.spawn on tensor_core grid [4194304] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<4194304xf32>
    %y = memref.load %b[%i] : memref<4194304xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %c[%i] : memref<4194304xf32>
  }
  return
}

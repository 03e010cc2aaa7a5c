// A kernel of plain loads, adds and stores, which every NVIDIA chip runs.
func.func @vector_add(%a: memref<1024xf32>, %b: memref<1024xf32>, %c: memref<1024xf32>) {
  vx.spawn on tensor_core grid [1024] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<1024xf32>
    %y = memref.load %b[%i] : memref<1024xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %c[%i] : memref<1024xf32>
  }
  return
}

// out[j, i] = in[i, j] for a 1024x1024 matrix: one grid instance per element.
func.func @transpose(%in: memref<1024x1024xf32>, %out: memref<1024x1024xf32>) {
  vx.spawn on tensor_core grid [1024, 1024] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %x = memref.load %in[%i, %j] : memref<1024x1024xf32>
    memref.store %x, %out[%j, %i] : memref<1024x1024xf32>
  }
  return
}

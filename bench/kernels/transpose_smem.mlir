// out = in^T for a 1024x1024 matrix through shared memory, as an expert
// writes it: one grid instance per 32x32 tile on a CTA of 256 threads; a
// thread loop reads the tile's rows from `in` (coalesced) into smem, a
// second one reads the tile down its columns and writes rows of `out`
// (coalesced). Read down a column, a dense row of 32 floats puts the 32
// lanes of a warp in one bank; vx-pad-shared-tiles pads it to 33.
func.func @transpose_smem(%in: memref<1024x1024xf32>,
                          %out: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  vx.spawn on tensor_core grid [32, 32] semantics [parallel, parallel]
      threads 256 {
    %tile = vx.scratch smem : memref<32x32xf32>
    %bi = vx.grid_index 0
    %bj = vx.grid_index 1
    %i0 = arith.muli %bi, %c32 : index
    %j0 = arith.muli %bj, %c32 : index
    scf.parallel (%r, %c) = (%c0, %c0) to (%c32, %c32) step (%c1, %c1) {
      %i = arith.addi %i0, %r : index
      %j = arith.addi %j0, %c : index
      %x = memref.load %in[%i, %j] : memref<1024x1024xf32>
      memref.store %x, %tile[%r, %c] : memref<32x32xf32>
    }
    scf.parallel (%r, %c) = (%c0, %c0) to (%c32, %c32) step (%c1, %c1) {
      %x = memref.load %tile[%c, %r] : memref<32x32xf32>
      %j = arith.addi %j0, %r : index
      %i = arith.addi %i0, %c : index
      memref.store %x, %out[%j, %i] : memref<1024x1024xf32>
    }
  }
  return
}

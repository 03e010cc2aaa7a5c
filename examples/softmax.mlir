// Row softmax, y[r, :] = exp(x[r, :] - m) / sum(exp(x[r, :] - m)) with m the
// row's max, with one grid instance per row on a CTA of 256 threads
// (VX_SPEC 2.1). Three thread loops over the row's 4-element column groups:
// iteration t touches columns 4t to 4t + 3, so consecutive iterations, which
// run on consecutive threads, touch consecutive 16-byte pieces of the row
// (coalesced, 128-bit accesses). The first loads the row into a private
// scratch (each piece owned by the iteration that loads it, so it can stay in
// that thread's registers) and reduces its max across the threads; the second
// exponentiates in place and reduces the sum; the third scales and stores.
func.func @softmax(%x: memref<6x2048xf32>, %y: memref<6x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  vx.spawn on tensor_core grid [6] semantics [parallel] threads 256 {
    %row = vx.scratch : memref<2048xf32>
    %r = vx.grid_index 0
    %max = scf.parallel (%t) = (%c0) to (%c512) step (%c1) init (%neg_inf) -> f32 {
      %col = arith.muli %t, %c4 : index
      %v = vector.load %x[%r, %col] : memref<6x2048xf32>, vector<4xf32>
      vector.store %v, %row[%col] : memref<2048xf32>, vector<4xf32>
      %m = vector.reduction <maximumf>, %v : vector<4xf32> into f32
      // The max as compare and select: the form convert-scf-to-openmp
      // recognizes as a max reduction.
      scf.reduce(%m : f32) {
      ^bb0(%lhs: f32, %rhs: f32):
        %greater = arith.cmpf ogt, %lhs, %rhs : f32
        %larger = arith.select %greater, %lhs, %rhs : f32
        scf.reduce.return %larger : f32
      }
    }
    %max_v = vector.broadcast %max : f32 to vector<4xf32>
    %sum = scf.parallel (%t) = (%c0) to (%c512) step (%c1) init (%zero) -> f32 {
      %col = arith.muli %t, %c4 : index
      %v = vector.load %row[%col] : memref<2048xf32>, vector<4xf32>
      %shifted = arith.subf %v, %max_v : vector<4xf32>
      %e = math.exp %shifted : vector<4xf32>
      vector.store %e, %row[%col] : memref<2048xf32>, vector<4xf32>
      %s = vector.reduction <add>, %e : vector<4xf32> into f32
      scf.reduce(%s : f32) {
      ^bb0(%lhs: f32, %rhs: f32):
        %total = arith.addf %lhs, %rhs : f32
        scf.reduce.return %total : f32
      }
    }
    %inv = arith.divf %one, %sum : f32
    %inv_v = vector.broadcast %inv : f32 to vector<4xf32>
    scf.parallel (%t) = (%c0) to (%c512) step (%c1) {
      %col = arith.muli %t, %c4 : index
      %e = vector.load %row[%col] : memref<2048xf32>, vector<4xf32>
      %p = arith.mulf %e, %inv_v : vector<4xf32>
      vector.store %p, %y[%r, %col] : memref<6x2048xf32>, vector<4xf32>
    }
  }
  return
}

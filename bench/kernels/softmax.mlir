// examples/softmax.mlir at 4096x4096: the softmax of each row with one grid
// instance per row on a CTA of 256 threads; each thread loop has 1024
// iterations of 4 columns, 4 per thread, coalesced.
func.func @softmax(%x: memref<4096x4096xf32>, %y: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  vx.spawn on tensor_core grid [4096] semantics [parallel] threads 256 {
    %row = vx.scratch : memref<4096xf32>
    %r = vx.grid_index 0
    %max = scf.parallel (%t) = (%c0) to (%c1024) step (%c1) init (%neg_inf) -> f32 {
      %col = arith.muli %t, %c4 : index
      %v = vector.load %x[%r, %col] : memref<4096x4096xf32>, vector<4xf32>
      vector.store %v, %row[%col] : memref<4096xf32>, vector<4xf32>
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
    %sum = scf.parallel (%t) = (%c0) to (%c1024) step (%c1) init (%zero) -> f32 {
      %col = arith.muli %t, %c4 : index
      %v = vector.load %row[%col] : memref<4096xf32>, vector<4xf32>
      %shifted = arith.subf %v, %max_v : vector<4xf32>
      %e = math.exp %shifted : vector<4xf32>
      vector.store %e, %row[%col] : memref<4096xf32>, vector<4xf32>
      %s = vector.reduction <add>, %e : vector<4xf32> into f32
      scf.reduce(%s : f32) {
      ^bb0(%lhs: f32, %rhs: f32):
        %total = arith.addf %lhs, %rhs : f32
        scf.reduce.return %total : f32
      }
    }
    %inv = arith.divf %one, %sum : f32
    %inv_v = vector.broadcast %inv : f32 to vector<4xf32>
    scf.parallel (%t) = (%c0) to (%c1024) step (%c1) {
      %col = arith.muli %t, %c4 : index
      %e = vector.load %row[%col] : memref<4096xf32>, vector<4xf32>
      %p = arith.mulf %e, %inv_v : vector<4xf32>
      vector.store %p, %y[%r, %col] : memref<4096x4096xf32>, vector<4xf32>
    }
  }
  return
}

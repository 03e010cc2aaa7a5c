// C = A * B for 256x256 matrices. Grid [M, N / 4, K / 4] with the K-block
// axis arbitrary: each instance owns a row and 4 columns of C; a scratch
// accumulator is zeroed at the first K block, accumulated over the K blocks
// in order and written out at the last one.
func.func @matmul(%a: memref<256x256xf32>, %b: memref<256x256xf32>,
                  %c: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [256, 64, 64] semantics [parallel, parallel, arbitrary] {
    %acc = vx.scratch : memref<4xf32>
    %i = vx.grid_index 0
    %jb = vx.grid_index 1
    %kb = vx.grid_index 2
    %nk = vx.grid_dim 2
    %is_first = arith.cmpi eq, %kb, %c0 : index
    scf.if %is_first {
      scf.for %jj = %c0 to %c4 step %c1 {
        memref.store %zero, %acc[%jj] : memref<4xf32>
      }
    }
    %j0 = arith.muli %jb, %c4 : index
    %k0 = arith.muli %kb, %c4 : index
    scf.for %jj = %c0 to %c4 step %c1 {
      %j = arith.addi %j0, %jj : index
      %sum0 = memref.load %acc[%jj] : memref<4xf32>
      %sum = scf.for %kk = %c0 to %c4 step %c1 iter_args(%s = %sum0) -> f32 {
        %k = arith.addi %k0, %kk : index
        %x = memref.load %a[%i, %k] : memref<256x256xf32>
        %y = memref.load %b[%k, %j] : memref<256x256xf32>
        %p = arith.mulf %x, %y : f32
        %n = arith.addf %s, %p : f32
        scf.yield %n : f32
      }
      memref.store %sum, %acc[%jj] : memref<4xf32>
    }
    %last = arith.subi %nk, %c1 : index
    %is_last = arith.cmpi eq, %kb, %last : index
    scf.if %is_last {
      scf.for %jj = %c0 to %c4 step %c1 {
        %j = arith.addi %j0, %jj : index
        %v = memref.load %acc[%jj] : memref<4xf32>
        memref.store %v, %c[%i, %j] : memref<256x256xf32>
      }
    }
  }
  return
}

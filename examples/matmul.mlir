// C = A * B in single precision with one grid instance per 128x128 tile of C
// on a CTA of 256 threads (VX_SPEC 2.1). The K axis advances 8 columns of A
// per step along the arbitrary grid dimension. Each step stages A's 128x8
// and B's 8x128 tiles in shared memory with instance-wide transfers, then a
// thread loop over a 16x16 arrangement of threads. Thread (ty, tx) owns the
// 8x8 block of C that a CUDA expert gives it: rows 4 ty + i and 64 + 4 ty + i
// by columns 4 tx + j and 64 + 4 tx + j (i, j < 4). A quarter warp (8
// threads, one ty) then reads 8 x 16 contiguous bytes of a row of B and one
// row of A whole: 128-bit shared loads without bank conflicts (docs/design.md,
// "Shared-memory layouts"). The accumulator is a private scratch indexed
// [row half][row][column half][column], whose 2x4x2x4 part each thread owns
// (registers), zeroed at the first step and written to C at the last.
func.func @matmul(%a: memref<256x32xf32>, %b: memref<32x384xf32>,
                  %c: memref<256x384xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2, 3, 4]
      semantics [parallel, parallel, arbitrary] threads 256 {
    %acc = vx.scratch : memref<2x64x2x64xf32>
    %a_tile = vx.scratch smem : memref<128x8xf32>
    %b_tile = vx.scratch smem : memref<8x128xf32>
    %bm = vx.grid_index 0
    %bn = vx.grid_index 1
    %kb = vx.grid_index 2
    %nk = vx.grid_dim 2
    %m0 = arith.muli %bm, %c128 : index
    %n0 = arith.muli %bn, %c128 : index
    %k0 = arith.muli %kb, %c8 : index
    %a_src = memref.subview %a[%m0, %k0] [128, 8] [1, 1]
        : memref<256x32xf32> to memref<128x8xf32, strided<[32, 1], offset: ?>>
    %b_src = memref.subview %b[%k0, %n0] [8, 128] [1, 1]
        : memref<32x384xf32> to memref<8x128xf32, strided<[384, 1], offset: ?>>
    %ta = vx.transfer_async %a_src to %a_tile
        : memref<128x8xf32, strided<[32, 1], offset: ?>> to memref<128x8xf32>
    %tb = vx.transfer_async %b_src to %b_tile
        : memref<8x128xf32, strided<[384, 1], offset: ?>> to memref<8x128xf32>
    vx.await %ta
    vx.await %tb
    %is_first = arith.cmpi eq, %kb, %c0 : index
    %last = arith.subi %nk, %c1 : index
    %is_last = arith.cmpi eq, %kb, %last : index
    scf.parallel (%ty, %tx) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      %r0 = arith.muli %ty, %c4 : index
      %j0 = arith.muli %tx, %c4 : index
      scf.if %is_first {
        scf.for %h = %c0 to %c2 step %c1 {
          scf.for %i = %c0 to %c4 step %c1 {
            %r = arith.addi %r0, %i : index
            scf.for %g = %c0 to %c2 step %c1 {
              scf.for %j = %c0 to %c4 step %c1 {
                %col = arith.addi %j0, %j : index
                memref.store %zero, %acc[%h, %r, %g, %col]
                    : memref<2x64x2x64xf32>
              }
            }
          }
        }
      }
      scf.for %kk = %c0 to %c8 step %c1 {
        scf.for %h = %c0 to %c2 step %c1 {
          %rh = arith.muli %h, %c64 : index
          scf.for %i = %c0 to %c4 step %c1 {
            %r = arith.addi %r0, %i : index
            %tile_row = arith.addi %rh, %r : index
            %x = memref.load %a_tile[%tile_row, %kk] : memref<128x8xf32>
            scf.for %g = %c0 to %c2 step %c1 {
              %cg = arith.muli %g, %c64 : index
              scf.for %j = %c0 to %c4 step %c1 {
                %col = arith.addi %j0, %j : index
                %tile_col = arith.addi %cg, %col : index
                %y = memref.load %b_tile[%kk, %tile_col] : memref<8x128xf32>
                %s = memref.load %acc[%h, %r, %g, %col] : memref<2x64x2x64xf32>
                %p = arith.mulf %x, %y : f32
                %n = arith.addf %s, %p : f32
                memref.store %n, %acc[%h, %r, %g, %col] : memref<2x64x2x64xf32>
              }
            }
          }
        }
      }
      scf.if %is_last {
        scf.for %h = %c0 to %c2 step %c1 {
          %rh = arith.muli %h, %c64 : index
          scf.for %i = %c0 to %c4 step %c1 {
            %r = arith.addi %r0, %i : index
            %tile_row = arith.addi %rh, %r : index
            %row = arith.addi %m0, %tile_row : index
            scf.for %g = %c0 to %c2 step %c1 {
              %cg = arith.muli %g, %c64 : index
              scf.for %j = %c0 to %c4 step %c1 {
                %col = arith.addi %j0, %j : index
                %tile_col = arith.addi %cg, %col : index
                %out_col = arith.addi %n0, %tile_col : index
                %v = memref.load %acc[%h, %r, %g, %col] : memref<2x64x2x64xf32>
                memref.store %v, %c[%row, %out_col] : memref<256x384xf32>
              }
            }
          }
        }
      }
    }
  }
  return
}

// A 16x8x16 f16 MMA on one warp as MLIR 22's nvgpu ops write it: A (16x16)
// and B (16x8, K x N) copied to shared memory by the lanes, nvgpu.ldmatrix
// (x4 for A, x2.trans for B), nvgpu.mma.sync, D stored per the fragment
// layout. nvgpu.mma.sync cannot lower bf16 operands in MLIR 22 ("failed
// to deduce operand PTX types"). test_ptx_sim_tensor_core.py lowers it.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @tileA : memref<16x16xf16, 3> = uninitialized {alignment = 16 : i64}
    memref.global "private" @tileB : memref<16x8xf16, 3> = uninitialized {alignment = 16 : i64}
    gpu.func @mma(%a: memref<16x16xf16>, %b: memref<16x8xf16>, %out: memref<16x8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %lane = gpu.thread_id x
      %sa = memref.get_global @tileA : memref<16x16xf16, 3>
      %sb = memref.get_global @tileB : memref<16x8xf16, 3>
      // Lane l copies row l % 16, half l / 16 of A and row l % 16 of B.
      %row = arith.remui %lane, %c16 : index
      %half = arith.divui %lane, %c16 : index
      %col = arith.muli %half, %c8 : index
      scf.for %j = %c0 to %c8 step %c1 {
        %k = arith.addi %col, %j : index
        %x = memref.load %a[%row, %k] : memref<16x16xf16>
        memref.store %x, %sa[%row, %k] : memref<16x16xf16, 3>
        %y = memref.load %b[%row, %j] : memref<16x8xf16>
        memref.store %y, %sb[%row, %j] : memref<16x8xf16, 3>
      }
      gpu.barrier
      %fa = nvgpu.ldmatrix %sa[%row, %col] {numTiles = 4 : i32, transpose = false} : memref<16x16xf16, 3> -> vector<4x2xf16>
      %fb = nvgpu.ldmatrix %sb[%row, %c0] {numTiles = 2 : i32, transpose = true} : memref<16x8xf16, 3> -> vector<2x2xf16>
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %d = nvgpu.mma.sync (%fa, %fb, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      // D: rows lane / 4 and lane / 4 + 8, columns 2 (lane % 4) (+1).
      %g = arith.divui %lane, %c4 : index
      %t = arith.remui %lane, %c4 : index
      %c = arith.muli %t, %c2 : index
      %c_next = arith.addi %c, %c1 : index
      %g8 = arith.addi %g, %c8 : index
      %d00 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
      %d01 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
      %d10 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
      %d11 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
      memref.store %d00, %out[%g, %c] : memref<16x8xf32>
      memref.store %d01, %out[%g, %c_next] : memref<16x8xf32>
      memref.store %d10, %out[%g8, %c] : memref<16x8xf32>
      memref.store %d11, %out[%g8, %c_next] : memref<16x8xf32>
      gpu.return
    }
  }
}

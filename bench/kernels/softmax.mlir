// Row softmax of a 1024x1024 matrix in column blocks of 256. Grid
// [rows, phase, column blocks], both inner axes arbitrary: phase 0 folds each
// block into a running max and denominator (online softmax), phase 1 writes
// the normalized block, so the scratch state is carried across blocks.
func.func @softmax(%x: memref<1024x1024xf32>, %y: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  vx.spawn on tensor_core grid [1024, 2, 4] semantics [parallel, arbitrary, arbitrary] {
    %state = vx.scratch : memref<2xf32>  // running max, denominator
    %r = vx.grid_index 0
    %phase = vx.grid_index 1
    %cb = vx.grid_index 2
    %col0 = arith.muli %cb, %c256 : index
    %is_start = arith.cmpi eq, %phase, %c0 : index
    %is_first_block = arith.cmpi eq, %cb, %c0 : index
    %init = arith.andi %is_start, %is_first_block : i1
    scf.if %init {
      memref.store %neg_inf, %state[%c0] : memref<2xf32>
      memref.store %zero, %state[%c1] : memref<2xf32>
    }
    %m_old = memref.load %state[%c0] : memref<2xf32>
    %l_old = memref.load %state[%c1] : memref<2xf32>
    scf.if %is_start {
      %m_block = scf.for %c = %c0 to %c256 step %c1 iter_args(%mx = %m_old) -> f32 {
        %col = arith.addi %col0, %c : index
        %v = memref.load %x[%r, %col] : memref<1024x1024xf32>
        %n = arith.maximumf %mx, %v : f32
        scf.yield %n : f32
      }
      %delta = arith.subf %m_old, %m_block : f32
      %alpha = math.exp %delta : f32
      %l_scaled = arith.mulf %l_old, %alpha : f32
      %l_new = scf.for %c = %c0 to %c256 step %c1 iter_args(%ls = %l_scaled) -> f32 {
        %col = arith.addi %col0, %c : index
        %v = memref.load %x[%r, %col] : memref<1024x1024xf32>
        %d = arith.subf %v, %m_block : f32
        %e = math.exp %d : f32
        %n = arith.addf %ls, %e : f32
        scf.yield %n : f32
      }
      memref.store %m_block, %state[%c0] : memref<2xf32>
      memref.store %l_new, %state[%c1] : memref<2xf32>
    } else {
      scf.for %c = %c0 to %c256 step %c1 {
        %col = arith.addi %col0, %c : index
        %v = memref.load %x[%r, %col] : memref<1024x1024xf32>
        %d = arith.subf %v, %m_old : f32
        %e = math.exp %d : f32
        %p = arith.divf %e, %l_old : f32
        memref.store %p, %y[%r, %col] : memref<1024x1024xf32>
      }
    }
  }
  return
}

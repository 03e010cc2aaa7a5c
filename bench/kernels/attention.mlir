// Online-softmax (flash) attention, O = softmax(Q K^T / sqrt(32)) V, for
// batch 1, 4 heads, sequence 256, head dim 32, in blocks of 16 queries and 16
// keys. Grid [batch, heads, q_blocks, kv_blocks]: the KV-block axis is
// arbitrary, so the running max, denominator and accumulator persist in
// scratch across the KV blocks of each (b, h, q block).
func.func @attention(%q: memref<1x4x256x32xf32>, %k: memref<1x4x256x32xf32>,
                     %v: memref<1x4x256x32xf32>, %o: memref<1x4x256x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.176776695 : f32  // 1 / sqrt(head dim)
  vx.spawn on tensor_core grid [1, 4, 16, 16]
      semantics [parallel, parallel, parallel, arbitrary] {
    %m = vx.scratch : memref<16xf32>
    %l = vx.scratch : memref<16xf32>
    %acc = vx.scratch : memref<16x32xf32>
    %scores = vx.scratch : memref<16xf32>
    %b = vx.grid_index 0
    %h = vx.grid_index 1
    %qb = vx.grid_index 2
    %kvb = vx.grid_index 3
    %nkv = vx.grid_dim 3
    %first = arith.cmpi eq, %kvb, %c0 : index
    scf.if %first {
      scf.for %r = %c0 to %c16 step %c1 {
        memref.store %neg_inf, %m[%r] : memref<16xf32>
        memref.store %zero, %l[%r] : memref<16xf32>
        scf.for %d = %c0 to %c32 step %c1 {
          memref.store %zero, %acc[%r, %d] : memref<16x32xf32>
        }
      }
    }
    %q0 = arith.muli %qb, %c16 : index
    %kv0 = arith.muli %kvb, %c16 : index
    scf.for %r = %c0 to %c16 step %c1 {
      %qi = arith.addi %q0, %r : index
      // score(c) = scale * <Q[qi], K[kv0 + c]>
      scf.for %c = %c0 to %c16 step %c1 {
        %kj = arith.addi %kv0, %c : index
        %dot = scf.for %d = %c0 to %c32 step %c1 iter_args(%s = %zero) -> f32 {
          %x = memref.load %q[%b, %h, %qi, %d] : memref<1x4x256x32xf32>
          %y = memref.load %k[%b, %h, %kj, %d] : memref<1x4x256x32xf32>
          %p = arith.mulf %x, %y : f32
          %n = arith.addf %s, %p : f32
          scf.yield %n : f32
        }
        %scaled = arith.mulf %dot, %scale : f32
        memref.store %scaled, %scores[%c] : memref<16xf32>
      }
      %m_old = memref.load %m[%r] : memref<16xf32>
      %m_new = scf.for %c = %c0 to %c16 step %c1 iter_args(%mx = %m_old) -> f32 {
        %s = memref.load %scores[%c] : memref<16xf32>
        %n = arith.maximumf %mx, %s : f32
        scf.yield %n : f32
      }
      %delta = arith.subf %m_old, %m_new : f32
      %alpha = math.exp %delta : f32
      %l_old = memref.load %l[%r] : memref<16xf32>
      %l_scaled = arith.mulf %l_old, %alpha : f32
      scf.for %d = %c0 to %c32 step %c1 {
        %a = memref.load %acc[%r, %d] : memref<16x32xf32>
        %as = arith.mulf %a, %alpha : f32
        memref.store %as, %acc[%r, %d] : memref<16x32xf32>
      }
      %l_new = scf.for %c = %c0 to %c16 step %c1 iter_args(%ls = %l_scaled) -> f32 {
        %kj = arith.addi %kv0, %c : index
        %s = memref.load %scores[%c] : memref<16xf32>
        %sd = arith.subf %s, %m_new : f32
        %p = math.exp %sd : f32
        scf.for %d = %c0 to %c32 step %c1 {
          %a = memref.load %acc[%r, %d] : memref<16x32xf32>
          %vv = memref.load %v[%b, %h, %kj, %d] : memref<1x4x256x32xf32>
          %pv = arith.mulf %p, %vv : f32
          %an = arith.addf %a, %pv : f32
          memref.store %an, %acc[%r, %d] : memref<16x32xf32>
        }
        %ln = arith.addf %ls, %p : f32
        scf.yield %ln : f32
      }
      memref.store %m_new, %m[%r] : memref<16xf32>
      memref.store %l_new, %l[%r] : memref<16xf32>
    }
    %last = arith.subi %nkv, %c1 : index
    %is_last = arith.cmpi eq, %kvb, %last : index
    scf.if %is_last {
      scf.for %r = %c0 to %c16 step %c1 {
        %qi = arith.addi %q0, %r : index
        %den = memref.load %l[%r] : memref<16xf32>
        scf.for %d = %c0 to %c32 step %c1 {
          %a = memref.load %acc[%r, %d] : memref<16x32xf32>
          %out = arith.divf %a, %den : f32
          memref.store %out, %o[%b, %h, %qi, %d] : memref<1x4x256x32xf32>
        }
      }
    }
  }
  return
}

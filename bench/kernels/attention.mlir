// examples/attention.mlir for batch 1, 4 heads, sequence 256, head dim 64:
// fp32 flash attention with one grid instance per block of 64 queries on a
// CTA of 64 threads, K/V tiles of 64 keys in shared memory, one query row
// per thread-loop iteration with owned accumulators, online softmax over
// chunks of 16 keys whose scores stay in registers.
func.func @attention(%q: memref<1x4x256x64xf32>, %k: memref<1x4x256x64xf32>,
                     %v: memref<1x4x256x64xf32>, %o: memref<1x4x256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.180336878 : f32  // log2(e) / sqrt(head dim)
  vx.spawn on tensor_core grid [1, 4, 4, 4]
      semantics [parallel, parallel, parallel, arbitrary] threads 64 {
    %q_rows = vx.scratch : memref<64x64xf32>
    %scores = vx.scratch : memref<64x16xf32>   // a chunk's scores
    %acc = vx.scratch : memref<64x64xf32>
    %m = vx.scratch : memref<64xf32>
    %l = vx.scratch : memref<64xf32>
    %k_tile = vx.scratch smem : memref<64x64xf32>
    %v_tile = vx.scratch smem : memref<64x64xf32>
    %b = vx.grid_index 0
    %h = vx.grid_index 1
    %qb = vx.grid_index 2
    %kvb = vx.grid_index 3
    %nkv = vx.grid_dim 3
    %q0 = arith.muli %qb, %c64 : index
    %kv0 = arith.muli %kvb, %c64 : index
    %k_src = memref.subview %k[%b, %h, %kv0, 0] [1, 1, 64, 64] [1, 1, 1, 1]
        : memref<1x4x256x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
    %v_src = memref.subview %v[%b, %h, %kv0, 0] [1, 1, 64, 64] [1, 1, 1, 1]
        : memref<1x4x256x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
    %tk = vx.transfer_async %k_src to %k_tile
        : memref<64x64xf32, strided<[64, 1], offset: ?>> to memref<64x64xf32>
    %tv = vx.transfer_async %v_src to %v_tile
        : memref<64x64xf32, strided<[64, 1], offset: ?>> to memref<64x64xf32>
    vx.await %tk
    vx.await %tv
    %is_first = arith.cmpi eq, %kvb, %c0 : index
    %last = arith.subi %nkv, %c1 : index
    %is_last = arith.cmpi eq, %kvb, %last : index
    scf.parallel (%r) = (%c0) to (%c64) step (%c1) {
      %qi = arith.addi %q0, %r : index
      scf.if %is_first {
        memref.store %neg_inf, %m[%r] : memref<64xf32>
        memref.store %zero, %l[%r] : memref<64xf32>
        scf.for %d = %c0 to %c64 step %c1 {
          %x = memref.load %q[%b, %h, %qi, %d] : memref<1x4x256x64xf32>
          %xs = arith.mulf %x, %scale : f32
          memref.store %xs, %q_rows[%r, %d] : memref<64x64xf32>
          memref.store %zero, %acc[%r, %d] : memref<64x64xf32>
        }
      }
      // The keys in chunks of 16 (the expert's layout): a chunk's scores
      // stay in registers, and the running max, the denominator and the
      // accumulators are rescaled once per chunk (online softmax).
      %m_old = memref.load %m[%r] : memref<64xf32>
      %l_old = memref.load %l[%r] : memref<64xf32>
      %m_new, %l_new = scf.for %j0 = %c0 to %c64 step %c16
          iter_args(%m_run = %m_old, %l_run = %l_old) -> (f32, f32) {
        // The row's scores against the chunk's keys, and their running max:
        // 16 independent dot products once the chunk is unrolled.
        %m_chunk = scf.for %j = %c0 to %c16 step %c1
            iter_args(%mx = %m_run) -> f32 {
          %key = arith.addi %j0, %j : index
          %dot = scf.for %d = %c0 to %c64 step %c1 iter_args(%s = %zero) -> f32 {
            %x = memref.load %q_rows[%r, %d] : memref<64x64xf32>
            %y = memref.load %k_tile[%key, %d] : memref<64x64xf32>
            %p = arith.mulf %x, %y : f32
            %n = arith.addf %s, %p : f32
            scf.yield %n : f32
          }
          memref.store %dot, %scores[%r, %j] : memref<64x16xf32>
          %n = arith.maximumf %mx, %dot : f32
          scf.yield %n : f32
        }
        // Rescale what the earlier keys accumulated to the new max.
        %delta = arith.subf %m_run, %m_chunk : f32
        %alpha = math.exp2 %delta : f32
        scf.for %d = %c0 to %c64 step %c1 {
          %a = memref.load %acc[%r, %d] : memref<64x64xf32>
          %as = arith.mulf %a, %alpha : f32
          memref.store %as, %acc[%r, %d] : memref<64x64xf32>
        }
        %l_scaled = arith.mulf %l_run, %alpha : f32
        %l_chunk = scf.for %j = %c0 to %c16 step %c1
            iter_args(%ls = %l_scaled) -> f32 {
          %key = arith.addi %j0, %j : index
          %s = memref.load %scores[%r, %j] : memref<64x16xf32>
          %sd = arith.subf %s, %m_chunk : f32
          %p = math.exp2 %sd : f32
          scf.for %d = %c0 to %c64 step %c1 {
            %a = memref.load %acc[%r, %d] : memref<64x64xf32>
            %y = memref.load %v_tile[%key, %d] : memref<64x64xf32>
            %py = arith.mulf %p, %y : f32
            %an = arith.addf %a, %py : f32
            memref.store %an, %acc[%r, %d] : memref<64x64xf32>
          }
          %ln = arith.addf %ls, %p : f32
          scf.yield %ln : f32
        }
        scf.yield %m_chunk, %l_chunk : f32, f32
      }
      memref.store %m_new, %m[%r] : memref<64xf32>
      memref.store %l_new, %l[%r] : memref<64xf32>
      scf.if %is_last {
        %inv = arith.divf %one, %l_new : f32
        scf.for %d = %c0 to %c64 step %c1 {
          %a = memref.load %acc[%r, %d] : memref<64x64xf32>
          %out = arith.mulf %a, %inv : f32
          memref.store %out, %o[%b, %h, %qi, %d] : memref<1x4x256x64xf32>
        }
      }
    }
  }
  return
}

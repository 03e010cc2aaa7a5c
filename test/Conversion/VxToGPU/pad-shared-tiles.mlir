// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-plan-launch --vx-pad-shared-tiles="chip=sm_80" | FileCheck %s
// RUN: vx-opt %s -split-input-file --vx-plan-launch --vx-pad-shared-tiles="chip=sm_90" 2>&1 >/dev/null | FileCheck %s --check-prefix=SM90
// RUN: vx-opt %s -split-input-file --convert-vx-to-gpu="chip=sm_80" 2>&1 >/dev/null | FileCheck %s --check-prefix=ALONE

// The thread loops of a CTA body are evaluated lane by lane as the mapping
// runs them (iteration i on thread i mod N, a warp 32 consecutive threads),
// each access of an smem tile priced in wavefronts per phase as
// bench/bank_conflicts.py prices the PTX. A conflicted tile gets the fewest
// elements of padding a row that minimize the worst access, through a view
// of a scratch with wider rows; a remark says so, or why it keeps its rows.

// A transpose through shared memory: the second loop reads the tile down
// its columns, the 32 lanes of a warp 128 bytes apart, all in one bank.
// One float of padding (33-float rows) spreads them over the 32 banks; the
// row-wise writes stay conflict-free.
// CHECK-LABEL: func.func @transpose
// CHECK: %[[P:.*]] = vx.scratch smem : memref<32x33xf32>
// CHECK-NEXT: %[[T:.*]] = memref.subview %[[P]][0, 0] [32, 32] [1, 1] : memref<32x33xf32> to memref<32x32xf32, strided<[33, 1]>>
// CHECK: memref.store %{{.*}}, %[[T]][%{{.*}}, %{{.*}}] : memref<32x32xf32, strided<[33, 1]>>
// CHECK: memref.load %[[T]][%{{.*}}, %{{.*}}] : memref<32x32xf32, strided<[33, 1]>>
// ALONE: remark: padded from 128 to 132 bytes a row: 32-way bank conflicts of 'memref.load' (line 40) -> 1
func.func @transpose(%in: memref<1024x1024xf32>, %out: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  vx.spawn on tensor_core grid [32, 32] semantics [parallel, parallel] threads 256 {
    // expected-remark @+1 {{padded from 128 to 132 bytes a row: 32-way bank conflicts of 'memref.load' (line 40) -> 1}}
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

// -----

// A tile that a transfer writes: a padding keeps its rows 16-byte aligned
// (cp.async's chunks), and the best such (16 bytes) leaves 4-way conflicts
// where 32-way were. On sm_90 a TMA copy may write it, in dense rows: kept.
// CHECK-LABEL: func.func @transferred
// CHECK: vx.scratch smem : memref<32x36xf32>
// CHECK: vx.transfer_async %{{.*}} to %{{.*}} : memref<32x32xf32> to memref<32x32xf32, strided<[36, 1]>>
// SM90: remark: dense layout kept: 32-way bank conflicts of 'memref.load' (line 68) (a TMA copy writes it dense on sm_90)
func.func @transferred(%in: memref<32x32xf32>, %out: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    // expected-remark @+1 {{padded from 128 to 144 bytes a row: 32-way bank conflicts of 'memref.load' (line 68) -> 4}}
    %tile = vx.scratch smem : memref<32x32xf32>
    %t = vx.transfer_async %in to %tile : memref<32x32xf32> to memref<32x32xf32>
    vx.await %t
    scf.parallel (%r, %c) = (%c0, %c0) to (%c32, %c32) step (%c1, %c1) {
      %x = memref.load %tile[%c, %r] : memref<32x32xf32>
      memref.store %x, %out[%r, %c] : memref<32x32xf32>
    }
  }
  return
}

// -----

// A tile of rank 1 read with a stride of 32 floats has no rows to pad.
// CHECK-LABEL: func.func @flat
// CHECK: vx.scratch smem : memref<1024xf32>
// CHECK-NOT: memref.subview
func.func @flat(%out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 256 {
    // expected-remark @+1 {{dense layout kept: 32-way bank conflicts of 'memref.load' (line 98) (it has no rows to pad: rank 1)}}
    %tile = vx.scratch smem : memref<1024xf32>
    scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
      memref.store %one, %tile[%i] : memref<1024xf32>
    }
    scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
      %r = arith.remui %i, %c32 : index
      %c = arith.divui %i, %c32 : index
      %rc = arith.muli %r, %c32 : index
      %e = arith.addi %rc, %c : index
      %x = memref.load %tile[%e] : memref<1024xf32>
      memref.store %x, %out[%i] : memref<1024xf32>
    }
  }
  return
}

// -----

// A row per thread, read along a loop that vx-unroll-thread-loops unrolls
// and vx-vectorize-shared-accesses joins into 16-byte loads: priced as
// those (8 lanes a phase, 8 rows of 128 bytes: 8-way). The vectorizer
// joins accesses of dense rows only, so the rows stay.
// CHECK-LABEL: func.func @row_sums
// CHECK: vx.scratch smem : memref<64x32xf32>
// CHECK-NOT: memref.subview
func.func @row_sums(%in: memref<64x32xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    // expected-remark @+1 {{dense layout kept: 8-way bank conflicts of 'memref.load' (line 129) (vx-vectorize-shared-accesses joins its 16-byte accesses ('memref.load' (line 129)) in dense rows only)}}
    %tile = vx.scratch smem : memref<64x32xf32>
    scf.parallel (%r, %c) = (%c0, %c0) to (%c64, %c32) step (%c1, %c1) {
      %x = memref.load %in[%r, %c] : memref<64x32xf32>
      memref.store %x, %tile[%r, %c] : memref<64x32xf32>
    }
    scf.parallel (%r) = (%c0) to (%c64) step (%c1) {
      %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> f32 {
        %x = memref.load %tile[%r, %k] : memref<64x32xf32>
        %n = arith.addf %acc, %x : f32
        scf.yield %n : f32
      }
      memref.store %sum, %out[%r] : memref<64xf32>
    }
  }
  return
}

// -----

// SGEMM's B tile, read by a quarter warp as 128 contiguous bytes once the
// j loop is joined into 16-byte loads: conflict-free, left alone.
// CHECK-LABEL: func.func @sgemm_b
// CHECK: vx.scratch smem : memref<8x128xf32>
// CHECK-NOT: memref.subview
func.func @sgemm_b(%b: memref<8x128xf32>, %out: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 256 {
    %tile = vx.scratch smem : memref<8x128xf32>
    %t = vx.transfer_async %b to %tile : memref<8x128xf32> to memref<8x128xf32>
    vx.await %t
    scf.parallel (%ty, %tx) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      %j0 = arith.muli %tx, %c4 : index
      scf.for %kk = %c0 to %c8 step %c1 {
        scf.for %j = %c0 to %c4 step %c1 {
          %col = arith.addi %j0, %j : index
          %y = memref.load %tile[%kk, %col] : memref<8x128xf32>
          memref.store %y, %out[%ty, %col] : memref<64x64xf32>
        }
      }
    }
  }
  return
}

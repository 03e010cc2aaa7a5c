// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-distribute-tile-ops="chip=sm_90a" | FileCheck %s
// RUN: vx-opt %s -split-input-file --vx-verify-semantics="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=CHECKER

// On sm_90a an elementwise tile op may write an smem tile that wgmma reads
// (flash attention's P): the tile gets the swizzle of its rows, the op's
// thread loop runs over the tile's physical positions (row r, column c)
// and computes there the element of column 8 ((c / 8) xor phase) + c mod 8
// (bf16: 8 to a 16-byte chunk), the phase being r mod 8 for rows of 128
// bytes; each thread then fences its writes for wgmma's async proxy in a
// thread loop of one iteration per thread. The checker proves the spawn.
// CHECKER-NOT: warning

// CHECK-LABEL: func.func @probabilities_times_values
// CHECK-DAG: %[[S:.*]] = vx.scratch smem : memref<64x64xf32>
// CHECK-DAG: %[[P:.*]] = vx.scratch smem {vx.swizzle = 128 : i64} : memref<64x64xbf16>
// CHECK-DAG: %[[V:.*]] = vx.scratch smem {vx.swizzle = 128 : i64} : memref<64x64xbf16>
// CHECK: scf.parallel (%[[R:.*]], %[[C:.*]]) = (%c0{{.*}}, %c0{{.*}}) to (%c64{{.*}}, %c64{{.*}})
// CHECK: %[[PHASE:.*]] = arith.remui %[[R]], %c8
// CHECK: %[[CHUNK:.*]] = arith.divui %[[C]], %c8
// CHECK: %[[X:.*]] = arith.xori %[[CHUNK]], %[[PHASE]]
// CHECK: %[[FIRST:.*]] = arith.muli %[[X]], %c8
// CHECK: %[[WITHIN:.*]] = arith.remui %[[C]], %c8
// CHECK: %[[COLUMN:.*]] = arith.addi %[[FIRST]], %[[WITHIN]]
// CHECK-NEXT: %[[E:.*]] = memref.load %[[S]][%[[R]], %[[COLUMN]]]
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[E]] : f32 to bf16
// CHECK-NEXT: memref.store %[[T]], %[[P]][%[[R]], %[[C]]]
// CHECK: scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%c128{{.*}})
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>, vx.tensor_core}
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// A thread loop writes P, so the group cannot stay in flight into the next
// step (where the loop overwrites P): its wait is not deferrable.
// CHECK: nvvm.wgmma.wait.group.sync.aligned {vx.tensor_core} 0
func.func @probabilities_times_values(%s: memref<64x64xf32>,
                                      %v: memref<64x64xbf16>,
                                      %o: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %s_tile = vx.scratch smem : memref<64x64xf32>
    %p_tile = vx.scratch smem : memref<64x64xbf16>
    %v_tile = vx.scratch smem : memref<64x64xbf16>
    %acc = vx.scratch : memref<64x64xf32>
    %ts = vx.transfer_async %s to %s_tile : memref<64x64xf32> to memref<64x64xf32>
    %tv = vx.transfer_async %v to %v_tile : memref<64x64xbf16> to memref<64x64xbf16>
    vx.await %ts
    vx.await %tv
    linalg.map ins(%s_tile : memref<64x64xf32>)
        outs(%p_tile : memref<64x64xbf16>)
      (%e: f32, %unused: bf16) {
        %p = arith.truncf %e : f32 to bf16
        linalg.yield %p : bf16
      }
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-remark @+1 {{computed on the tensor cores: wgmma.mma_async.m64n64k16}}
    linalg.matmul ins(%p_tile, %v_tile : memref<64x64xbf16>, memref<64x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
    memref.copy %acc, %o : memref<64x64xf32> to memref<64x64xf32>
  }
  return
}

// -----

// Rows of 64 bytes (32 bf16): the phase is (r / 2) mod 4.
// CHECK-LABEL: func.func @narrow_rows
// CHECK: %[[P:.*]] = vx.scratch smem {vx.swizzle = 64 : i64} : memref<64x32xbf16>
// CHECK: scf.parallel (%[[R:.*]], %[[C:.*]]) =
// CHECK: %[[LINE:.*]] = arith.divui %[[R]], %c2
// CHECK: arith.remui %[[LINE]], %c4
// CHECK: memref.store %{{.*}}, %[[P]][%[[R]], %[[C]]]
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.wgmma.mma_async
func.func @narrow_rows(%x: memref<64x32xf32>, %b: memref<32x64xbf16>,
                       %o: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %x_tile = vx.scratch smem : memref<64x32xf32>
    %p_tile = vx.scratch smem : memref<64x32xbf16>
    %b_tile = vx.scratch smem : memref<32x64xbf16>
    %acc = vx.scratch : memref<64x64xf32>
    %tx = vx.transfer_async %x to %x_tile : memref<64x32xf32> to memref<64x32xf32>
    %tb = vx.transfer_async %b to %b_tile : memref<32x64xbf16> to memref<32x64xbf16>
    vx.await %tx
    vx.await %tb
    linalg.map ins(%x_tile : memref<64x32xf32>)
        outs(%p_tile : memref<64x32xbf16>)
      (%e: f32, %unused: bf16) {
        %p = arith.truncf %e : f32 to bf16
        linalg.yield %p : bf16
      }
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-remark @+1 {{computed on the tensor cores}}
    linalg.matmul ins(%p_tile, %b_tile : memref<64x32xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
    memref.copy %acc, %o : memref<64x64xf32> to memref<64x64xf32>
  }
  return
}

// -----

// A transposition is elementwise too: its input is read at the swizzled
// column of the output's position, transposed.
// CHECK-LABEL: func.func @transposed_writer
// CHECK: %[[X:.*]] = vx.scratch smem : memref<64x64xbf16>
// CHECK: %[[P:.*]] = vx.scratch smem {vx.swizzle = 128 : i64} : memref<64x64xbf16>
// CHECK: scf.parallel (%[[R:.*]], %[[C:.*]]) =
// CHECK: %[[COLUMN:.*]] = arith.addi
// CHECK-NEXT: %[[E:.*]] = memref.load %[[X]][%[[COLUMN]], %[[R]]]
// CHECK-NEXT: memref.store %[[E]], %[[P]][%[[R]], %[[C]]]
// CHECK: nvvm.wgmma.mma_async
func.func @transposed_writer(%x: memref<64x64xbf16>, %b: memref<64x64xbf16>,
                             %o: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %x_tile = vx.scratch smem : memref<64x64xbf16>
    %p_tile = vx.scratch smem : memref<64x64xbf16>
    %b_tile = vx.scratch smem : memref<64x64xbf16>
    %acc = vx.scratch : memref<64x64xf32>
    %tx = vx.transfer_async %x to %x_tile : memref<64x64xbf16> to memref<64x64xbf16>
    %tb = vx.transfer_async %b to %b_tile : memref<64x64xbf16> to memref<64x64xbf16>
    vx.await %tx
    vx.await %tb
    linalg.transpose ins(%x_tile : memref<64x64xbf16>)
        outs(%p_tile : memref<64x64xbf16>) permutation = [1, 0]
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-remark @+1 {{computed on the tensor cores}}
    linalg.matmul ins(%p_tile, %b_tile : memref<64x64xbf16>, memref<64x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
    memref.copy %acc, %o : memref<64x64xf32> to memref<64x64xf32>
  }
  return
}

// -----

// A tile op that also reads the tile (an update in place) would read the
// swizzled layout as if it were not: FMA code, with the reason.
// CHECK-LABEL: func.func @updated_in_place
// CHECK-NOT: vx.swizzle
// CHECK-NOT: nvvm.wgmma.mma_async
func.func @updated_in_place(%x: memref<64x64xf32>, %b: memref<64x64xbf16>,
                            %o: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : bf16
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %x_tile = vx.scratch smem : memref<64x64xf32>
    %p_tile = vx.scratch smem : memref<64x64xbf16>
    %b_tile = vx.scratch smem : memref<64x64xbf16>
    %acc = vx.scratch : memref<64x64xf32>
    %tx = vx.transfer_async %x to %x_tile : memref<64x64xf32> to memref<64x64xf32>
    %tb = vx.transfer_async %b to %b_tile : memref<64x64xbf16> to memref<64x64xbf16>
    vx.await %tx
    vx.await %tb
    linalg.map ins(%x_tile : memref<64x64xf32>)
        outs(%p_tile : memref<64x64xbf16>)
      (%e: f32, %unused: bf16) {
        %p = arith.truncf %e : f32 to bf16
        linalg.yield %p : bf16
      }
    linalg.map ins(%p_tile : memref<64x64xbf16>)
        outs(%p_tile : memref<64x64xbf16>)
      (%e: bf16, %unused: bf16) {
        %p = arith.mulf %e, %two : bf16
        linalg.yield %p : bf16
      }
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but the A tile is also accessed by 'linalg.map' (only TMA transfers and elementwise tile ops write, and only matmuls read, the swizzled layout that wgmma reads): computed with FMA code}}
    linalg.matmul ins(%p_tile, %b_tile : memref<64x64xbf16>, memref<64x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
    memref.copy %acc, %o : memref<64x64xf32> to memref<64x64xf32>
  }
  return
}

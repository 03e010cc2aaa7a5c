// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-distribute-tile-ops="chip=sm_90a" | FileCheck %s
// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics="chip=sm_90a" --vx-distribute-tile-ops="chip=sm_90a" -o /dev/null

// Matmuls that the tensor cores would suit but sm_90a's wgmma.mma_async
// cannot tile stay exact FMA code (the element distribution of
// vx-distribute-tile-ops), with a remark naming the reason; no operand tile
// gets a swizzle. The checker proves them as FMA code.
// CHECK-NOT: nvvm.wgmma
// CHECK-NOT: vx.swizzle

func.func @m_not_64(%a: memref<32x96xbf16>, %b: memref<96x64xbf16>) {
  vx.spawn on tensor_core grid [1, 3] semantics [parallel, arbitrary] threads 128 {
    %as = vx.scratch smem : memref<32x32xbf16>
    %bs = vx.scratch smem : memref<32x64xbf16>
    %acc = vx.scratch : memref<32x64xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but M (32) is not a multiple of 64 (wgmma.mma_async's m64): computed with FMA code}}
    linalg.matmul ins(%as, %bs : memref<32x32xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<32x64xf32>)
  }
  return
}

// -----

func.func @k_not_16(%a: memref<64x8xf16>, %b: memref<8x64xf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<64x8xf16>
    %bs = vx.scratch smem : memref<8x64xf16>
    %acc = vx.scratch : memref<64x64xf32>
    // expected-remark @+1 {{the f16 operands would suit the tensor cores, but K (8) is not a multiple of 16: computed with FMA code}}
    linalg.matmul ins(%as, %bs : memref<64x8xf16>, memref<8x64xf16>)
                  outs(%acc : memref<64x64xf32>)
  }
  return
}

// -----

func.func @n_not_8(%a: memref<64x32xbf16>, %b: memref<32x12xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<64x32xbf16>
    %bs = vx.scratch smem : memref<32x12xbf16>
    %acc = vx.scratch : memref<64x12xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but N (12) is not a multiple of 8 up to 256 (wgmma.mma_async's n): computed with FMA code}}
    linalg.matmul ins(%as, %bs : memref<64x32xbf16>, memref<32x12xbf16>)
                  outs(%acc : memref<64x12xf32>)
  }
  return
}

// -----

func.func @partial_warpgroup(%a: memref<64x32xbf16>, %b: memref<32x64xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 96 {
    %as = vx.scratch smem : memref<64x32xbf16>
    %bs = vx.scratch smem : memref<32x64xbf16>
    %ta = vx.transfer_async %a to %as : memref<64x32xbf16> to memref<64x32xbf16>
    %tb = vx.transfer_async %b to %bs : memref<32x64xbf16> to memref<32x64xbf16>
    vx.await %ta
    vx.await %tb
    %acc = vx.scratch : memref<64x64xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but the CTA has 96 threads, not whole warpgroups of 128: computed with FMA code}}
    linalg.matmul ins(%as, %bs : memref<64x32xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
  }
  return
}

// -----

// A and B straight from global memory: wgmma reads shared memory.
func.func @operand_in_global_memory(%a: memref<64x32xbf16>, %b: memref<32x64xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %acc = vx.scratch : memref<64x64xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but the A tile is not an smem scratch tile (wgmma reads whole tiles in shared memory): computed with FMA code}}
    linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
  }
  return
}

// -----

// B's rows of 128 bf16 are two 128-byte swizzle rows.
func.func @wide_b_rows(%a: memref<64x32xbf16>, %b: memref<32x128xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<64x32xbf16>
    %bs = vx.scratch smem : memref<32x128xbf16>
    %ta = vx.transfer_async %a to %as : memref<64x32xbf16> to memref<64x32xbf16>
    %tb = vx.transfer_async %b to %bs : memref<32x128xbf16> to memref<32x128xbf16>
    vx.await %ta
    vx.await %tb
    %acc = vx.scratch : memref<64x128xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but the rows of the B tile are 256 bytes, and the swizzled layouts that TMA writes and wgmma reads take rows of 32, 64 or 128 bytes: computed with FMA code}}
    linalg.matmul ins(%as, %bs : memref<64x32xbf16>, memref<32x128xbf16>)
                  outs(%acc : memref<64x128xf32>)
  }
  return
}

// -----

// A thread loop writes the A tile: only TMA writes the swizzled layout.
func.func @operand_written_by_thread_loop(%b: memref<32x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : bf16
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<64x32xbf16>
    %bs = vx.scratch smem : memref<32x64xbf16>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c32) step (%c1, %c1) {
      memref.store %one, %as[%i, %j] : memref<64x32xbf16>
    }
    %tb = vx.transfer_async %b to %bs : memref<32x64xbf16> to memref<32x64xbf16>
    vx.await %tb
    %acc = vx.scratch : memref<64x64xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but the A tile is also accessed by 'memref.store' (only TMA transfers write, and only matmuls read, the swizzled layout that wgmma reads): computed with FMA code}}
    linalg.matmul ins(%as, %bs : memref<64x32xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
  }
  return
}

// -----

// A transposing map on A (M-major A).
func.func @transposed_a(%a: memref<32x64xbf16>, %b: memref<32x64xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<32x64xbf16>
    %bs = vx.scratch smem : memref<32x64xbf16>
    %ta = vx.transfer_async %a to %as : memref<32x64xbf16> to memref<32x64xbf16>
    %tb = vx.transfer_async %b to %bs : memref<32x64xbf16> to memref<32x64xbf16>
    vx.await %ta
    vx.await %tb
    %acc = vx.scratch : memref<64x64xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but A is read transposed (M-major), which the wgmma lowering does not build: computed with FMA code}}
    linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>]
                  ins(%as, %bs : memref<32x64xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
  }
  return
}

// -----

// A transfer whose source is not a TMA tile (a column stride of 2).
func.func @strided_source(%a: memref<64x64xbf16>, %b: memref<32x64xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<64x32xbf16>
    %bs = vx.scratch smem : memref<32x64xbf16>
    %a_src = memref.subview %a[0, 0] [64, 32] [1, 2]
        : memref<64x64xbf16> to memref<64x32xbf16, strided<[64, 2]>>
    %ta = vx.transfer_async %a_src to %as : memref<64x32xbf16, strided<[64, 2]>> to memref<64x32xbf16>
    %tb = vx.transfer_async %b to %bs : memref<32x64xbf16> to memref<32x64xbf16>
    vx.await %ta
    vx.await %tb
    %acc = vx.scratch : memref<64x64xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but the transfer into the A tile cannot be a TMA copy, which writes the swizzled layout that wgmma reads: TMA copies boxes of consecutive elements, and a memref.subview on the way to the tensor has a stride other than 1: computed with FMA code}}
    linalg.matmul ins(%as, %bs : memref<64x32xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
  }
  return
}

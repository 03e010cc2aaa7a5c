// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-distribute-tile-ops="chip=sm_80" | FileCheck %s
// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics="chip=sm_80" --vx-distribute-tile-ops="chip=sm_80" -o /dev/null
// RUN: vx-opt %s -split-input-file --vx-distribute-tile-ops="chip=sm_75" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM75
// RUN: not vx-opt %s --vx-distribute-tile-ops="chip=sm_1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-CHIP

// Matmuls that the tensor cores would suit but mma.sync cannot tile stay
// exact FMA code (the element distribution of vx-distribute-tile-ops), with
// a remark naming the reason. The checker proves them as FMA code: run
// before the distribution, it adds no diagnostic to the expected remarks.
// SM75-COUNT-6: remark: {{.*}}'sm_75' has no mma.sync.m16n8k16 (sm_80 and newer): computed with FMA code
// BAD-CHIP: error: vx-distribute-tile-ops: {{.*}}sm_1
// CHECK-NOT: nvvm.mma.sync

func.func @k_not_16(%a: memref<64x8xbf16>, %b: memref<8x64xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %acc = vx.scratch : memref<64x64xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but K (8) is not a multiple of 16: computed with FMA code}}
    linalg.matmul ins(%a, %b : memref<64x8xbf16>, memref<8x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
  }
  return
}

// -----

func.func @m_not_16(%a: memref<8x16xf16>, %b: memref<16x64xf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %acc = vx.scratch : memref<8x64xf32>
    // expected-remark @+1 {{the f16 operands would suit the tensor cores, but M (8) is not a multiple of 16: computed with FMA code}}
    linalg.matmul ins(%a, %b : memref<8x16xf16>, memref<16x64xf16>)
                  outs(%acc : memref<8x64xf32>)
  }
  return
}

// -----

func.func @f32_without_tf32(%a: memref<16x16xf32>, %b: memref<16x16xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %acc = vx.scratch : memref<16x16xf32>
    // expected-remark @+1 {{the f32 operands would suit the tensor cores, but f32 operands use the tensor cores only with tf32=true: computed with FMA code}}
    linalg.matmul ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>)
                  outs(%acc : memref<16x16xf32>)
  }
  return
}

// -----

func.func @f16_accumulator(%a: memref<16x16xf16>, %b: memref<16x16xf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %acc = vx.scratch : memref<16x16xf16>
    // expected-remark @+1 {{the f16 operands would suit the tensor cores, but the tensor-core lowering takes an f32 accumulator only: computed with FMA code}}
    linalg.matmul ins(%a, %b : memref<16x16xf16>, memref<16x16xf16>)
                  outs(%acc : memref<16x16xf16>)
  }
  return
}

// -----

func.func @partial_warp(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 48 {
    %acc = vx.scratch : memref<16x16xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but the CTA has 48 threads, not whole warps: computed with FMA code}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%acc : memref<16x16xf32>)
  }
  return
}

// -----

// A private A operand (P x V in attention) is read from the registers of
// the fragment layout (distribute-tile-ops-fragments.mlir), but not
// transposed: the A fragment is the C fragment of P as it is.
func.func @private_operand_transposed(%b: memref<16x16xbf16>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %p = vx.scratch : memref<16x16xbf16>
    %acc = vx.scratch : memref<16x16xf32>
    // expected-remark @+1 {{the bf16 operands would suit the tensor cores, but a matmul of its group reads a private A transposed: computed with FMA code}}
    linalg.matmul
        indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>,
                         affine_map<(d0, d1, d2) -> (d2, d1)>,
                         affine_map<(d0, d1, d2) -> (d0, d1)>]
        ins(%p, %b : memref<16x16xbf16>, memref<16x16xbf16>)
        outs(%acc : memref<16x16xf32>)
  }
  return
}

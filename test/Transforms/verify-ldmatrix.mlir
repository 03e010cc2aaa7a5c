// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// nvgpu.ldmatrix, which vx-distribute-tile-ops emits for mma.sync operands
// (and the checker sees on its copy of the distributed spawn): each lane
// gives the address of one row of an 8x8 matrix of 16-bit elements, so the
// checker takes it for a read of the 8 elements from its indices along the
// row, as a vector.load of 8 would be.

// Iteration l writes element (l + 1, 7), which the row that iteration l + 1
// reads (l + 1, 0..7) holds.
func.func @ldmatrix_row_read_written(%v: bf16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c31 = arith.constant 31 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] {
    %s = vx.scratch smem : memref<32x16xbf16>
    %w = memref.memory_space_cast %s : memref<32x16xbf16> to memref<32x16xbf16, #gpu.address_space<workgroup>>
    // expected-note @+1 {{the iterations of a thread loop must be independent}}
    scf.parallel (%l) = (%c0) to (%c31) step (%c1) {
      // expected-error-re @+1 {{iterations ({{[0-9]+}}) and ({{[0-9]+}}) of a thread loop (instance (0)) read and write the same element}}
      %m = nvgpu.ldmatrix %w[%l, %c0] {numTiles = 1 : i32, transpose = false} : memref<32x16xbf16, #gpu.address_space<workgroup>> -> vector<1x2xbf16>
      %n = arith.addi %l, %c1 : index
      // expected-note @+1 {{the other access}}
      memref.store %v, %s[%n, %c7] : memref<32x16xbf16>
    }
  }
  return
}

// -----

// The near miss: element (l + 1, 8) is past the row of 8 that ldmatrix
// reads, so the iterations are independent.
func.func @ldmatrix_row_beside_a_write(%v: bf16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c31 = arith.constant 31 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] {
    %s = vx.scratch smem : memref<32x16xbf16>
    %w = memref.memory_space_cast %s : memref<32x16xbf16> to memref<32x16xbf16, #gpu.address_space<workgroup>>
    scf.parallel (%l) = (%c0) to (%c31) step (%c1) {
      %m = nvgpu.ldmatrix %w[%l, %c0] {numTiles = 1 : i32, transpose = true} : memref<32x16xbf16, #gpu.address_space<workgroup>> -> vector<1x2xbf16>
      %n = arith.addi %l, %c1 : index
      memref.store %v, %s[%n, %c8] : memref<32x16xbf16>
    }
  }
  return
}

// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// Writes the model cannot place make the verdict unknown (a warning), never
// silence; vector accesses run on in memory past the end of a row.

// A store through a raw pointer has no memref operand.
func.func @store_through_pointer(%a: memref<8xf32>, %v: f32) {
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %base = memref.extract_aligned_pointer_as_index %a : memref<8xf32> -> index
    %address = arith.index_cast %base : index to i64
    %pointer = llvm.inttoptr %address : i64 to !llvm.ptr
    // expected-warning @+1 {{cannot prove that parallel instances write distinct elements: the addresses of 'llvm.store' are not modelled}}
    llvm.store %v, %pointer : f32, !llvm.ptr
    // expected-warning @+1 {{cannot prove that this read does not see another parallel instance's write: the addresses of 'llvm.store' are not modelled}}
    %x = memref.load %a[%i] : memref<8xf32>
  }
  return
}

// -----

// A vector store of 4 lanes from column 6 of an 8-wide row writes row
// i + 1's first two elements, which instance i + 1 also writes.
func.func @vector_past_row_end(%a: memref<5x8xf32>, %v: vector<4xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  // expected-note @+1 {{mark the dimensions}}
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-note @+1 {{the other write}}
    vector.store %v, %a[%i, %c6] : memref<5x8xf32>, vector<4xf32>
    // expected-error-re @+1 {{parallel instances ({{[0-3]}}) and ({{[0-3]}}) write the same element}}
    memref.store %s, %a[%i, %c0] : memref<5x8xf32>
  }
  return
}

// -----

// Near miss: the same vectors from column 2 stay in the row.
func.func @vector_in_row(%a: memref<4x8xf32>, %v: vector<4xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    vector.store %v, %a[%i, %c2] : memref<4x8xf32>, vector<4xf32>
    memref.store %s, %a[%i, %c0] : memref<4x8xf32>
  }
  return
}

// -----

// An op whose writes are not modelled: the whole buffer, unknown.
func.func @unmodelled_write(%a: memref<8xf32>, %v: f32) {
  vx.spawn on host grid [8] semantics [parallel] {
    // expected-warning @+1 {{cannot prove that parallel instances write distinct elements: the addresses of 'linalg.fill' are not modelled}}
    linalg.fill ins(%v : f32) outs(%a : memref<8xf32>)
  }
  return
}

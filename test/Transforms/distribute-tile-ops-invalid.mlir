// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-distribute-tile-ops
// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// Tile ops the CTA cannot compute (VX_SPEC 2.3): the pass and the checker,
// which checks the spawn the pass would produce, report them alike.

func.func @tile_op_on_tensors(%t: tensor<64xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 64 {
    %z = arith.constant 0.0 : f32
    // expected-error @+1 {{'linalg.fill' op in once-per-instance code of a device spawn works on tensors; tile ops take memrefs (scratch tiles or views of captured memory)}}
    %f = linalg.fill ins(%z : f32) outs(%t : tensor<64xf32>) -> tensor<64xf32>
  }
  return
}

// -----

func.func @not_a_structured_op(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    // expected-error @+1 {{'linalg.softmax' op in once-per-instance code of a device spawn is not a structured linalg op, so the CTA cannot compute it as a tile op; write it as linalg.generic or a thread loop}}
    linalg.softmax dimension(1) ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>)
  }
  return
}

// -----

func.func @unranked_copy(%a: memref<*xf32>, %b: memref<*xf32>) {
  %z = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    %t = vx.scratch : memref<64xf32>
    linalg.fill ins(%z : f32) outs(%t : memref<64xf32>)
    // expected-error @+1 {{'memref.copy' op of an unranked memref in once-per-instance code of a CTA body cannot be spread over the threads; cast it to a ranked memref}}
    memref.copy %a, %b : memref<*xf32> to memref<*xf32>
  }
  return
}

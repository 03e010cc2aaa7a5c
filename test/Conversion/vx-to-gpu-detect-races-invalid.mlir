// RUN: vx-opt %s --vx-instrument-races --convert-vx-to-gpu -verify-diagnostics -o /dev/null

// detect-races's thread-loop ids are per thread under the CTA mapping, so an
// instrumented spawn with thread loops is refused (docs/design.md).
func.func @instrumented_thread_loop(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'vx.spawn' op has thread loops, which detect-races does not check through via-gpu yet; run detect-races without via-gpu}}
  vx.spawn on tensor_core grid [8] semantics [parallel] threads 8 {
    %i = vx.grid_index 0
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %o = arith.muli %i, %c8 : index
      %e = arith.addi %o, %t : index
      memref.store %v, %a[%e] : memref<64xf32>
    }
  }
  return
}

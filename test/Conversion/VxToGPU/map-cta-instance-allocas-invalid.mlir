// RUN: vx-opt %s --vx-plan-launch --vx-map-cta -split-input-file -verify-diagnostics

// The mapping refuses an alloca outside thread loops that a thread loop
// accesses and that cannot be placed as scratch (vx-verify-semantics says
// the same, test/Transforms/verify-instance-allocas.mlir).
func.func @dynamic(%a: memref<2x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 32 {
    %p = vx.grid_index 0
    // expected-error @below {{'memref.alloca' op outside thread loops allocates memory of the whole instance, which a thread loop writes, so it is placed as scratch, which needs a static shape and no layout or memory space; got 'memref<?xf32>'}}
    %buf = memref.alloca(%n) : memref<?xf32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %a[%p, %i] : memref<2x?xf32>
      memref.store %v, %buf[%i] : memref<?xf32>
    }
  }
  return
}

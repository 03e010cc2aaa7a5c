// RUN: vx-opt %s --vx-instrument-races --convert-vx-to-gpu | FileCheck %s
// vx-map-cta is the step that names the thread.
// RUN: vx-opt %s --vx-instrument-races --vx-plan-launch --vx-map-cta | FileCheck %s --check-prefix=MAP

// Under the CTA mapping every thread starts the thread loop's execution,
// naming itself, so that the CTA's threads share one execution id
// (docs/design.md); the loop's stores are per thread.
// MAP-LABEL: func @instrumented_thread_loop
// MAP: vx.spawn
// MAP-NEXT: %[[TID:.*]] = gpu.thread_id x
// MAP-NOT: scf.if
// MAP: vx.race_thread_loop %{{.*}} instance %{{.*}} thread %[[TID]] lower
// CHECK-LABEL: func @instrumented_thread_loop
// CHECK: gpu.launch
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT: scf.if
// CHECK: vx.race_thread_loop %{{.*}} instance %{{.*}} thread %[[TID]] lower
// CHECK: memref.store
func.func @instrumented_thread_loop(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v = arith.constant 1.0 : f32
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

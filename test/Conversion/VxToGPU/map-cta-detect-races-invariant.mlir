// RUN: vx-opt %s --vx-instrument-races --vx-plan-launch --vx-map-cta 2>/dev/null | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true detect-races=true" -o /dev/null

// The race detector's records (vx.race_access, vx.race_thread_loop) touch
// its own state, not the program's memory: in instrumented code a load of
// memory the spawn never writes still has one value for every instance and
// iteration, so the mapping proves what it proves without the detector.
// Here the one-iteration thread loop (thread 0) writes the private scratch
// at a slot whose cases hang on `table[4]`: read as every iteration's own
// unknown (when the records counted as writes of any memory) they exceeded
// the ownership proof's budget ("too many cases"), an error that only
// `detect-races` gave. A once-per-instance access is still recorded once,
// by thread 0, while every thread writes its own copy of the scratch.
// CHECK-LABEL: func.func @table_slot
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[SCRATCH:.*]] = vx.scratch private : memref<8xf32>
// CHECK: scf.for
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: vx.race_access {{.*}} {kind = 1 : i64, site = 0 : i64}
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}] : memref<8xf32>
// CHECK: vx.race_thread_loop
func.func @table_slot(%table: memref<8xindex>, %res: memref<16xf32>,
                      %value: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  vx.spawn on tensor_core grid [2, 1] semantics [parallel, arbitrary] threads 2 {
    %g0 = vx.grid_index 0
    %g1 = vx.grid_index 1
    %p = memref.alloca() : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      memref.store %value, %p[%i] : memref<8xf32>
    }
    scf.parallel (%t) = (%c0) to (%c1) step (%c1) {
      %key = memref.load %table[%c4] : memref<8xindex>
      %hit = arith.cmpi eq, %key, %g0 : index
      %a = arith.select %hit, %g1, %c64 : index
      %same = arith.cmpi eq, %a, %t : index
      %quarter = arith.divui %t, %c4 : index
      %b = arith.select %same, %t, %quarter : index
      %again = arith.cmpi eq, %b, %t : index
      %c = arith.select %again, %t, %g1 : index
      %slot = arith.remui %c, %c8 : index
      memref.store %value, %p[%slot] : memref<8xf32>
    }
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      %v = memref.load %p[%t] : memref<8xf32>
      %base = arith.muli %g0, %c8 : index
      %e = arith.addi %base, %t : index
      memref.store %v, %res[%e] : memref<16xf32>
    }
  }
  return
}

// vx-verify-semantics caches the spawn analyses of each function and
// preserves them (it only diagnoses); a pass that changes the IR drops them.
// RUN: vx-opt %s --vx-verify-semantics --test-vx-spawn-analysis-cache \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRESERVED
// RUN: vx-opt %s --vx-verify-semantics --vx-instrument-races \
// RUN:   --test-vx-spawn-analysis-cache -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DROPPED
// RUN: vx-opt %s --test-vx-spawn-analysis-cache -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DROPPED

// PRESERVED: remark: spawn analyses cached
// PRESERVED-NOT: remark: spawn analyses
// DROPPED: remark: spawn analyses not cached
// DROPPED-NOT: remark: spawn analyses
func.func @scale(%a: memref<64xf32>, %s: f32) {
  vx.spawn on host grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %s : f32
    memref.store %y, %a[%i] : memref<64xf32>
  }
  return
}

// No spawn: nothing to cache, no remark.
func.func @host(%a: memref<64xf32>) {
  return
}

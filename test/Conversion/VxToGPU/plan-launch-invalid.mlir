// RUN: vx-opt %s --vx-plan-launch="chip=sm_90" -split-input-file -verify-diagnostics

// vx-plan-launch refuses what cannot run on the device, before any plan.
func.func @alloc() {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-error @below {{'memref.alloc' op cannot run on the device: allocate per-instance memory with 'vx.scratch'}}
    %m = memref.alloc() : memref<4xf32>
  }
  return
}

// -----

func.func @blackwell() {
  // expected-error @below {{'vx.spawn' op on 'tensor_core5' needs a Blackwell chip (sm_100 or newer), got 'sm_90'}}
  vx.spawn on tensor_core5 grid [4] semantics [parallel] {
  }
  return
}

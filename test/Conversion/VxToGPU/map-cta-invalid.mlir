// RUN: vx-opt %s --vx-map-cta="chip=sm_90" -split-input-file -verify-diagnostics

// vx-map-cta works on planned spawns only.
func.func @unplanned() {
  // expected-error @below {{'vx.spawn' op has no launch plan: run vx-plan-launch first}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
  }
  return
}

// -----

// The CTA's shared memory is checked against the chip's, with the plan's
// instances per CTA.
func.func @too_big() {
  // expected-error @below {{'vx.spawn' op needs 262144 bytes of shared memory per CTA (4 instances per CTA x 65536 bytes of smem scratch per instance), more than the 232320 bytes of dynamic shared memory that 'sm_90' gives a CTA}}
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    // expected-note @below {{smem scratch of 65536 bytes per instance}}
    %s = vx.scratch smem : memref<16384xf32>
  } {vx.launch_plan = #vx.launch_plan<kernel = "too_big_kernel", threads = 4, cooperative = false>}
  return
}

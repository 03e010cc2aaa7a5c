// RUN: vx-opt %s --vx-pipeline-transfers -split-input-file -verify-diagnostics

// vx-pipeline-transfers works on bodies mapped onto their CTA.
func.func @unmapped() {
  // expected-error @below {{'vx.spawn' op is not mapped onto its CTA yet: run vx-plan-launch and vx-map-cta first}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
  } {vx.launch_plan = #vx.launch_plan<kernel = "k", threads = 4, cooperative = false>}
  return
}

// -----

func.func @unplanned() {
  // expected-error @below {{'vx.spawn' op is not mapped onto its CTA yet: run vx-plan-launch and vx-map-cta first}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
  }
  return
}

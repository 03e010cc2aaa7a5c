// RUN: vx-opt %s -split-input-file -verify-diagnostics

// The GPU mapping's discardable attributes are checked where they appear.
func.func @host_plan() {
  // expected-error @below {{'vx.launch_plan' must be a #vx.launch_plan on a device vx.spawn}}
  vx.spawn on host grid [4] semantics [parallel] {
  } {vx.launch_plan = #vx.launch_plan<kernel = "k", threads = 1, cooperative = false>}
  return
}

// -----

func.func @not_a_plan() {
  // expected-error @below {{'vx.launch_plan' must be a #vx.launch_plan on a device vx.spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
  } {vx.launch_plan = 1 : i64}
  return
}

// -----

func.func @too_many_threads() {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
  // expected-error @below {{launch plan threads must be between 1 and 1024, got 2048}}
  } {vx.launch_plan = #vx.launch_plan<kernel = "k", threads = 2048, cooperative = false>}
  return
}

// -----

func.func @no_name() {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
  // expected-error @below {{launch plan needs a kernel name}}
  } {vx.launch_plan = #vx.launch_plan<kernel = "", threads = 4, cooperative = false>}
  return
}

// -----

func.func @negative_stages() {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
  // expected-error @below {{launch plan stages must be at least 0 (not yet decided), got -1}}
  } {vx.launch_plan = #vx.launch_plan<kernel = "k", threads = 4, cooperative = false, stages = -1>}
  return
}

// -----

func.func @copy_threads(%a: memref<4xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %s = vx.scratch smem : memref<4xf32>
    // expected-error @below {{'vx.copy_threads' must be an integer between 1 and 1024 on a vx.transfer_async}}
    %t = vx.transfer_async %a to %s {vx.copy_threads = 0 : i64} : memref<4xf32> to memref<4xf32>
    vx.await %t
  }
  return
}

// -----

func.func @copy_threads_elsewhere(%a: memref<4xf32>) {
  // expected-error @below {{'vx.copy_threads' must be an integer between 1 and 1024 on a vx.transfer_async}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
  } {vx.copy_threads = 4 : i64}
  return
}

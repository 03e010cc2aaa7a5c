// RUN: vx-opt %s --vx-plan-launch -split-input-file | FileCheck %s
// RUN: vx-opt %s --vx-plan-launch="threads-per-block=128" -split-input-file | FileCheck %s --check-prefix=TPB

// vx-plan-launch records each device spawn's plan and leaves its body as
// it is: the default CTA of 256 threads, each running an instance; a body
// with thread loops runs one instance on the whole CTA (cooperative); a
// `threads` clause wins over the option; a body without thread loops or
// parallel dimensions runs on one thread. Host spawns get no plan. The
// kernels are named after the function in program order, past the
// module's symbols.
// CHECK-LABEL: func.func @plans
// CHECK: vx.spawn on tensor_core grid [%{{.*}}, 4] semantics [parallel, arbitrary] {
// CHECK-NEXT: vx.grid_index 0
// CHECK: } {vx.launch_plan = #vx.launch_plan<kernel = "plans_kernel_0", threads = 256, cooperative = false>}
// CHECK: scf.parallel
// CHECK: } {vx.launch_plan = #vx.launch_plan<kernel = "plans_kernel_1", threads = 64, cooperative = true>}
// CHECK: } {vx.launch_plan = #vx.launch_plan<kernel = "plans_kernel_2", threads = 1, cooperative = false>}
// CHECK: vx.spawn on host
// CHECK-NOT: vx.launch_plan
// CHECK: return
// TPB-LABEL: func.func @plans
// TPB: {vx.launch_plan = #vx.launch_plan<kernel = "plans_kernel_0", threads = 128, cooperative = false>}
// TPB: {vx.launch_plan = #vx.launch_plan<kernel = "plans_kernel_1", threads = 64, cooperative = true>}
// TPB: {vx.launch_plan = #vx.launch_plan<kernel = "plans_kernel_2", threads = 1, cooperative = false>}
func.func private @plans_kernel()
func.func @plans(%a: memref<1024xf32>, %n: index) {
  vx.spawn on tensor_core grid [%n, 4] semantics [parallel, arbitrary] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<1024xf32>
    memref.store %x, %a[%i] : memref<1024xf32>
  }
  vx.spawn on tensor_core grid [8] semantics [parallel] threads 64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
      %x = memref.load %a[%t] : memref<1024xf32>
      memref.store %x, %a[%t] : memref<1024xf32>
    }
  }
  vx.spawn on tensor_core grid [4] semantics [arbitrary] {
    %k = vx.grid_index 0
    %x = memref.load %a[%k] : memref<1024xf32>
    memref.store %x, %a[%k] : memref<1024xf32>
  }
  vx.spawn on host grid [4] semantics [parallel] {
  }
  return
}

// -----

// A spawn planned already keeps its plan, and its kernel's name is taken.
// CHECK-LABEL: func.func @replan
// CHECK: {vx.launch_plan = #vx.launch_plan<kernel = "replan_kernel", threads = 32, cooperative = false>}
// CHECK: {vx.launch_plan = #vx.launch_plan<kernel = "replan_kernel_0", threads = 256, cooperative = false>}
func.func @replan(%a: memref<64xf32>) {
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<64xf32>
    memref.store %x, %a[%i] : memref<64xf32>
  } {vx.launch_plan = #vx.launch_plan<kernel = "replan_kernel", threads = 32, cooperative = false>}
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<64xf32>
    memref.store %x, %a[%i] : memref<64xf32>
  }
  return
}

// -----

// With the default CTA size, instances that each need 64 KiB of smem
// scratch share a CTA three at a time on no chip in particular (232320
// bytes): the largest power of two that fits is 2. A size that the option
// sets is not fitted (vx-map-cta reports it).
// CHECK-LABEL: func.func @fit_default
// CHECK: {vx.launch_plan = #vx.launch_plan<kernel = "fit_default_kernel", threads = 2, cooperative = false>}
// TPB-LABEL: func.func @fit_default
// TPB: {vx.launch_plan = #vx.launch_plan<kernel = "fit_default_kernel", threads = 128, cooperative = false>}
func.func @fit_default() {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %s = vx.scratch smem : memref<16384xf32>
  }
  return
}

// vx-drop-compile-times: the compile times that gpu-module-to-binary records
// go, every other property stays, and an object left without properties
// prints none.
// RUN: vx-opt %s --vx-drop-compile-times | FileCheck %s

// CHECK: gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, properties = {O = 2 : i32}, assembly = "a">, #gpu.object<#nvvm.target<chip = "sm_80">, bin = "b">]
module attributes {gpu.container_module} {
  gpu.binary @kernels [
    #gpu.object<#nvvm.target<chip = "sm_90">, properties = {LLVMIRToISATimeInMs = 41 : i64, O = 2 : i32}, assembly = "a">,
    #gpu.object<#nvvm.target<chip = "sm_80">, properties = {ISAToBinaryTimeInMs = 7 : i64, LLVMIRToISATimeInMs = 3 : i64}, bin = "b">
  ]
}

// vx-gpu-module-to-binary serializes the modules on the context's threads
// and replaces each with its gpu.binary where the module was, in the order
// of the modules and of each module's targets, with output byte-identical to
// upstream's gpu-module-to-binary, with or without threads.
// REQUIRES: ptxas
// RUN: vx-opt %s --vx-gpu-module-to-binary="format=isa toolkit=%cuda_toolkit" --vx-drop-compile-times > %t.isa
// RUN: FileCheck %s --check-prefix=ISA < %t.isa
// RUN: vx-opt %s --gpu-module-to-binary="format=isa toolkit=%cuda_toolkit" --vx-drop-compile-times | diff %t.isa -
// RUN: vx-opt %s --mlir-disable-threading --vx-gpu-module-to-binary="format=isa toolkit=%cuda_toolkit" --vx-drop-compile-times | diff %t.isa -
// RUN: vx-opt %s --vx-gpu-module-to-binary="format=bin toolkit=%cuda_toolkit" --vx-drop-compile-times > %t.bin
// RUN: FileCheck %s --check-prefix=BIN < %t.bin
// RUN: vx-opt %s --gpu-module-to-binary="format=bin toolkit=%cuda_toolkit" --vx-drop-compile-times | diff %t.bin -
// RUN: vx-opt %s --mlir-disable-threading --vx-gpu-module-to-binary="format=bin toolkit=%cuda_toolkit" --vx-drop-compile-times | diff %t.bin -

// ISA:      gpu.binary @first  [#gpu.object<#nvvm.target<chip = "sm_90">, properties = {O = 2 : i32}, assembly = "{{.*}}.target sm_90{{.*}}.entry first({{.*}}1065353216
// ISA-NEXT: func.func private @between()
// ISA-NEXT: gpu.binary @second  [#gpu.object<#nvvm.target<chip = "sm_80">, properties = {O = 2 : i32}, assembly = "{{.*}}.target sm_80{{.*}}.entry second({{.*}}1073741824{{.*}}">, #gpu.object<#nvvm.target<chip = "sm_90">, properties = {O = 2 : i32}, assembly = "{{.*}}.target sm_90{{.*}}.entry second({{.*}}1073741824
// ISA-NEXT: gpu.binary @third  [#gpu.object<#nvvm.target<chip = "sm_90">, properties = {O = 2 : i32}, assembly = "{{.*}}.target sm_90{{.*}}.entry third({{.*}}1077936128
// ISA-NEXT: gpu.binary @fourth  [#gpu.object<#nvvm.target<chip = "sm_90">, properties = {O = 2 : i32}, assembly = "{{.*}}.target sm_90{{.*}}.entry fourth({{.*}}1082130432
// ISA-NEXT: {{^}}}

// BIN:      gpu.binary @first  [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "\7FELF{{.*}}.text.first
// BIN-NEXT: func.func private @between()
// BIN-NEXT: gpu.binary @second  [#gpu.object<#nvvm.target<chip = "sm_80">, bin = "\7FELF{{.*}}.text.second{{.*}}">, #gpu.object<#nvvm.target<chip = "sm_90">, bin = "\7FELF{{.*}}.text.second
// BIN-NEXT: gpu.binary @third  [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "\7FELF{{.*}}.text.third
// BIN-NEXT: gpu.binary @fourth  [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "\7FELF{{.*}}.text.fourth
// BIN-NEXT: {{^}}}

module attributes {gpu.container_module} {
  gpu.module @first [#nvvm.target<chip = "sm_90">] {
    llvm.func @first(%arg0: !llvm.ptr) attributes {nvvm.kernel} {
      %c = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %c, %arg0 : f32, !llvm.ptr
      llvm.return
    }
  }
  func.func private @between()
  gpu.module @second [#nvvm.target<chip = "sm_80">,
                      #nvvm.target<chip = "sm_90">] {
    llvm.func @second(%arg0: !llvm.ptr) attributes {nvvm.kernel} {
      %c = llvm.mlir.constant(2.0 : f32) : f32
      llvm.store %c, %arg0 : f32, !llvm.ptr
      llvm.return
    }
  }
  gpu.module @third [#nvvm.target<chip = "sm_90">] {
    llvm.func @third(%arg0: !llvm.ptr) attributes {nvvm.kernel} {
      %c = llvm.mlir.constant(3.0 : f32) : f32
      llvm.store %c, %arg0 : f32, !llvm.ptr
      llvm.return
    }
  }
  gpu.module @fourth [#nvvm.target<chip = "sm_90">] {
    llvm.func @fourth(%arg0: !llvm.ptr) attributes {nvvm.kernel} {
      %c = llvm.mlir.constant(4.0 : f32) : f32
      llvm.store %c, %arg0 : f32, !llvm.ptr
      llvm.return
    }
  }
}

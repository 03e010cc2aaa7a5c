// vx-gpu-module-to-binary's errors are upstream's, for every module that
// fails (upstream stops at the first), with threads or without, in the order
// of the modules whichever thread is first (the ORDER checks).
// RUN: vx-opt %s --split-input-file --verify-diagnostics --vx-gpu-module-to-binary="format=isa"
// RUN: vx-opt %s --split-input-file --verify-diagnostics --mlir-disable-threading --vx-gpu-module-to-binary="format=isa"
// RUN: not vx-opt %s --split-input-file --vx-gpu-module-to-binary="format=isa" 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not vx-opt %s --split-input-file --vx-gpu-module-to-binary="format=ptx" 2>&1 | FileCheck %s --check-prefix=FORMAT

// FORMAT: error: Invalid format specified.

module attributes {gpu.container_module} {
  // ORDER: :[[# @LINE + 2]]:3: error: the module has no target attributes
  // expected-error @below {{the module has no target attributes}}
  gpu.module @untargeted {
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @ok [#nvvm.target<chip = "sm_90">] {
  }
  // ORDER: :[[# @LINE + 7]]:5: error: cannot be converted to LLVM IR
  // ORDER: :[[# @LINE + 4]]:3: error: Failed creating the llvm::Module.
  // ORDER: :[[# @LINE + 3]]:3: error: An error happened while serializing
  // expected-error @below {{Failed creating the llvm::Module.}}
  // expected-error @below {{An error happened while serializing the module.}}
  gpu.module @bad [#nvvm.target<chip = "sm_90">] {
    // expected-error @below {{cannot be converted to LLVM IR}}
    func.func @not_llvm() {
      return
    }
  }
  // ORDER: :[[# @LINE + 2]]:3: error: the module has no target attributes
  // expected-error @below {{the module has no target attributes}}
  gpu.module @untargeted {
  }
}

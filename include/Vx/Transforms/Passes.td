//===- Passes.td - Vx transforms and analyses --------------*- tablegen -*-===//

#ifndef VX_TRANSFORMS_PASSES
#define VX_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def VxVerifySemantics : Pass<"vx-verify-semantics"> {
  let summary = "Prove parallel dimensions race-free; check tokens";
  let description = [{
    Checks the dimension-semantics contract of every `vx.spawn` statically.
    Errors only where a violation is proven, warnings where race freedom
    cannot be proven, never an error on a correct kernel:

    1. A write to captured memory whose address does not depend on a
       parallel dimension of extent > 1: error naming the dimension.
    2. Two parallel instances that write one element (the address is not
       injective in the parallel dimensions): error with both instances.
       Addresses are affine forms of grid indices, loop induction variables
       and captured values, decided exactly with the Presburger library;
       `i * %n + j` with `j` ranging over `[0, %n)` counts as injective.
       Other symbolic strides, loaded indices and unmodelled ops: warning.
    3. A read of captured memory that another parallel instance writes:
       error.
    4. Every token awaited exactly once on every path (scf.if, scf.for with
       tokens carried in iter_args); the destination not accessed and the
       source not written between a transfer and its await.
    5. Remarks: an arbitrary dimension without order dependence could be
       parallel; a device spawn without parallel dimensions runs on one CTA.

    Scratch writes and atomic read-modify-writes are not races. Every
    pipeline starts with this pass.

    Example: `vx-opt --vx-verify-semantics input.mlir`.
  }];
  let options = [
    Option<"allowRaces", "allow-races", "bool", "false",
           "Report proven races as warnings, so that a mislabelled kernel "
           "can be run (the dynamic check with reverse-parallel)">,
  ];
}

def VxExtractDeviceModule : Pass<"vx-extract-device-module", "ModuleOp"> {
  let summary = "Replace the module by the contents of one gpu.module";
  let description = [{
    Keeps only the device code of one `gpu.module` (by `name`, or the only
    one), as a top-level module with the NVPTX target triple, so that the
    NVVM stage can go through `mlir-translate --mlir-to-llvmir` and `llc`.

    Example: `vx-opt --vx-to-nvvm --vx-extract-device-module |
    mlir-translate --mlir-to-llvmir | llc -mcpu=sm_90 -mattr=+ptx80`.
  }];
  let options = [
    Option<"moduleName", "name", "std::string", "\"\"",
           "The gpu.module to keep (default: the only one)">
  ];
}

def VxLoopAllocationScopes : Pass<"vx-loop-allocation-scopes"> {
  let summary = "Free a loop iteration's stack allocations when it ends";
  let description = [{
    `scf.for`, `scf.parallel`, `scf.forall` and `scf.while` are allocation
    scopes: a `memref.alloca` in a loop body lives until its iteration ends.
    `convert-scf-to-cf` does not implement this, so run sequentially every
    iteration's allocations stay on the stack until the function returns (a
    CTA-per-row softmax keeps a 16 KiB row per parallel point, and overflows
    the stack after a few hundred rows). This pass brackets each loop region
    that allocates, outside nested scopes, with `llvm.intr.stacksave` and
    `llvm.intr.stackrestore`, as the lowering of `memref.alloca_scope` does.
    The CPU half of `vx-to-llvm` runs it right before `convert-scf-to-cf`.

    Example: `vx-opt --vx-loop-allocation-scopes --convert-scf-to-cf`.
  }];
  let dependentDialects = ["LLVM::LLVMDialect"];
}

#endif // VX_TRANSFORMS_PASSES

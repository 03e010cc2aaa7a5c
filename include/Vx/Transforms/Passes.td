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

def VxInstrumentRaces : Pass<"vx-instrument-races", "ModuleOp"> {
  let summary = "Record the accesses of spawn bodies for the dynamic race "
                "detector";
  let description = [{
    The instrumentation of `detect-races=true` (VX_SPEC section 3). Before
    each spawn, host code registers the execution with the detector's
    runtime (`libvx_race_runtime`): the grid and its semantics, the buffers
    the body touches (captured buffers by address, scratch and body
    allocations by number) and a description of every access. In the body,
    every load, store, vector access, copy, transfer and atomic update of a
    memref gets a `vx.race_access` with the instance's parallel point and
    linear id, and each thread loop a `vx.race_thread_loop` whose execution
    and linear iteration the accesses inside it carry. Scalar accesses also
    check their indices against the memref's sizes.

    Not recorded: accesses inside called functions, ops whose addresses the
    model does not know (linalg ops, `vector.transfer_*`, gathers and
    scatters, raw pointers). `vx-lower-race-checks` turns the `vx.race_*`
    ops into runtime calls after the GPU mapping (so that `via-gpu=true`
    keeps them in device code).

    Example: `vx-opt --vx-instrument-races --vx-lower-race-checks`.
  }];
  let dependentDialects = ["arith::ArithDialect", "func::FuncDialect",
                           "memref::MemRefDialect", "scf::SCFDialect"];
}

def VxLowerRaceChecks : Pass<"vx-lower-race-checks", "ModuleOp"> {
  let summary = "Lower vx.race_* ops to calls of the race detector runtime";
  let description = [{
    Replaces `vx.race_access` and `vx.race_thread_loop` by calls of
    `__vx_race_access`, `__vx_race_thread_loop` and
    `__vx_race_thread_loop_dim` (declared in the module), whose arguments are
    64-bit integers.

    Example: `vx-opt --vx-instrument-races --vx-lower-race-checks`.
  }];
  let dependentDialects = ["arith::ArithDialect", "func::FuncDialect"];
}

def VxNoAliasKernelArguments : Pass<"vx-noalias-kernel-arguments"> {
  let summary = "Mark the memref arguments of GPU kernels noalias (and "
                "readonly where never written)";
  let description = [{
    Distinct memref arguments of a spawn do not overlap (docs/design.md,
    "Aliasing"); this pass hands that contract to the device, as
    `__restrict__` does in CUDA, so that inputs the kernel only reads are
    loaded with `ld.global.nc`. On a `gpu.func` kernel it records, in
    `vx.noalias_arguments` and `vx.readonly_arguments`, the positions of
    its memref arguments' aligned pointers in the signature that
    `convert-gpu-to-nvvm` expands them to (a memref of rank r becomes
    3 + 2r arguments); on the lowered `llvm.func` kernel it sets
    `llvm.noalias` (and `llvm.readonly`) there. `vx-to-nvvm` and `vx-to-ptx`
    run it before and after the device lowering.

    Example: `vx-opt --vx-to-nvvm` shows
    `llvm.func @k_kernel(%arg0: !llvm.ptr, %arg1: !llvm.ptr {llvm.noalias,
    llvm.readonly}, ...)`.
  }];
}

#endif // VX_TRANSFORMS_PASSES

//===- TestPasses.td - Passes that exercise Vx's building blocks -*- tablegen -*-===//
//
// Test-only passes, registered in vx-opt: they drive lowering helpers that
// the Vx passes do not call yet, so that lit can check the IR they build.
//
//===----------------------------------------------------------------------===//

#ifndef VX_TEST_PASSES
#define VX_TEST_PASSES

include "mlir/Pass/PassBase.td"

def TestVxTMACopies : Pass<"test-vx-tma-copies", "ModuleOp"> {
  let summary = "Lower memref.copy into workgroup memory in gpu.launch to TMA";
  let description = [{
    Drives the TMA building blocks of lib/Conversion/VxTransferToNVGPU
    (Vx/Conversion/VxTransferToNVGPU/TMA.h) until the CTA mapping uses them.
    In each `gpu.launch`, a `memref.copy` from a view of a memref defined
    outside the launch into workgroup memory, in the launch body or in an
    `scf.for` directly in it, that `matchTMATile` accepts becomes: the tensor
    map encoded before the launch, one mbarrier per copy created at the top
    of the body, the load issued by thread (0, 0, 0) where the copy was, and
    a wait by every thread right after it, for the phase of the iteration of
    the loop around it. Thread (0, 0, 0) fences (TMA.h, fenceBeforeTMALoads)
    after the initialization, with the tensor maps, and before each load,
    which may overwrite what the threads accessed before the input's last
    barrier. Every thread of the block must reach the copy. Other
    copies into workgroup memory stay, with a remark that says why.

    Example: `vx-opt --test-vx-tma-copies --vx-to-ptx="chip=sm_90a"`.
  }];
  let dependentDialects = ["arith::ArithDialect", "gpu::GPUDialect",
                           "memref::MemRefDialect", "nvgpu::NVGPUDialect",
                           "NVVM::NVVMDialect", "scf::SCFDialect"];
}

def TestVxRegisterHostMemory : Pass<"test-vx-register-host-memory",
                                    "ModuleOp"> {
  let summary = "Register the host code's allocations as device-visible";
  let description = [{
    After each `memref.alloc` and `memref.alloca` of scalars in host code
    (outside `vx.spawn` bodies), a `gpu.host_register` of the new buffer, as a host
    program for a GPU registers the buffers its kernels touch
    (test/Integration/Inputs/gpu-memory.mlir). The integration tests that
    allocate their buffers in `@main` run on the PTX simulator, which
    checks every global access against the registered memory, with this
    pass in front of `--vx-to-llvm="ptx-sim=true"`.

    Example: `vx-opt --test-vx-register-host-memory
    --vx-to-llvm="ptx-sim=true"`.
  }];
  let dependentDialects = ["gpu::GPUDialect", "memref::MemRefDialect"];
}

def TestVxSpawnAnalysisCache : Pass<"test-vx-spawn-analysis-cache",
                                    "ModuleOp"> {
  let summary = "Remark whether each function's spawn analyses are cached";
  let description = [{
    For each function of the module with a `vx.spawn`, a remark on the
    function: "spawn analyses cached" when an earlier pass of the pipeline
    built its `SpawnAnalyses` (include/Vx/Analysis/SpawnAnalysis.h) and every
    pass since preserved them, else "spawn analyses not cached".

    Example: `vx-opt --vx-verify-semantics --test-vx-spawn-analysis-cache`.
  }];
}

#endif // VX_TEST_PASSES

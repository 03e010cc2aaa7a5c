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

#endif // VX_TEST_PASSES

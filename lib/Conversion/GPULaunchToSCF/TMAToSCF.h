//===- TMAToSCF.h - TMA loads and mbarriers on the CPU ----------*- C++ -*-===//
//
// The TMA path of the GPU mapping (Vx/Conversion/VxTransferToNVGPU/TMA.h)
// as convert-gpu-launch-to-scf runs it: loads copy their box where they are
// issued, mbarriers are counters in workgroup memory, and a wait is a point
// that every thread of the block reaches, where the awaited phase must be
// complete.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_CONVERSION_GPULAUNCHTOSCF_TMATOSCF_H
#define VX_LIB_CONVERSION_GPULAUNCHTOSCF_TMATOSCF_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace vx {

/// Whether `op` waits for an mbarrier phase (a barrier on the CPU).
bool isMBarrierWait(Operation *op);

/// Whether the nvgpu ops of `launch` can run on the CPU: cp.async copies,
/// and TMA loads from tensor maps made by nvgpu.tma.create.descriptor on
/// mbarriers of the launch (created, initialized, arrived on, tested and
/// waited for in it; tokens used only by mbarrier.test.wait), into
/// workgroup memory seen through memref.memory_space_cast (and
/// memref.expand_shape) of memory in the default space. With `report`,
/// says why not.
LogicalResult checkTMARunnableOnCPU(gpu::LaunchOp launch, bool report);

/// Rewrites the TMA loads and mbarrier ops of `launch`, which must pass
/// checkTMARunnableOnCPU, to loops, loads and stores: each mbarrier group
/// becomes a workgroup attribution of the launch, and each try_wait a
/// gpu.barrier followed by a check that stops the program when the phase
/// it waits for is not complete (the GPU would wait forever).
void lowerTMAToSCF(RewriterBase &rewriter, gpu::LaunchOp launch);

} // namespace vx
} // namespace mlir

#endif // VX_LIB_CONVERSION_GPULAUNCHTOSCF_TMATOSCF_H

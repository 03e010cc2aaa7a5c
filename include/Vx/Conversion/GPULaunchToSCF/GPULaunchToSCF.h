//===- GPULaunchToSCF.h - Run gpu.launch on the CPU -------------*- C++ -*-===//
//
// A gpu.launch becomes an scf.parallel over its blocks, in which the threads
// of a block run phase by phase between barriers, so that a GPU mapping can
// be checked numerically on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef VX_CONVERSION_GPULAUNCHTOSCF_GPULAUNCHTOSCF_H
#define VX_CONVERSION_GPULAUNCHTOSCF_GPULAUNCHTOSCF_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class ConversionTarget;
class RewritePatternSet;
class TypeConverter;

namespace vx {

#define GEN_PASS_DECL_CONVERTGPULAUNCHTOSCF
#include "Vx/Conversion/Passes.h.inc"

/// Rewrites every gpu.launch that can run as loops (no async dependencies,
/// no clusters, workgroup memory used through views and casts only, barriers
/// and shuffles reached by every thread of a block) to an scf.parallel over
/// its blocks, in which the threads of a block run phase by phase;
/// `reverseParallel` runs the blocks, and the threads of each phase, from
/// the last to the first.
void populateGPULaunchToSCFPatterns(RewritePatternSet &patterns,
                                    bool reverseParallel);

/// Rewrites cp.async copies (nvgpu.device_async_copy) to the copies they
/// complete, erases their groups and waits, and turns their tokens, also
/// those carried by scf ops, into i1.
void populateAsyncCopiesToSCFConversionPatterns(TypeConverter &typeConverter,
                                                RewritePatternSet &patterns,
                                                ConversionTarget &target);

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_GPULAUNCHTOSCF_GPULAUNCHTOSCF_H

//===- VxToGPU.h - Device spawns to gpu.launch ------------------*- C++ -*-===//
//
// A device spawn becomes one gpu.launch whose grid is made of the spawn's
// parallel dimensions; the arbitrary dimensions stay an scf.for nest inside
// the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef VX_CONVERSION_VXTOGPU_VXTOGPU_H
#define VX_CONVERSION_VXTOGPU_VXTOGPU_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class ConversionTarget;
class ModuleOp;
class RewritePatternSet;

namespace vx {
class SpawnOp;

#define GEN_PASS_DECL_CONVERTVXTOGPU
#include "Vx/Conversion/Passes.h.inc"

/// Checks that `spawn` (a device spawn) can be mapped onto a GPU with
/// `threadsPerBlock` threads per CTA and, when `chip` is not empty, run on
/// that chip; reports what cannot as errors.
LogicalResult checkDeviceSpawn(SpawnOp spawn, StringRef chip,
                               int64_t threadsPerBlock);

/// Lowers the device spawns of `module` (checked by checkDeviceSpawn) to
/// gpu.launch and the memref.copy ops in their bodies to loops. Each launch
/// names its kernel and module alike, uniquely in `module` (`f_kernel`,
/// `f_kernel_0`, ... in function @f), for gpu-kernel-outlining.
void populateVxToGPUConversionPatterns(RewritePatternSet &patterns,
                                       int64_t threadsPerBlock,
                                       ModuleOp module);

/// Device spawns and memref.copy in device code are illegal; host spawns
/// and everything else stay.
void configureVxToGPUConversionLegality(ConversionTarget &target);

/// Whether `op` is device code: inside a device spawn or a gpu.launch.
bool isInDeviceCode(Operation *op);

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_VXTOGPU_VXTOGPU_H

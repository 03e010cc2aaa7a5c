//===- VxToGPU.h - Device spawns to gpu.launch ------------------*- C++ -*-===//
//
// A device spawn becomes one gpu.launch whose grid is made of the spawn's
// parallel dimensions; a body with thread loops runs each grid instance on a
// whole CTA, other bodies one instance per thread; the arbitrary dimensions
// stay an scf.for nest inside the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef VX_CONVERSION_VXTOGPU_VXTOGPU_H
#define VX_CONVERSION_VXTOGPU_VXTOGPU_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class ConversionTarget;

namespace vx {

#define GEN_PASS_DECL_CONVERTVXTOGPU
#include "Vx/Conversion/Passes.h.inc"

/// Device spawns and memref.copy in device code are illegal; host spawns
/// and everything else stay.
void configureVxToGPUConversionLegality(ConversionTarget &target);

/// Whether `op` is device code: inside a device spawn or a gpu.launch.
bool isInDeviceCode(Operation *op);

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_VXTOGPU_VXTOGPU_H

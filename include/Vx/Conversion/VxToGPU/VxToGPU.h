//===- VxToGPU.h - Device spawns to gpu.launch ------------------*- C++ -*-===//
//
// A device spawn becomes one gpu.launch whose grid is made of the spawn's
// parallel dimensions; a body with thread loops runs each grid instance on a
// whole CTA, other bodies one instance per thread; the arbitrary dimensions
// stay an scf.for nest inside the kernel. The mapping is four passes that
// speak through the IR (the spawn's `#vx.launch_plan`): vx-plan-launch,
// vx-map-cta, vx-pipeline-transfers and convert-vx-to-gpu, which runs the
// steps a spawn lacks itself.
//
//===----------------------------------------------------------------------===//

#ifndef VX_CONVERSION_VXTOGPU_VXTOGPU_H
#define VX_CONVERSION_VXTOGPU_VXTOGPU_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class ConversionTarget;
class OpPassManager;

namespace vx {

#define GEN_PASS_DECL_VXPLANLAUNCH
#define GEN_PASS_DECL_VXPADSHAREDTILES
#define GEN_PASS_DECL_VXUNROLLTHREADLOOPS
#define GEN_PASS_DECL_VXVECTORIZESHAREDACCESSES
#define GEN_PASS_DECL_VXMAPCTA
#define GEN_PASS_DECL_VXPIPELINETRANSFERS
#define GEN_PASS_DECL_CONVERTVXTOGPU
#include "Vx/Conversion/Passes.h.inc"

/// Device spawns and memref.copy in device code are illegal; host spawns
/// and everything else stay.
void configureVxToGPUConversionLegality(ConversionTarget &target);

/// Adds the GPU mapping's passes to `pm`, one per step, with the options of
/// convert-vx-to-gpu: vx-plan-launch, vx-map-cta, vx-unroll-thread-loops,
/// vx-vectorize-shared-accesses, vx-pipeline-transfers and
/// convert-vx-to-gpu.
void addVxToGPUPasses(OpPassManager &pm, const ConvertVxToGPUOptions &options);

/// Whether `op` is device code: inside a device spawn or a gpu.launch.
bool isInDeviceCode(Operation *op);

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_VXTOGPU_VXTOGPU_H

//===- Passes.h - Vx conversion passes --------------------------*- C++ -*-===//

#ifndef VX_CONVERSION_PASSES_H
#define VX_CONVERSION_PASSES_H

#include "Vx/Conversion/GPULaunchToSCF/GPULaunchToSCF.h"
#include "Vx/Conversion/VxToGPU/VxToGPU.h"
#include "Vx/Conversion/VxToSCF/VxToSCF.h"

namespace mlir {
namespace vx {

#define GEN_PASS_REGISTRATION
#include "Vx/Conversion/Passes.h.inc"

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_PASSES_H

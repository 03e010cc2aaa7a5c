//===- VxOps.h - Vx types, attributes and operations ------------*- C++ -*-===//

#ifndef VX_VXOPS_H
#define VX_VXOPS_H

#include "Vx/VxDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace vx {
/// The dynamic race detector's shadow state, which `vx.race_access` and
/// `vx.race_thread_loop` read and write: no memory the program sees, so
/// analyses of the program's memory leave their effects out.
struct RaceDetectorStateResource
    : public SideEffects::Resource::Base<RaceDetectorStateResource> {
  StringRef getName() final { return "vx::RaceDetectorState"; }
};

/// Whether `effect` is on the race detector's state rather than on memory
/// the program sees.
inline bool isRaceDetectorEffect(const MemoryEffects::EffectInstance &effect) {
  return isa<RaceDetectorStateResource>(effect.getResource());
}
} // namespace vx
} // namespace mlir

#include "Vx/VxEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Vx/VxAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Vx/VxOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "Vx/VxOps.h.inc"

#endif // VX_VXOPS_H

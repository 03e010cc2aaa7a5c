//===- Conversion.h - Helpers shared by the Vx lowerings --------*- C++ -*-===//

#ifndef VX_CONVERSION_H
#define VX_CONVERSION_H

#include "Vx/VxOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace vx {

/// Marks the outermost loop of a lowered device spawn with its topology.
constexpr llvm::StringLiteral kTopologyAttrName = "vx.topology";

/// Replaces the grid queries in `spawn`'s body by `coords` and `sizes` (one
/// value per grid dimension) and the transfers by synchronous copies, with
/// their awaits removed.
void replaceSpawnBodyOps(RewriterBase &rewriter, SpawnOp spawn,
                         ArrayRef<Value> coords, ArrayRef<Value> sizes);

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_H

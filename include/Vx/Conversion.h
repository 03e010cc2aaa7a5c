//===- Conversion.h - Helpers shared by the Vx lowerings --------*- C++ -*-===//

#ifndef VX_CONVERSION_H
#define VX_CONVERSION_H

#include "Vx/VxOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace vx {

/// Marks the outermost loop of a lowered device spawn with its topology.
constexpr llvm::StringLiteral kTopologyAttrName = "vx.topology";

/// Replaces the grid queries in `spawn`'s body by `coords` and `sizes` (one
/// value per grid dimension).
void replaceGridQueries(RewriterBase &rewriter, SpawnOp spawn,
                        ArrayRef<Value> coords, ArrayRef<Value> sizes);

/// Patterns that lower transfers to synchronous copies and remove awaits,
/// converting tokens (also those carried by scf ops) to i1.
void populateSynchronousTransferPatterns(TypeConverter &typeConverter,
                                         RewritePatternSet &patterns,
                                         ConversionTarget &target);

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_H

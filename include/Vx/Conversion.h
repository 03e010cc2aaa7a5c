//===- Conversion.h - Helpers shared by the Vx lowerings --------*- C++ -*-===//

#ifndef VX_CONVERSION_H
#define VX_CONVERSION_H

#include "Vx/VxOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>

namespace mlir {
namespace vx {

/// Marks the outermost loop of a lowered device spawn with its topology.
constexpr llvm::StringLiteral kTopologyAttrName = "vx.topology";

/// The SM number of an NVIDIA chip name (sm_90, sm_90a, sm_100f, ...).
std::optional<unsigned> getSMNumber(StringRef chip);

/// Replaces the grid queries in `spawn`'s body by `coords` and `sizes` (one
/// value per grid dimension).
void replaceGridQueries(RewriterBase &rewriter, SpawnOp spawn,
                        ArrayRef<Value> coords, ArrayRef<Value> sizes);

/// Copies `src` into `dst` (same shape) element by element with an scf.for
/// nest, which runs anywhere, including device code and strided views.
void buildLoopCopy(OpBuilder &builder, Location loc, Value src, Value dst);

/// Patterns that lower the transfers of the ops for which `inScope` holds
/// to synchronous loop copies and remove their awaits, converting tokens
/// (also those carried by scf ops) to i1.
void populateSynchronousTransferPatterns(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target, std::function<bool(Operation *)> inScope);

/// Decides, for the transfers of a device spawn, which become cp.async
/// copies (global memory into shared-memory scratch, in chunks of 4, 8 or 16
/// bytes that the layouts keep aligned) and remarks on the others, which
/// stay synchronous copies; records the decisions on the ops.
void planAsyncTransfers(SpawnOp spawn);

/// The cp.async lowering of planned transfers and their awaits inside
/// gpu.launch bodies; takes precedence over the synchronous patterns.
void populateAsyncTransferPatterns(TypeConverter &typeConverter,
                                   RewritePatternSet &patterns);

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_H

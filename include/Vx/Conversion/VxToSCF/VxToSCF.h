//===- VxToSCF.h - vx.spawn to scf loops ------------------------*- C++ -*-===//
//
// The reference lowering: a spawn becomes one scf.parallel over its parallel
// dimensions around an scf.for nest over its arbitrary dimensions, and a
// transfer a synchronous loop copy.
//
//===----------------------------------------------------------------------===//

#ifndef VX_CONVERSION_VXTOSCF_VXTOSCF_H
#define VX_CONVERSION_VXTOSCF_VXTOSCF_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Pass/Pass.h"

#include <functional>

namespace mlir {
class ConversionTarget;
class RewritePatternSet;
class TypeConverter;

namespace vx {
class SpawnOp;

#define GEN_PASS_DECL_CONVERTVXTOSCF
#include "Vx/Conversion/Passes.h.inc"

/// The threads of a CTA that share a loop: thread `id` of `count` runs the
/// iterations whose row-major linear index is congruent to `id` modulo
/// `count`, so consecutive iterations run on consecutive threads (coalesced
/// when the innermost index walks contiguous memory).
struct ThreadShare {
  Value id;
  int64_t count;
};

/// The share of `op` (a transfer) that this thread copies, if the CTA's
/// threads copy it together; creates the thread id where needed.
using GetThreadShare =
    std::function<std::optional<ThreadShare>(OpBuilder &, Operation *)>;

/// The body of a shared loop: the linear index of the iteration, its round
/// (index / count, the iteration's rank among the thread's own), and the
/// loop-carried values; returns the values carried to the next iteration.
using SharedLoopBody = function_ref<SmallVector<Value>(
    OpBuilder &, Location, Value index, Value round, ValueRange iterArgs)>;

/// Runs `body` over the linear indices [0, total) that `share` gives this
/// thread (every index without a share), carrying `inits`; returns the
/// final carried values. A static total that is a multiple of the count
/// needs no guard, one below the count a single `scf.if`; other totals loop
/// from the thread's id with the count as step.
SmallVector<Value> buildSharedLoop(OpBuilder &builder, Location loc,
                                   OpFoldResult total,
                                   std::optional<ThreadShare> share,
                                   ValueRange inits, SharedLoopBody body);

/// `linear`, a non-negative index below the product of `sizes`, as a
/// row-major multi-index (unsigned division, so that powers of two become
/// shifts).
SmallVector<Value> delinearizeIndex(OpBuilder &builder, Location loc,
                                    Value linear, ArrayRef<OpFoldResult> sizes);

/// The product of `sizes`, folded where they are static.
OpFoldResult getProduct(OpBuilder &builder, Location loc,
                        ArrayRef<OpFoldResult> sizes);

/// Copies `src` into `dst` (same shape) element by element: all of it, or
/// with `share` this thread's part of a copy made by the whole CTA.
void buildLoopCopy(OpBuilder &builder, Location loc, Value src, Value dst,
                   std::optional<ThreadShare> share = std::nullopt);

/// Lowers every `vx.spawn` to scf loops; `reverseParallel` walks the
/// parallel dimensions from their last index to 0.
void populateVxToSCFConversionPatterns(RewritePatternSet &patterns,
                                       bool reverseParallel);

/// Marks the vx dialect illegal and everything else legal.
void configureVxToSCFConversionLegality(ConversionTarget &target);

/// Lowers the `vx.transfer_async` / `vx.await` pairs of the ops for which
/// `inScope` holds to synchronous loop copies (the copy completes at the
/// transfer), converting tokens, also those carried by scf ops, to i1.
/// With `getShare`, a transfer for which it returns a share is copied by
/// the threads of a CTA together.
void populateVxTransferToLoopsConversionPatterns(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target, std::function<bool(Operation *)> inScope,
    GetThreadShare getShare = {});

/// Lowers the affine ops in the spawn bodies under `root` to scf, arith,
/// memref and vector ops. A spawn's lowering makes `vx.grid_index` a loop
/// induction variable or a thread coordinate, which is no affine dimension
/// or symbol, so affine ops that use it would no longer verify.
LogicalResult lowerAffineInSpawns(Operation *root);

/// Whether `spawn`'s body has an `affine.parallel`. Every route lowers it to
/// an scf.parallel first (lowerAffineInSpawns), so in a CTA body it is a
/// thread loop: the passes that look for thread loops (the checker,
/// vx-instrument-races, vx-plan-launch) see it as one.
bool hasAffineParallel(SpawnOp spawn);

/// Lowers `memref.copy` to an element-by-element scf.for nest, which runs in
/// device code, where memref.copy of strided views would be a host call.
void populateMemRefCopyToLoopsPatterns(RewritePatternSet &patterns);

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_VXTOSCF_VXTOSCF_H

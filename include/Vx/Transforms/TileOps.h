//===- TileOps.h - CTA-collective tile ops ----------------------*- C++ -*-===//
//
// The tile ops of VX_SPEC section 2.3 as thread loops: shared by the
// vx-distribute-tile-ops pass and vx-verify-semantics, which checks the
// spawn the pass will produce.
//
//===----------------------------------------------------------------------===//

#ifndef VX_TRANSFORMS_TILEOPS_H
#define VX_TRANSFORMS_TILEOPS_H

#include "Vx/VxOps.h"

namespace mlir {
class RewriterBase;

namespace vx {

/// The tile ops of `spawn` (a device spawn): linalg ops in its
/// once-per-instance code (outside thread loops), and there the
/// memref.copy ops when the body has linalg ops or thread loops.
SmallVector<Operation *> getTileOps(SpawnOp spawn);

/// Rewrites each tile op of `spawn` into a thread loop over its parallel
/// dimensions (in the order of its output's), with its reduction dimensions
/// sequential inside. Reports the ops it cannot rewrite; with
/// `remarkOnMatmuls`, remarks that matmuls fit for tensor cores (bf16/f16,
/// or f32 with `tf32`) are computed with FMA code.
LogicalResult distributeTileOps(RewriterBase &rewriter, SpawnOp spawn,
                                bool remarkOnMatmuls, bool tf32);

} // namespace vx
} // namespace mlir

#endif // VX_TRANSFORMS_TILEOPS_H

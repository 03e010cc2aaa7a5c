//===- SharedLayout.h - Row layouts of smem scratch tiles -------*- C++ -*-===//
//
// The padded row layout of an smem `vx.scratch` tile, shared by the two
// layouts that choose it: the ldmatrix operands of vx-distribute-tile-ops
// and the bank-conflict-free tiles of vx-pad-shared-tiles. A padded tile is
// a view of a scratch with wider rows, so every use sees the layout.
//
//===----------------------------------------------------------------------===//

#ifndef VX_CONVERSION_VXTRANSFERTONVGPU_SHAREDLAYOUT_H
#define VX_CONVERSION_VXTRANSFERTONVGPU_SHAREDLAYOUT_H

#include "Vx/VxOps.h"

namespace mlir {
class RewriterBase;

namespace vx {

/// Whether a transfer that a TMA copy may carry writes `tile`: TMA writes
/// dense boxes, so such a tile keeps its dense layout.
bool hasTMAWriter(ScratchOp tile);

/// Replaces `tile` (an smem scratch of rank 2 or more with the identity
/// layout) by `memref.subview` [0, ..., 0] of a new scratch whose rows (the
/// innermost dimension) are `elements` elements longer, and returns the new
/// scratch. Every use of the tile then goes through the view; the padding
/// is never accessed.
ScratchOp padScratchRows(RewriterBase &rewriter, ScratchOp tile,
                         int64_t elements);

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_VXTRANSFERTONVGPU_SHAREDLAYOUT_H

//===- ThreadPhases.h - The threads of a block, phase by phase --*- C++ -*-===//
//
// The threads of one block of a gpu.launch run on the CPU one after another,
// phase by phase: the body is split at barriers, at warp shuffles and at the
// scf ops around them, each phase becomes a loop over the threads, and the
// values that live from one phase into a later one are kept per thread.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_CONVERSION_GPULAUNCHTOSCF_THREADPHASES_H
#define VX_LIB_CONVERSION_GPULAUNCHTOSCF_THREADPHASES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace vx {

/// Whether the threads of a block of `launch` can run phase by phase: every
/// barrier and shuffle is reached by all threads of the block (uniform
/// control flow, inside scf.for, scf.if, scf.index_switch and scf.while
/// only) and every value that lives across phases can be kept per thread.
/// With `report`, says why not.
LogicalResult checkThreadPhases(gpu::LaunchOp launch, bool report);

/// One block of a launch as its body sees it.
struct LaunchBlock {
  /// blockIdx, gridDim and blockDim, x, y and z.
  SmallVector<Value, 3> ids, gridSizes, blockSizes;
  /// Run the threads of each phase from last to first.
  bool reverseThreads = false;
};

/// Emits at the insertion point of `rewriter` the body of `launch` run by
/// the threads of `block` phase by phase. `launch` must pass
/// `checkThreadPhases`; its thread, lane and dimension queries are replaced
/// in place, and the caller erases it.
void emitThreadPhases(RewriterBase &rewriter, gpu::LaunchOp launch,
                      const LaunchBlock &block);

} // namespace vx
} // namespace mlir

#endif // VX_LIB_CONVERSION_GPULAUNCHTOSCF_THREADPHASES_H

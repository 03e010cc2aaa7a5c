//===- DistributeTileOps.cpp - Tile ops as thread loops -------------------===//
//
// A tile op (VX_SPEC section 2.3) in once-per-instance code of a device
// spawn is computed by the whole CTA. Its exact distribution is a thread
// loop over its parallel dimensions, in the order of its output's
// dimensions, around sequential loops over its reduction dimensions: every
// op then computes element i (row-major) of its output on thread i mod N,
// so the ops touching one private tile share a distribution, and the CTA
// mapping treats them like any thread loop (ownership, barriers). Private
// tiles that an op reads across elements (row reductions and broadcasts)
// are distributed by rows instead. See docs/design.md, "Tile ops".
//
//===----------------------------------------------------------------------===//

#include "Vx/Analysis/SpawnAnalysis.h"
#include "Vx/Conversion/VxTransferToNVGPU/TMA.h"
#include "Vx/Target/Limits.h"
#include "Vx/Transforms/Passes.h"
#include "Vx/Transforms/TileOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXDISTRIBUTETILEOPS
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

FailureOr<TileOpsOptions>
vx::parseTileOpsOptions(Operation *root, StringRef pass, StringRef chip,
                        int64_t threadsPerBlock, bool tf32) {
  TileOpsOptions options;
  options.tf32 = tf32;
  options.threadsPerBlock = threadsPerBlock;
  if (chip.empty())
    return options;
  std::string error;
  FailureOr<Chip> parsed = Chip::parse(chip, error);
  if (failed(parsed))
    return root->emitError() << pass << ": " << error;
  options.chip = *parsed;
  return options;
}

SmallVector<Operation *> vx::getTileOps(SpawnOp spawn) {
  if (!spawn.isDeviceSpawn())
    return {};
  // In program order, which the rewrite keeps.
  SmallVector<Operation *> ops;
  bool isCTABody = false;
  spawn.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<scf::ParallelOp>(op)) {
      isCTABody = true;
      return WalkResult::skip();
    }
    if (isa<linalg::LinalgDialect>(op->getDialect())) {
      isCTABody = true;
      ops.push_back(op);
      return WalkResult::skip();
    }
    if (isa<memref::CopyOp>(op))
      ops.push_back(op);
    return WalkResult::advance();
  });
  if (!isCTABody)
    return {};
  return ops;
}

/// The loops of `op` in the order its thread loop iterates them: the
/// parallel dimensions in the order of its first output's dimensions, the
/// other parallel ones, then the reduction dimensions.
static SmallVector<unsigned> getDistributionOrder(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto isParallel = [&](unsigned dim) {
    return linalg::isParallelIterator(iterators[dim]);
  };
  SmallVector<unsigned> order;
  if (op.getNumDpsInits() > 0) {
    AffineMap output = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    for (AffineExpr result : output.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(result);
          dim && isParallel(dim.getPosition()) &&
          !llvm::is_contained(order, dim.getPosition()))
        order.push_back(dim.getPosition());
  }
  for (unsigned dim = 0; dim < iterators.size(); ++dim)
    if (isParallel(dim) && !llvm::is_contained(order, dim))
      order.push_back(dim);
  for (unsigned dim = 0; dim < iterators.size(); ++dim)
    if (!isParallel(dim))
      order.push_back(dim);
  return order;
}

/// Reports a tile op that the CTA cannot compute.
static LogicalResult checkDistributable(Operation *op) {
  if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    if (isa<UnrankedMemRefType>(copy.getSource().getType()) ||
        isa<UnrankedMemRefType>(copy.getTarget().getType()))
      return op->emitOpError(
          "of an unranked memref in once-per-instance code of a CTA body "
          "cannot be spread over the threads; cast it to a ranked memref");
    return success();
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return op->emitOpError(
        "in once-per-instance code of a device spawn is not a structured "
        "linalg op, so the CTA cannot compute it as a tile op; write it as "
        "linalg.generic or a thread loop");
  if (!linalgOp.hasPureBufferSemantics())
    return op->emitOpError(
        "in once-per-instance code of a device spawn works on tensors; tile "
        "ops take memrefs (scratch tiles or views of captured memory)");
  return success();
}

SmallVector<Value> vx::getPrivateTiles(Value value, SpawnOp spawn) {
  SmallVector<Value> tiles;
  if (!isa<BaseMemRefType>(value.getType()))
    return tiles;
  for (const Access::Candidate &candidate : traceMemoryRoots(value, spawn)) {
    auto scratch =
        dyn_cast_or_null<ScratchOp>(candidate.root.value.getDefiningOp());
    if (candidate.root.kind == MemoryRoot::Kind::Scratch && scratch &&
        scratch.getPlacement() == Memory::private_)
      tiles.push_back(scratch.getResult());
  }
  return tiles;
}

/// Whether an iteration of `op` reads a private tile at other elements than
/// the output element it writes (a row reduction, a row broadcast, a matmul
/// operand): then the threads can own that tile only by rows.
static bool readsPrivateAcrossElements(linalg::LinalgOp op, SpawnOp spawn) {
  if (op.getNumDpsInits() == 0)
    return false;
  AffineMap output = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  return llvm::any_of(op->getOpOperands(), [&](OpOperand &operand) {
    return op.getMatchingIndexingMap(&operand) != output &&
           !getPrivateTiles(operand.get(), spawn).empty();
  });
}

/// The tile ops of `spawn` (linalg ops by now) that are distributed by rows:
/// those touching private tiles that some op reads across elements, closed
/// over the ops that share a private tile, so that the ops of one tile
/// agree.
static DenseSet<Operation *> getRowDistributedOps(ArrayRef<Operation *> ops,
                                                  SpawnOp spawn) {
  DenseMap<Operation *, SmallVector<Value>> tilesOf;
  DenseSet<Value> rowTiles;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands())
      llvm::append_range(tilesOf[op], getPrivateTiles(operand, spawn));
    if (readsPrivateAcrossElements(cast<linalg::LinalgOp>(op), spawn))
      rowTiles.insert_range(tilesOf[op]);
  }
  DenseSet<Operation *> rowOps;
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *op : ops) {
      if (rowOps.contains(op) || !llvm::any_of(tilesOf[op], [&](Value tile) {
            return rowTiles.contains(tile);
          }))
        continue;
      rowOps.insert(op);
      rowTiles.insert_range(tilesOf[op]);
      changed = true;
    }
  }
  return rowOps;
}

/// Splits the thread loop `loop` into one over its first dimension around
/// an `scf.parallel` over the others, which runs sequentially in its thread.
static void distributeByRows(RewriterBase &rewriter, scf::ParallelOp loop) {
  if (loop.getNumLoops() < 2)
    return;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto rows = scf::ParallelOp::create(
      rewriter, loc, loop.getLowerBound().take_front(),
      loop.getUpperBound().take_front(), loop.getStep().take_front());
  rewriter.setInsertionPointToStart(rows.getBody());
  auto columns = scf::ParallelOp::create(
      rewriter, loc, loop.getLowerBound().drop_front(),
      loop.getUpperBound().drop_front(), loop.getStep().drop_front());
  rewriter.eraseOp(columns.getBody()->getTerminator());
  SmallVector<Value> ivs = {rows.getInductionVars().front()};
  llvm::append_range(ivs, columns.getInductionVars());
  rewriter.mergeBlocks(loop.getBody(), columns.getBody(), ivs);
  rewriter.eraseOp(loop);
}

/// Maps the thread loops of the user's that touch the tiles of the row
/// distribution elementwise onto it (VX_SPEC 2.3): iteration (r, c) runs on
/// row r's thread. The checker reports the other loops over those tiles
/// with the ops they conflict with (not owned by the CTA's threads).
static void mapThreadLoopsByRows(RewriterBase &rewriter, SpawnOp spawn,
                                 const DenseSet<Operation *> &rowOps) {
  DenseSet<Value> rowTiles;
  for (Operation *op : rowOps)
    for (Value operand : op->getOperands())
      rowTiles.insert_range(getPrivateTiles(operand, spawn));
  auto isRowTile = [&](Value value) { return rowTiles.contains(value); };
  for (scf::ParallelOp loop : getThreadLoopsOverTiles(spawn, isRowTile))
    if (!getElementwiseLoopMismatch(loop, isRowTile))
      distributeByRows(rewriter, loop);
}

/// Folds the identity affine.apply ops of the loop nest `loops` and drops
/// the loads of outputs that its body does not use (linalg.fill's).
static void simplifyLoopBodies(Operation *loops) {
  SmallVector<Operation *> ops;
  loops->walk([&](Operation *op) {
    if (isa<affine::AffineApplyOp, memref::LoadOp>(op))
      ops.push_back(op);
  });
  RewritePatternSet patterns(loops->getContext());
  affine::AffineApplyOp::getCanonicalizationPatterns(patterns,
                                                     loops->getContext());
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
}

/// Rewrites `op` into its thread loop; `byRows` keeps only its first
/// output dimension in the thread loop. `ctaSize` is the CTA's threads.
static LogicalResult distributeTileOp(RewriterBase &rewriter,
                                      linalg::LinalgOp op, bool byRows,
                                      int64_t ctaSize) {
  // A writer of an operand tile that wgmma reads swizzled (an smem tile,
  // never distributed by rows) writes that layout.
  Value swizzledTile = op.getNumDpsInits() ? op.getDpsInits()[0] : Value();
  auto swizzleScratch =
      swizzledTile ? swizzledTile.getDefiningOp<ScratchOp>() : ScratchOp();
  IntegerAttr swizzle =
      swizzleScratch
          ? swizzleScratch->getAttrOfType<IntegerAttr>(kSwizzleAttrName)
          : IntegerAttr();
  // The generic form and the loops replace `op` where it is.
  rewriter.setInsertionPoint(op);
  SmallVector<unsigned> order = getDistributionOrder(op);
  if (!llvm::equal(order, llvm::seq<unsigned>(0, order.size()))) {
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generalized))
        return op->emitOpError("cannot be distributed over the CTA: its "
                               "loops need reordering, and it has no "
                               "linalg.generic form");
      generic = *generalized;
    }
    FailureOr<linalg::GenericOp> interchanged =
        linalg::interchangeGenericOp(rewriter, generic, order);
    if (failed(interchanged))
      return generic->emitOpError("cannot be distributed over the CTA: its "
                                  "loops cannot be reordered");
    op = *interchanged;
  }
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::LinalgLoops> loops =
      linalg::linalgOpToParallelLoops(rewriter, op);
  if (failed(loops))
    return op->emitOpError("cannot be distributed over the CTA: it has no "
                           "loop nest");
  rewriter.eraseOp(op);
  if (loops->empty())
    return success();
  simplifyLoopBodies(loops->front());
  auto threadLoop = dyn_cast<scf::ParallelOp>(loops->front());
  if (swizzle)
    return swizzleTileWriterLoop(rewriter, threadLoop, swizzledTile,
                                 swizzle.getInt(), ctaSize);
  // A full reduction has no parallel loop: no thread loop to split.
  if (byRows && threadLoop)
    distributeByRows(rewriter, threadLoop);
  return success();
}

LogicalResult vx::distributeTileOps(RewriterBase &rewriter, SpawnOp spawn,
                                    const TileOpsOptions &options) {
  SmallVector<Operation *> ops = getTileOps(spawn);
  // Every op is checked before any is rewritten.
  bool anyFailed = false;
  for (Operation *op : ops)
    anyFailed |= failed(checkDistributable(op));
  if (anyFailed)
    return failure();
  if (options.chip) {
    // sm_90a's warpgroup MMA; plain sm_90 has no wgmma (VX_SPEC 2.3).
    // Its fragment groups take wgmma where they fit (mma.sync, which
    // sm_90a has too, where they do not), the other matmuls wgmma.
    if (options.chip->hasWgmma()) {
      DenseMap<Operation *, std::string> groupReasons;
      if (failed(
              lowerFragmentGroups(rewriter, spawn, ops, options, groupReasons)))
        return failure();
      ops = getTileOps(spawn);
      lowerMatmulsToWgmma(rewriter, spawn, ops, options);
    } else if (failed(lowerMatmulsToMmaSync(rewriter, spawn, ops, options))) {
      return failure();
    }
    // The thread loops over the lanes make the body a CTA body still.
    ops = getTileOps(spawn);
  }
  for (Operation *&op : ops) {
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op);
        matmul && options.remarkOnMatmuls && !options.chip)
      if (std::optional<StringRef> kind =
              getTensorCoreKind(matmul, options.tf32);
          kind && *kind != "f32 operands")
        matmul.emitRemark("the ")
            << *kind
            << " would suit the tensor cores, but this route computes it "
               "with FMA code (the tensor cores need a GPU route's chip)";
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rewriter.setInsertionPoint(copy);
      op = linalg::CopyOp::create(rewriter, copy.getLoc(),
                                  ValueRange{copy.getSource()},
                                  ValueRange{copy.getTarget()});
      rewriter.eraseOp(copy);
    }
  }
  DenseSet<Operation *> rowOps = getRowDistributedOps(ops, spawn);
  mapThreadLoopsByRows(rewriter, spawn, rowOps);
  int64_t ctaSize = spawn.getCTASize(
      options.threadsPerBlock ? options.threadsPerBlock : kDefaultCTASize);
  for (Operation *op : ops)
    if (failed(distributeTileOp(rewriter, cast<linalg::LinalgOp>(op),
                                rowOps.contains(op), ctaSize)))
      return failure();
  return success();
}

namespace {
struct VxDistributeTileOpsPass
    : public vx::impl::VxDistributeTileOpsBase<VxDistributeTileOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<TileOpsOptions> options = parseTileOpsOptions(
        getOperation(), getArgument(), chip, threadsPerBlock, tf32);
    if (failed(options))
      return signalPassFailure();
    options->remarkOnMatmuls = true;
    IRRewriter rewriter(&getContext());
    WalkResult result = getOperation()->walk([&](SpawnOp spawn) {
      if (failed(distributeTileOps(rewriter, spawn, *options)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

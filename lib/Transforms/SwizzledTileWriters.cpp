//===- SwizzledTileWriters.cpp - Tile ops writing swizzled smem tiles -----===//
//
// wgmma reads its shared-memory operands in the swizzled layout that TMA
// writes (WgmmaTileOps.cpp). A tile that a tile op computes instead, like
// flash attention's P (the bf16 probabilities, the A operand of P V), gets
// the same layout: the elementwise op's thread loop runs over the physical
// positions of the tile, and each iteration computes the element that the
// swizzle puts there. Every iteration still writes a distinct element of
// its own row with plain indices, which the checker and the barrier planner
// see as before; only the elements it reads are permuted within the row.
// A proxy fence after the loop makes the writes visible to wgmma.
// See docs/design.md, "Tensor cores".
//
//===----------------------------------------------------------------------===//

#include "Vx/Conversion/VxTransferToNVGPU/TMA.h"
#include "Vx/Transforms/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::vx;

/// The swizzle permutes 16-byte chunks of a row by the row's phase within
/// the pattern of 8 lines of 128 bytes (PTX ISA, "Shared memory matrix
/// layout": address bits 4-6 XOR bits 7-9, fewer of them for narrower
/// swizzles).
constexpr int64_t kChunkBytes = 16, kLineBytes = 128;

bool vx::isSwizzledTileWriter(Operation *op, Value tile, SpawnOp spawn) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getDpsInitOperand(0)->get() != tile ||
      linalgOp.getNumParallelLoops() != linalgOp.getNumLoops() ||
      !linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0))
           .isIdentity() ||
      llvm::is_contained(linalgOp.getDpsInputs(), tile))
    return false;
  // A tile op: in once-per-instance code, not in a thread loop.
  for (Operation *parent = op->getParentOp(); parent != spawn;
       parent = parent->getParentOp())
    if (isa<scf::ParallelOp>(parent))
      return false;
  return true;
}

/// The column of the element that lands at column `column` of row `row`
/// of a tile swizzled in rows of `swizzle` bytes (the XOR is its own
/// inverse).
static Value buildSwizzledColumn(OpBuilder &b, Location loc, Value row,
                                 Value column, int64_t swizzle,
                                 int64_t elementBytes) {
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  int64_t chunkElements = kChunkBytes / elementBytes;
  int64_t rowsPerLine = kLineBytes / swizzle;
  Value line = rowsPerLine == 1 ? row
                                : arith::DivUIOp::create(b, loc, row,
                                                         index(rowsPerLine))
                                      .getResult();
  Value phase =
      arith::RemUIOp::create(b, loc, line, index(swizzle / kChunkBytes));
  Value chunk = arith::DivUIOp::create(b, loc, column, index(chunkElements));
  Value swizzled = arith::XOrIOp::create(b, loc, chunk, phase);
  Value first = arith::MulIOp::create(b, loc, swizzled, index(chunkElements));
  Value within = arith::RemUIOp::create(b, loc, column, index(chunkElements));
  return arith::AddIOp::create(b, loc, first, within);
}

LogicalResult vx::swizzleTileWriterLoop(RewriterBase &rewriter,
                                        scf::ParallelOp loop, Value tile,
                                        int64_t swizzle, int64_t ctaSize) {
  auto type = cast<MemRefType>(tile.getType());
  if (loop.getNumLoops() != 2 || type.getRank() != 2)
    return loop->emitOpError("writes a swizzled tile, and is not a thread "
                             "loop over its rows and columns");
  Value row = loop.getInductionVars()[0];
  Value column = loop.getInductionVars()[1];
  // The stores into the tile keep the physical position; everything else
  // reads the element that belongs there.
  SmallPtrSet<Operation *, 2> stores;
  for (Operation *user : tile.getUsers())
    if (auto store = dyn_cast<memref::StoreOp>(user);
        store && loop->isAncestor(store)) {
      if (store.getIndices()[0] != row || store.getIndices()[1] != column)
        return store->emitOpError("stores into a swizzled tile at other "
                                  "than its thread loop's position");
      stores.insert(store);
    }
  SmallVector<OpOperand *> reads;
  for (OpOperand &use : column.getUses())
    if (!stores.contains(use.getOwner()))
      reads.push_back(&use);
  rewriter.setInsertionPointToStart(loop.getBody());
  Value logical =
      buildSwizzledColumn(rewriter, loop.getLoc(), row, column, swizzle,
                          type.getElementTypeBitWidth() / 8);
  for (OpOperand *use : reads)
    rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(logical); });
  // wgmma reads through the async proxy: each thread orders its writes
  // before the barrier that precedes the read (PTX ISA, "Memory
  // Consistency Model: Proxies"), once, in a thread loop of one iteration
  // per thread.
  Location loc = loop.getLoc();
  rewriter.setInsertionPointAfter(loop);
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  scf::ParallelOp::create(
      rewriter, loc, index(0), index(ctaSize), index(1),
      [&](OpBuilder &b, Location, ValueRange) {
        MLIRContext *context = b.getContext();
        auto fence = NVVM::FenceProxyOp::create(
            b, loc,
            NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
            NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
        // Touches no memory that the checker models.
        fence->setAttr(VxDialect::kTensorCoreAttrName, b.getUnitAttr());
        scf::ReduceOp::create(b, loc);
      });
  return success();
}

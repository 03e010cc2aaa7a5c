//===- SharedLayout.cpp - Row layouts of smem scratch tiles ---------------===//
//
// See include/Vx/Conversion/VxTransferToNVGPU/SharedLayout.h.
//
//===----------------------------------------------------------------------===//

#include "Vx/Conversion/VxTransferToNVGPU/SharedLayout.h"
#include "Vx/Conversion/VxTransferToNVGPU/TMA.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::vx;

bool vx::hasTMAWriter(ScratchOp tile) {
  auto spawn = tile->getParentOfType<SpawnOp>();
  return llvm::any_of(tile->getUsers(), [&](Operation *user) {
    auto transfer = dyn_cast<TransferAsyncOp>(user);
    std::string why;
    return transfer && transfer.getDst() == tile.getResult() &&
           succeeded(matchTMATile(transfer.getSrc(), tile.getType(),
                                  spawn.getBody(), why));
  });
}

ScratchOp vx::padScratchRows(RewriterBase &rewriter, ScratchOp tile,
                             int64_t elements) {
  MemRefType type = tile.getType();
  SmallVector<int64_t> paddedShape(type.getShape());
  paddedShape.back() += elements;
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  auto padded = ScratchOp::create(
      rewriter, loc, MemRefType::get(paddedShape, type.getElementType()),
      tile.getMemoryAttr());
  int64_t rank = type.getRank();
  auto view = memref::SubViewOp::create(
      rewriter, loc, padded, SmallVector<int64_t>(rank, 0), type.getShape(),
      SmallVector<int64_t>(rank, 1));
  rewriter.replaceOp(tile, view);
  return padded;
}

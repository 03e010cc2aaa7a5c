//===- Common.cpp - Helpers shared by the Vx lowerings --------------------===//
//
// Grid-query replacement and the synchronous lowering of transfers, used by
// both the scf (CPU) and the gpu lowering.
//
//===----------------------------------------------------------------------===//

#include "Vx/Conversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::vx;

std::optional<unsigned> vx::getSMNumber(StringRef chip) {
  unsigned number;
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  if (chip.ends_with("a") || chip.ends_with("f"))
    chip = chip.drop_back();
  if (chip.getAsInteger(10, number))
    return std::nullopt;
  return number;
}

void vx::replaceGridQueries(RewriterBase &rewriter, SpawnOp spawn,
                            ArrayRef<Value> coords, ArrayRef<Value> sizes) {
  SmallVector<Operation *> queries;
  spawn.getBody().walk([&](Operation *op) {
    if (isa<GridIndexOp, GridDimOp>(op))
      queries.push_back(op);
  });
  for (Operation *op : queries) {
    if (auto index = dyn_cast<GridIndexOp>(op))
      rewriter.replaceOp(index, coords[index.getDim()]);
    else
      rewriter.replaceOp(op, sizes[cast<GridDimOp>(op).getDim()]);
  }
}

void vx::buildLoopCopy(OpBuilder &builder, Location loc, Value src,
                       Value dst) {
  auto type = cast<MemRefType>(src.getType());
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  SmallVector<Value> lbs(type.getRank(), zero), steps(type.getRank(), one);
  SmallVector<Value> ubs;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    ubs.push_back(getValueOrCreateConstantIndexOp(
        builder, loc, memref::getMixedSize(builder, loc, src, dim)));
  scf::buildLoopNest(builder, loc, lbs, ubs, steps,
                     [&](OpBuilder &nested, Location loc, ValueRange ivs) {
                       Value element =
                           memref::LoadOp::create(nested, loc, src, ivs);
                       memref::StoreOp::create(nested, loc, element, dst, ivs);
                     });
}

namespace {
/// The reference semantics of a transfer: the copy completes at its start.
struct TransferToLoopCopy : public OpConversionPattern<TransferAsyncOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransferAsyncOp transfer, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    buildLoopCopy(rewriter, transfer.getLoc(), adaptor.getSrc(),
                  adaptor.getDst());
    rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(transfer, 1, 1);
    return success();
  }
};

struct EraseAwait : public OpConversionPattern<AwaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AwaitOp await, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(await);
    return success();
  }
};
} // namespace

void vx::populateSynchronousTransferPatterns(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target, std::function<bool(Operation *)> inScope) {
  // Once a transfer is complete at its start, a token carries no
  // information: it becomes an i1 so that loops and conditionals that carry
  // it (double buffering) still type-check, and folds away.
  typeConverter.addConversion([](Type type) { return type; });
  typeConverter.addConversion([](TokenType token) -> Type {
    return IntegerType::get(token.getContext(), 1);
  });
  scf::populateSCFStructuralTypeConversions(typeConverter, patterns);
  target.addDynamicallyLegalOp<scf::ForOp, scf::IfOp, scf::WhileOp,
                               scf::ConditionOp, scf::YieldOp>(
      [&typeConverter, inScope](Operation *op) {
        return !inScope(op) || typeConverter.isLegal(op);
      });
  patterns.add<TransferToLoopCopy, EraseAwait>(typeConverter,
                                               patterns.getContext());
  target.addDynamicallyLegalOp<TransferAsyncOp, AwaitOp>(
      [inScope](Operation *op) { return !inScope(op); });
}

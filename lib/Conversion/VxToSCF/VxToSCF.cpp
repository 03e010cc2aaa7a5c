//===- VxToSCF.cpp - Lower vx.spawn to scf loops --------------------------===//
//
// A spawn becomes one scf.parallel over its parallel dimensions around an
// scf.for nest over its arbitrary dimensions, so that for every parallel
// point the arbitrary instances run one at a time in lexicographic order.
// Scratch buffers are allocated between the two, once per parallel point.
// Transfers complete at their start (a loop copy), which is the reference
// semantics that the asynchronous GPU lowering must agree with.
//
//===----------------------------------------------------------------------===//

#include "Vx/Conversion/VxToSCF/VxToSCF.h"
#include "Vx/VxOps.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_CONVERTVXTOSCF
#include "Vx/Conversion/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

OpFoldResult vx::getProduct(OpBuilder &builder, Location loc,
                            ArrayRef<OpFoldResult> sizes) {
  int64_t constant = 1;
  Value dynamic;
  for (OpFoldResult size : sizes) {
    if (std::optional<int64_t> value = getConstantIntValue(size)) {
      constant *= *value;
      continue;
    }
    dynamic = dynamic ? arith::MulIOp::create(builder, loc, dynamic,
                                              cast<Value>(size))
                            .getResult()
                      : cast<Value>(size);
  }
  if (!dynamic)
    return builder.getIndexAttr(constant);
  if (constant == 1)
    return dynamic;
  return arith::MulIOp::create(
             builder, loc, dynamic,
             arith::ConstantIndexOp::create(builder, loc, constant))
      .getResult();
}

SmallVector<Value> vx::delinearizeIndex(OpBuilder &builder, Location loc,
                                        Value linear,
                                        ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> indices(sizes.size());
  for (int64_t dim = sizes.size() - 1; dim > 0; --dim) {
    if (getConstantIntValue(sizes[dim]) == 1) {
      indices[dim] = arith::ConstantIndexOp::create(builder, loc, 0);
      continue;
    }
    Value size = getValueOrCreateConstantIndexOp(builder, loc, sizes[dim]);
    indices[dim] = arith::RemUIOp::create(builder, loc, linear, size);
    linear = arith::DivUIOp::create(builder, loc, linear, size);
  }
  if (!sizes.empty())
    indices.front() = linear;
  return indices;
}

SmallVector<Value> vx::buildSharedLoop(OpBuilder &builder, Location loc,
                                       OpFoldResult total,
                                       std::optional<ThreadShare> share,
                                       ValueRange inits, SharedLoopBody body) {
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto yieldBody = [&](Value index, Value round) {
    return [&, index, round](OpBuilder &nested, Location nestedLoc, Value iv,
                             ValueRange iterArgs) {
      Value i = index ? index : iv, r = round;
      if (!r)
        r = share ? arith::DivUIOp::create(nested, nestedLoc, i,
                                           arith::ConstantIndexOp::create(
                                               nested, nestedLoc, share->count))
                        .getResult()
                  : zero;
      scf::YieldOp::create(nested, nestedLoc,
                           body(nested, nestedLoc, i, r, iterArgs));
    };
  };
  Value upper = getValueOrCreateConstantIndexOp(builder, loc, total);
  if (!share) {
    auto loop = scf::ForOp::create(builder, loc, zero, upper, one, inits,
                                   yieldBody(Value(), zero));
    return loop.getResults();
  }
  std::optional<int64_t> staticTotal = getConstantIntValue(total);
  Value count = arith::ConstantIndexOp::create(builder, loc, share->count);
  if (staticTotal && *staticTotal <= share->count) {
    // One round: thread id runs iteration id, if there is one.
    if (*staticTotal == share->count)
      return body(builder, loc, share->id, zero, inits);
    Value active = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, share->id, upper);
    auto guard = scf::IfOp::create(
        builder, loc, active,
        [&](OpBuilder &nested, Location nestedLoc) {
          scf::YieldOp::create(nested, nestedLoc,
                               body(nested, nestedLoc, share->id, zero, inits));
        },
        [&](OpBuilder &nested, Location nestedLoc) {
          scf::YieldOp::create(nested, nestedLoc, inits);
        });
    return guard.getResults();
  }
  if (staticTotal && *staticTotal % share->count == 0) {
    // Whole rounds: iteration round * count + id.
    Value rounds = arith::ConstantIndexOp::create(builder, loc,
                                                  *staticTotal / share->count);
    auto loop = scf::ForOp::create(
        builder, loc, zero, rounds, one, inits,
        [&](OpBuilder &nested, Location nestedLoc, Value round,
            ValueRange iterArgs) {
          Value base = arith::MulIOp::create(nested, nestedLoc, round, count);
          Value index =
              arith::AddIOp::create(nested, nestedLoc, base, share->id);
          scf::YieldOp::create(nested, nestedLoc,
                               body(nested, nestedLoc, index, round, iterArgs));
        });
    return loop.getResults();
  }
  auto loop = scf::ForOp::create(builder, loc, share->id, upper, count, inits,
                                 yieldBody(Value(), Value()));
  return loop.getResults();
}

void vx::buildLoopCopy(OpBuilder &builder, Location loc, Value src, Value dst,
                       std::optional<ThreadShare> share) {
  auto type = cast<MemRefType>(src.getType());
  SmallVector<OpFoldResult> sizes = memref::getMixedSizes(builder, loc, src);
  if (share) {
    // The CTA's threads copy consecutive elements: coalesced accesses.
    buildSharedLoop(
        builder, loc, getProduct(builder, loc, sizes), share, ValueRange(),
        [&](OpBuilder &nested, Location nestedLoc, Value index, Value,
            ValueRange) {
          SmallVector<Value> ivs =
              delinearizeIndex(nested, nestedLoc, index, sizes);
          Value element = memref::LoadOp::create(nested, nestedLoc, src, ivs);
          memref::StoreOp::create(nested, nestedLoc, element, dst, ivs);
          return SmallVector<Value>();
        });
    return;
  }
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  SmallVector<Value> lbs(type.getRank(), zero), steps(type.getRank(), one);
  SmallVector<Value> ubs = getValueOrCreateConstantIndexOp(builder, loc, sizes);
  scf::buildLoopNest(builder, loc, lbs, ubs, steps,
                     [&](OpBuilder &nested, Location loc, ValueRange ivs) {
                       Value element =
                           memref::LoadOp::create(nested, loc, src, ivs);
                       memref::StoreOp::create(nested, loc, element, dst, ivs);
                     });
}

namespace {

struct SpawnToLoops : public OpConversionPattern<SpawnOp> {
  SpawnToLoops(MLIRContext *context, bool reverseParallel)
      : OpConversionPattern(context), reverseParallel(reverseParallel) {}

  LogicalResult
  matchAndRewrite(SpawnOp spawn, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = spawn.getLoc();
    unsigned rank = spawn.getRank();
    SmallVector<Value> sizes;
    for (unsigned dim = 0; dim < rank; ++dim)
      sizes.push_back(spawn.getGridSize(rewriter, loc, dim));
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<unsigned> parallelDims = spawn.getParallelDims();

    SmallVector<Value> coords(rank);
    if (!parallelDims.empty()) {
      SmallVector<Value> lbs(parallelDims.size(), zero);
      SmallVector<Value> steps(parallelDims.size(), one);
      SmallVector<Value> ubs = llvm::map_to_vector(
          parallelDims, [&](unsigned dim) { return sizes[dim]; });
      auto parallel = scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps);
      rewriter.setInsertionPointToStart(parallel.getBody());
      for (auto [iv, dim] :
           llvm::zip_equal(parallel.getInductionVars(), parallelDims)) {
        coords[dim] = iv;
        if (!reverseParallel)
          continue;
        // size - 1 - iv walks the dimension from its last index to 0.
        Value last = arith::SubIOp::create(rewriter, loc, sizes[dim], one);
        coords[dim] = arith::SubIOp::create(rewriter, loc, last, iv);
      }
    }

    // One buffer per parallel point, live across the arbitrary loops.
    for (auto scratch : llvm::make_early_inc_range(
             spawn.getBody().front().getOps<ScratchOp>())) {
      auto alloca = memref::AllocaOp::create(rewriter, scratch.getLoc(),
                                             scratch.getType());
      rewriter.replaceOp(scratch, alloca);
    }

    for (unsigned dim : spawn.getArbitraryDims()) {
      auto loop = scf::ForOp::create(rewriter, loc, zero, sizes[dim], one);
      coords[dim] = loop.getInductionVar();
      rewriter.setInsertionPoint(loop.getBody()->getTerminator());
    }
    spawn.inlineBody(rewriter, coords, sizes);
    return success();
  }

  bool reverseParallel;
};

/// The reference semantics of a transfer: the copy completes at its start.
struct TransferToLoopCopy : public OpConversionPattern<TransferAsyncOp> {
  TransferToLoopCopy(const TypeConverter &converter, MLIRContext *context,
                     GetThreadShare getShare)
      : OpConversionPattern(converter, context), getShare(std::move(getShare)) {
  }

  LogicalResult
  matchAndRewrite(TransferAsyncOp transfer, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type tokenType = getTypeConverter()->convertType(transfer.getType());
    if (!tokenType)
      return failure();
    std::optional<ThreadShare> share;
    if (getShare)
      share = getShare(rewriter, transfer);
    buildLoopCopy(rewriter, transfer.getLoc(), adaptor.getSrc(),
                  adaptor.getDst(), share);
    // The token of a completed copy is never waited on: any value will do.
    if (tokenType.isInteger(1))
      rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(transfer, 1, 1);
    else
      rewriter.replaceOpWithNewOp<ub::PoisonOp>(transfer, tokenType);
    return success();
  }

  GetThreadShare getShare;
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

struct CopyToLoopCopy : public OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::CopyOp copy,
                                PatternRewriter &rewriter) const override {
    buildLoopCopy(rewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
    rewriter.eraseOp(copy);
    return success();
  }
};

struct ConvertVxToSCFPass
    : public vx::impl::ConvertVxToSCFBase<ConvertVxToSCFPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(lowerAffineInSpawns(getOperation())))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    configureVxToSCFConversionLegality(target);
    TypeConverter typeConverter;
    RewritePatternSet patterns(context);
    populateVxTransferToLoopsConversionPatterns(
        typeConverter, patterns, target, [](Operation *) { return true; });
    populateVxToSCFConversionPatterns(patterns, reverseParallel);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void vx::populateVxToSCFConversionPatterns(RewritePatternSet &patterns,
                                           bool reverseParallel) {
  patterns.add<SpawnToLoops>(patterns.getContext(), reverseParallel);
}

void vx::configureVxToSCFConversionLegality(ConversionTarget &target) {
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addIllegalDialect<VxDialect>();
}

void vx::populateVxTransferToLoopsConversionPatterns(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target, std::function<bool(Operation *)> inScope,
    GetThreadShare getShare) {
  // Once a transfer is complete at its start, a token carries no
  // information: it becomes an i1 so that loops and conditionals that carry
  // it (double buffering) still type-check, and folds away. (Device code
  // with cp.async transfers gives tokens the nvgpu token type instead; see
  // VxTransferToNVGPU.)
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
  patterns.add<TransferToLoopCopy>(typeConverter, patterns.getContext(),
                                   std::move(getShare));
  patterns.add<EraseAwait>(typeConverter, patterns.getContext());
  target.addDynamicallyLegalOp<TransferAsyncOp, AwaitOp>(
      [inScope](Operation *op) { return !inScope(op); });
}

LogicalResult vx::lowerAffineInSpawns(Operation *root) {
  MLIRContext *context = root->getContext();
  ConversionTarget target(*context);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addDynamicallyLegalDialect<affine::AffineDialect>(
      [](Operation *op) { return !op->getParentOfType<SpawnOp>(); });
  RewritePatternSet patterns(context);
  populateAffineToStdConversionPatterns(patterns);
  populateAffineToVectorConversionPatterns(patterns);
  return applyPartialConversion(root, target, std::move(patterns));
}

bool vx::hasAffineParallel(SpawnOp spawn) {
  return spawn.getBody()
      .walk([](affine::AffineParallelOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

void vx::populateMemRefCopyToLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<CopyToLoopCopy>(patterns.getContext());
}

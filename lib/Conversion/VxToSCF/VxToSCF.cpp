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
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_CONVERTVXTOSCF
#include "Vx/Conversion/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

/// Copies `src` into `dst` (same shape) element by element with an scf.for
/// nest, which runs anywhere, including device code and strided views.
static void buildLoopCopy(OpBuilder &builder, Location loc, Value src,
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
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransferAsyncOp transfer, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type tokenType = getTypeConverter()->convertType(transfer.getType());
    if (!tokenType)
      return failure();
    buildLoopCopy(rewriter, transfer.getLoc(), adaptor.getSrc(),
                  adaptor.getDst());
    // The token of a completed copy is never waited on: any value will do.
    if (tokenType.isInteger(1))
      rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(transfer, 1, 1);
    else
      rewriter.replaceOpWithNewOp<ub::PoisonOp>(transfer, tokenType);
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
    ConversionTarget &target, std::function<bool(Operation *)> inScope) {
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
  patterns.add<TransferToLoopCopy, EraseAwait>(typeConverter,
                                               patterns.getContext());
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

void vx::populateMemRefCopyToLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<CopyToLoopCopy>(patterns.getContext());
}

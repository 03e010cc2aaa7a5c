//===- VxToSCF.cpp - Lower vx.spawn to scf loops --------------------------===//
//
// A spawn becomes one scf.parallel over its parallel dimensions around an
// scf.for nest over its arbitrary dimensions, so that for every parallel
// point the arbitrary instances run one at a time in lexicographic order.
// Scratch buffers are allocated between the two, once per parallel point.
//
//===----------------------------------------------------------------------===//

#include "Vx/Conversion.h"
#include "Vx/Passes.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_CONVERTVXTOSCF
#include "Vx/VxPasses.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

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

    SmallVector<unsigned> parallelDims, arbitraryDims;
    for (unsigned dim = 0; dim < rank; ++dim)
      (spawn.getDimSemantics(dim) == DimensionSemantics::parallel
           ? parallelDims
           : arbitraryDims)
          .push_back(dim);

    SmallVector<Value> coords(rank);
    if (!parallelDims.empty()) {
      SmallVector<Value> lbs(parallelDims.size(), zero);
      SmallVector<Value> steps(parallelDims.size(), one);
      SmallVector<Value> ubs = llvm::map_to_vector(
          parallelDims, [&](unsigned dim) { return sizes[dim]; });
      auto parallel = scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps);
      if (spawn.isDeviceSpawn())
        parallel->setAttr(kTopologyAttrName, spawn.getTopologyAttr());
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
    Block &body = spawn.getBody().front();
    for (auto scratch : llvm::make_early_inc_range(body.getOps<ScratchOp>())) {
      auto alloca = memref::AllocaOp::create(rewriter, scratch.getLoc(),
                                             scratch.getType());
      rewriter.replaceOp(scratch, alloca);
    }

    for (unsigned dim : arbitraryDims) {
      auto loop = scf::ForOp::create(rewriter, loc, zero, sizes[dim], one);
      if (spawn.isDeviceSpawn() && parallelDims.empty() &&
          dim == arbitraryDims.front())
        loop->setAttr(kTopologyAttrName, spawn.getTopologyAttr());
      coords[dim] = loop.getInductionVar();
      rewriter.setInsertionPoint(loop.getBody()->getTerminator());
    }

    Block *dest = rewriter.getInsertionBlock();
    Block::iterator before = rewriter.getInsertionPoint();
    replaceGridQueries(rewriter, spawn, coords, sizes);
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(&body, dest, before);
    rewriter.eraseOp(spawn);
    return success();
  }

  bool reverseParallel;
};

struct ConvertVxToSCFPass
    : public vx::impl::ConvertVxToSCFBase<ConvertVxToSCFPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalDialect<VxDialect>();
    TypeConverter typeConverter;
    RewritePatternSet patterns(context);
    populateSynchronousTransferPatterns(typeConverter, patterns, target,
                                        [](Operation *) { return true; });
    patterns.add<SpawnToLoops>(context, reverseParallel);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

//===- PrepareOpenMP.cpp - Nested and reducing loops run sequentially -----===//
//
// convert-scf-to-openmp turns every scf.parallel into an OpenMP region and
// accepts only reductions that are one arithmetic op. A spawn's parallel
// dimensions are the loops worth threads; loops inside them run in their
// instance, and a reducing loop is correct sequentially: both become scf.for
// nests here, with SCFToControlFlow's own lowering of scf.parallel.
//
//===----------------------------------------------------------------------===//

#include "Vx/Transforms/Passes.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXPREPAREOPENMP
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

namespace {
struct VxPrepareOpenMPPass
    : public vx::impl::VxPrepareOpenMPBase<VxPrepareOpenMPPass> {
  using Base::Base;

  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalOp<scf::ParallelOp>([](scf::ParallelOp loop) {
      return loop.getNumResults() == 0 &&
             !loop->getParentOfType<scf::ParallelOp>();
    });
    // Of the scf-to-cf patterns only the one for scf.parallel applies: the
    // other scf ops are legal here.
    RewritePatternSet patterns(&getContext());
    populateSCFToControlFlowConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

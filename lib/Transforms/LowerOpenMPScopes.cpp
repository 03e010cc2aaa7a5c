//===- LowerOpenMPScopes.cpp - Allocation scopes of OpenMP loop bodies ----===//
//
// convert-scf-to-openmp wraps every loop body in a memref.alloca_scope, a
// single-block region that convert-scf-to-cf would break; lowering all
// memref ops at that point would instead put blocks into the scf regions
// still inside. Only those scopes are lowered here.
//
//===----------------------------------------------------------------------===//

#include "Vx/Transforms/Passes.h"

#include "mlir/Analysis/DataLayoutAnalysis.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXLOWEROPENMPSCOPES
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

namespace {
struct VxLowerOpenMPScopesPass
    : public vx::impl::VxLowerOpenMPScopesBase<VxLowerOpenMPScopesPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    LowerToLLVMOptions options(
        context,
        getAnalysis<DataLayoutAnalysis>().getAtOrAbove(getOperation()));
    LLVMTypeConverter typeConverter(context, options);
    ConversionTarget target(*context);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalOp<memref::AllocaScopeOp>(
        [](memref::AllocaScopeOp scope) {
          return !isa<omp::OpenMPDialect>(scope->getParentOp()->getDialect());
        });
    RewritePatternSet patterns(context);
    populateFinalizeMemRefToLLVMConversionPatterns(typeConverter, patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns)))) {
      signalPassFailure();
      return;
    }
    // The scopes' branches (in the OpenMP ops' regions) as cf.br: later
    // block merging may give them operands of types that only
    // convert-cf-to-llvm converts.
    getOperation()->walk([](LLVM::BrOp branch) {
      if (!isa<omp::OpenMPDialect>(branch->getParentOp()->getDialect()))
        return;
      OpBuilder builder(branch);
      cf::BranchOp::create(builder, branch.getLoc(), branch.getDest(),
                           branch.getDestOperands());
      branch.erase();
    });
  }
};
} // namespace

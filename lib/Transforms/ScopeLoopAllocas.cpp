//===- ScopeLoopAllocas.cpp - Release loop allocations per iteration ------===//
//
// Loops are automatic allocation scopes, but the lowering of scf to control
// flow turns an alloca in a loop body into one that grows the stack at
// every iteration. A stack save at the start of such a body and a restore
// at its end keep the scope through that lowering. (A memref.alloca_scope
// cannot: its lowering splits the block around it, which a loop body must
// stay, and loops lowered inside it give it blocks it may not have.)
//
//===----------------------------------------------------------------------===//

#include "Vx/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXSCOPELOOPALLOCAS
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

/// Whether the body of `loop` holds an alloca whose allocation scope is the
/// loop (not a nested scope).
static bool allocatesPerIteration(Operation *loop) {
  WalkResult result = loop->getRegion(0).walk([&](memref::AllocaOp alloca) {
    return alloca->getParentWithTrait<OpTrait::AutomaticAllocationScope>() ==
                   loop
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return result.wasInterrupted();
}

namespace {
struct VxScopeLoopAllocasPass
    : public vx::impl::VxScopeLoopAllocasBase<VxScopeLoopAllocasPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](Operation *loop) {
      if (!isa<scf::ForOp, scf::ParallelOp, scf::ForallOp>(loop) ||
          !allocatesPerIteration(loop))
        return;
      Block &body = loop->getRegion(0).front();
      OpBuilder builder = OpBuilder::atBlockBegin(&body);
      Location loc = loop->getLoc();
      Value stack = LLVM::StackSaveOp::create(
          builder, loc, LLVM::LLVMPointerType::get(loop->getContext()));
      builder.setInsertionPoint(body.getTerminator());
      LLVM::StackRestoreOp::create(builder, loc, stack);
    });
  }
};
} // namespace

//===- LoopAllocationScopes.cpp - Free each iteration's stack allocations -===//
//
// scf loops are allocation scopes, but their lowering to control flow keeps
// a body's allocas alive until the function returns. Saving the stack
// pointer at the start of the body and restoring it before the terminator
// gives each iteration its own stack frame, as memref.alloca_scope does.
//
//===----------------------------------------------------------------------===//

#include "Vx/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXLOOPALLOCATIONSCOPES
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

/// Whether `op` allocates memory that its allocation scope frees.
static bool allocatesInScope(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects<MemoryEffects::Allocate>(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<SideEffects::AutomaticAllocationScopeResource>(e.getResource());
  });
}

/// Whether `block` allocates in its own scope: directly or in nested ops
/// that are not allocation scopes themselves.
static bool allocatesInScope(Block &block) {
  for (Operation &op : block) {
    WalkResult result = op.walk<WalkOrder::PreOrder>([&](Operation *nested) {
      if (nested->hasTrait<OpTrait::AutomaticAllocationScope>())
        return WalkResult::skip();
      return allocatesInScope(nested) ? WalkResult::interrupt()
                                      : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return true;
  }
  return false;
}

namespace {
struct VxLoopAllocationScopesPass
    : public vx::impl::VxLoopAllocationScopesBase<VxLoopAllocationScopesPass> {
  using Base::Base;

  void runOnOperation() override {
    auto pointerType = LLVM::LLVMPointerType::get(&getContext());
    getOperation()->walk([&](Operation *loop) {
      if (!isa<scf::ForOp, scf::ParallelOp, scf::ForallOp, scf::WhileOp>(loop))
        return;
      for (Region &region : loop->getRegions()) {
        if (!region.hasOneBlock() || !allocatesInScope(region.front()))
          continue;
        Block &body = region.front();
        OpBuilder builder = OpBuilder::atBlockBegin(&body);
        Value stack = LLVM::StackSaveOp::create(builder, loop->getLoc(),
                                                pointerType);
        builder.setInsertionPoint(body.getTerminator());
        LLVM::StackRestoreOp::create(builder, loop->getLoc(), stack);
      }
    });
  }
};
} // namespace

//===- NoAliasKernelArguments.cpp - The aliasing contract on the device ---===//
//
// Kernel memref arguments do not alias each other: marking their pointers
// noalias (and readonly where the kernel never writes them) lets the NVPTX
// backend load read-only inputs with ld.global.nc, as nvcc does for
// __restrict__. The GPU lowering expands a memref into its descriptor and
// drops argument attributes on the way, so the positions are recorded on
// the gpu.func and applied to the llvm.func it becomes.
//
//===----------------------------------------------------------------------===//

#include "Vx/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXNOALIASKERNELARGUMENTS
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

static constexpr StringLiteral kNoAlias = "vx.noalias_arguments";
static constexpr StringLiteral kReadOnly = "vx.readonly_arguments";
static constexpr StringLiteral kCount = "vx.lowered_argument_count";

/// Whether anything may write through `memref` or a view of it: a write
/// effect on it, or a use the walk cannot follow.
static bool mayBeWritten(Value memref) {
  SmallVector<Value> worklist{memref};
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (OpOperand &use : current.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == current) {
        worklist.push_back(view.getViewDest());
        continue;
      }
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects)
        return true;
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffectsOnValue(current, instances);
      if (llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
            return isa<MemoryEffects::Write, MemoryEffects::Free>(
                e.getEffect());
          }))
        return true;
      if (instances.empty() && !isa<memref::DimOp>(user) &&
          user->getNumResults() != 0 &&
          llvm::any_of(user->getResultTypes(), llvm::IsaPred<BaseMemRefType>))
        return true; // A memref escaping through another op.
    }
  }
  return false;
}

namespace {

struct VxNoAliasKernelArgumentsPass
    : public vx::impl::VxNoAliasKernelArgumentsBase<
          VxNoAliasKernelArgumentsPass> {
  void runOnOperation() override {
    getOperation()->walk([](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel())
        return;
      SmallVector<int64_t> noAlias, readOnly;
      int64_t position = 0;
      for (BlockArgument argument : kernel.getArguments()) {
        auto type = dyn_cast<MemRefType>(argument.getType());
        if (!type) {
          position += isa<UnrankedMemRefType>(argument.getType()) ? 2 : 1;
          continue;
        }
        // Allocated pointer, aligned pointer, offset, sizes, strides.
        noAlias.push_back(position + 1);
        if (!mayBeWritten(argument))
          readOnly.push_back(position + 1);
        position += 3 + 2 * type.getRank();
      }
      Builder builder(kernel);
      kernel->setAttr(kNoAlias, builder.getDenseI64ArrayAttr(noAlias));
      kernel->setAttr(kReadOnly, builder.getDenseI64ArrayAttr(readOnly));
      kernel->setAttr(kCount, builder.getI64IntegerAttr(position));
    });
    getOperation()->walk([](LLVM::LLVMFuncOp kernel) {
      auto noAlias = kernel->getAttrOfType<DenseI64ArrayAttr>(kNoAlias);
      auto readOnly = kernel->getAttrOfType<DenseI64ArrayAttr>(kReadOnly);
      auto count = kernel->getAttrOfType<IntegerAttr>(kCount);
      if (!noAlias || !readOnly || !count)
        return;
      // Another calling convention: leave the arguments alone.
      if (count.getInt() == int64_t(kernel.getNumArguments())) {
        UnitAttr unit = UnitAttr::get(kernel.getContext());
        for (int64_t position : noAlias.asArrayRef())
          kernel.setArgAttr(position, LLVM::LLVMDialect::getNoAliasAttrName(),
                            unit);
        for (int64_t position : readOnly.asArrayRef())
          kernel.setArgAttr(position, LLVM::LLVMDialect::getReadonlyAttrName(),
                            unit);
      }
      kernel->removeAttr(kNoAlias);
      kernel->removeAttr(kReadOnly);
      kernel->removeAttr(kCount);
    });
  }
};

} // namespace

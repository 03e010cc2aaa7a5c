//===- ExternDynamicSharedMemory.cpp - Dynamic smem as .extern .shared ----===//
//
// A kernel's dynamic shared memory must be the extern array that ptxas
// places after every static .shared symbol; upstream's lowering makes it an
// internal zero-size global, which NVPTX prints as a one-byte static
// variable that the static symbols follow (and the launch's dynamic bytes
// overwrite). See the pass description in Vx/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Vx/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXEXTERNDYNAMICSHAREDMEMORY
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

/// Whether `global` is the symbol of dynamic shared memory: a zero-size
/// array in the shared address space, without an initializer.
static bool isDynamicSharedMemory(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return global.getAddrSpace() ==
             static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) &&
         array && array.getNumElements() == 0 && !global.getValueOrNull() &&
         !global.getInitializerBlock();
}

namespace {
struct VxExternDynamicSharedMemoryPass
    : public vx::impl::VxExternDynamicSharedMemoryBase<
          VxExternDynamicSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (alignment < 1 || !llvm::isPowerOf2_64(alignment)) {
      getOperation()->emitError("vx-extern-dynamic-shared-memory: alignment "
                                "must be a power of 2, got ")
          << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    getOperation()->walk([&](LLVM::GlobalOp global) {
      if (!isDynamicSharedMemory(global))
        return;
      global.setLinkage(LLVM::Linkage::External);
      uint64_t current = global.getAlignment().value_or(1);
      global.setAlignment(
          std::max<uint64_t>(current, static_cast<uint64_t>(alignment)));
    });
  }
};
} // namespace

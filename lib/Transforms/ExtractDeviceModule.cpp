//===- ExtractDeviceModule.cpp - Keep the device code of one gpu.module ---===//
//
// mlir-translate translates a whole module, host and device code alike; this
// pass leaves only one gpu.module's contents, with its target triple, so
// that the NVVM stage can be translated to LLVM IR and compiled by llc.
//
//===----------------------------------------------------------------------===//

#include "Vx/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXEXTRACTDEVICEMODULE
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

namespace {
struct VxExtractDeviceModulePass
    : public vx::impl::VxExtractDeviceModuleBase<VxExtractDeviceModulePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> candidates;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
      if (moduleName.empty() || gpuModule.getName() == moduleName)
        candidates.push_back(gpuModule);
    if (candidates.size() != 1) {
      // About the pass's input as a whole: no op attached (which would print
      // the module in a note).
      InFlightDiagnostic diag =
          emitError(module.getLoc(), "vx-extract-device-module: ");
      if (!moduleName.empty())
        diag << "no gpu.module named '" << moduleName << "'";
      else if (candidates.empty())
        diag << "the module has no gpu.module";
      else
        diag << "the module has " << candidates.size()
             << " gpu.modules; choose one with 'name'";
      return signalPassFailure();
    }
    gpu::GPUModuleOp device = candidates.front();
    if (auto targets = device.getTargetsAttr())
      for (Attribute target : targets)
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
          module->setAttr(LLVM::LLVMDialect::getTargetTripleAttrName(),
                          StringAttr::get(&getContext(), nvvm.getTriple()));
    for (NamedAttribute attr : device->getDiscardableAttrs())
      module->setAttr(attr.getName(), attr.getValue());

    Block *body = module.getBody();
    SmallVector<Operation *> hostOps = llvm::map_to_vector(
        body->getOperations(), [](Operation &op) { return &op; });
    body->getOperations().splice(body->end(),
                                 device.getBody()->getOperations());
    for (Operation *op : hostOps)
      op->dropAllReferences();
    for (Operation *op : llvm::reverse(hostOps))
      op->erase();
  }
};
} // namespace

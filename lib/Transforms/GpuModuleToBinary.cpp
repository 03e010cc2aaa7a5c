//===- GpuModuleToBinary.cpp - Serialize GPU modules in parallel ----------===//
//
// Upstream's gpu-module-to-binary, with the serialization of the modules (the
// NVPTX compile and ptxas, most of --vx-to-ptx's time on many spawns) spread
// over the context's threads.
//
//===----------------------------------------------------------------------===//

#include "Vx/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXGPUMODULETOBINARY
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

/// The objects of `module` for each of its targets, or failure with upstream's
/// diagnostics. Safe on several modules at once: NVVM's serializer initializes
/// LLVM's NVPTX target under a call_once, translates to LLVM IR in an LLVM
/// context of its own, runs ptxas as a subprocess on temporary files of its
/// own, and changes only `module` (the compile times it records on it).
static FailureOr<ArrayAttr>
serializeTargets(gpu::GPUModuleOp module, const gpu::TargetOptions &options) {
  ArrayAttr targets = module.getTargetsAttr();
  if (!targets)
    return module.emitError("the module has no target attributes");
  SmallVector<Attribute> objects;
  for (Attribute targetAttr : targets) {
    auto target = cast<gpu::TargetAttrInterface>(targetAttr);
    std::optional<SmallVector<char, 0>> serialized =
        target.serializeToObject(module, options);
    if (!serialized)
      return module.emitError(
          "An error happened while serializing the module.");
    Attribute object = target.createObject(module, *serialized, options);
    if (!object)
      return module.emitError("An error happened while creating the object.");
    objects.push_back(object);
  }
  return ArrayAttr::get(module.getContext(), objects);
}

namespace {
struct VxGpuModuleToBinaryPass
    : public vx::impl::VxGpuModuleToBinaryBase<VxGpuModuleToBinaryPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    std::optional<gpu::CompilationTarget> format =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(
            compilationTarget)
            .Cases({"offloading", "llvm"}, gpu::CompilationTarget::Offload)
            .Cases({"assembly", "isa"}, gpu::CompilationTarget::Assembly)
            .Cases({"binary", "bin"}, gpu::CompilationTarget::Binary)
            .Cases({"fatbinary", "fatbin"}, gpu::CompilationTarget::Fatbin)
            .Default(std::nullopt);
    if (!format) {
      root->emitError() << "Invalid format specified.";
      return signalPassFailure();
    }

    SmallVector<gpu::GPUModuleOp> modules;
    for (Region &region : root->getRegions())
      for (Block &block : region)
        llvm::append_range(modules, block.getOps<gpu::GPUModuleOp>());
    if (modules.empty())
      return;

    // Built before the threads start: upstream's lazy builder is not safe to
    // call from several threads.
    std::optional<SymbolTable> symbolTable;
    if (Operation *tableOp = SymbolTable::getNearestSymbolTable(root))
      symbolTable.emplace(tableOp);
    auto getSymbolTable = [&]() -> SymbolTable * {
      return symbolTable ? &*symbolTable : nullptr;
    };
    SmallVector<Attribute> libraries;
    for (const std::string &path : linkFiles)
      libraries.push_back(StringAttr::get(&getContext(), path));
    gpu::TargetOptions options(toolkitPath, libraries, cmdOptions, elfSection,
                               *format, getSymbolTable);

    // Every module is serialized, also after a failure, so that the errors
    // do not depend on which thread reached which module first; a module
    // that fails leaves a null entry.
    SmallVector<ArrayAttr> objects(modules.size());
    parallelFor(&getContext(), 0, modules.size(), [&](size_t i) {
      FailureOr<ArrayAttr> moduleObjects =
          serializeTargets(modules[i], options);
      if (succeeded(moduleObjects))
        objects[i] = *moduleObjects;
    });
    if (llvm::is_contained(objects, ArrayAttr()))
      return signalPassFailure();

    // On this thread, in the order of the modules, as upstream does.
    OpBuilder builder(&getContext());
    for (auto [module, moduleObjects] : llvm::zip_equal(modules, objects)) {
      auto handler =
          dyn_cast_or_null<gpu::OffloadingLLVMTranslationAttrInterface>(
              module.getOffloadingHandlerAttr());
      builder.setInsertionPointAfter(module);
      gpu::BinaryOp::create(builder, module.getLoc(), module.getName(), handler,
                            moduleObjects);
      module->erase();
    }
  }
};
} // namespace

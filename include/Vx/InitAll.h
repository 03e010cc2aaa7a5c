//===- InitAll.h - What the Vx tools register -------------------*- C++ -*-===//
//
// vx-opt, the plugin and the Python module see the same dialects, passes and
// pipelines, so that a pipeline that runs in one runs in the others.
//
//===----------------------------------------------------------------------===//

#ifndef VX_INITALL_H
#define VX_INITALL_H

#include "Vx/Conversion/Passes.h"
#include "Vx/Pipelines/Pipelines.h"
#include "Vx/Transforms/Passes.h"
#include "Vx/ValueBoundsOpInterfaceImpl.h"
#include "Vx/VxDialect.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

namespace mlir {
namespace vx {

/// The vx dialect and its interface implementations.
inline void registerVxDialect(DialectRegistry &registry) {
  registry.insert<VxDialect>();
  registerValueBoundsOpInterfaceExternalModels(registry);
}

/// Every vx pass, conversion and pipeline.
inline void registerAllVxPasses() {
  registerVxPasses();
  registerVxConversionPasses();
  registerVxPipelines();
}

/// Every upstream pass and every vx pass and pipeline, in the global registry.
inline void registerAllPassesForVxTools() {
  registerAllPasses();
  registerAllVxPasses();
}

/// Every upstream dialect, extension and LLVM IR translation (gpu-module-to-
/// binary and vx.compile translate in-process), plus vx.
inline void registerAllDialectsForVxTools(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registerVxDialect(registry);
}

} // namespace vx
} // namespace mlir

#endif // VX_INITALL_H

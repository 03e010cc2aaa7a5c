//===- InitAll.h - What the Vx tools register -------------------*- C++ -*-===//
//
// vx-opt and the Python module see the same dialects, passes and
// translations, so that a pipeline that runs in one runs in the other.
//
//===----------------------------------------------------------------------===//

#ifndef VX_INITALL_H
#define VX_INITALL_H

#include "Vx/Passes.h"
#include "Vx/VxDialect.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

namespace mlir {
namespace vx {

/// Every upstream pass and every vx pass and pipeline, in the global registry.
inline void registerAllPassesForVxTools() {
  registerAllPasses();
  registerAllVxPasses();
}

/// Every upstream dialect, extension and LLVM IR translation (gpu-module-to-
/// binary and the ExecutionEngine translate in-process), plus vx.
inline void registerAllDialectsForVxTools(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<VxDialect>();
}

} // namespace vx
} // namespace mlir

#endif // VX_INITALL_H

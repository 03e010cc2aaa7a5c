//===- Passes.h - Vx transforms and analyses --------------------*- C++ -*-===//

#ifndef VX_TRANSFORMS_PASSES_H
#define VX_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
namespace vx {

#define GEN_PASS_DECL
#include "Vx/Transforms/Passes.h.inc"

/// Whether `order` names a thread order of the PTX simulator: `forward`,
/// `reverse`, `shuffle` or `shuffle:SEED` with a decimal SEED.
bool isSimOrder(StringRef order);

#define GEN_PASS_REGISTRATION
#include "Vx/Transforms/Passes.h.inc"

} // namespace vx
} // namespace mlir

#endif // VX_TRANSFORMS_PASSES_H

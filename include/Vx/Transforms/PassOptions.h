//===- PassOptions.h - Reporting invalid pass options -----------*- C++ -*-===//
//
// One way for every pass and pipeline to refuse an option value.
//
//===----------------------------------------------------------------------===//

#ifndef VX_TRANSFORMS_PASSOPTIONS_H
#define VX_TRANSFORMS_PASSOPTIONS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace mlir {
namespace vx {

/// Reports `why` an option of `pass` is invalid, if it is: `pass: why` at
/// `root`'s location. Option errors are about the pass, not an op: none is
/// attached (a note would print the whole module).
inline LogicalResult checkPassOption(Operation *root, StringRef pass,
                                     const std::optional<std::string> &why) {
  if (!why)
    return success();
  return emitError(root->getLoc()) << pass << ": " << *why;
}

} // namespace vx
} // namespace mlir

#endif // VX_TRANSFORMS_PASSOPTIONS_H

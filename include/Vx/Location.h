//===- Location.h - Locations as users read them ----------------*- C++ -*-===//
//
// One `file:line:col` formatter for every message that names a place:
// diagnostics in Python, race reports, run-time stops of the GPU mapping.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LOCATION_H
#define VX_LOCATION_H

#include "mlir/IR/Location.h"

#include <optional>
#include <string>

namespace mlir {
namespace vx {

/// `file:line:col` of the first file location in `loc` (a call site's
/// callee before its caller, the first part of a fused location: the
/// Python tracer's line inside a helper), or nothing.
std::optional<std::string> getFileLineCol(Location loc);

/// getFileLineCol(loc), else `loc` as MLIR prints it.
std::string formatLocation(Location loc);

} // namespace vx
} // namespace mlir

#endif // VX_LOCATION_H

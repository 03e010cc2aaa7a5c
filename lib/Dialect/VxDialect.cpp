//===- VxDialect.cpp - Vx dialect -----------------------------------------===//

#include "Vx/VxDialect.h"
#include "Vx/Target/Limits.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vx;

#include "Vx/VxOpsDialect.cpp.inc"

#include "Vx/VxEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Vx/VxAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Vx/VxOpsTypes.cpp.inc"

void VxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Vx/VxOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

void VxDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Vx/VxOpsTypes.cpp.inc"
      >();
}

void VxDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Vx/VxAttrs.cpp.inc"
      >();
}

LogicalResult
LaunchPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       StringAttr kernel, int64_t threads, bool cooperative,
                       bool mapped, int64_t stages) {
  if (!kernel || kernel.getValue().empty())
    return emitError() << "launch plan needs a kernel name";
  if (threads < 1 || threads > kMaxThreadsPerBlock)
    return emitError() << "launch plan threads must be between 1 and "
                       << kMaxThreadsPerBlock << ", got " << threads;
  if (stages < 0)
    return emitError() << "launch plan stages must be at least 0 (not yet "
                          "decided), got "
                       << stages;
  return success();
}

LaunchPlanAttr LaunchPlanAttr::withMapped() const {
  return get(getContext(), getKernel(), getThreads(), getCooperative(),
             /*mapped=*/true, getStages());
}

LaunchPlanAttr LaunchPlanAttr::withStages(int64_t stages) const {
  return get(getContext(), getKernel(), getThreads(), getCooperative(),
             getMapped(), stages);
}

LogicalResult VxDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == LaunchPlanAttr::kAttrName) {
    auto spawn = dyn_cast<SpawnOp>(op);
    if (!isa<LaunchPlanAttr>(attribute.getValue()) || !spawn ||
        !spawn.isDeviceSpawn())
      return op->emitError("'")
             << name << "' must be a #vx.launch_plan on a device vx.spawn";
    return success();
  }
  if (name == kCopyThreadsAttrName) {
    auto threads = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!threads || !isa<TransferAsyncOp>(op) || threads.getInt() < 1 ||
        threads.getInt() > kMaxThreadsPerBlock)
      return op->emitError("'")
             << name << "' must be an integer between 1 and "
             << kMaxThreadsPerBlock << " on a vx.transfer_async";
    return success();
  }
  // The other vx.* attributes are private to the passes that set them.
  return success();
}

Operation *VxDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  // Folded grid sizes are index constants.
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===- VxDialect.cpp - Vx dialect -----------------------------------------===//

#include "Vx/VxDialect.h"
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

Operation *VxDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  // Folded grid sizes are index constants.
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

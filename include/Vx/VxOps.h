//===- VxOps.h - Vx types, attributes and operations ------------*- C++ -*-===//

#ifndef VX_VXOPS_H
#define VX_VXOPS_H

#include "Vx/VxDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Vx/VxEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Vx/VxAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Vx/VxOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "Vx/VxOps.h.inc"

#endif // VX_VXOPS_H

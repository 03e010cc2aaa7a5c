//===- VxDialect.h - Vx dialect ---------------------------------*- C++ -*-===//

#ifndef VX_VXDIALECT_H
#define VX_VXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "Vx/VxOpsDialect.h.inc"

#endif // VX_VXDIALECT_H

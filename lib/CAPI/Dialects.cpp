//===- Dialects.cpp - The Vx C API ----------------------------------------===//

#include "Vx-c/Dialects.h"
#include "Vx/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Registration.h"

using namespace mlir;
using namespace mlir::vx;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Vx, vx, VxDialect)

void mlirVxRegisterDialect(MlirDialectRegistry registry) {
  registerVxDialect(*unwrap(registry));
}

void mlirRegisterVxPipelines(void) { registerVxPipelines(); }

void mlirRegisterAllVxPasses(void) { registerAllVxPasses(); }

#include "Vx/Conversion/Passes.capi.cpp.inc"
#include "Vx/Transforms/Passes.capi.cpp.inc"

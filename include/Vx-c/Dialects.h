//===- Dialects.h - The Vx C API ------------------------------------*- C
//-*-===//
//
// The vx dialect, its passes and its pipelines for bindings in languages
// other than C++, like mlir-c/Dialect/ for upstream dialects. The library
// libMLIRVxCAPI.so also carries MLIR's core C API (mlir-c/IR.h, Pass.h,
// RegisterEverything.h) over libMLIR.so.
//
//===----------------------------------------------------------------------===//

#ifndef VX_C_DIALECTS_H
#define VX_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The vx dialect alone: `mlirGetDialectHandle__vx__()`.
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Vx, vx);

/// Inserts the vx dialect into `registry` with the interface implementations
/// that vx-opt attaches to it (ValueBoundsOpInterface for `vx.grid_index` and
/// `vx.grid_dim`).
MLIR_CAPI_EXPORTED void mlirVxRegisterDialect(MlirDialectRegistry registry);

/// Registers the named pipelines vx-to-scf, vx-to-gpu, vx-to-nvvm, vx-to-ptx
/// and vx-to-llvm for textual pass pipelines (mlirParsePassPipeline).
MLIR_CAPI_EXPORTED void mlirRegisterVxPipelines(void);

/// Registers every vx pass, conversion and pipeline, as vx-opt has them.
MLIR_CAPI_EXPORTED void mlirRegisterAllVxPasses(void);

#ifdef __cplusplus
}
#endif

// mlirRegisterVxPasses, mlirRegisterVxConversionPasses, and a create and a
// register function per pass, generated from the passes' .td files.
#include "Vx/Conversion/Passes.capi.h.inc"
#include "Vx/Transforms/Passes.capi.h.inc"

#endif // VX_C_DIALECTS_H

//===- vx-capi-test.c - The Vx C API from C -------------------------------===//
//
// Loads the vx dialect through its handle, parses a spawn, and lowers it with
// a vx pipeline and a vx pass registered through the C API.
//
//===----------------------------------------------------------------------===//

// RUN: vx-capi-test 2>&1 | FileCheck %s

#include "Vx-c/Dialects.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"

#include <stdio.h>

static const char *kSpawn =
    "func.func @iota(%out: memref<8xindex>) {\n"
    "  vx.spawn on host grid [8] semantics [parallel] {\n"
    "    %i = vx.grid_index 0\n"
    "    memref.store %i, %out[%i] : memref<8xindex>\n"
    "  }\n"
    "  return\n"
    "}\n";

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/// Parses kSpawn in `context`, runs `pipeline` on it and prints the result.
static int lower(MlirContext context, const char *pipeline) {
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kSpawn));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "could not parse the spawn\n");
    return 1;
  }
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), printToStdout, NULL);
  int status = 1;
  if (mlirLogicalResultIsSuccess(parsed) &&
      mlirLogicalResultIsSuccess(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)))) {
    mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
    printf("\n");
    status = 0;
  }
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  return status;
}

int main(void) {
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);

  // The handle loads the dialect by its namespace.
  MlirDialect vx = mlirDialectHandleLoadDialect(mlirGetDialectHandle__vx__(),
                                                context);
  MlirStringRef ns = mlirDialectGetNamespace(vx);
  // CHECK: loaded dialect: vx
  printf("loaded dialect: %.*s\n", (int)ns.length, ns.data);

  // Before registration, the pipeline name is unknown.
  // CHECK: 'vx-to-scf' does not refer to a registered pass or pass pipeline
  if (lower(context, "builtin.module(vx-to-scf)") == 0)
    return 1;

  // CHECK-LABEL: func.func @iota
  // CHECK: scf.parallel
  // CHECK-NOT: vx.
  // CHECK: return
  mlirRegisterVxPipelines();
  if (lower(context, "builtin.module(vx-to-scf)") != 0)
    return 1;

  // A pass from the generated C API, registered by itself, with an option:
  // the index runs from the last instance down.
  // CHECK-LABEL: func.func @iota
  // CHECK: scf.parallel (%[[I:.*]]) =
  // CHECK: %[[LAST:.*]] = arith.subi %c8, %c1
  // CHECK: %[[J:.*]] = arith.subi %[[LAST]], %[[I]]
  // CHECK: memref.store %[[J]]
  mlirRegisterVxConversionConvertVxToSCF();
  if (lower(context,
            "builtin.module(convert-vx-to-scf{reverse-parallel=true})") != 0)
    return 1;

  mlirContextDestroy(context);

  // mlirVxRegisterDialect puts vx in a registry, as vx-opt registers it.
  MlirStringRef vxName = mlirStringRefCreateFromCString("vx");
  MlirContext plain = mlirContextCreate();
  MlirDialectRegistry withVx = mlirDialectRegistryCreate();
  mlirVxRegisterDialect(withVx);
  MlirContext other = mlirContextCreateWithRegistry(withVx, false);
  mlirDialectRegistryDestroy(withVx);
  // CHECK: vx without registration: 0, from mlirVxRegisterDialect: 1
  printf("vx without registration: %d, from mlirVxRegisterDialect: %d\n",
         !mlirDialectIsNull(mlirContextGetOrLoadDialect(plain, vxName)),
         !mlirDialectIsNull(mlirContextGetOrLoadDialect(other, vxName)));
  mlirContextDestroy(plain);
  mlirContextDestroy(other);
  return 0;
}

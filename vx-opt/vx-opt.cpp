//===- vx-opt.cpp - The Vx optimizer driver -------------------------------===//

#include "Vx/Passes.h"
#include "Vx/VxDialect.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::vx::registerAllVxPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates device code to LLVM IR in-process.
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::vx::VxDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Vx optimizer driver\n", registry));
}

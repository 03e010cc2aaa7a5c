//===- vx-opt.cpp - The Vx optimizer driver -------------------------------===//

#include "Vx/Passes.h"
#include "Vx/VxDialect.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::vx::registerAllVxPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::vx::VxDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Vx optimizer driver\n", registry));
}

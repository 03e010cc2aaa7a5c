//===- vx-opt.cpp - The Vx optimizer driver -------------------------------===//

#include "Vx/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::vx::registerAllPassesForVxTools();
  mlir::DialectRegistry registry;
  mlir::vx::registerAllDialectsForVxTools(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Vx optimizer driver\n", registry));
}

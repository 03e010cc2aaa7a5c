//===- vx-opt.cpp - The Vx optimizer driver -------------------------------===//

#include "Vx/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir::vx::test {
void registerTestThreadDependencesPass();
} // namespace mlir::vx::test

int main(int argc, char **argv) {
  mlir::vx::registerAllPassesForVxTools();
  mlir::vx::test::registerTestThreadDependencesPass();
  mlir::DialectRegistry registry;
  mlir::vx::registerAllDialectsForVxTools(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Vx optimizer driver\n", registry));
}

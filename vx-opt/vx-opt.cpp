//===- vx-opt.cpp - The Vx optimizer driver -------------------------------===//

#include "Vx/InitAll.h"
#include "Vx/Version.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::vx::test {
void registerTestThreadDependencesPass();
} // namespace mlir::vx::test

int main(int argc, char **argv) {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "Vx version " VX_VERSION_STRING "\n"
       << "  built with LLVM " LLVM_VERSION_STRING "\n";
  });
  mlir::vx::registerAllPassesForVxTools();
  mlir::vx::test::registerTestThreadDependencesPass();
  mlir::DialectRegistry registry;
  mlir::vx::registerAllDialectsForVxTools(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Vx optimizer driver\n", registry));
}

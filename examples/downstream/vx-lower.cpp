//===- vx-lower.cpp - A tool on an installed Vx ---------------------------===//
//
// vx-lower FILE PIPELINE: parses FILE (vx with func, arith, memref and scf
// ops), runs the textual PIPELINE (e.g. vx-to-scf) and prints the result.
//
//===----------------------------------------------------------------------===//

#include "Vx/Pipelines/Pipelines.h"
#include "Vx/VxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: vx-lower FILE PIPELINE\n";
    return 1;
  }
  DialectRegistry registry;
  registry.insert<vx::VxDialect, arith::ArithDialect, func::FuncDialect,
                  memref::MemRefDialect, scf::SCFDialect>();
  MLIRContext context(registry);
  vx::registerVxPipelines();

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &context);
  auto pm = PassManager::on<ModuleOp>(&context);
  if (!module || failed(parsePassPipeline(argv[2], pm)) ||
      failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}

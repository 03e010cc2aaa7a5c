//===- VxPlugin.cpp - Vx as an mlir-opt dialect and pass plugin -----------===//

#include "Vx/InitAll.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Vx", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) { vx::registerVxDialect(*registry); }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "VxPasses", LLVM_VERSION_STRING,
          []() { vx::registerAllVxPasses(); }};
}

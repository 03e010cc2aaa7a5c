//===- VxPlugin.cpp - Vx as an mlir-opt dialect and pass plugin -----------===//

#include "Vx/InitAll.h"
#include "Vx/Version.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Vx", VX_VERSION_STRING,
          [](DialectRegistry *registry) { vx::registerVxDialect(*registry); }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "VxPasses", VX_VERSION_STRING,
          []() { vx::registerAllVxPasses(); }};
}

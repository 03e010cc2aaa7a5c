//===- Pipelines.cpp - The named Vx pipelines -----------------------------===//
//
// Each pipeline is a textual composition of registered passes, so that the
// text that vx-opt runs is also what users can read and reuse.
//
//===----------------------------------------------------------------------===//

#include "Vx/Pipelines.h"
#include "Vx/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace mlir::vx;

static std::string boolText(bool value) { return value ? "true" : "false"; }

std::string vx::getVxToSCFPipeline(const VxToSCFOptions &options) {
  return "vx-verify-semantics,convert-vx-to-scf{reverse-parallel=" +
         boolText(options.reverseParallel) + "},canonicalize";
}

std::string vx::getVxToLLVMPipeline(const VxToLLVMOptions &options) {
  VxToSCFOptions scfOptions;
  scfOptions.reverseParallel = options.reverseParallel.getValue();
  std::string pipeline = getVxToSCFPipeline(scfOptions);
  // scf-to-openmp wraps each parallel body in a memref.alloca_scope, whose
  // region must stay one block: lower the scopes before the loops inside.
  if (options.openmp)
    pipeline += ",convert-scf-to-openmp,expand-strided-metadata,"
                "finalize-memref-to-llvm";
  pipeline += ",convert-vector-to-scf,convert-linalg-to-loops,lower-affine,"
              "convert-scf-to-cf,convert-vector-to-llvm,expand-strided-metadata,"
              "lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,"
              "convert-math-to-libm,convert-arith-to-llvm,convert-index-to-llvm,";
  if (options.openmp)
    pipeline += "convert-openmp-to-llvm,";
  pipeline += "convert-cf-to-llvm,convert-func-to-llvm,"
              "reconcile-unrealized-casts";
  return pipeline;
}

/// Registers a pipeline whose passes are the text `getText` makes from its
/// options; an empty text means the options are refused, with `getText`
/// having said why through the error handler.
template <typename Options>
static void registerTextualPipeline(
    StringRef name, StringRef description,
    std::function<std::string(const Options &,
                              function_ref<LogicalResult(const Twine &)>)>
        getText) {
  registerPassPipeline(
      name, description,
      [getText](OpPassManager &pm, StringRef optionsText,
                function_ref<LogicalResult(const Twine &)> errorHandler) {
        Options options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        std::string pipeline = getText(options, errorHandler);
        if (pipeline.empty())
          return failure();
        return parsePassPipeline(pipeline, pm, llvm::errs());
      },
      [](function_ref<void(const detail::PassOptions &)> optionsHandler) {
        optionsHandler(Options());
      });
}

void vx::registerVxPipelines() {
  registerTextualPipeline<VxToSCFOptions>(
      "vx-to-scf",
      "Lower vx to scf.parallel (parallel dims) around an scf.for nest "
      "(arbitrary dims)",
      [](const VxToSCFOptions &options, auto) {
        return getVxToSCFPipeline(options);
      });
  registerTextualPipeline<VxToLLVMOptions>(
      "vx-to-llvm", "Lower vx to the LLVM dialect, every spawn on the CPU",
      [](const VxToLLVMOptions &options, auto errorHandler) -> std::string {
        if (options.viaGpu) {
          (void)errorHandler("vx-to-llvm: 'via-gpu=true' needs the GPU "
                             "mapping, which is not implemented yet");
          return "";
        }
        return getVxToLLVMPipeline(options);
      });
}

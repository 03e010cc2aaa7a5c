//===- Pipelines.h - The named Vx pipelines ---------------------*- C++ -*-===//
//
// Each stage of VX_SPEC (scf, gpu, nvvm, ptx, llvm) is a pipeline built in
// C++ from the passes' own option structs, registered as `vx-to-<stage>`.
//
//===----------------------------------------------------------------------===//

#ifndef VX_PIPELINES_PIPELINES_H
#define VX_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir {
namespace vx {

/// The stages of a vx module, in the order VX_SPEC lists them: "vx" (the
/// verified input), "scf", "gpu", "nvvm", "ptx", and "llvm" (the CPU path).
enum class Stage { vx, scf, gpu, nvvm, ptx, llvm };

/// The stage names, in order.
ArrayRef<StringRef> getStageNames();
std::optional<Stage> parseStage(StringRef name);

/// The stages a module at `from` can be lowered to: along the CPU path
/// vx -> scf -> llvm or the GPU path vx -> gpu -> nvvm -> ptx ("vx" to "vx"
/// runs the checker).
SmallVector<Stage> getLaterStages(Stage from);

/// The options of every pipeline, each declared once. A stage registers only
/// the options it takes (`getStageOptionNames`); the others stay unset and
/// read as their defaults.
struct VxPipelineOptions : public PassPipelineOptions<VxPipelineOptions> {
  template <typename T>
  using OptionalOption = std::optional<PassOptions::Option<T>>;

  explicit VxPipelineOptions(Stage stage = Stage::llvm);

  OptionalOption<bool> allowRaces;
  OptionalOption<bool> detectRaces;
  OptionalOption<bool> openmp;
  OptionalOption<bool> reverseParallel;
  OptionalOption<bool> viaGpu;
  OptionalOption<bool> ptxSim;
  OptionalOption<std::string> simOrder;
  OptionalOption<int64_t> threadsPerBlock;
  OptionalOption<int64_t> stages;
  OptionalOption<bool> fma;
  OptionalOption<std::string> chip;
  OptionalOption<std::string> features;
  OptionalOption<std::string> format;

  /// The value of an option, or its default where the stage lacks it.
  template <typename T>
  static T get(const OptionalOption<T> &option, T fallback) {
    return option ? T(option->getValue()) : fallback;
  }

  Stage stage;
};

/// Parses `text` (pipeline-option syntax, `name=value ...`) into `options`;
/// on failure `error` says which options and why, and nothing is printed.
LogicalResult parseVxPipelineOptions(VxPipelineOptions &options, StringRef text,
                                     std::string &error);

/// The option names that `stage` takes, in declaration order.
SmallVector<StringRef> getStageOptionNames(Stage stage);

/// Adds to `pm` (anchored on builtin.module) the pipeline that takes vx
/// input to `options.stage`; reports options that cannot be honoured
/// through `emitError`.
LogicalResult
buildVxPipeline(OpPassManager &pm, const VxPipelineOptions &options,
                function_ref<LogicalResult(const Twine &)> emitError);

/// Registers the pipelines vx-to-scf, vx-to-gpu, vx-to-nvvm, vx-to-ptx and
/// vx-to-llvm.
void registerVxPipelines();

} // namespace vx
} // namespace mlir

#endif // VX_PIPELINES_PIPELINES_H

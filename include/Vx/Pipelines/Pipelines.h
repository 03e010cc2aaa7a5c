//===- Pipelines.h - The named Vx pipelines ---------------------*- C++ -*-===//
//
// Each stage of VX_SPEC (scf, gpu, nvvm, ptx, llvm) is a pipeline built in
// C++ from one typed options struct (VxPipelineOptions) into the passes' own
// option structs, registered as `vx-to-<stage>` and bound to Python.
//
//===----------------------------------------------------------------------===//

#ifndef VX_PIPELINES_PIPELINES_H
#define VX_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

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

/// The options of the pipelines as typed values, the one form in which
/// vx-opt's pipeline text and Python's keyword arguments reach
/// buildVxPipeline. A stage reads only the options it takes
/// (getStageOptions); `getDefaults` gives every field its default.
struct VxPipelineOptions {
  bool allowRaces = false;
  bool detectRaces = false;
  bool openmp = false;
  bool reverseParallel = false;
  bool viaGpu = false;
  bool ptxSim = false;
  /// Empty: $VX_SIM_ORDER, else forward.
  std::string simOrder;
  /// 0: the default CTA size (kDefaultCTASize), as for convert-vx-to-gpu.
  int64_t threadsPerBlock = 0;
  int64_t stages = 1;
  bool fma = true;
  /// f32 linalg.matmul tile ops may use TF32 tensor cores (VX_SPEC 2.3).
  bool tf32 = false;
  /// Empty: sm_90 where device code is compiled (nvvm, ptx, ptx-sim); a
  /// chip-neutral mapping on vx-to-gpu and with via-gpu.
  std::string chip;
  /// Empty: the chip's default PTX version (Chip::getDefaultPTXFeatures).
  std::string features;
  std::string format = "isa";

  /// The options of `stage` at their defaults.
  static VxPipelineOptions getDefaults(Stage stage);
};

/// One pipeline option: its name in pipeline text (`threads-per-block`),
/// the typed field it sets and what it means. Declared once, in
/// Pipelines.cpp, for vx-opt's parser, its --help and the Python binding.
struct PipelineOptionInfo {
  using Field =
      std::variant<bool VxPipelineOptions::*, int64_t VxPipelineOptions::*,
                   std::string VxPipelineOptions::*>;
  StringRef name;
  Field field;
  StringRef description;
};

/// The options that `stage` takes, in the order its documentation lists
/// them.
SmallVector<const PipelineOptionInfo *> getStageOptions(Stage stage);

/// Adds to `pm` (anchored on builtin.module) the pipeline that takes vx
/// input to `stage` with `options`, after checking them all (ranges, the
/// chip, options that exclude each other); reports an option that cannot be
/// honoured through `emitError`, before adding anything.
LogicalResult
buildVxPipeline(OpPassManager &pm, Stage stage,
                const VxPipelineOptions &options,
                function_ref<LogicalResult(const Twine &)> emitError);

/// Registers the pipelines vx-to-scf, vx-to-gpu, vx-to-nvvm, vx-to-ptx and
/// vx-to-llvm.
void registerVxPipelines();

} // namespace vx
} // namespace mlir

#endif // VX_PIPELINES_PIPELINES_H

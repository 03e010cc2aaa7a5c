//===- Pipelines.cpp - The named Vx pipelines -----------------------------===//
//
// Each pipeline is a textual composition of registered passes, so that the
// text that vx-opt runs is also what users can read and reuse.
//
//===----------------------------------------------------------------------===//

#include "Vx/Pipelines.h"
#include "Vx/Conversion.h"
#include "Vx/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::vx;

static std::string boolText(bool value) { return value ? "true" : "false"; }

/// The CPU half of vx-to-llvm: from loops to the LLVM dialect.
static std::string getLoopsToLLVMPipeline(bool openmp) {
  std::string pipeline;
  // scf-to-openmp wraps each parallel body in a memref.alloca_scope, whose
  // region must stay one block: lower the scopes before the loops inside.
  if (openmp)
    pipeline += ",convert-scf-to-openmp,expand-strided-metadata,"
                "finalize-memref-to-llvm";
  pipeline += ",convert-vector-to-scf,convert-linalg-to-loops,lower-affine,"
              "convert-scf-to-cf,convert-vector-to-llvm,expand-strided-metadata,"
              "lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,"
              "convert-math-to-libm,convert-arith-to-llvm,convert-index-to-llvm,";
  if (openmp)
    pipeline += "convert-openmp-to-llvm,";
  pipeline += "convert-cf-to-llvm,convert-func-to-llvm,"
              "reconcile-unrealized-casts";
  return pipeline;
}

/// The checker that starts every pipeline.
static std::string getVerifierPipeline(bool allowRaces) {
  return allowRaces ? "vx-verify-semantics{allow-races=true}"
                    : "vx-verify-semantics";
}

FailureOr<std::string> vx::getVxToSCFPipeline(const VxToSCFOptions &options,
                                              std::string &) {
  return getVerifierPipeline(options.allowRaces) +
         ",convert-vx-to-scf{reverse-parallel=" +
         boolText(options.reverseParallel) + "},canonicalize";
}

/// Device spawns to outlined launches, host spawns to loops; `chip` (if
/// any) is checked against the spawns' topologies.
static std::string getGPUMappingPipeline(unsigned threadsPerBlock,
                                         StringRef chip) {
  std::string pipeline = "vx-verify-semantics,convert-vx-to-gpu{"
                         "threads-per-block=" +
                         std::to_string(threadsPerBlock);
  if (!chip.empty())
    pipeline += " chip=" + chip.str();
  return pipeline + "},convert-vx-to-scf,gpu-launch-sink-index-computations,gpu-kernel-outlining,canonicalize,cse";
}

FailureOr<std::string> vx::getVxToGPUPipeline(const VxToGPUOptions &options,
                                              std::string &) {
  return getGPUMappingPipeline(options.threadsPerBlock, "");
}

/// The lowest PTX ISA version that `smNumber` needs (and at least 8.0, the
/// version LLVM 22 and CUDA 13 agree on for sm_90).
static StringRef getDefaultPTXFeatures(unsigned smNumber) {
  if (smNumber >= 120)
    return "+ptx87";
  if (smNumber >= 110)
    return "+ptx90";
  if (smNumber >= 103)
    return "+ptx88";
  if (smNumber >= 100)
    return "+ptx86";
  return "+ptx80";
}

template <typename Options>
static FailureOr<std::string> getNVVMStagePipeline(const Options &options,
                                                   std::string &error) {
  std::optional<unsigned> smNumber = getSMNumber(options.chip);
  if (!smNumber) {
    error = "chip must be an NVIDIA chip such as 'sm_90' or 'sm_100a', got '" +
            options.chip.getValue() + "'";
    return failure();
  }
  std::string features = options.features;
  if (features.empty())
    features = getDefaultPTXFeatures(*smNumber).str();
  return getGPUMappingPipeline(options.threadsPerBlock, options.chip) +
         ",convert-linalg-to-loops,convert-nvgpu-to-nvvm,"
         "convert-vector-to-scf,convert-scf-to-cf,convert-nvvm-to-llvm,"
         "convert-func-to-llvm,expand-strided-metadata,"
         "nvvm-attach-target{chip=" +
         options.chip.getValue() + " features=" + features +
         "},lower-affine,convert-arith-to-llvm,convert-index-to-llvm,"
         "canonicalize,cse,gpu.module(convert-gpu-to-nvvm,canonicalize,cse,"
         "reconcile-unrealized-casts),gpu-to-llvm,convert-math-to-llvm,"
         "convert-math-to-libm,convert-func-to-llvm,canonicalize,cse,"
         "reconcile-unrealized-casts";
}

FailureOr<std::string> vx::getVxToNVVMPipeline(const VxToNVVMOptions &options,
                                               std::string &error) {
  return getNVVMStagePipeline(options, error);
}

/// The CUDA toolkit that gpu-module-to-binary takes ptxas and libdevice from:
/// CUDA_HOME when set, else the first of the toolkit of the ptxas on PATH
/// (through symlinks) and /usr/local/cuda that holds both. A ptxas on PATH may
/// be a wrapper script outside any toolkit, so its directory alone is not
/// enough. gpu-module-to-binary only warns about a missing toolkit and goes on
/// to emit PTX with unresolved libdevice calls, so a missing one is an error.
static FailureOr<std::string> getCUDAToolkitPath(std::string &error) {
  SmallVector<std::string> candidates;
  if (const char *cudaHome = std::getenv("CUDA_HOME"); cudaHome && *cudaHome) {
    candidates.push_back(cudaHome);
  } else {
    if (llvm::ErrorOr<std::string> ptxas =
            llvm::sys::findProgramByName("ptxas")) {
      SmallString<256> realPtxas;
      if (!llvm::sys::fs::real_path(*ptxas, realPtxas))
        candidates.push_back(llvm::sys::path::parent_path(
                                 llvm::sys::path::parent_path(realPtxas))
                                 .str());
    }
    candidates.push_back("/usr/local/cuda");
  }
  auto holds = [](StringRef toolkit, StringRef relativePath) {
    SmallString<256> path(toolkit);
    llvm::sys::path::append(path, relativePath);
    return llvm::sys::fs::exists(path);
  };
  for (const std::string &toolkit : candidates)
    if (holds(toolkit, "bin/ptxas") &&
        holds(toolkit, "nvvm/libdevice/libdevice.10.bc"))
      return toolkit;
  error = "no CUDA toolkit with bin/ptxas and nvvm/libdevice/libdevice.10.bc "
          "found (tried " +
          llvm::join(candidates, ", ") + "); set CUDA_HOME";
  return failure();
}

FailureOr<std::string> vx::getVxToPTXPipeline(const VxToPTXOptions &options,
                                              std::string &error) {
  StringRef format = options.format;
  if (format != "isa" && format != "bin" && format != "fatbin") {
    error = "format must be 'isa', 'bin' or 'fatbin', got '" + format.str() +
            "'";
    return failure();
  }
  FailureOr<std::string> nvvm = getNVVMStagePipeline(options, error);
  if (failed(nvvm))
    return failure();
  FailureOr<std::string> toolkit = getCUDAToolkitPath(error);
  if (failed(toolkit))
    return failure();
  return *nvvm + ",gpu-module-to-binary{format=" + format.str() +
         " toolkit=" + *toolkit + "}";
}

FailureOr<std::string> vx::getVxToLLVMPipeline(const VxToLLVMOptions &options,
                                               std::string &error) {
  std::string reverse = boolText(options.reverseParallel);
  if (!options.viaGpu && options.threadsPerBlock != 1) {
    error = "'threads-per-block' applies only with 'via-gpu=true'";
    return failure();
  }
  if (options.viaGpu)
    return getVerifierPipeline(options.allowRaces) +
           ",convert-vx-to-gpu{threads-per-block=" +
           std::to_string(options.threadsPerBlock) +
           "},convert-gpu-launch-to-scf{reverse-blocks=" + reverse +
           "},convert-vx-to-scf{reverse-parallel=" + reverse +
           "},canonicalize" + getLoopsToLLVMPipeline(options.openmp);
  VxToSCFOptions scfOptions;
  scfOptions.reverseParallel = options.reverseParallel.getValue();
  scfOptions.allowRaces = options.allowRaces.getValue();
  return *getVxToSCFPipeline(scfOptions, error) +
         getLoopsToLLVMPipeline(options.openmp);
}

namespace {
/// One stage: the text of its pipeline from option text, and its defaults.
struct VxStage {
  StringRef name;
  FailureOr<std::string> (*getText)(StringRef options, std::string &error);
  std::string (*getDefaults)();
};
} // namespace

template <typename Options,
          FailureOr<std::string> (*getText)(const Options &, std::string &)>
static FailureOr<std::string> getTextFromOptions(StringRef optionsText,
                                                 std::string &error) {
  Options options;
  if (failed(options.parseFromString(optionsText))) {
    error = "invalid options '" + optionsText.str() + "'";
    return failure();
  }
  return getText(options, error);
}

template <typename Options>
static std::string getDefaultsOf() {
  std::string text;
  llvm::raw_string_ostream os(text);
  Options().print(os);
  return text;
}

static FailureOr<std::string> getVerifiedInputPipeline(StringRef optionsText,
                                                       std::string &error) {
  if (!optionsText.trim().empty()) {
    error = "the vx stage takes no options";
    return failure();
  }
  return std::string("vx-verify-semantics");
}

static const VxStage vxStages[] = {
    {"vx", getVerifiedInputPipeline, [] { return std::string(); }},
    {"scf", getTextFromOptions<VxToSCFOptions, getVxToSCFPipeline>,
     getDefaultsOf<VxToSCFOptions>},
    {"gpu", getTextFromOptions<VxToGPUOptions, getVxToGPUPipeline>,
     getDefaultsOf<VxToGPUOptions>},
    {"nvvm", getTextFromOptions<VxToNVVMOptions, getVxToNVVMPipeline>,
     getDefaultsOf<VxToNVVMOptions>},
    {"ptx", getTextFromOptions<VxToPTXOptions, getVxToPTXPipeline>,
     getDefaultsOf<VxToPTXOptions>},
    {"llvm", getTextFromOptions<VxToLLVMOptions, getVxToLLVMPipeline>,
     getDefaultsOf<VxToLLVMOptions>},
};

ArrayRef<StringRef> vx::getVxStageNames() {
  static const SmallVector<StringRef> names = llvm::to_vector(
      llvm::map_range(vxStages, [](const VxStage &stage) { return stage.name; }));
  return names;
}

static const VxStage *findStage(StringRef name) {
  const VxStage *stage = llvm::find_if(
      vxStages, [&](const VxStage &candidate) { return candidate.name == name; });
  return stage == std::end(vxStages) ? nullptr : stage;
}

FailureOr<std::string> vx::getVxStagePipeline(StringRef stage,
                                              StringRef options,
                                              std::string &error) {
  const VxStage *found = findStage(stage);
  if (!found) {
    error = "unknown stage '" + stage.str() + "'; the stages are " +
            llvm::join(getVxStageNames(), ", ");
    return failure();
  }
  return found->getText(options, error);
}

FailureOr<std::string> vx::getVxStageOptionDefaults(StringRef stage) {
  const VxStage *found = findStage(stage);
  if (!found)
    return failure();
  return found->getDefaults();
}

/// Registers the pipeline `name` that takes vx input to `stage`, or that
/// reports why its options are refused.
template <typename Options>
static void registerStagePipeline(StringRef name, StringRef stage,
                                  StringRef description) {
  std::string pipelineName = name.str(), stageName = stage.str();
  registerPassPipeline(
      name, description,
      [pipelineName, stageName](
          OpPassManager &pm, StringRef optionsText,
          function_ref<LogicalResult(const Twine &)> errorHandler) {
        std::string error;
        FailureOr<std::string> pipeline =
            getVxStagePipeline(stageName, optionsText, error);
        if (failed(pipeline))
          return errorHandler(pipelineName + ": " + error);
        return parsePassPipeline(*pipeline, pm, llvm::errs());
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optionsHandler) {
        optionsHandler(Options());
      });
}

void vx::registerVxPipelines() {
  registerStagePipeline<VxToSCFOptions>(
      "vx-to-scf", "scf",
      "Lower vx to scf.parallel (parallel dims) around an scf.for nest "
      "(arbitrary dims)");
  registerStagePipeline<VxToGPUOptions>(
      "vx-to-gpu", "gpu",
      "Lower device spawns to gpu.launch_func + gpu.module, host spawns to "
      "loops");
  registerStagePipeline<VxToNVVMOptions>(
      "vx-to-nvvm", "nvvm",
      "Lower vx to NVVM/LLVM device code with an NVVM target and LLVM host "
      "code");
  registerStagePipeline<VxToPTXOptions>(
      "vx-to-ptx", "ptx",
      "Lower vx to gpu.binary holding PTX, a cubin or a fatbin");
  registerStagePipeline<VxToLLVMOptions>(
      "vx-to-llvm", "llvm",
      "Lower vx to the LLVM dialect, every spawn on the CPU (via-gpu: "
      "device spawns through the GPU mapping)");
}

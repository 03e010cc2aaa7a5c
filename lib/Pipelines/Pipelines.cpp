//===- Pipelines.cpp - The named Vx pipelines -----------------------------===//
//
// Every stage is built here from the passes' own option structs, so that
// what vx-opt, the plugin and Python run is one pipeline, and its textual
// form (OpPassManager::printAsTextualPipeline) is what users read.
//
//===----------------------------------------------------------------------===//

#include "Vx/Pipelines/Pipelines.h"
#include "Vx/Conversion/Passes.h"
#include "Vx/Target/CUDA.h"
#include "Vx/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::vx;

/// CUDA's limit on the threads of a CTA.
static constexpr unsigned kMaxThreadsPerBlock = 1024;

static const StringRef stageNames[] = {"vx",   "scf", "gpu",
                                       "nvvm", "ptx", "llvm"};

ArrayRef<StringRef> vx::getStageNames() { return stageNames; }

std::optional<Stage> vx::parseStage(StringRef name) {
  const StringRef *found = llvm::find(stageNames, name);
  if (found == std::end(stageNames))
    return std::nullopt;
  return static_cast<Stage>(found - std::begin(stageNames));
}

SmallVector<Stage> vx::getLaterStages(Stage from) {
  switch (from) {
  case Stage::vx:
    return {Stage::vx, Stage::scf, Stage::gpu, Stage::nvvm, Stage::ptx,
            Stage::llvm};
  case Stage::scf:
    return {Stage::llvm};
  case Stage::gpu:
    return {Stage::nvvm, Stage::ptx};
  case Stage::nvvm:
    return {Stage::ptx};
  case Stage::ptx:
  case Stage::llvm:
    return {};
  }
  llvm_unreachable("unknown stage");
}

SmallVector<StringRef> vx::getStageOptionNames(Stage stage) {
  switch (stage) {
  case Stage::vx:
    return {};
  case Stage::scf:
    return {"allow-races", "reverse-parallel"};
  case Stage::gpu:
    return {"threads-per-block"};
  case Stage::nvvm:
    return {"threads-per-block", "chip", "features"};
  case Stage::ptx:
    return {"threads-per-block", "chip", "features", "format"};
  case Stage::llvm:
    return {"allow-races", "openmp", "reverse-parallel", "via-gpu",
            "threads-per-block", "detect-races"};
  }
  llvm_unreachable("unknown stage");
}

VxPipelineOptions::VxPipelineOptions(Stage stage) : stage(stage) {
  SmallVector<StringRef> names = getStageOptionNames(stage);
  auto takes = [&](StringRef name) { return llvm::is_contained(names, name); };
  if (takes("allow-races"))
    allowRaces.emplace(*this, "allow-races",
                       llvm::cl::desc("Report proven races as warnings, to "
                                      "run a mislabelled kernel (the dynamic "
                                      "check with reverse-parallel)"),
                       llvm::cl::init(false));
  if (takes("detect-races"))
    detectRaces.emplace(*this, "detect-races",
                        llvm::cl::desc("Run with the dynamic race detector "
                                       "(link libvx_race_runtime)"),
                        llvm::cl::init(false));
  if (takes("openmp"))
    openmp.emplace(*this, "openmp",
                   llvm::cl::desc("Run the parallel loops with OpenMP"),
                   llvm::cl::init(false));
  if (takes("reverse-parallel"))
    reverseParallel.emplace(
        *this, "reverse-parallel",
        llvm::cl::desc("Iterate the parallel dimensions from last to first"),
        llvm::cl::init(false));
  if (takes("via-gpu"))
    viaGpu.emplace(*this, "via-gpu",
                   llvm::cl::desc("Send device spawns through the GPU mapping "
                                  "and run the launches on the CPU"),
                   llvm::cl::init(false));
  if (takes("threads-per-block"))
    threadsPerBlock.emplace(
        *this, "threads-per-block",
        llvm::cl::desc("Threads per CTA along the innermost parallel "
                       "dimension (1-1024)"),
        llvm::cl::init(1));
  if (takes("chip"))
    chip.emplace(*this, "chip",
                 llvm::cl::desc("The NVIDIA chip to compile for"),
                 llvm::cl::init("sm_90"));
  if (takes("features"))
    features.emplace(*this, "features",
                     llvm::cl::desc("PTX features, e.g. +ptx80 (default: a "
                                    "PTX version the chip accepts)"),
                     llvm::cl::init(""));
  if (takes("format"))
    format.emplace(*this, "format",
                   llvm::cl::desc("isa (PTX text), bin (cubin) or fatbin"),
                   llvm::cl::init("isa"));
}

/// The checker that starts every pipeline.
static void addChecker(OpPassManager &pm, bool allowRaces) {
  VxVerifySemanticsOptions options;
  options.allowRaces = allowRaces;
  pm.addPass(createVxVerifySemantics(options));
}

static void addSpawnsToLoops(OpPassManager &pm, bool reverseParallel) {
  ConvertVxToSCFOptions options;
  options.reverseParallel = reverseParallel;
  pm.addPass(createConvertVxToSCF(options));
}

/// Device spawns to outlined launches, host spawns to loops; `chip` (if any)
/// is checked against the spawns' topologies.
static void addGPUMapping(OpPassManager &pm, unsigned threadsPerBlock,
                          StringRef chip) {
  ConvertVxToGPUOptions options;
  options.threadsPerBlock = threadsPerBlock;
  options.chip = chip.str();
  pm.addPass(createConvertVxToGPU(options));
  addSpawnsToLoops(pm, /*reverseParallel=*/false);
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// The CPU half of vx-to-llvm: from loops to the LLVM dialect.
static void addLoopsToLLVM(OpPassManager &pm, bool openmp) {
  // scf-to-openmp wraps each parallel body in a memref.alloca_scope, whose
  // region must stay one block: lower the scopes before the loops inside.
  if (openmp) {
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addPass(memref::createExpandStridedMetadataPass());
    pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  }
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  if (openmp)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// Device code to NVVM under an `#nvvm.target<chip, features>`, host code
/// to the LLVM dialect.
static void addGPUToNVVM(OpPassManager &pm, StringRef chip,
                         StringRef features) {
  // Kernel memref arguments are noalias: recorded on the gpu.func here,
  // set on its llvm.func after the device lowering.
  pm.addPass(createVxNoAliasKernelArguments());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = chip.str();
  target.features = features.str();
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertGpuOpsToNVVMOps());
  device.addPass(createVxNoAliasKernelArguments());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

LogicalResult
vx::buildVxPipeline(OpPassManager &pm, const VxPipelineOptions &options,
                    function_ref<LogicalResult(const Twine &)> emitError) {
  using O = VxPipelineOptions;
  bool allowRaces = O::get(options.allowRaces, false);
  bool detectRaces = O::get(options.detectRaces, false);
  bool reverseParallel = O::get(options.reverseParallel, false);
  bool viaGpu = O::get(options.viaGpu, false);
  unsigned threadsPerBlock = O::get(options.threadsPerBlock, 1u);
  std::string chip = O::get<std::string>(options.chip, "");
  std::string features = O::get<std::string>(options.features, "");
  std::string format = O::get<std::string>(options.format, "isa");

  if (threadsPerBlock < 1 || threadsPerBlock > kMaxThreadsPerBlock)
    return emitError("threads-per-block must be between 1 and " +
                     Twine(kMaxThreadsPerBlock) + ", got " +
                     Twine(threadsPerBlock));
  std::optional<unsigned> smNumber;
  if (options.chip) {
    smNumber = getSMNumber(chip);
    if (!smNumber)
      return emitError("chip must be an NVIDIA chip such as 'sm_90' or "
                       "'sm_100a', got '" +
                       chip + "'");
    if (features.empty())
      features = getDefaultPTXFeatures(*smNumber).str();
  }
  if (format != "isa" && format != "bin" && format != "fatbin")
    return emitError("format must be 'isa', 'bin' or 'fatbin', got '" +
                     format + "'");

  switch (options.stage) {
  case Stage::vx:
    addChecker(pm, /*allowRaces=*/false);
    return success();
  case Stage::scf:
    addChecker(pm, allowRaces);
    addSpawnsToLoops(pm, reverseParallel);
    pm.addPass(createCanonicalizerPass());
    return success();
  case Stage::gpu:
    addChecker(pm, /*allowRaces=*/false);
    addGPUMapping(pm, threadsPerBlock, chip);
    return success();
  case Stage::nvvm:
  case Stage::ptx: {
    std::optional<std::string> toolkit;
    if (options.stage == Stage::ptx) {
      std::string error;
      toolkit = findCUDAToolkit(error);
      if (!toolkit)
        return emitError(error);
    }
    addChecker(pm, /*allowRaces=*/false);
    addGPUMapping(pm, threadsPerBlock, chip);
    addGPUToNVVM(pm, chip, features);
    if (toolkit) {
      GpuModuleToBinaryPassOptions binary;
      binary.toolkitPath = *toolkit;
      binary.compilationTarget = format;
      pm.addPass(createGpuModuleToBinaryPass(binary));
    }
    return success();
  }
  case Stage::llvm:
    if (!viaGpu && threadsPerBlock != 1)
      return emitError("'threads-per-block' applies only with 'via-gpu=true'");
    addChecker(pm, allowRaces);
    // The race checks are placed at the vx level and become calls after the
    // GPU mapping, which keeps calls out of device code.
    if (detectRaces)
      pm.addPass(createVxInstrumentRaces());
    if (viaGpu) {
      ConvertVxToGPUOptions mapping;
      mapping.threadsPerBlock = threadsPerBlock;
      pm.addPass(createConvertVxToGPU(mapping));
      ConvertGPULaunchToSCFOptions launches;
      launches.reverseBlocks = reverseParallel;
      pm.addPass(createConvertGPULaunchToSCF(launches));
    }
    if (detectRaces)
      pm.addPass(createVxLowerRaceChecks());
    addSpawnsToLoops(pm, reverseParallel);
    pm.addPass(createCanonicalizerPass());
    addLoopsToLLVM(pm, O::get(options.openmp, false));
    return success();
  }
  llvm_unreachable("unknown stage");
}

/// Registers `vx-to-<stage>`: its options are parsed and checked, and errors
/// reported through the registry's error handler.
static void registerStagePipeline(Stage stage, StringRef description) {
  std::string name = ("vx-to-" + getStageNames()[static_cast<int>(stage)]).str();
  registerPassPipeline(
      name, description,
      [stage, name](OpPassManager &pm, StringRef text,
                    function_ref<LogicalResult(const Twine &)> errorHandler) {
        VxPipelineOptions options(stage);
        if (failed(options.parseFromString(text)))
          return errorHandler(name + ": invalid options '" + text + "'");
        return buildVxPipeline(pm, options, [&](const Twine &message) {
          return errorHandler(name + ": " + message);
        });
      },
      [stage](function_ref<void(const detail::PassOptions &)> optionsHandler) {
        optionsHandler(VxPipelineOptions(stage));
      });
}

void vx::registerVxPipelines() {
  registerStagePipeline(Stage::scf,
                        "Lower vx to scf.parallel (parallel dims) around an "
                        "scf.for nest (arbitrary dims)");
  registerStagePipeline(Stage::gpu, "Lower device spawns to gpu.launch_func + "
                                    "gpu.module, host spawns to loops");
  registerStagePipeline(Stage::nvvm, "Lower vx to NVVM/LLVM device code with "
                                     "an NVVM target and LLVM host code");
  registerStagePipeline(Stage::ptx, "Lower vx to gpu.binary holding PTX, a "
                                    "cubin or a fatbin");
  registerStagePipeline(Stage::llvm,
                        "Lower vx to the LLVM dialect, every spawn on the CPU "
                        "(via-gpu: device spawns through the GPU mapping)");
}

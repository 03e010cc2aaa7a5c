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
#include "Vx/Target/Chip.h"
#include "Vx/Target/Limits.h"
#include "Vx/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::vx;

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
    return {Stage::vx,   Stage::scf, Stage::gpu,
            Stage::nvvm, Stage::ptx, Stage::llvm};
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

/// Every pipeline option, declared once: vx-opt's parser and --help, and the
/// Python binding's keyword arguments, are made from this table.
static const PipelineOptionInfo optionInfos[] = {
    {"allow-races", &VxPipelineOptions::allowRaces,
     "Report proven races as warnings, to run a mislabelled kernel (the "
     "dynamic check with reverse-parallel; default: false)"},
    {"detect-races", &VxPipelineOptions::detectRaces,
     "Run with the dynamic race detector (link libvx_race_runtime; default: "
     "false)"},
    {"openmp", &VxPipelineOptions::openmp,
     "Run the parallel loops with OpenMP (default: false)"},
    {"reverse-parallel", &VxPipelineOptions::reverseParallel,
     "Iterate the parallel dimensions from last to first (default: false)"},
    {"via-gpu", &VxPipelineOptions::viaGpu,
     "Send device spawns through the GPU mapping and run the launches on the "
     "CPU (default: false)"},
    {"ptx-sim", &VxPipelineOptions::ptxSim,
     "Compile the device code as vx-to-ptx (format=isa) does and run every "
     "launch on the PTX simulator (link libvx_ptx_sim)"},
    {"sim-order", &VxPipelineOptions::simOrder,
     "With ptx-sim, the order of a CTA's threads between barriers: forward, "
     "reverse, shuffle or shuffle:SEED (unset: $VX_SIM_ORDER, else forward)"},
    {"threads-per-block", &VxPipelineOptions::threadsPerBlock,
     "Threads per CTA of spawns without a threads clause (1-1024; 0, the "
     "default: the default CTA size, 256)"},
    {"stages", &VxPipelineOptions::stages,
     "Steps of transfers in flight along the arbitrary dimensions for spawns "
     "without a stages clause (>= 1; default: 1, no pipelining)"},
    {"fma", &VxPipelineOptions::fma,
     "Let a float multiply feeding an add contract to an fma on the device "
     "(default: true)"},
    {"tf32", &VxPipelineOptions::tf32,
     "Let f32 linalg.matmul tile ops use the TF32 tensor cores (TF32 "
     "rounding; default: false, exact FMA code)"},
    {"chip", &VxPipelineOptions::chip,
     "The NVIDIA chip of the device code, sm_XY[a|f] (default: sm_90; on "
     "vx-to-gpu and with via-gpu, unset maps for any chip with cp.async and "
     "no TMA)"},
    {"features", &VxPipelineOptions::features,
     "PTX features, e.g. +ptx80 (default: a PTX version the chip accepts)"},
    {"format", &VxPipelineOptions::format,
     "isa (PTX text), bin (cubin) or fatbin (default: isa)"},
};

/// The option named `name` in optionInfos.
static const PipelineOptionInfo *lookupOption(StringRef name) {
  for (const PipelineOptionInfo &info : optionInfos)
    if (info.name == name)
      return &info;
  llvm_unreachable("undeclared pipeline option");
}

SmallVector<const PipelineOptionInfo *> vx::getStageOptions(Stage stage) {
  SmallVector<StringRef> names;
  switch (stage) {
  case Stage::vx:
    break;
  case Stage::scf:
    names = {"allow-races", "reverse-parallel"};
    break;
  case Stage::gpu:
    names = {"chip", "threads-per-block", "stages", "fma", "tf32"};
    break;
  case Stage::nvvm:
    names = {"chip", "features", "threads-per-block", "stages", "fma", "tf32"};
    break;
  case Stage::ptx:
    names = {"chip",   "features", "format", "threads-per-block",
             "stages", "fma",      "tf32"};
    break;
  case Stage::llvm:
    names = {"allow-races", "openmp",       "reverse-parallel",  "via-gpu",
             "ptx-sim",     "chip",         "threads-per-block", "stages",
             "tf32",        "detect-races", "sim-order"};
    break;
  }
  return llvm::map_to_vector(names, lookupOption);
}

VxPipelineOptions VxPipelineOptions::getDefaults(Stage stage) {
  VxPipelineOptions defaults;
  // Device code is compiled for sm_90 unless told; the GPU mapping alone
  // (vx-to-gpu, via-gpu) stays chip-neutral.
  if (stage == Stage::nvvm || stage == Stage::ptx)
    defaults.chip = Chip::getDefault().getName().str();
  return defaults;
}

namespace {
/// A stage's options as vx-opt reads them from pipeline text: one llvm::cl
/// option per PipelineOptionInfo, initialized to the stage's default and
/// copied into the typed struct after parsing.
class StageOptionParser : public PassPipelineOptions<StageOptionParser> {
public:
  explicit StageOptionParser(Stage stage)
      : values(VxPipelineOptions::getDefaults(stage)) {
    for (const PipelineOptionInfo *info : getStageOptions(stage))
      std::visit([&](auto field) { declare(*info, field); }, info->field);
  }

  /// The parsed values (the defaults where not given).
  VxPipelineOptions getValues() const {
    VxPipelineOptions result = values;
    auto copy = [&](const auto &bound) {
      for (const auto &[field, option] : bound)
        result.*field = option->getValue();
    };
    copy(bools);
    copy(integers);
    copy(strings);
    return result;
  }

private:
  template <typename T>
  using Bound = SmallVector<
      std::pair<T VxPipelineOptions::*, std::unique_ptr<Option<T>>>>;

  template <typename T>
  void declare(const PipelineOptionInfo &info, T VxPipelineOptions::*field) {
    auto option = std::make_unique<Option<T>>(*this, info.name,
                                              llvm::cl::desc(info.description),
                                              llvm::cl::init(values.*field));
    getBound(field).emplace_back(field, std::move(option));
  }

  Bound<bool> &getBound(bool VxPipelineOptions::*) { return bools; }
  Bound<int64_t> &getBound(int64_t VxPipelineOptions::*) { return integers; }
  Bound<std::string> &getBound(std::string VxPipelineOptions::*) {
    return strings;
  }

  VxPipelineOptions values;
  Bound<bool> bools;
  Bound<int64_t> integers;
  Bound<std::string> strings;
};
} // namespace

/// The checker that starts every pipeline; private scratch must be owned
/// by the CTAs that `threadsPerBlock` gives the spawns without a `threads`
/// clause, as on the GPU routes. `chip`, on the routes that map device
/// spawns for one, makes it check tile ops as they are mapped (matmuls on
/// the chip's tensor cores).
static void addChecker(OpPassManager &pm, bool allowRaces,
                       int64_t threadsPerBlock, StringRef chip = "") {
  VxVerifySemanticsOptions options;
  options.allowRaces = allowRaces;
  options.threadsPerBlock = threadsPerBlock;
  options.chip = chip.str();
  pm.addPass(createVxVerifySemantics(options));
}

static void addSpawnsToLoops(OpPassManager &pm, bool reverseParallel) {
  ConvertVxToSCFOptions options;
  options.reverseParallel = reverseParallel;
  pm.addPass(createConvertVxToSCF(options));
}

/// The tile ops' distribution over threads, first in every GPU mapping,
/// for `chip` (empty: FMA code for any chip).
static void addTileOps(OpPassManager &pm, const VxPipelineOptions &options,
                       StringRef chip) {
  VxDistributeTileOpsOptions tileOps;
  tileOps.tf32 = options.tf32;
  tileOps.chip = chip.str();
  tileOps.threadsPerBlock = options.threadsPerBlock;
  pm.addPass(createVxDistributeTileOps(tileOps));
}

/// convert-vx-to-gpu's options from the pipeline's, for `chip` (empty: a
/// chip-neutral mapping).
static ConvertVxToGPUOptions getMappingOptions(const VxPipelineOptions &options,
                                               StringRef chip) {
  ConvertVxToGPUOptions mapping;
  mapping.threadsPerBlock = options.threadsPerBlock;
  mapping.stages = options.stages;
  mapping.fma = options.fma;
  mapping.chip = chip.str();
  return mapping;
}

/// Device spawns to outlined launches, host spawns to loops; the mapping's
/// chip (if any) is checked against the spawns' topologies. With
/// `lowerNVGPU`, nvgpu ops become NVVM before outlining, as upstream's
/// gpu-lower-to-nvvm-pipeline does: a TMA tensor map made on the host
/// crosses into the kernel as a pointer, which the kernel's signature can
/// hold (an nvgpu type there has no NVVM lowering).
static void addGPUMapping(OpPassManager &pm, const VxPipelineOptions &options,
                          StringRef chip, bool lowerNVGPU) {
  addTileOps(pm, options, chip);
  addVxToGPUPasses(pm, getMappingOptions(options, chip));
  addSpawnsToLoops(pm, /*reverseParallel=*/false);
  // Integer powers as functions that outlining copies into the kernels'
  // modules (neither LLVM nor libdevice has them).
  pm.addPass(createConvertMathToFuncs());
  if (lowerNVGPU)
    pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// The last pass of every pipeline: the output of `stage` holds only
/// `dialects` (no vx op when empty).
static void addLoweredCheck(OpPassManager &pm, Stage stage,
                            ArrayRef<std::string> dialects = {}) {
  VxCheckLoweredOptions options;
  options.stage = getStageNames()[static_cast<int>(stage)].str();
  options.dialects = llvm::to_vector(dialects);
  pm.addPass(createVxCheckLowered(options));
}

/// The CPU half of vx-to-llvm: from loops to the LLVM dialect.
static void addLoopsToLLVM(OpPassManager &pm, bool openmp) {
  pm.addPass(createVxScopeLoopAllocas());
  // Only the outermost loops without reductions become OpenMP regions, and
  // the allocation scopes that wrap their bodies are lowered before the
  // loops inside them.
  if (openmp) {
    pm.addPass(createVxPrepareOpenMP());
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addPass(createVxLowerOpenMPScopes());
  }
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertComplexToStandardPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // memref ops before arith: a memref.dim whose index is still an
  // arith.constant reads the descriptor, where after arith's lowering it
  // would index a copy of the sizes on the stack, one alloca per loop
  // iteration (detect-races checks bounds with memref.dim in every loop).
  // memref.generic_atomic_rmw waits for the second run: its body must be in
  // the LLVM dialect before the op is lowered.
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // bf16 conversions as integer arithmetic: the backend would call
  // __truncsfbf2, which neither mlir-runner nor a library links.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertComplexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  if (openmp)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createVxCarryBF16AsIntegers());
  SmallVector<std::string> dialects = {"builtin.module", "llvm"};
  if (openmp)
    dialects.push_back("omp");
  addLoweredCheck(pm, Stage::llvm, dialects);
}

/// Device code to NVVM under an `#nvvm.target<chip, features>`, host code
/// to the LLVM dialect.
static void addGPUToNVVM(OpPassManager &pm, StringRef chip,
                         StringRef features) {
  // Kernel memref arguments are noalias: recorded on the gpu.func here,
  // set on its llvm.func after the device lowering.
  pm.addPass(createVxNoAliasKernelArguments());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertVectorToSCFPass());
  // affine.for and affine.if become scf before scf becomes cf.
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertComplexToStandardPass());
  // Vector transfers, masked ones included, as loads, stores and masked
  // intrinsics (convert-gpu-to-nvvm lowers vector ops, not transfers).
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = chip.str();
  target.features = features.str();
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  // Device code first, with the NVVM lowerings of arith and math (libdevice
  // calls such as __nv_fmodf for arith.remf, which LLVM's NVPTX backend
  // cannot select as frem).
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertGpuOpsToNVVMOps());
  // The dynamic shared memory after the static symbols (the mbarriers).
  VxExternDynamicSharedMemoryOptions dynamicShared;
  std::string chipError;
  FailureOr<Chip> parsedChip = Chip::parse(chip, chipError);
  dynamicShared.alignment =
      succeeded(parsedChip) ? getDynamicSharedMemoryAlignment(*parsedChip)
                            : kDynamicSharedMemoryAlignment;
  device.addPass(createVxExternDynamicSharedMemory(dynamicShared));
  device.addPass(createVxNoAliasKernelArguments());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertComplexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// The chip and PTX features that device code is compiled for: the checked
/// options, or their defaults.
struct DeviceTarget {
  std::optional<Chip> chip;
  std::string features;
};

/// The toolkit that serializes device code for `chip`, or an error.
static FailureOr<std::string>
findToolkitFor(const Chip &chip,
               function_ref<LogicalResult(const Twine &)> emitError) {
  std::string error;
  std::optional<std::string> toolkit = findCUDAToolkit(error);
  if (!toolkit || failed(checkPtxasChip(*toolkit, chip.getName(), error)))
    return emitError(error);
  return *toolkit;
}

/// vx-to-nvvm after the checker, and with a `toolkit` the gpu.binary of
/// `format` that vx-to-ptx makes of each device module.
static void addDeviceCode(OpPassManager &pm, const VxPipelineOptions &options,
                          const DeviceTarget &target,
                          const std::optional<std::string> &toolkit,
                          StringRef format) {
  addGPUMapping(pm, options, target.chip->getName(), /*lowerNVGPU=*/true);
  addGPUToNVVM(pm, target.chip->getName(), target.features);
  // Before serialization too: an op left here would only surface as a
  // failed translation to LLVM IR.
  addLoweredCheck(
      pm, Stage::nvvm,
      {"builtin.module", "llvm", "nvvm", "gpu.module", "gpu.launch_func"});
  if (!toolkit)
    return;
  // Upstream's gpu-module-to-binary, with the modules serialized in parallel.
  VxGpuModuleToBinaryOptions binary;
  binary.toolkitPath = *toolkit;
  binary.compilationTarget = format.str();
  pm.addPass(createVxGpuModuleToBinary(binary));
  pm.addPass(createVxDropCompileTimes());
}

/// The ops a stage with serialized device code leaves.
static const std::string binaryStageOps[] = {"builtin.module", "llvm",
                                             "gpu.binary", "gpu.launch_func"};

/// vx-to-llvm's options that ptx-sim excludes, or success.
static LogicalResult
checkPTXSimOptions(const VxPipelineOptions &options,
                   function_ref<LogicalResult(const Twine &)> emitError) {
  if (options.viaGpu)
    return emitError("'ptx-sim' and 'via-gpu' exclude each other: ptx-sim "
                     "runs the PTX of the device code, via-gpu its GPU "
                     "mapping as loops");
  if (options.detectRaces)
    return emitError("'detect-races' does not apply with 'ptx-sim=true': the "
                     "simulator checks the kernels' shared-memory races "
                     "itself");
  if (options.openmp)
    return emitError("'openmp' does not apply with 'ptx-sim=true': the "
                     "simulator runs the launches");
  if (options.reverseParallel)
    return emitError("'reverse-parallel' does not apply with 'ptx-sim=true'; "
                     "'sim-order=reverse' reverses the simulator's thread "
                     "order");
  if (!options.simOrder.empty() && !isSimOrder(options.simOrder))
    return emitError("sim-order must be 'forward', 'reverse', 'shuffle' or "
                     "'shuffle:SEED' (SEED a decimal number), got '" +
                     options.simOrder + "'");
  return success();
}

/// vx-to-llvm's options that apply only with via-gpu or ptx-sim, or only
/// with ptx-sim, where those are off; success otherwise.
static LogicalResult
checkCPUOptions(const VxPipelineOptions &options,
                function_ref<LogicalResult(const Twine &)> emitError) {
  if (options.ptxSim)
    return checkPTXSimOptions(options, emitError);
  if (!options.viaGpu) {
    for (auto [given, name] :
         {std::pair(options.threadsPerBlock != 0, "threads-per-block"),
          std::pair(options.stages != 1, "stages"),
          std::pair(!options.chip.empty(), "chip")})
      if (given)
        return emitError("'" + Twine(name) +
                         "' applies only with 'via-gpu=true' or "
                         "'ptx-sim=true'");
  }
  if (!options.simOrder.empty())
    return emitError("'sim-order' applies only with 'ptx-sim=true'");
  return success();
}

/// Checks `options` for `stage` (each rule once, shared with
/// convert-vx-to-gpu where it has the option too) and returns the target of
/// the device code: the chip parsed once, where `stage` compiles device code
/// or the mapping is given one.
static FailureOr<DeviceTarget>
checkOptions(Stage stage, const VxPipelineOptions &options,
             function_ref<LogicalResult(const Twine &)> emitError) {
  for (std::optional<std::string> error :
       {checkThreadsPerBlockOption(options.threadsPerBlock),
        checkStagesOption(options.stages)})
    if (error)
      return emitError(*error);
  if (stage == Stage::llvm && failed(checkCPUOptions(options, emitError)))
    return failure();
  bool compilesDeviceCode = stage == Stage::nvvm || stage == Stage::ptx ||
                            (stage == Stage::llvm && options.ptxSim);
  DeviceTarget target;
  std::string error;
  if (!options.chip.empty()) {
    FailureOr<Chip> chip = Chip::parse(options.chip, error);
    if (failed(chip))
      return emitError(error);
    target.chip = *chip;
  } else if (compilesDeviceCode) {
    target.chip = Chip::getDefault();
  }
  if (target.chip) {
    if (failed(target.chip->checkFeatures(options.features, error)))
      return emitError(error);
    target.features = options.features.empty()
                          ? target.chip->getDefaultPTXFeatures()
                          : options.features;
  }
  if (options.format != "isa" && options.format != "bin" &&
      options.format != "fatbin")
    return emitError("format must be 'isa', 'bin' or 'fatbin', got '" +
                     options.format + "'");
  return target;
}

LogicalResult
vx::buildVxPipeline(OpPassManager &pm, Stage stage,
                    const VxPipelineOptions &options,
                    function_ref<LogicalResult(const Twine &)> emitError) {
  FailureOr<DeviceTarget> target = checkOptions(stage, options, emitError);
  if (failed(target))
    return failure();
  StringRef mappingChip = target->chip ? target->chip->getName() : "";
  switch (stage) {
  case Stage::vx:
    addChecker(pm, /*allowRaces=*/false, options.threadsPerBlock);
    return success();
  case Stage::scf:
    addChecker(pm, options.allowRaces, options.threadsPerBlock);
    addSpawnsToLoops(pm, options.reverseParallel);
    pm.addPass(createCanonicalizerPass());
    addLoweredCheck(pm, Stage::scf);
    return success();
  case Stage::gpu:
    addChecker(pm, /*allowRaces=*/false, options.threadsPerBlock, mappingChip);
    addGPUMapping(pm, options, mappingChip, /*lowerNVGPU=*/false);
    addLoweredCheck(pm, Stage::gpu);
    return success();
  case Stage::nvvm:
    addChecker(pm, /*allowRaces=*/false, options.threadsPerBlock, mappingChip);
    addDeviceCode(pm, options, *target, /*toolkit=*/std::nullopt,
                  options.format);
    return success();
  case Stage::ptx: {
    FailureOr<std::string> toolkit = findToolkitFor(*target->chip, emitError);
    if (failed(toolkit))
      return failure();
    addChecker(pm, /*allowRaces=*/false, options.threadsPerBlock, mappingChip);
    addDeviceCode(pm, options, *target, *toolkit, options.format);
    addLoweredCheck(pm, Stage::ptx, binaryStageOps);
    return success();
  }
  case Stage::llvm: {
    if (options.ptxSim) {
      FailureOr<std::string> toolkit = findToolkitFor(*target->chip, emitError);
      if (failed(toolkit))
        return failure();
      addChecker(pm, options.allowRaces, options.threadsPerBlock, mappingChip);
      addDeviceCode(pm, options, *target, *toolkit, "isa");
      if (!options.simOrder.empty()) {
        VxSetSimOrderOptions order;
        order.order = options.simOrder;
        pm.addPass(createVxSetSimOrder(order));
      }
      addLoweredCheck(pm, Stage::llvm, binaryStageOps);
      return success();
    }
    addChecker(pm, options.allowRaces, options.threadsPerBlock);
    // Before the race checks, which then see the tile ops' elements; FMA
    // code whatever the chip, as the launches run on the CPU.
    if (options.viaGpu)
      addTileOps(pm, options, /*chip=*/"");
    // The race checks are placed at the vx level and become calls after the
    // GPU mapping, which keeps calls out of device code.
    if (options.detectRaces)
      pm.addPass(createVxInstrumentRaces());
    if (options.viaGpu) {
      addVxToGPUPasses(pm, getMappingOptions(options, mappingChip));
      ConvertGPULaunchToSCFOptions launches;
      launches.reverseParallel = options.reverseParallel;
      pm.addPass(createConvertGPULaunchToSCF(launches));
    }
    if (options.detectRaces)
      pm.addPass(createVxLowerRaceChecks());
    addSpawnsToLoops(pm, options.reverseParallel);
    pm.addPass(createCanonicalizerPass());
    addLoopsToLLVM(pm, options.openmp);
    return success();
  }
  }
  llvm_unreachable("unknown stage");
}

/// Registers `vx-to-<stage>`: its options are parsed into the typed struct,
/// and errors reported through the registry's error handler without
/// llvm::cl's own complaint.
static void registerStagePipeline(Stage stage, StringRef description) {
  std::string name =
      ("vx-to-" + getStageNames()[static_cast<int>(stage)]).str();
  registerPassPipeline(
      name, description,
      [stage, name](OpPassManager &pm, StringRef text,
                    function_ref<LogicalResult(const Twine &)> errorHandler) {
        StageOptionParser parser(stage);
        std::string detail;
        llvm::raw_string_ostream detailStream(detail);
        if (failed(parser.parseFromString(text, detailStream))) {
          // llvm::cl's message, without the program name it starts with.
          StringRef reason = StringRef(detail).trim();
          reason =
              reason.drop_front(std::min(reason.size(), reason.find(": ") + 2));
          return errorHandler(name + ": invalid options '" + text + "'" +
                              (reason.empty() ? "" : ": ") + reason);
        }
        return buildVxPipeline(pm, stage, parser.getValues(),
                               [&](const Twine &message) {
                                 return errorHandler(name + ": " + message);
                               });
      },
      [stage](function_ref<void(const detail::PassOptions &)> optionsHandler) {
        optionsHandler(StageOptionParser(stage));
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
                        "(via-gpu: device spawns through the GPU mapping; "
                        "ptx-sim: their PTX on the PTX simulator)");
}

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

/// CUDA's limit on the threads of a CTA.
static constexpr int64_t kMaxThreadsPerBlock = 1024;

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

SmallVector<StringRef> vx::getStageOptionNames(Stage stage) {
  switch (stage) {
  case Stage::vx:
    return {};
  case Stage::scf:
    return {"allow-races", "reverse-parallel"};
  case Stage::gpu:
    return {"threads-per-block", "stages", "fma"};
  case Stage::nvvm:
    return {"threads-per-block", "stages", "fma", "chip", "features"};
  case Stage::ptx:
    return {"threads-per-block", "stages", "fma", "chip", "features", "format"};
  case Stage::llvm:
    return {"allow-races",  "openmp",   "reverse-parallel",  "via-gpu",
            "ptx-sim",      "chip",     "threads-per-block", "stages",
            "detect-races", "sim-order"};
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
                                      "check with reverse-parallel; default: "
                                      "false)"),
                       llvm::cl::init(false));
  if (takes("detect-races"))
    detectRaces.emplace(*this, "detect-races",
                        llvm::cl::desc("Run with the dynamic race detector "
                                       "(link libvx_race_runtime; default: "
                                       "false)"),
                        llvm::cl::init(false));
  if (takes("openmp"))
    openmp.emplace(*this, "openmp",
                   llvm::cl::desc("Run the parallel loops with OpenMP "
                                  "(default: false)"),
                   llvm::cl::init(false));
  if (takes("reverse-parallel"))
    reverseParallel.emplace(
        *this, "reverse-parallel",
        llvm::cl::desc("Iterate the parallel dimensions from last to first "
                       "(default: false)"),
        llvm::cl::init(false));
  if (takes("via-gpu"))
    viaGpu.emplace(*this, "via-gpu",
                   llvm::cl::desc("Send device spawns through the GPU mapping "
                                  "and run the launches on the CPU (default: "
                                  "false)"),
                   llvm::cl::init(false));
  if (takes("ptx-sim"))
    ptxSim.emplace(*this, "ptx-sim",
                   llvm::cl::desc("Compile the device code as vx-to-ptx "
                                  "(format=isa) does and run every launch "
                                  "on the PTX simulator (link "
                                  "libvx_ptx_sim)"),
                   llvm::cl::init(false));
  if (takes("sim-order"))
    simOrder.emplace(*this, "sim-order",
                     llvm::cl::desc("With ptx-sim, the order of a CTA's "
                                    "threads between barriers: forward, "
                                    "reverse, shuffle or shuffle:SEED "
                                    "(unset: $VX_SIM_ORDER, else forward)"),
                     llvm::cl::init(""));
  if (takes("threads-per-block"))
    threadsPerBlock.emplace(
        *this, "threads-per-block",
        llvm::cl::desc("Threads per CTA of spawns without a threads "
                       "clause (1-1024; default: unset, the default CTA "
                       "size, 256)"),
        llvm::cl::init(ConvertVxToGPUOptions().threadsPerBlock));
  if (takes("stages"))
    stages.emplace(
        *this, "stages",
        llvm::cl::desc("Steps of transfers in flight along the arbitrary "
                       "dimensions for spawns without a stages clause (>= 1; "
                       "default: 1, no pipelining)"),
        llvm::cl::init(1));
  if (takes("fma"))
    fma.emplace(*this, "fma",
                llvm::cl::desc("Let a float multiply feeding an add contract "
                               "to an fma on the device (default: true)"),
                llvm::cl::init(true));
  // On the CPU path the chip applies to ptx-sim (sm_90 when unset) and to
  // via-gpu's mapping, where unset keeps it chip-neutral (cp.async, no TMA).
  if (takes("chip"))
    chip.emplace(*this, "chip",
                 llvm::cl::desc(stage == Stage::llvm
                                    ? "The NVIDIA chip of the device code "
                                      "with ptx-sim (default: sm_90) or "
                                      "via-gpu (default: any chip with "
                                      "cp.async, no TMA)"
                                    : "The NVIDIA chip to compile for "
                                      "(default: sm_90)"),
                 llvm::cl::init(stage == Stage::llvm ? "" : "sm_90"));
  if (takes("features"))
    features.emplace(*this, "features",
                     llvm::cl::desc("PTX features, e.g. +ptx80 (default: a "
                                    "PTX version the chip accepts)"),
                     llvm::cl::init(""));
  if (takes("format"))
    format.emplace(*this, "format",
                   llvm::cl::desc("isa (PTX text), bin (cubin) or fatbin "
                                  "(default: isa)"),
                   llvm::cl::init("isa"));
}

LogicalResult vx::parseVxPipelineOptions(VxPipelineOptions &options,
                                         StringRef text, std::string &error) {
  std::string detail;
  llvm::raw_string_ostream detailStream(detail);
  if (succeeded(options.parseFromString(text, detailStream)))
    return success();
  // llvm::cl's own message, without the program name it starts with.
  StringRef reason = StringRef(detail).trim();
  reason = reason.drop_front(std::min(reason.size(), reason.find(": ") + 2));
  error = ("invalid options '" + text + "'").str();
  if (!reason.empty())
    error += (": " + reason).str();
  return failure();
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
/// is checked against the spawns' topologies. With `lowerNVGPU`, nvgpu ops
/// become NVVM before outlining, as upstream's gpu-lower-to-nvvm-pipeline
/// does: a TMA tensor map made on the host crosses into the kernel as a
/// pointer, which the kernel's signature can hold (an nvgpu type there has
/// no NVVM lowering).
static void addGPUMapping(OpPassManager &pm, int64_t threadsPerBlock,
                          int64_t stages, bool fma, StringRef chip,
                          bool lowerNVGPU) {
  ConvertVxToGPUOptions options;
  options.threadsPerBlock = threadsPerBlock;
  options.stages = stages;
  options.fma = fma;
  options.chip = chip.str();
  addVxToGPUPasses(pm, options);
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
  dynamicShared.alignment = kDynamicSharedMemoryAlignment;
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

/// The device code's target and mapping, as vx-to-ptx compiles it.
struct DeviceCodeOptions {
  int64_t threadsPerBlock;
  int64_t stages;
  bool fma;
  std::string chip;
  std::string features;
};

/// The toolkit that serializes device code for `chip`, or an error.
static FailureOr<std::string>
findToolkitFor(StringRef chip,
               function_ref<LogicalResult(const Twine &)> emitError) {
  std::string error;
  std::optional<std::string> toolkit = findCUDAToolkit(error);
  if (!toolkit || failed(checkPtxasChip(*toolkit, chip, error)))
    return emitError(error);
  return *toolkit;
}

/// vx-to-nvvm after the checker, and with a `toolkit` the gpu.binary of
/// `format` that vx-to-ptx makes of each device module.
static void addDeviceCode(OpPassManager &pm, const DeviceCodeOptions &device,
                          const std::optional<std::string> &toolkit,
                          StringRef format) {
  addGPUMapping(pm, device.threadsPerBlock, device.stages, device.fma,
                device.chip, /*lowerNVGPU=*/true);
  addGPUToNVVM(pm, device.chip, device.features);
  // Before serialization too: an op left here would only surface as a
  // failed translation to LLVM IR.
  addLoweredCheck(
      pm, Stage::nvvm,
      {"builtin.module", "llvm", "nvvm", "gpu.module", "gpu.launch_func"});
  if (!toolkit)
    return;
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = *toolkit;
  binary.compilationTarget = format.str();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createVxDropCompileTimes());
}

/// The ops a stage with serialized device code leaves.
static const std::string binaryStageOps[] = {"builtin.module", "llvm",
                                             "gpu.binary", "gpu.launch_func"};

/// vx-to-llvm's options that ptx-sim excludes, or success.
static LogicalResult
checkPTXSimOptions(const VxPipelineOptions &options,
                   function_ref<LogicalResult(const Twine &)> emitError) {
  using O = VxPipelineOptions;
  if (O::get(options.viaGpu, false))
    return emitError("'ptx-sim' and 'via-gpu' exclude each other: ptx-sim "
                     "runs the PTX of the device code, via-gpu its GPU "
                     "mapping as loops");
  if (O::get(options.detectRaces, false))
    return emitError("'detect-races' does not apply with 'ptx-sim=true': the "
                     "simulator checks the kernels' shared-memory races "
                     "itself");
  if (O::get(options.openmp, false))
    return emitError("'openmp' does not apply with 'ptx-sim=true': the "
                     "simulator runs the launches");
  if (O::get(options.reverseParallel, false))
    return emitError("'reverse-parallel' does not apply with 'ptx-sim=true'; "
                     "'sim-order=reverse' reverses the simulator's thread "
                     "order");
  return success();
}

LogicalResult
vx::buildVxPipeline(OpPassManager &pm, const VxPipelineOptions &options,
                    function_ref<LogicalResult(const Twine &)> emitError) {
  using O = VxPipelineOptions;
  bool allowRaces = O::get(options.allowRaces, false);
  bool detectRaces = O::get(options.detectRaces, false);
  bool reverseParallel = O::get(options.reverseParallel, false);
  bool viaGpu = O::get(options.viaGpu, false);
  bool ptxSim = O::get(options.ptxSim, false);
  std::string simOrder = O::get<std::string>(options.simOrder, "");
  DeviceCodeOptions device;
  device.threadsPerBlock = O::get<int64_t>(
      options.threadsPerBlock, ConvertVxToGPUOptions().threadsPerBlock);
  device.stages = O::get<int64_t>(options.stages, 1);
  device.fma = O::get(options.fma, true);
  device.chip = O::get<std::string>(options.chip, "");
  device.features = O::get<std::string>(options.features, "");
  std::string format = O::get<std::string>(options.format, "isa");

  bool threadsGiven =
      options.threadsPerBlock && options.threadsPerBlock->hasValue();
  if (threadsGiven && (device.threadsPerBlock < 1 ||
                       device.threadsPerBlock > kMaxThreadsPerBlock))
    return emitError("threads-per-block must be between 1 and " +
                     Twine(kMaxThreadsPerBlock) + ", got " +
                     Twine(device.threadsPerBlock));
  if (device.stages < 1)
    return emitError("stages must be at least 1, got " + Twine(device.stages));
  if (ptxSim && device.chip.empty())
    device.chip = "sm_90";
  if (!device.chip.empty()) {
    std::string error;
    if (failed(checkNVPTXTarget(device.chip, device.features, error)))
      return emitError(error);
    if (device.features.empty())
      device.features = getDefaultPTXFeatures(device.chip);
  }
  if (format != "isa" && format != "bin" && format != "fatbin")
    return emitError("format must be 'isa', 'bin' or 'fatbin', got '" + format +
                     "'");

  switch (options.stage) {
  case Stage::vx:
    addChecker(pm, /*allowRaces=*/false);
    return success();
  case Stage::scf:
    addChecker(pm, allowRaces);
    addSpawnsToLoops(pm, reverseParallel);
    pm.addPass(createCanonicalizerPass());
    addLoweredCheck(pm, Stage::scf);
    return success();
  case Stage::gpu:
    addChecker(pm, /*allowRaces=*/false);
    addGPUMapping(pm, device.threadsPerBlock, device.stages, device.fma,
                  device.chip, /*lowerNVGPU=*/false);
    addLoweredCheck(pm, Stage::gpu);
    return success();
  case Stage::nvvm:
    addChecker(pm, /*allowRaces=*/false);
    addDeviceCode(pm, device, /*toolkit=*/std::nullopt, format);
    return success();
  case Stage::ptx: {
    FailureOr<std::string> toolkit = findToolkitFor(device.chip, emitError);
    if (failed(toolkit))
      return failure();
    addChecker(pm, /*allowRaces=*/false);
    addDeviceCode(pm, device, *toolkit, format);
    addLoweredCheck(pm, Stage::ptx, binaryStageOps);
    return success();
  }
  case Stage::llvm: {
    bool chipGiven = options.chip && options.chip->hasValue();
    if (!viaGpu && !ptxSim) {
      for (auto [given, name] : {std::pair(threadsGiven, "threads-per-block"),
                                 std::pair(device.stages != 1, "stages"),
                                 std::pair(chipGiven, "chip")})
        if (given)
          return emitError("'" + Twine(name) +
                           "' applies only with 'via-gpu=true' or "
                           "'ptx-sim=true'");
    }
    if (!ptxSim && !simOrder.empty())
      return emitError("'sim-order' applies only with 'ptx-sim=true'");
    if (ptxSim) {
      if (failed(checkPTXSimOptions(options, emitError)))
        return failure();
      if (!simOrder.empty() && !isSimOrder(simOrder))
        return emitError("sim-order must be 'forward', 'reverse', 'shuffle' "
                         "or 'shuffle:SEED' (SEED a decimal number), got '" +
                         simOrder + "'");
      FailureOr<std::string> toolkit = findToolkitFor(device.chip, emitError);
      if (failed(toolkit))
        return failure();
      addChecker(pm, allowRaces);
      addDeviceCode(pm, device, *toolkit, "isa");
      if (!simOrder.empty()) {
        VxSetSimOrderOptions order;
        order.order = simOrder;
        pm.addPass(createVxSetSimOrder(order));
      }
      addLoweredCheck(pm, Stage::llvm, binaryStageOps);
      return success();
    }
    addChecker(pm, allowRaces);
    // The race checks are placed at the vx level and become calls after the
    // GPU mapping, which keeps calls out of device code.
    if (detectRaces)
      pm.addPass(createVxInstrumentRaces());
    if (viaGpu) {
      ConvertVxToGPUOptions mapping;
      mapping.threadsPerBlock = device.threadsPerBlock;
      mapping.stages = device.stages;
      mapping.chip = device.chip;
      addVxToGPUPasses(pm, mapping);
      ConvertGPULaunchToSCFOptions launches;
      launches.reverseParallel = reverseParallel;
      pm.addPass(createConvertGPULaunchToSCF(launches));
    }
    if (detectRaces)
      pm.addPass(createVxLowerRaceChecks());
    addSpawnsToLoops(pm, reverseParallel);
    pm.addPass(createCanonicalizerPass());
    addLoopsToLLVM(pm, O::get(options.openmp, false));
    return success();
  }
  }
  llvm_unreachable("unknown stage");
}

/// Registers `vx-to-<stage>`: its options are parsed and checked, and errors
/// reported through the registry's error handler.
static void registerStagePipeline(Stage stage, StringRef description) {
  std::string name =
      ("vx-to-" + getStageNames()[static_cast<int>(stage)]).str();
  registerPassPipeline(
      name, description,
      [stage, name](OpPassManager &pm, StringRef text,
                    function_ref<LogicalResult(const Twine &)> errorHandler) {
        VxPipelineOptions options(stage);
        std::string error;
        if (failed(parseVxPipelineOptions(options, text, error)))
          return errorHandler(name + ": " + error);
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
                        "(via-gpu: device spawns through the GPU mapping; "
                        "ptx-sim: their PTX on the PTX simulator)");
}

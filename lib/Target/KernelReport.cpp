//===- KernelReport.cpp - What the compiler did, per kernel ---------------===//

#include "Vx/Target/KernelReport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::vx;

static constexpr StringLiteral kInstancesPerCTAName = "vx.instances_per_cta";
static constexpr StringLiteral kStagesName = "vx.stages";

Location vx::getLaunchPlanLoc(Location loc, int64_t instancesPerCTA,
                              int64_t stages) {
  Builder builder(loc.getContext());
  auto facts = builder.getDictionaryAttr(
      {builder.getNamedAttr(kInstancesPerCTAName,
                            builder.getI64IntegerAttr(instancesPerCTA)),
       builder.getNamedAttr(kStagesName, builder.getI64IntegerAttr(stages))});
  return FusedLoc::get(loc.getContext(), {loc}, facts);
}

/// The launch fact `name` recorded in `loc`, if any.
static std::optional<int64_t> getLaunchFact(Location loc, StringRef name) {
  std::optional<int64_t> value;
  loc->walk([&](Location nested) {
    auto fused = dyn_cast<FusedLoc>(nested);
    auto facts = fused ? dyn_cast_or_null<DictionaryAttr>(fused.getMetadata())
                       : DictionaryAttr();
    if (auto fact = facts ? facts.getAs<IntegerAttr>(name) : IntegerAttr()) {
      value = fact.getInt();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return value;
}

/// `loc` without the launch facts: the spawn's own location.
static Location getSpawnLoc(Location loc) {
  auto fused = dyn_cast<FusedLoc>(loc);
  if (!fused || !isa_and_nonnull<DictionaryAttr>(fused.getMetadata()))
    return loc;
  return FusedLoc::get(loc.getContext(), fused.getLocations());
}

static std::optional<int64_t> getConstant(Value value) {
  APInt constant;
  if (value && matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  return std::nullopt;
}

/// ptxas's usage of every kernel whose PTX `module` holds, by kernel module
/// name (each outlined module holds one kernel of its name).
static FailureOr<llvm::StringMap<PtxasUsage>>
queryModuleUsage(ModuleOp module, std::string &error) {
  llvm::StringMap<PtxasUsage> usage;
  std::optional<std::string> toolkit;
  bool searched = false;
  WalkResult walked = module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      if (!target || object.getFormat() != gpu::CompilationTarget::Assembly)
        continue;
      if (!searched) {
        std::string notFound;
        toolkit = findCUDAToolkit(notFound);
        searched = true;
      }
      if (!toolkit)
        return WalkResult::interrupt();
      FailureOr<llvm::StringMap<PtxasUsage>> kernels = queryPtxasUsage(
          *toolkit, target.getChip(), object.getObject().getValue(), error);
      if (failed(kernels))
        return WalkResult::interrupt();
      auto found = kernels->find(binary.getSymName());
      if (found != kernels->end())
        usage[binary.getSymName()] = found->second;
    }
    return WalkResult::advance();
  });
  if (walked.wasInterrupted() && !error.empty())
    return failure();
  return usage;
}

FailureOr<SmallVector<KernelReport>>
vx::collectKernelReports(ModuleOp module, std::string &error) {
  FailureOr<llvm::StringMap<PtxasUsage>> usage =
      queryModuleUsage(module, error);
  if (failed(usage))
    return failure();
  SmallVector<KernelReport> reports;
  module.walk([&](gpu::LaunchFuncOp launch) {
    KernelReport report{
        launch.getKernelModuleName().str(), {}, {}, {}, {}, {}, {},
        getSpawnLoc(launch.getLoc())};
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    report.grid = {getConstant(grid.x), getConstant(grid.y),
                   getConstant(grid.z)};
    report.block = {getConstant(block.x), getConstant(block.y),
                    getConstant(block.z)};
    Value sharedBytes = launch.getDynamicSharedMemorySize();
    report.sharedBytes = sharedBytes ? getConstant(sharedBytes) : 0;
    report.instancesPerCTA =
        getLaunchFact(launch.getLoc(), kInstancesPerCTAName);
    report.stages = getLaunchFact(launch.getLoc(), kStagesName);
    auto found = usage->find(report.kernel);
    if (found != usage->end())
      report.usage = found->second;
    reports.push_back(std::move(report));
  });
  return reports;
}

void vx::printKernelReport(const KernelReport &report, raw_ostream &os) {
  auto print = [&](StringRef name, std::optional<int64_t> value) {
    os << " " << name << "=";
    if (value)
      os << *value;
    else
      os << "?";
  };
  auto printDims = [&](StringRef name,
                       const std::array<std::optional<int64_t>, 3> &dims) {
    os << " " << name << "=(";
    llvm::interleaveComma(dims, os, [&](std::optional<int64_t> dim) {
      if (dim)
        os << *dim;
      else
        os << "?";
    });
    os << ")";
  };
  // The names of vx.KernelReport's fields.
  os << "kernel " << report.kernel << ":";
  printDims("grid", report.grid);
  printDims("block", report.block);
  print("instances_per_cta", report.instancesPerCTA);
  print("shared_bytes", report.sharedBytes);
  print("stages", report.stages);
  if (!report.usage)
    return;
  print("registers", report.usage->registers);
  print("spill_bytes", report.usage->spillBytes);
  print("stack_bytes", report.usage->stackBytes);
}

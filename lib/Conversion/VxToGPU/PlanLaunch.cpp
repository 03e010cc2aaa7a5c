//===- PlanLaunch.cpp - How each device spawn maps onto the GPU -----------===//
//
// vx-plan-launch, the first step of the GPU mapping: checks that device
// spawns can run on the device and records on each its kernel's name, its
// CTA size and whether a grid instance runs on the whole CTA (a body with
// thread loops) or on one of its threads. Also the shared-memory layout and
// limits that the later steps check against.
//
//===----------------------------------------------------------------------===//

#include "CTAMapping.h"
#include "LaunchPlan.h"
#include "PipelineTransfers.h"
#include "Vx/Conversion/VxToGPU/VxToGPU.h"
#include "Vx/Conversion/VxTransferToNVGPU/TMA.h"
#include "Vx/Target/CUDA.h"
#include "Vx/Target/Limits.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXPLANLAUNCH
#include "Vx/Conversion/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

SmallVector<SpawnOp> vx::getDeviceSpawns(ModuleOp module) {
  SmallVector<SpawnOp> spawns;
  module.walk([&](SpawnOp spawn) {
    if (spawn.isDeviceSpawn())
      spawns.push_back(spawn);
  });
  return spawns;
}

FailureOr<std::optional<Chip>>
vx::parseChipOption(ModuleOp module, StringRef pass, StringRef chip) {
  if (chip.empty())
    return std::optional<Chip>();
  std::string chipError;
  FailureOr<Chip> parsed = Chip::parse(chip, chipError);
  if (failed(parsed))
    return checkPassOption(module, pass, chipError);
  return std::optional<Chip>(*parsed);
}

/// The bytes one element of `type` takes in memory and its alignment, as
/// LLVM lays it out (NVPTX and the host alike), for the element types that
/// smem scratch may have: integers and floats of 1 to 8 bits or a power of
/// two, index, and vectors of the byte-sized ones.
static std::optional<std::pair<int64_t, int64_t>> getElementLayout(Type type) {
  auto scalarBytes = [](Type scalar) -> std::optional<int64_t> {
    if (scalar.isIndex())
      return 8;
    if (!scalar.isIntOrFloat())
      return std::nullopt;
    unsigned width = scalar.getIntOrFloatBitWidth();
    if (width <= 8)
      return 1;
    if (!llvm::isPowerOf2_32(width))
      return std::nullopt;
    return width / 8;
  };
  auto vector = dyn_cast<VectorType>(type);
  if (!vector) {
    std::optional<int64_t> bytes = scalarBytes(type);
    if (!bytes)
      return std::nullopt;
    return std::make_pair(*bytes, *bytes);
  }
  std::optional<int64_t> elementBytes = scalarBytes(vector.getElementType());
  if (vector.isScalable() || !elementBytes ||
      vector.getElementTypeBitWidth() % 8 != 0)
    return std::nullopt;
  // An n-D vector is an array of its innermost 1-D vectors, each padded to a
  // power of two.
  int64_t row = llvm::PowerOf2Ceil(vector.getShape().back() * *elementBytes);
  return std::make_pair(
      vector.getNumElements() / vector.getShape().back() * row, row);
}

SharedMemoryLayout vx::getSharedMemoryLayout(SpawnOp spawn, int64_t instances) {
  SharedMemoryLayout layout;
  for (ScratchOp scratch : spawn.getBody().front().getOps<ScratchOp>())
    if (scratch.getPlacement() == Memory::smem) {
      layout.scratch.push_back(scratch);
      layout.alignment = std::max(
          layout.alignment,
          getElementLayout(scratch.getType().getElementType())->second);
    }
  for (ScratchOp scratch : layout.scratch) {
    MemRefType type = scratch.getType();
    int64_t bytes =
        type.getNumElements() * getElementLayout(type.getElementType())->first;
    int64_t slice = llvm::alignTo(bytes, layout.alignment);
    layout.sliceBytes.push_back(slice);
    // Each buffer at a multiple of the base's alignment: with one instance
    // per CTA every scratch is a TMA destination and its vector accesses
    // have an alignment known at compile time.
    // Swizzled tiles at a multiple of their pattern, which the dynamic
    // array's alignment then is too (vx-extern-dynamic-shared-memory).
    layout.totalBytes = llvm::alignTo(
        layout.totalBytes,
        std::max(kDynamicSharedMemoryAlignment, getSwizzleAlignment(scratch)));
    layout.offsets.push_back(layout.totalBytes);
    layout.totalBytes += instances * slice;
  }
  return layout;
}

/// Dialects whose ops lower on every route of a device spawn: the GPU
/// pipelines and the CPU ones (gpu, nvgpu and nvvm ops would run only on
/// the GPU; the compiler places those itself).
static bool isDeviceDialect(Dialect *dialect) {
  if (!dialect)
    return false;
  return llvm::is_contained({"arith", "math", "index", "scf", "affine",
                             "vector", "memref", "vx", "linalg", "ub",
                             "complex"},
                            dialect->getNamespace());
}

/// Why `op`, in a device spawn body, would not lower on every route (or run
/// on the device), or nothing when it would.
static std::optional<std::string> getDeviceIllegalReason(Operation *op) {
  if (op->hasAttr(VxDialect::kTensorCoreAttrName))
    return std::nullopt;
  if (isa<CallOpInterface>(op))
    return "cannot run on the device: device spawns may not call host "
           "functions";
  if (isa<memref::AllocOp, memref::DeallocOp, memref::ReallocOp>(op))
    return "cannot run on the device: allocate per-instance memory with "
           "'vx.scratch'";
  auto isTensor = [](Type type) { return isa<TensorType>(type); };
  if (llvm::any_of(op->getOperandTypes(), isTensor) ||
      llvm::any_of(op->getResultTypes(), isTensor))
    return "cannot run on the device: device code works on memrefs, not "
           "tensors (bufferize first)";
  if (isa<gpu::GPUDialect, nvgpu::NVGPUDialect, NVVM::NVVMDialect>(
          op->getDialect()))
    return "cannot run in a spawn body: it runs only on the GPU, and a spawn "
           "body runs on the CPU paths too";
  if (!isDeviceDialect(op->getDialect()))
    return "cannot run on the device: its dialect has no device lowering";
  if (isa<math::IsInfOp, math::IsNormalOp, math::ClampFOp>(op))
    return "has no lowering on the CPU paths (LLVM 22's math lowerings lack "
           "it); write it with arith comparisons";
  if (isa<vector::PrintOp>(op))
    return "cannot run on the device: it prints through host functions";
  if (isa<memref::AllocaScopeOp>(op))
    return "cannot be lowered in a spawn body: its region must stay one "
           "block while the control flow around it is lowered, and the "
           "spawn body is an allocation scope already";
  // Atomics as LLVM has them: cmpxchg on integers of a byte or more, and
  // no atomic multiplication.
  auto isAtomicInteger = [](Type type) {
    return type.isInteger() && type.getIntOrFloatBitWidth() >= 8;
  };
  if (auto atomic = dyn_cast<memref::GenericAtomicRMWOp>(op);
      atomic && !isAtomicInteger(atomic.getResult().getType()))
    return "does not lower on a " +
           llvm::formatv("{0}", atomic.getResult().getType()).str() +
           " element (LLVM's cmpxchg takes integers of 8 bits or more); use "
           "'memref.atomic_rmw' or an integer buffer";
  if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op)) {
    Type type = atomic.getValue().getType();
    if (atomic.getKind() == arith::AtomicRMWKind::mulf ||
        atomic.getKind() == arith::AtomicRMWKind::muli)
      return "'" + arith::stringifyAtomicRMWKind(atomic.getKind()).str() +
             "' does not lower (LLVM has no atomic multiplication); use "
             "'memref.generic_atomic_rmw' on an integer buffer";
    if (type.isInteger() && !isAtomicInteger(type))
      return "does not lower on a " + llvm::formatv("{0}", type).str() +
             " element (LLVM's atomics take integers of 8 bits or more)";
  }
  return std::nullopt;
}

SmallVector<std::optional<int64_t>> vx::getStaticExtents(SpawnOp spawn,
                                                         int64_t instances) {
  SmallVector<std::optional<int64_t>> extents;
  SmallVector<unsigned> parallelDims = spawn.getParallelDims();
  for (auto [position, dim] : llvm::enumerate(parallelDims)) {
    std::optional<int64_t> size =
        getConstantIntValue(spawn.getMixedGrid()[dim]);
    if (size && position + 1 == parallelDims.size())
      size = llvm::divideCeil(*size, instances);
    extents.push_back(size);
  }
  return extents;
}

// The chip's limit less the static shared memory before the dynamic array,
// the mbarriers of a TMA pipeline padded to the array's alignment (the
// pipeline counts those beyond it).
int64_t vx::getSharedMemoryLimit(const Chip *chip) {
  const Chip &target = chip ? *chip : Chip::getDefault();
  return target.getMaxSharedMemoryPerBlock() -
         getDynamicSharedMemoryAlignment(target);
}

/// Whether `spawn` can run on the device (and on `chip`, when named):
/// reports its ops that cannot, and grids the mapping cannot count.
static LogicalResult checkDeviceOps(SpawnOp spawn, const Chip *chip,
                                    int64_t instances) {
  if (chip && spawn.getTopology() == Topology::tensor_core5 &&
      !chip->hasTensorCore5())
    return spawn.emitOpError("on 'tensor_core5' needs a Blackwell chip "
                             "(sm_100 or newer), got '")
           << chip->getName() << "'";
  int64_t staticTotal = 1;
  SmallVector<int64_t> staticExtents;
  bool overflows = false;
  for (std::optional<int64_t> extent : getStaticExtents(spawn, instances))
    if (extent) {
      staticExtents.push_back(*extent);
      overflows |= llvm::MulOverflow(staticTotal, *extent, staticTotal);
    }
  if (overflows)
    return spawn.emitOpError("has more CTAs along its parallel dimensions (")
           << llvm::join(llvm::map_range(staticExtents,
                                         [](int64_t extent) {
                                           return std::to_string(extent);
                                         }),
                         " x ")
           << ") than the GPU mapping can count in an index (2^63-1); make "
              "a dimension 'arbitrary' or split the spawn";
  WalkResult result = spawn.getBody().walk([&](Operation *op) {
    if (std::optional<std::string> reason = getDeviceIllegalReason(op)) {
      op->emitOpError(*reason).attachNote(spawn.getLoc())
          << "in this device spawn";
      return WalkResult::interrupt();
    }
    auto scratch = dyn_cast<ScratchOp>(op);
    if (!scratch || scratch.getPlacement() != Memory::smem)
      return WalkResult::advance();
    MemRefType type = scratch.getType();
    if (!type.getLayout().isIdentity() || type.getMemorySpace()) {
      scratch.emitOpError("in shared memory needs the identity layout and no "
                          "memory space, got ")
          << type;
      return WalkResult::interrupt();
    }
    if (!getElementLayout(type.getElementType())) {
      scratch.emitOpError("in shared memory needs integers, floats or index, "
                          "or vectors of byte-sized ones, got ")
          << type.getElementType();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult vx::checkSharedMemory(SpawnOp spawn, const Chip *chip,
                                    int64_t instances) {
  SharedMemoryLayout layout = getSharedMemoryLayout(spawn, instances);
  int64_t limit = getSharedMemoryLimit(chip);
  if (layout.totalBytes <= limit)
    return success();
  InFlightDiagnostic error = spawn.emitOpError("needs ")
                             << layout.totalBytes
                             << " bytes of shared memory per CTA (";
  if (instances > 1)
    error << instances << " instances per CTA x ";
  error << llvm::sum_of(layout.sliceBytes)
        << " bytes of smem scratch per instance), more than the " << limit
        << " bytes of dynamic shared memory that "
        << (chip ? "'" + chip->getName().str() + "'" : std::string("any chip"))
        << " gives a CTA";
  for (auto [scratch, bytes] : llvm::zip(layout.scratch, layout.sliceBytes))
    error.attachNote(scratch.getLoc())
        << "smem scratch of " << bytes << " bytes per instance";
  return error;
}

/// The kernel names of the device spawns of `module` without a plan, in
/// program order. In function @f the kernels are `f_kernel`, `f_kernel_0`,
/// `f_kernel_1`, ... (the names outlining would give the modules), skipping
/// names the module already has and those of planned spawns.
static SmallVector<std::pair<SpawnOp, StringAttr>>
nameKernels(ArrayRef<SpawnOp> spawns, ModuleOp module) {
  SymbolTable symbols(module);
  llvm::StringSet<> taken;
  for (SpawnOp spawn : spawns)
    if (LaunchPlanAttr plan = LaunchPlanAttr::lookup(spawn))
      taken.insert(plan.getKernel().getValue());
  SmallVector<std::pair<SpawnOp, StringAttr>> names;
  for (SpawnOp spawn : spawns) {
    if (LaunchPlanAttr::lookup(spawn))
      continue;
    auto function = spawn->getParentOfType<SymbolOpInterface>();
    std::string base =
        ((function ? function.getName() : StringRef("spawn")) + "_kernel")
            .str();
    std::string name = base;
    for (unsigned suffix = 0; symbols.lookup(name) || taken.contains(name);
         ++suffix)
      name = base + "_" + std::to_string(suffix);
    taken.insert(name);
    names.emplace_back(spawn, StringAttr::get(module.getContext(), name));
  }
  return names;
}

/// Whether `instances` per CTA, with `stages` stages of the slots of
/// `slots`, fit the dynamic shared memory of `chip`.
static bool fitsSharedMemory(SpawnOp spawn, int64_t instances,
                             const SlotCost &slots, int64_t stages,
                             const Chip *chip) {
  return getSharedMemoryLayout(spawn, instances).totalBytes +
             slots.getExtraBytes(stages, instances) <=
         getSharedMemoryLimit(chip);
}

/// With the default CTA size (no `threads` clause, no threads-per-block
/// given), a spawn whose instances each run on a thread and pipeline their
/// transfers (its `stages` clause, else `stages`, above 1) keeps the
/// requested stages whenever their slots fit some CTA (VX_SPEC 2.2), and
/// runs the instances per CTA, a power of two up to the default, whose
/// slots fit and that occupy an SM of `chip` best (StagesOccupancy): whole
/// warps unless no CTA of whole warps has room for the stages. A remark
/// says when the CTA is smaller than without pipelining.
static LaunchPlanAttr fitDefaultCTASize(SpawnOp spawn, LaunchPlanAttr plan,
                                        int64_t stages, const Chip *chip) {
  if (plan.getCooperative() || spawn.getThreadsAttr())
    return plan;
  int64_t requested = spawn.getPipelineStages(stages);
  SlotCost slots =
      requested > 1 ? getAsyncCopySlotCost(spawn, chip) : SlotCost();
  int64_t unpipelined = plan.getThreads();
  while (unpipelined > 1 &&
         !fitsSharedMemory(spawn, unpipelined, slots, 1, chip))
    unpipelined = llvm::PowerOf2Ceil(unpipelined) / 2;
  // The most stages up to the requested that fit one instance per CTA;
  // with fewer than 2 vx-pipeline-transfers says why it does not pipeline.
  int64_t kept = slots.slotBytes ? requested : 1;
  while (kept > 1 && !fitsSharedMemory(spawn, 1, slots, kept, chip))
    --kept;
  int64_t instances = unpipelined;
  Chip target = chip ? *chip : Chip::getDefault();
  std::optional<StagesOccupancy> best;
  for (int64_t candidate = unpipelined; kept > 1 && candidate >= 1;
       candidate /= 2) {
    if (candidate < vx::kWarpSize && best && best->threads >= vx::kWarpSize)
      break;
    if (!fitsSharedMemory(spawn, candidate, slots, kept, chip))
      continue;
    PipelinedCTA cta{candidate, candidate,
                     getSharedMemoryLayout(spawn, candidate).totalBytes};
    StagesOccupancy occupancy = getStagesOccupancy(slots, cta, kept, target);
    if (!best || occupancy.isBetterThan(*best, target)) {
      best = occupancy;
      instances = candidate;
    }
  }
  if (best && instances < unpipelined)
    spawn.emitRemark("runs ")
        << instances << " instances per CTA instead of " << unpipelined
        << " so that its transfers pipeline in " << kept << " stages ("
        << requested << " requested, " << slots.slotBytes
        << " bytes per slot) and occupy an SM of '" << target.getName()
        << "' best: " << best->threadsPerSM << " threads per SM, in CTAs of "
        << best->sharedBytes << " bytes of shared memory, " << best->ctasPerSM
        << " per SM";
  return LaunchPlanAttr::get(spawn.getContext(), plan.getKernel(), instances,
                             /*cooperative=*/false, /*mapped=*/false,
                             /*stages=*/0);
}

// A CTA has the spawn's `threads`, else `threadsPerBlock`; a body without
// thread loops or parallel dimensions runs one instance, on one thread.
LogicalResult vx::planLaunches(ModuleOp module, int64_t threadsPerBlock,
                               int64_t stages, const Chip *chip) {
  bool defaultCTASize = threadsPerBlock == 0;
  int64_t ctaSize = defaultCTASize ? kDefaultCTASize : threadsPerBlock;
  SmallVector<std::pair<SpawnOp, LaunchPlanAttr>> plans;
  for (auto [spawn, kernel] : nameKernels(getDeviceSpawns(module), module)) {
    // An affine.parallel becomes a thread loop when vx-map-cta lowers the
    // body's affine ops.
    bool cooperative =
        !getThreadLoops(spawn).empty() || hasAffineParallel(spawn);
    int64_t threads = spawn.getCTASize(ctaSize);
    if (!cooperative && spawn.getParallelDims().empty())
      threads = 1;
    plans.emplace_back(spawn, LaunchPlanAttr::get(module.getContext(), kernel,
                                                  threads, cooperative,
                                                  /*mapped=*/false,
                                                  /*stages=*/0));
  }
  bool valid = true;
  for (auto [spawn, plan] : plans)
    valid &= succeeded(checkDeviceOps(spawn, chip, plan.getInstancesPerCTA()));
  if (!valid)
    return failure();
  for (auto [spawn, plan] : plans)
    spawn->setAttr(LaunchPlanAttr::kAttrName,
                   defaultCTASize ? fitDefaultCTASize(spawn, plan, stages, chip)
                                  : plan);
  return success();
}

namespace {
struct VxPlanLaunchPass : public vx::impl::VxPlanLaunchBase<VxPlanLaunchPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkPassOption(module, getArgument(),
                               checkThreadsPerBlockOption(threadsPerBlock))) ||
        failed(
            checkPassOption(module, getArgument(), checkStagesOption(stages))))
      return signalPassFailure();
    FailureOr<std::optional<Chip>> targetChip =
        parseChipOption(module, getArgument(), chip);
    if (failed(targetChip) ||
        failed(planLaunches(module, threadsPerBlock, stages,
                            getChip(*targetChip))))
      signalPassFailure();
  }
};
} // namespace

//===- VxToGPU.cpp - Map device spawns onto gpu.launch grids --------------===//
//
// A device spawn becomes one gpu.launch whose grid is made of the spawn's
// parallel dimensions. A body with thread loops runs each parallel point on
// a whole CTA (CTAMapping.h rewrites it first into what every thread runs);
// a body without them runs one parallel point per thread, the CTA's threads
// spread over the innermost parallel dimension. Inside, the arbitrary
// dimensions are an scf.for nest in grid order. gpu-kernel-outlining then
// turns the launches into gpu.launch_func + gpu.module.
//
//===----------------------------------------------------------------------===//

#include "Vx/Conversion/VxToGPU/VxToGPU.h"
#include "CTAMapping.h"
#include "PipelineTransfers.h"
#include "Vx/Conversion/VxToSCF/VxToSCF.h"
#include "Vx/Conversion/VxTransferToNVGPU/VxTransferToNVGPU.h"
#include "Vx/Location.h"
#include "Vx/Target/CUDA.h"
#include "Vx/Target/Chip.h"
#include "Vx/Target/KernelReport.h"
#include "Vx/Target/Limits.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <memory>

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_CONVERTVXTOGPU
#include "Vx/Conversion/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

/// CUDA's limits on the launch grid.
static constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
static constexpr int64_t kMaxGridYZ = 65535;
/// Every smem buffer starts at a multiple of this many bytes in the CTA's
/// dynamic shared memory (whose base has this alignment on the GPU): the
/// widest shared-memory access (16-byte vectors and cp.async chunks).
static constexpr int64_t kSmemAlignment = 16;

bool vx::isInDeviceCode(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<gpu::LaunchOp>(parent))
      return true;
    if (auto spawn = dyn_cast<SpawnOp>(parent))
      return spawn.isDeviceSpawn();
  }
  return false;
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

namespace {
/// Where the smem scratch of a device spawn lives in its CTA's dynamic
/// shared memory: with `instances` instances per CTA, instance t's buffer of
/// `scratch[k]` starts at byte `offsets[k] + t * sliceBytes[k]`.
struct SharedMemoryLayout {
  SmallVector<ScratchOp> scratch;
  SmallVector<int64_t> sliceBytes;
  SmallVector<int64_t> offsets;
  /// Every buffer starts at a multiple of this (a power of two).
  int64_t alignment = kSmemAlignment;
  /// The CTA's dynamic shared memory in bytes.
  int64_t totalBytes = 0;
};
} // namespace

/// The layout of the smem scratch of `spawn` (whose element types
/// checkDeviceOps has admitted), `instances` instances per CTA.
static SharedMemoryLayout getSharedMemoryLayout(SpawnOp spawn,
                                                int64_t instances) {
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

/// The number of CTAs along each parallel dimension of `spawn` as far as
/// they are static: the instances per CTA divide the innermost one.
static SmallVector<std::optional<int64_t>> getStaticExtents(SpawnOp spawn,
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

/// The dynamic shared memory a CTA may use on `chip` (the largest of any
/// chip, sm_90's, when null): the chip's limit less the static shared
/// memory before the dynamic array, the mbarriers of a TMA pipeline padded
/// to the array's alignment (the pipeline counts those beyond it).
static int64_t getSharedMemoryLimit(const Chip *chip) {
  return (chip ? *chip : Chip::getDefault()).getMaxSharedMemoryPerBlock() -
         kDynamicSharedMemoryAlignment;
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

/// Whether the smem scratch of `spawn`, `instances` instances per CTA, fits
/// the shared memory that `chip` (any chip, when null) gives a CTA.
static LogicalResult checkSharedMemory(SpawnOp spawn, const Chip *chip,
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

/// The product of `factors` (each in [0, 2^63)) and, with more than one
/// factor, an i1 that holds when the product fits in [0, 2^63): each step's
/// product must divide back to the previous one (no unsigned wrap) and stay
/// non-negative.
static std::pair<Value, Value>
buildCheckedProduct(OpBuilder &builder, Location loc, ArrayRef<Value> factors) {
  Value product = factors.front();
  if (factors.size() == 1)
    return {product, Value()};
  Value fits;
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  for (Value factor : factors.drop_front()) {
    Value next = arith::MulIOp::create(builder, loc, product, factor);
    Value factorIsZero = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, factor, zero);
    Value divisor =
        arith::SelectOp::create(builder, loc, factorIsZero, one, factor);
    Value back = arith::DivUIOp::create(builder, loc, next, divisor);
    Value exact = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                        back, product);
    Value nonNegative = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::sge, next, zero);
    Value stepFits = arith::OrIOp::create(
        builder, loc, factorIsZero,
        arith::AndIOp::create(builder, loc, exact, nonNegative));
    fits =
        fits ? arith::AndIOp::create(builder, loc, fits, stepFits) : stepFits;
    product = next;
  }
  return {product, fits};
}

/// The run-time message of a dynamic grid whose parallel instances cannot be
/// counted in an index.
static std::string getOverflowMessage(SpawnOp spawn) {
  return "vx.spawn at " + formatLocation(spawn.getLoc()) +
         ": the product of the parallel grid sizes exceeds 2^63-1, so the "
         "GPU mapping cannot count its instances; nothing is launched";
}

namespace {
/// How a device spawn maps onto the GPU.
struct LaunchPlan {
  /// The name of its kernel, and of the kernel's module.
  StringAttr kernelName;
  /// The threads of a CTA.
  int64_t threads = 1;
  /// Whether a grid instance runs on the whole CTA (a body with thread
  /// loops) rather than on one of its threads.
  bool cooperative = false;
  /// The stages its transfers are pipelined in (1: not pipelined).
  int64_t stages = 1;

  /// The grid instances that share a CTA.
  int64_t getInstancesPerCTA() const { return cooperative ? 1 : threads; }
};
using LaunchPlans = DenseMap<Operation *, LaunchPlan>;
} // namespace

/// Plans the device spawns of `module` in program order. In function @f the
/// kernels are `f_kernel`, `f_kernel_0`, `f_kernel_1`, ... (the names
/// outlining would give the modules), skipping names the module already
/// has. A CTA has the spawn's `threads`, else `threadsPerBlock`; a body
/// without thread loops or parallel dimensions runs one instance, on one
/// thread.
static LaunchPlans planLaunches(ModuleOp module, int64_t threadsPerBlock) {
  LaunchPlans plans;
  SymbolTable symbols(module);
  llvm::StringSet<> taken;
  module.walk([&](SpawnOp spawn) {
    if (!spawn.isDeviceSpawn())
      return;
    auto function = spawn->getParentOfType<SymbolOpInterface>();
    std::string base =
        ((function ? function.getName() : StringRef("spawn")) + "_kernel")
            .str();
    std::string name = base;
    for (unsigned suffix = 0; symbols.lookup(name) || taken.contains(name);
         ++suffix)
      name = base + "_" + std::to_string(suffix);
    taken.insert(name);
    LaunchPlan &plan = plans[spawn];
    plan.kernelName = StringAttr::get(module.getContext(), name);
    plan.threads = spawn.getCTASize(threadsPerBlock);
    plan.cooperative = !getThreadLoops(spawn).empty();
    if (!plan.cooperative && spawn.getParallelDims().empty())
      plan.threads = 1;
  });
  return plans;
}

/// With the default CTA size (no `threads` clause, no threads-per-block
/// given), a spawn whose instances each run on a thread shares the CTA
/// among fewer instances when the default's would not fit the shared
/// memory of `chip`: the largest power of two that fits (at least 1).
static void fitDefaultCTASize(SpawnOp spawn, LaunchPlan &plan,
                              const Chip *chip) {
  if (plan.cooperative || spawn.getThreadsAttr())
    return;
  int64_t limit = getSharedMemoryLimit(chip);
  while (plan.threads > 1 &&
         getSharedMemoryLayout(spawn, plan.threads).totalBytes > limit)
    plan.threads = llvm::PowerOf2Ceil(plan.threads) / 2;
}

/// The `scf.for` nest of the arbitrary dimensions of `spawn`, in grid order
/// (each parallel point runs its arbitrary instances one at a time, as on
/// the CPU), at the rewriter's point: sets their `coords` to the induction
/// variables and leaves the rewriter in the innermost body, where the spawn
/// body goes. What steps across the arbitrary instances (barriers between
/// steps, pipelined transfers) sees this nest in the kernel.
static void buildArbitraryLoops(RewriterBase &rewriter, Location loc,
                                SpawnOp spawn, ArrayRef<Value> sizes,
                                MutableArrayRef<Value> coords) {
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (unsigned dim : spawn.getArbitraryDims()) {
    auto loop = scf::ForOp::create(rewriter, loc, zero, sizes[dim], one);
    coords[dim] = loop.getInductionVar();
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  }
}

/// Marks the float arithmetic of `spawn` contractible, so that a multiply
/// feeding an add becomes one fma (nvcc's default, -fmad=true).
static void allowContraction(SpawnOp spawn) {
  spawn.getBody().walk([](arith::ArithFastMathInterface op) {
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(op))
      return;
    arith::FastMathFlags flags = arith::FastMathFlags::contract;
    if (arith::FastMathFlagsAttr current = op.getFastMathFlagsAttr())
      flags = flags | current.getValue();
    op->setAttr(op.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(op->getContext(), flags));
  });
}

/// Lets the body of `spawn` assume, from the builder's point on, that the
/// captured buffers it accesses start at 16-byte aligned addresses
/// (cudaMalloc's are 256-byte aligned), so that vector accesses whose
/// indices keep that alignment become 128-bit ones. Buffers with a dynamic
/// or non-zero offset are left alone.
static void assumeCapturedAlignment(RewriterBase &rewriter, SpawnOp spawn) {
  SetVector<Value> captured;
  spawn.getBody().walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type || type.getMemorySpace() ||
          spawn.getBody().isAncestor(operand.getParentRegion()))
        continue;
      SmallVector<int64_t> strides;
      int64_t offset;
      if (succeeded(type.getStridesAndOffset(strides, offset)) && offset == 0)
        captured.insert(operand);
    }
  });
  for (Value buffer : captured) {
    Value aligned = memref::AssumeAlignmentOp::create(rewriter, spawn.getLoc(),
                                                      buffer, kSmemAlignment);
    for (OpOperand &use : llvm::make_early_inc_range(buffer.getUses()))
      if (spawn->isProperAncestor(use.getOwner()))
        rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(aligned); });
  }
}

namespace {

/// How the parallel dimensions of a spawn map onto a launch grid.
struct GridMapping {
  /// The number of CTAs along each parallel dimension (threads-per-block
  /// divides the innermost one).
  SmallVector<OpFoldResult> extents;
  /// Each parallel dimension is its own launch dimension.
  bool direct = false;
  /// Folded: the number of CTAs needed; a loop covers what exceeds the
  /// launch grid.
  OpFoldResult total;
  bool gridStride = false;
  /// Whether a dynamic `total` fits in a (signed) index; null where it
  /// cannot overflow.
  Value totalFits;
};

struct SpawnToLaunch : public OpConversionPattern<SpawnOp> {
  SpawnToLaunch(MLIRContext *context, std::shared_ptr<const LaunchPlans> plans)
      : OpConversionPattern(context), plans(std::move(plans)) {}

  LogicalResult
  matchAndRewrite(SpawnOp spawn, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = spawn.getLoc();
    unsigned rank = spawn.getRank();
    SmallVector<unsigned> parallelDims = spawn.getParallelDims();
    const LaunchPlan &plan = plans->at(spawn);
    int64_t instances = plan.getInstancesPerCTA();
    // checkDeviceOps has refused static totals that overflow.
    GridMapping mapping =
        mapGrid(rewriter, loc, spawn, parallelDims, instances);

    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> gridDims(3, one);
    Value total;
    if (mapping.direct) {
      for (auto [axis, extent] : llvm::enumerate(mapping.extents))
        gridDims[axis] = getValueOrCreateConstantIndexOp(rewriter, loc, extent);
    } else if (!parallelDims.empty()) {
      total = getValueOrCreateConstantIndexOp(rewriter, loc, mapping.total);
      std::optional<int64_t> staticTotal = getConstantIntValue(mapping.total);
      Value maxGridX = arith::ConstantIndexOp::create(rewriter, loc, kMaxGridX);
      if (!staticTotal) {
        // A launch needs at least one CTA: skip it when the grid is empty
        // (the extents are clamped at 0, so the total is never negative),
        // and when the total does not fit an index, after the assertion
        // that reports it at run time.
        Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        Value launchable = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ne, total, zero);
        if (mapping.totalFits) {
          cf::AssertOp::create(rewriter, loc, mapping.totalFits,
                               getOverflowMessage(spawn));
          launchable = arith::AndIOp::create(rewriter, loc, launchable,
                                             mapping.totalFits);
        }
        auto ifNonEmpty = scf::IfOp::create(rewriter, loc, launchable);
        rewriter.setInsertionPoint(ifNonEmpty.thenBlock()->getTerminator());
        gridDims[0] = arith::MinUIOp::create(rewriter, loc, total, maxGridX);
      } else {
        gridDims[0] = *staticTotal > kMaxGridX ? maxGridX : total;
      }
    }

    // smem scratch is dynamic shared memory: a kernel may use what the chip
    // has (static shared memory stops at 48 KiB), and every buffer is
    // aligned for the widest access.
    SharedMemoryLayout smem = getSharedMemoryLayout(spawn, instances);
    Value smemBytes;
    if (smem.totalBytes)
      smemBytes = arith::ConstantIntOp::create(rewriter, loc, smem.totalBytes,
                                               /*width=*/32);
    Value blockX = arith::ConstantIndexOp::create(rewriter, loc, plan.threads);
    // The outlined module and its kernel share one name, unique in the
    // module: what Python's launches and PTX keys show.
    auto kernelName = FlatSymbolRefAttr::get(plan.kernelName);
    // The location says what the launch does not (KernelReport.h).
    Location launchLoc =
        getLaunchPlanLoc(loc, plan.getInstancesPerCTA(), plan.stages);
    auto launch = gpu::LaunchOp::create(
        rewriter, launchLoc, gridDims[0], gridDims[1], gridDims[2], blockX, one,
        one, smemBytes, /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
        /*workgroupAttributions=*/{}, /*privateAttributions=*/{},
        /*clusterSizeX=*/nullptr, /*clusterSizeY=*/nullptr,
        /*clusterSizeZ=*/nullptr, /*module=*/kernelName,
        /*function=*/kernelName);
    Block *kernel = &launch.getBody().front();
    rewriter.setInsertionPointToEnd(kernel);
    gpu::TerminatorOp::create(rewriter, loc);
    rewriter.setInsertionPointToStart(kernel);
    Value threadX = launch.getThreadIds().x;
    // Materialized in the kernel, so that static sizes stay constants there
    // instead of becoming kernel arguments.
    SmallVector<Value> sizes;
    for (unsigned dim = 0; dim < rank; ++dim)
      sizes.push_back(spawn.getGridSize(rewriter, loc, dim));
    one = arith::ConstantIndexOp::create(rewriter, loc, 1);

    // Scratch lives for the whole kernel: one instance runs at a time per
    // thread, so a later instance (grid-stride) reuses the buffer. smem
    // scratch is a view of this thread's slice of the dynamic shared memory,
    // cast back to the memory space the body was written against.
    auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                                gpu::AddressSpace::Workgroup);
    Value sharedBytes;
    if (smem.totalBytes)
      sharedBytes = gpu::DynamicSharedMemoryOp::create(
          rewriter, loc,
          MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type(),
                          AffineMap(), workgroup));
    for (auto [scratch, offset, sliceBytes] :
         llvm::zip_equal(smem.scratch, smem.offsets, smem.sliceBytes)) {
      MemRefType type = scratch.getType();
      Location scratchLoc = scratch.getLoc();
      Value shift;
      if (instances > 1)
        shift = arith::MulIOp::create(
            rewriter, scratchLoc, threadX,
            arith::ConstantIndexOp::create(rewriter, scratchLoc, sliceBytes));
      if (offset || !shift) {
        Value base =
            arith::ConstantIndexOp::create(rewriter, scratchLoc, offset);
        shift = shift ? arith::AddIOp::create(rewriter, scratchLoc, base, shift)
                      : base;
      }
      Value slice = memref::ViewOp::create(
          rewriter, scratchLoc,
          MemRefType::get(type.getShape(), type.getElementType(), AffineMap(),
                          workgroup),
          sharedBytes, shift, ValueRange());
      rewriter.replaceOp(scratch, memref::MemorySpaceCastOp::create(
                                      rewriter, scratchLoc, type, slice));
    }
    // Private scratch is aligned like shared memory, for vector accesses.
    for (ScratchOp scratch : spawn.getBody().front().getOps<ScratchOp>())
      if (scratch.getPlacement() == Memory::private_) {
        auto alloca = memref::AllocaOp::create(rewriter, scratch.getLoc(),
                                               scratch.getType());
        alloca.setAlignment(kSmemAlignment);
        rewriter.replaceOp(scratch, alloca);
      }

    assumeCapturedAlignment(rewriter, spawn);

    // The CTA coordinates along the parallel dimensions.
    SmallVector<Value> blockCoords;
    scf::ForOp gridLoop;
    gpu::KernelDim3 blockIds = launch.getBlockIds();
    if (mapping.direct) {
      Value ids[] = {blockIds.x, blockIds.y, blockIds.z};
      blockCoords.append(ids, ids + parallelDims.size());
    } else if (!parallelDims.empty()) {
      Value linear = blockIds.x;
      if (mapping.gridStride) {
        gridLoop = scf::ForOp::create(rewriter, loc, linear, total,
                                      launch.getGridSize().x);
        rewriter.setInsertionPoint(gridLoop.getBody()->getTerminator());
        linear = gridLoop.getInductionVar();
      }
      blockCoords =
          *affine::delinearizeIndex(rewriter, loc, linear, mapping.extents);
    }

    SmallVector<Value> coords(rank);
    for (auto [dim, coord] : llvm::zip_equal(parallelDims, blockCoords))
      coords[dim] = coord;
    if (instances > 1) {
      unsigned inner = parallelDims.back();
      Value stride = arith::ConstantIndexOp::create(rewriter, loc, instances);
      Value base = arith::MulIOp::create(rewriter, loc, coords[inner], stride);
      coords[inner] = arith::AddIOp::create(rewriter, loc, base, threadX);
      std::optional<int64_t> innerSize = getConstantIntValue(sizes[inner]);
      if (!innerSize || *innerSize % instances != 0) {
        // The last CTA of a ragged dimension has idle threads. A launch
        // happens only when every parallel size is at least 1, and the
        // coordinate stays below 2^64 (the last CTA ends before size +
        // threads), so the unsigned comparison is exact.
        Value inBounds =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                  coords[inner], sizes[inner]);
        auto guard = scf::IfOp::create(rewriter, loc, inBounds);
        rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
      }
    }

    buildArbitraryLoops(rewriter, loc, spawn, sizes, coords);
    spawn.inlineBody(rewriter, coords, sizes);
    if (gridLoop && plan.cooperative && smem.totalBytes) {
      // The CTA's next parallel point reuses the shared memory.
      rewriter.setInsertionPoint(gridLoop.getBody()->getTerminator());
      gpu::BarrierOp::create(rewriter, loc);
    }
    return success();
  }

  /// Decides how the parallel dimensions map onto the launch grid.
  GridMapping mapGrid(OpBuilder &builder, Location loc, SpawnOp spawn,
                      ArrayRef<unsigned> parallelDims,
                      int64_t instances) const {
    GridMapping mapping;
    SmallVector<OpFoldResult> grid = spawn.getMixedGrid();
    for (auto [position, dim] : llvm::enumerate(parallelDims)) {
      OpFoldResult extent = grid[dim];
      std::optional<int64_t> size = getConstantIntValue(extent);
      if (!size) {
        // A dynamic size <= 0 runs no instance: clamped at 0 before the
        // unsigned arithmetic below and in the kernel sees it.
        Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
        extent = arith::MaxSIOp::create(builder, loc, cast<Value>(extent), zero)
                     .getResult();
      }
      if (position + 1 == parallelDims.size() && instances > 1) {
        if (size) {
          extent = builder.getIndexAttr(llvm::divideCeil(*size, instances));
        } else {
          Value divisor =
              arith::ConstantIndexOp::create(builder, loc, instances);
          extent = arith::CeilDivUIOp::create(builder, loc, cast<Value>(extent),
                                              divisor)
                       .getResult();
        }
      }
      mapping.extents.push_back(extent);
    }

    mapping.direct = parallelDims.size() <= 3;
    for (auto [axis, extent] : llvm::enumerate(mapping.extents)) {
      std::optional<int64_t> size = getConstantIntValue(extent);
      mapping.direct &=
          size.has_value() && *size <= (axis == 0 ? kMaxGridX : kMaxGridYZ);
    }
    if (mapping.direct || parallelDims.empty())
      return mapping;

    // Fold: the product of the extents, static where they all are
    // (checkDeviceSpawn has refused static products that overflow).
    int64_t staticTotal = 1;
    SmallVector<Value> dynamicExtents;
    for (OpFoldResult extent : mapping.extents) {
      if (std::optional<int64_t> size = getConstantIntValue(extent))
        staticTotal *= *size;
      else
        dynamicExtents.push_back(cast<Value>(extent));
    }
    if (dynamicExtents.empty()) {
      mapping.total = builder.getIndexAttr(staticTotal);
      mapping.gridStride = staticTotal > kMaxGridX;
      return mapping;
    }
    if (staticTotal != 1)
      dynamicExtents.push_back(
          arith::ConstantIndexOp::create(builder, loc, staticTotal));
    std::tie(mapping.total, mapping.totalFits) =
        buildCheckedProduct(builder, loc, dynamicExtents);
    mapping.gridStride = true;
    return mapping;
  }

  std::shared_ptr<const LaunchPlans> plans;
};

struct ConvertVxToGPUPass
    : public vx::impl::ConvertVxToGPUBase<ConvertVxToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Option errors are about the pass, not an op: no op is attached (which
    // would print the whole module in a note).
    std::optional<std::string> optionError =
        checkThreadsPerBlockOption(threadsPerBlock);
    if (!optionError)
      optionError = checkStagesOption(stages);
    // The chip is parsed once; null maps for any chip with cp.async.
    FailureOr<Chip> parsedChip = failure();
    std::string chipError;
    if (!optionError && !chip.empty() &&
        failed(parsedChip = Chip::parse(chip, chipError)))
      optionError = chipError;
    if (optionError) {
      emitError(module.getLoc(), "convert-vx-to-gpu: ") << *optionError;
      return signalPassFailure();
    }
    const Chip *targetChip = succeeded(parsedChip) ? &*parsedChip : nullptr;
    bool defaultCTASize = threadsPerBlock == 0;
    auto plans = std::make_shared<LaunchPlans>(planLaunches(
        module, defaultCTASize ? kDefaultCTASize : int64_t(threadsPerBlock)));
    // Transfers that the threads of a CTA copy together, and how many.
    auto sharedTransfers = std::make_shared<DenseMap<Operation *, int64_t>>();
    SmallVector<SpawnOp> spawns;
    module.walk([&](SpawnOp spawn) {
      if (spawn.isDeviceSpawn())
        spawns.push_back(spawn);
    });
    bool valid = true;
    for (SpawnOp spawn : spawns)
      valid &= succeeded(checkDeviceOps(spawn, targetChip,
                                        plans->at(spawn).getInstancesPerCTA()));
    if (!valid || failed(lowerAffineInSpawns(module)))
      return signalPassFailure();
    for (SpawnOp spawn : spawns) {
      LaunchPlan &plan = plans->at(spawn);
      if (defaultCTASize)
        fitDefaultCTASize(spawn, plan, targetChip);
      if (plan.cooperative) {
        SmallVector<Operation *> shared;
        if (failed(mapInstanceOntoCTA(spawn, plan.threads, shared))) {
          valid = false;
          continue;
        }
        for (Operation *transfer : shared)
          (*sharedTransfers)[transfer] = plan.threads;
      }
      if (fma)
        allowContraction(spawn);
      valid &= succeeded(
          checkSharedMemory(spawn, targetChip, plan.getInstancesPerCTA()));
    }
    if (!valid)
      return signalPassFailure();
    // The transfers' pipelines, on the body that every thread runs (the
    // transfers they issue are the CTA's, like the ones they replace).
    for (SpawnOp spawn : spawns) {
      const LaunchPlan &plan = plans->at(spawn);
      PipelineTarget pipelineTarget;
      pipelineTarget.chip = targetChip;
      pipelineTarget.defaultStages = stages;
      pipelineTarget.instancesPerCTA = plan.getInstancesPerCTA();
      pipelineTarget.freeSharedBytes =
          getSharedMemoryLimit(targetChip) -
          getSharedMemoryLayout(spawn, pipelineTarget.instancesPerCTA)
              .totalBytes;
      // Static extents within the launch grid need no grid-stride loop.
      int64_t total = 1;
      pipelineTarget.onePointPerCTA = true;
      for (std::optional<int64_t> extent :
           getStaticExtents(spawn, pipelineTarget.instancesPerCTA))
        pipelineTarget.onePointPerCTA &=
            extent && !llvm::MulOverflow(total, *extent, total) &&
            total <= kMaxGridX;
      pipelineTarget.sharedByThreads = plan.cooperative;
      PipelinedSpawn pipelined = pipelineTransfers(spawn, pipelineTarget);
      plans->at(spawn).stages = pipelined.stages;
      for (Operation *transfer : pipelined.transfers)
        if (plan.cooperative)
          (*sharedTransfers)[transfer] = plan.threads;
    }

    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    configureVxToGPUConversionLegality(target);
    TypeConverter typeConverter;
    RewritePatternSet patterns(context);
    GetThreadShare getShare =
        [sharedTransfers](OpBuilder &builder,
                          Operation *op) -> std::optional<ThreadShare> {
      auto shared = sharedTransfers->find(op);
      if (shared == sharedTransfers->end())
        return std::nullopt;
      auto id =
          gpu::ThreadIdOp::create(builder, op->getLoc(), gpu::Dimension::x);
      id.setUpperBoundAttr(builder.getIndexAttr(shared->second));
      return ThreadShare{id, shared->second};
    };
    populateVxTransferToLoopsConversionPatterns(typeConverter, patterns, target,
                                                isInDeviceCode, getShare);
    populateVxTransferToNVGPUConversionPatterns(typeConverter, patterns, module,
                                                targetChip, getShare);
    patterns.add<SpawnToLaunch>(context, std::move(plans));
    populateMemRefCopyToLoopsPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void vx::configureVxToGPUConversionLegality(ConversionTarget &target) {
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addDynamicallyLegalOp<SpawnOp>(
      [](SpawnOp spawn) { return !spawn.isDeviceSpawn(); });
  target.addDynamicallyLegalOp<memref::CopyOp>(
      [](memref::CopyOp copy) { return !isInDeviceCode(copy); });
}

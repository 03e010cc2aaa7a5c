//===- VxToGPU.cpp - Map device spawns onto gpu.launch grids --------------===//
//
// convert-vx-to-gpu, the last step of the GPU mapping (LaunchPlan.h lists
// the others, which it runs on spawns that lack their results). A device
// spawn becomes one gpu.launch whose grid is made of the spawn's parallel
// dimensions, as its `#vx.launch_plan` says. A body with thread loops runs
// each parallel point on a whole CTA (vx-map-cta has rewritten it into what
// every thread runs);
// a body without them runs one parallel point per thread, the CTA's threads
// spread over the innermost parallel dimension. Inside, the arbitrary
// dimensions are an scf.for nest in grid order. gpu-kernel-outlining then
// turns the launches into gpu.launch_func + gpu.module.
//
//===----------------------------------------------------------------------===//

#include "Vx/Conversion/VxToGPU/VxToGPU.h"
#include "CTAMapping.h"
#include "LaunchPlan.h"
#include "Vx/Conversion/VxToSCF/VxToSCF.h"
#include "Vx/Conversion/VxTransferToNVGPU/VxTransferToNVGPU.h"
#include "Vx/Location.h"
#include "Vx/Target/CUDA.h"
#include "Vx/Target/KernelReport.h"
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
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_CONVERTVXTOGPU
#include "Vx/Conversion/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

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

/// Whether `condition` is `iv == size - 1` for `loop`, which steps by 1 up
/// to size: how a spawn body says "at the last arbitrary step".
static bool isLastStep(Value condition, scf::ForOp loop) {
  if (getConstantIntValue(loop.getStep()) != 1)
    return false;
  auto compare = condition.getDefiningOp<arith::CmpIOp>();
  if (!compare || compare.getPredicate() != arith::CmpIPredicate::eq)
    return false;
  Value iv = loop.getInductionVar();
  Value last = compare.getLhs() == iv   ? compare.getRhs()
               : compare.getRhs() == iv ? compare.getLhs()
                                        : Value();
  if (!last)
    return false;
  Value size = loop.getUpperBound();
  std::optional<int64_t> staticSize = getConstantIntValue(size);
  if (std::optional<int64_t> staticLast = getConstantIntValue(last))
    return staticSize && *staticLast == *staticSize - 1;
  auto minusOne = last.getDefiningOp<arith::SubIOp>();
  if (!minusOne || getConstantIntValue(minusOne.getRhs()) != 1)
    return false;
  return minusOne.getLhs() == size ||
         (staticSize && getConstantIntValue(minusOne.getLhs()) == staticSize);
}

/// Moves the last step's epilogue of `loop` (in a kernel: the steps along
/// an arbitrary dimension) after it: a trailing `scf.if` on the last step
/// (SGEMM's store of its accumulators) runs once the loop is done, under
/// `size > lower bound`, as a CUDA kernel stores after its K loop. Left in
/// the loop, its invariant address arithmetic (the 8 row addresses of C)
/// is hoisted by LLVM to the preheader and stays live across every step
/// (16 registers; NVPTX cannot fold a hoisted offset back into the store).
/// The values of the body that the epilogue uses are recomputed after the
/// loop (the step's index is then size - 1); the epilogue stays where it
/// is when one of them is not pure.
static void sinkLastStep(RewriterBase &rewriter, scf::ForOp loop) {
  if (loop.getNumResults())
    return;
  Block *body = loop.getBody();
  Operation *beforeYield = body->getTerminator()->getPrevNode();
  auto epilogue = dyn_cast_or_null<scf::IfOp>(beforeYield);
  if (!epilogue || epilogue.getNumResults() ||
      !epilogue.getElseRegion().empty() ||
      !isLastStep(epilogue.getCondition(), loop))
    return;
  // The body's ops whose results the epilogue needs, transitively.
  llvm::SetVector<Operation *> needed;
  SmallVector<Value> worklist;
  epilogue.getThenRegion().walk(
      [&](Operation *op) { llvm::append_range(worklist, op->getOperands()); });
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (value.getParentBlock() == body && isa<BlockArgument>(value) &&
        value != loop.getInductionVar())
      return;
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != body || needed.contains(def))
      continue;
    if (def->getNumRegions() || !isMemoryEffectFree(def))
      return;
    needed.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  Location loc = epilogue.getLoc();
  rewriter.setInsertionPointAfter(loop);
  Value size = loop.getUpperBound();
  IRMapping mapping;
  mapping.map(
      loop.getInductionVar(),
      arith::SubIOp::create(rewriter, loc, size,
                            arith::ConstantIndexOp::create(rewriter, loc, 1)));
  for (Operation &op : body->without_terminator())
    if (needed.contains(&op))
      rewriter.clone(op, mapping);
  Value ran = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                    size, loop.getLowerBound());
  auto sunk = scf::IfOp::create(rewriter, loc, ran);
  rewriter.setInsertionPointToStart(sunk.thenBlock());
  for (Operation &op : epilogue.thenBlock()->without_terminator())
    rewriter.clone(op, mapping);
  rewriter.eraseOp(epilogue);
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

/// The launch grid of a spawn: its three dimensions and, when the parallel
/// dimensions are folded into x, the number of CTAs they need.
struct LaunchGrid {
  SmallVector<Value> dims;
  Value total;
};

struct SpawnToLaunch : public OpConversionPattern<SpawnOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SpawnOp spawn, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = spawn.getLoc();
    unsigned rank = spawn.getRank();
    SmallVector<unsigned> parallelDims = spawn.getParallelDims();
    LaunchPlanAttr plan = LaunchPlanAttr::lookup(spawn);
    int64_t instances = plan.getInstancesPerCTA();
    // vx-plan-launch has refused static totals that overflow.
    GridMapping mapping =
        mapGrid(rewriter, loc, spawn, parallelDims, instances);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    LaunchGrid grid = buildLaunchGrid(rewriter, loc, spawn, mapping, one);

    // smem scratch is dynamic shared memory: a kernel may use what the chip
    // has (static shared memory stops at 48 KiB), and every buffer is
    // aligned for the widest access.
    SharedMemoryLayout smem = getSharedMemoryLayout(spawn, instances);
    Value smemBytes;
    if (smem.totalBytes)
      smemBytes = arith::ConstantIntOp::create(rewriter, loc, smem.totalBytes,
                                               /*width=*/32);
    Value blockX =
        arith::ConstantIndexOp::create(rewriter, loc, plan.getThreads());
    // The outlined module and its kernel share one name, unique in the
    // module: what Python's launches and PTX keys show.
    auto kernelName = FlatSymbolRefAttr::get(plan.getKernel());
    // The location says what the launch does not (KernelReport.h).
    Location launchLoc = getLaunchPlanLoc(loc, instances, plan.getStages());
    auto launch = gpu::LaunchOp::create(
        rewriter, launchLoc, grid.dims[0], grid.dims[1], grid.dims[2], blockX,
        one, one, smemBytes, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/{}, /*workgroupAttributions=*/{},
        /*privateAttributions=*/{}, /*clusterSizeX=*/nullptr,
        /*clusterSizeY=*/nullptr, /*clusterSizeZ=*/nullptr,
        /*module=*/kernelName, /*function=*/kernelName);
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

    replaceScratch(rewriter, spawn, smem, instances, threadX);
    assumeCapturedAlignment(rewriter, spawn);

    scf::ForOp gridLoop;
    SmallVector<Value> coords =
        buildParallelCoords(rewriter, loc, spawn, launch, mapping, grid.total,
                            sizes, instances, gridLoop);
    buildArbitraryLoops(rewriter, loc, spawn, sizes, coords);
    spawn.inlineBody(rewriter, coords, sizes);
    if (gridLoop && plan.getCooperative() && smem.totalBytes) {
      rewriter.setInsertionPoint(gridLoop.getBody()->getTerminator());
      remarkBarrier(gpu::BarrierOp::create(rewriter, loc),
                    "the CTA's next parallel point reuses the shared memory");
    }
    return success();
  }

  /// The launch grid of `mapping`, each dimension `one` unless the mapping
  /// needs it. A dynamic folded grid is launched under an `scf.if` (not when
  /// empty, nor when its total overflows, after an assertion that says so),
  /// where the rewriter is left.
  static LaunchGrid buildLaunchGrid(RewriterBase &rewriter, Location loc,
                                    SpawnOp spawn, const GridMapping &mapping,
                                    Value one) {
    LaunchGrid grid{SmallVector<Value>(3, one), Value()};
    if (mapping.direct) {
      for (auto [axis, extent] : llvm::enumerate(mapping.extents))
        grid.dims[axis] =
            getValueOrCreateConstantIndexOp(rewriter, loc, extent);
      return grid;
    }
    if (spawn.getParallelDims().empty())
      return grid;
    grid.total = getValueOrCreateConstantIndexOp(rewriter, loc, mapping.total);
    std::optional<int64_t> staticTotal = getConstantIntValue(mapping.total);
    Value maxGridX = arith::ConstantIndexOp::create(rewriter, loc, kMaxGridX);
    if (staticTotal) {
      grid.dims[0] = *staticTotal > kMaxGridX ? maxGridX : grid.total;
      return grid;
    }
    // A launch needs at least one CTA: skip it when the grid is empty (the
    // extents are clamped at 0, so the total is never negative), and when
    // the total does not fit an index, after the assertion that reports it
    // at run time.
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value launchable = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ne, grid.total, zero);
    if (mapping.totalFits) {
      cf::AssertOp::create(rewriter, loc, mapping.totalFits,
                           getOverflowMessage(spawn));
      launchable =
          arith::AndIOp::create(rewriter, loc, launchable, mapping.totalFits);
    }
    auto ifNonEmpty = scf::IfOp::create(rewriter, loc, launchable);
    rewriter.setInsertionPoint(ifNonEmpty.thenBlock()->getTerminator());
    grid.dims[0] = arith::MinUIOp::create(rewriter, loc, grid.total, maxGridX);
    return grid;
  }

  /// Replaces the scratch of `spawn` at the rewriter's point (the top of the
  /// kernel). Scratch lives for the whole kernel: one instance runs at a
  /// time per thread, so a later instance (grid-stride) reuses the buffer.
  /// smem scratch is a view of this thread's slice of the dynamic shared
  /// memory (`threadX` picks it among `instances` per CTA), cast back to the
  /// memory space the body was written against.
  static void replaceScratch(RewriterBase &rewriter, SpawnOp spawn,
                             const SharedMemoryLayout &smem, int64_t instances,
                             Value threadX) {
    auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                                gpu::AddressSpace::Workgroup);
    Value sharedBytes;
    if (smem.totalBytes)
      sharedBytes = gpu::DynamicSharedMemoryOp::create(
          rewriter, spawn.getLoc(),
          MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type(),
                          AffineMap(), workgroup));
    for (auto [scratchOp, offset, sliceBytes] :
         llvm::zip_equal(smem.scratch, smem.offsets, smem.sliceBytes)) {
      ScratchOp scratch = scratchOp;
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
      // The alignment that the layout gives every slice, stated on the
      // pointer the body uses (LLVM sees no alignment through the address
      // space cast) so that adjacent shared accesses become vectors.
      uint64_t alignment = llvm::MinAlign(
          offset, instances > 1 ? sliceBytes : kDynamicSharedMemoryAlignment);
      Value cast =
          memref::MemorySpaceCastOp::create(rewriter, scratchLoc, type, slice);
      rewriter.replaceOp(
          scratch, memref::AssumeAlignmentOp::create(
                       rewriter, scratchLoc, cast,
                       std::clamp<uint64_t>(alignment, 1,
                                            kDynamicSharedMemoryAlignment)));
    }
    // Private scratch is aligned like shared memory, for vector accesses.
    for (ScratchOp scratch : spawn.getBody().front().getOps<ScratchOp>())
      if (scratch.getPlacement() == Memory::private_) {
        auto alloca = memref::AllocaOp::create(rewriter, scratch.getLoc(),
                                               scratch.getType());
        alloca.setAlignment(kSmemAlignment);
        rewriter.replaceOp(scratch, alloca);
      }
  }

  /// The coordinates of the kernel's instance along the parallel dimensions
  /// of `spawn` (the others null): the CTA's, from its block ids (in a
  /// grid-stride `gridLoop` when the launch grid cannot hold the CTAs), and
  /// with `instances` per CTA the thread's along the innermost dimension,
  /// under a bounds guard where that dimension is ragged. Leaves the
  /// rewriter where the instance runs.
  static SmallVector<Value>
  buildParallelCoords(RewriterBase &rewriter, Location loc, SpawnOp spawn,
                      gpu::LaunchOp launch, const GridMapping &mapping,
                      Value total, ArrayRef<Value> sizes, int64_t instances,
                      scf::ForOp &gridLoop) {
    SmallVector<unsigned> parallelDims = spawn.getParallelDims();
    SmallVector<Value> blockCoords;
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

    SmallVector<Value> coords(spawn.getRank());
    for (auto [dim, coord] : llvm::zip_equal(parallelDims, blockCoords))
      coords[dim] = coord;
    if (instances == 1)
      return coords;
    unsigned inner = parallelDims.back();
    Value stride = arith::ConstantIndexOp::create(rewriter, loc, instances);
    Value base = arith::MulIOp::create(rewriter, loc, coords[inner], stride);
    coords[inner] =
        arith::AddIOp::create(rewriter, loc, base, launch.getThreadIds().x);
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
    return coords;
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
};

struct ConvertVxToGPUPass
    : public vx::impl::ConvertVxToGPUBase<ConvertVxToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef pass = getArgument();
    // The steps whose result a spawn lacks, so that the pass works alone.
    FailureOr<std::optional<Chip>> targetChip = failure();
    if (failed(checkPassOption(module, pass,
                               checkThreadsPerBlockOption(threadsPerBlock))) ||
        failed(checkPassOption(module, pass, checkStagesOption(stages))) ||
        failed(targetChip = parseChipOption(module, pass, chip)) ||
        failed(planLaunches(module, threadsPerBlock, stages,
                            getChip(*targetChip))))
      return signalPassFailure();
    padSharedTiles(module, getChip(*targetChip));
    if (failed(mapSpawnsOntoCTAs(module, getChip(*targetChip))) ||
        failed(pipelineSpawnTransfers(module, stages, getChip(*targetChip))))
      return signalPassFailure();
    for (SpawnOp spawn : getDeviceSpawns(module))
      remarkScratchInLocalMemory(spawn);
    if (fma)
      for (SpawnOp spawn : getDeviceSpawns(module))
        allowContraction(spawn);

    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    configureVxToGPUConversionLegality(target);
    TypeConverter typeConverter;
    RewritePatternSet patterns(context);
    populateVxTransferToLoopsConversionPatterns(typeConverter, patterns, target,
                                                isInDeviceCode, getCopyShare);
    populateVxTransferToNVGPUConversionPatterns(
        typeConverter, patterns, module, getChip(*targetChip), getCopyShare);
    patterns.add<SpawnToLaunch>(context);
    populateMemRefCopyToLoopsPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // Innermost first: an epilogue may hold loops of its own.
    SmallVector<scf::ForOp> loops;
    module.walk([&](gpu::LaunchOp launch) {
      launch.getBody().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    });
    IRRewriter rewriter(context);
    for (scf::ForOp loop : loops)
      sinkLastStep(rewriter, loop);
  }

  /// The share of a transfer that the threads of a CTA copy together
  /// (`vx.copy_threads`), or nothing.
  static std::optional<ThreadShare> getCopyShare(OpBuilder &builder,
                                                 Operation *op) {
    auto threads =
        op->getAttrOfType<IntegerAttr>(VxDialect::kCopyThreadsAttrName);
    if (!threads)
      return std::nullopt;
    auto id = gpu::ThreadIdOp::create(builder, op->getLoc(), gpu::Dimension::x);
    id.setUpperBoundAttr(builder.getIndexAttr(threads.getInt()));
    return ThreadShare{id, threads.getInt()};
  }
};

} // namespace

void vx::addVxToGPUPasses(OpPassManager &pm,
                          const ConvertVxToGPUOptions &options) {
  VxPlanLaunchOptions plan;
  plan.threadsPerBlock = options.threadsPerBlock;
  plan.stages = options.stages;
  plan.chip = options.chip;
  pm.addPass(createVxPlanLaunch(plan));
  VxPadSharedTilesOptions pad;
  pad.chip = options.chip;
  pm.addPass(createVxPadSharedTiles(pad));
  VxMapCTAOptions map;
  map.chip = options.chip;
  pm.addPass(createVxMapCTA(map));
  pm.addPass(createVxUnrollThreadLoops());
  pm.addPass(createVxVectorizeSharedAccesses());
  VxPipelineTransfersOptions pipeline;
  pipeline.stages = options.stages;
  pipeline.chip = options.chip;
  pm.addPass(createVxPipelineTransfers(pipeline));
  pm.addPass(createConvertVxToGPU(options));
}

void vx::configureVxToGPUConversionLegality(ConversionTarget &target) {
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addDynamicallyLegalOp<SpawnOp>(
      [](SpawnOp spawn) { return !spawn.isDeviceSpawn(); });
  target.addDynamicallyLegalOp<memref::CopyOp>(
      [](memref::CopyOp copy) { return !isInDeviceCode(copy); });
}

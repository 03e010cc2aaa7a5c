//===- PipelineTransfers.cpp - Multi-buffered transfers -------------------===//
//
// With N stages, a transfer into smem scratch that moves with the arbitrary
// dimensions gets N slots of the scratch; the step s in [0, S) (the linear
// index of the arbitrary coordinates, innermost fastest) uses slot s mod N,
// and runs, where the transfer was:
//
//   if s == 0:  for j in 0 .. N-2: { if j < S: issue(j);  commit }
//   cp.async.wait_group N-2          (step s's group is complete)
//   barrier                          (only when the threads share the slots)
//   if s+N-1 < S: issue(s+N-1);  commit
//
// Before the wait of step s the groups of steps 0 .. s+N-2 are committed, so
// N-2 stay in flight; a commit is empty where the guard is off, which keeps
// the count exact at the end of the grid and for grids of fewer than N
// steps. Slot (s+N-1) mod N = (s-1) mod N was last read by step s-1, which
// every thread has left after the barrier. The transfers' own awaits go.
//
// vx-pipeline-transfers, the third step of the GPU mapping, is a rewrite of
// the spawn body, before convert-vx-to-gpu builds its loops:
// the first step issues the prologue, so the mapping's loops over the
// arbitrary dimensions stay as they are. See docs/design.md.
//
//===----------------------------------------------------------------------===//

#include "PipelineTransfers.h"
#include "CTAMapping.h"
#include "LaunchPlan.h"
#include "Vx/Analysis/SpawnAnalysis.h"
#include "Vx/Conversion/VxToGPU/VxToGPU.h"
#include "Vx/Conversion/VxTransferToNVGPU/TMA.h"
#include "Vx/Conversion/VxTransferToNVGPU/VxTransferToNVGPU.h"
#include "Vx/Target/CUDA.h"
#include "Vx/Target/Limits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXPIPELINETRANSFERS
#include "Vx/Conversion/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

/// Every slot starts at a multiple of this many bytes: the widest cp.async
/// chunk, and the alignment of every smem scratch's slices.
static constexpr int64_t kSlotAlignment = kSmemAlignment;
/// The alignment of a TMA destination in shared memory: that of the
/// dynamic shared memory, at which every smem buffer of a CTA with one
/// instance starts (getSharedMemoryLayout), so TMA slots are aligned at
/// compile time.
static constexpr int64_t kTMAAlignment = kDynamicSharedMemoryAlignment;

namespace {
/// A transfer that the pipeline issues ahead of its step.
struct PipelinedTransfer {
  TransferAsyncOp transfer;
  AwaitOp await;
  /// The destination: the whole scratch, or `paddedView` of it.
  ScratchOp scratch;
  /// The view of a scratch with padded rows (vx-distribute-tile-ops'
  /// layout for ldmatrix) that the transfer fills, if any.
  memref::SubViewOp paddedView;
  /// The ops of the body that compute the source, in program order.
  SmallVector<Operation *> sourceSlice;
  /// The tile when a TMA copy carries the transfer.
  std::optional<TMATile> tile;
  /// Whether its source does not move with the arbitrary dimensions: the
  /// first step loads it, into a buffer that it keeps.
  bool fixed = false;

  /// Whether the pipeline loads it once, not per step: a fixed tile, by TMA
  /// (`tma`) or by cp.async unless the tensor cores read it swizzled (such
  /// a tile is fixed for TMA's sake only).
  bool isLoadedOnce(bool tma) const {
    return fixed && (tma || getSwizzle() == 0);
  }

  /// The bytes of one slot, a multiple of `alignment` and of the swizzle
  /// pattern of the scratch, if any.
  int64_t getSlotBytes(int64_t alignment) const {
    MemRefType type = ScratchOp(scratch).getType();
    return llvm::alignTo(
        type.getNumElements() * type.getElementTypeBitWidth() / 8,
        std::max(alignment, getSwizzleAlignment(scratch)));
  }
  /// The swizzle of the scratch's layout (0: none).
  int64_t getSwizzle() const {
    auto swizzle = scratch->getAttrOfType<IntegerAttr>(kSwizzleAttrName);
    return swizzle ? swizzle.getInt() : 0;
  }
};

/// Why a transfer is not pipelined, and the op that is the reason, if any.
struct Refusal {
  std::string reason;
  Operation *culprit = nullptr;
};
} // namespace

/// The buffer that `value` is a view of, through view ops.
static Value getViewRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The ops of `spawn`'s body that `value` depends on, in program order, or
/// the first one that a step could not compute ahead of time: one with
/// memory effects or regions.
static FailureOr<SmallVector<Operation *>>
getSourceSlice(SpawnOp spawn, Value value, Operation *&culprit) {
  SetVector<Operation *> slice;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !spawn.getBody().isAncestor(def->getParentRegion()) ||
        !slice.insert(def))
      continue;
    if (!isPure(def) || def->getNumRegions() != 0) {
      culprit = def;
      return failure();
    }
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered = slice.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Whether `op` may write memory that one of `roots` (candidates of
/// traceMemoryRoots) may be, or writes memory it does not name.
static bool mayWrite(Operation *op, SpawnOp spawn,
                     ArrayRef<Access::Candidate> roots) {
  // Tensor-core ops (mma.sync of the tile ops) declare no effects but only
  // read and write registers.
  if (isa<AwaitOp, gpu::BarrierOp>(op) ||
      op->hasAttr(VxDialect::kTensorCoreAttrName))
    return false;
  // The walk visits the nested ops of an op whose effects are theirs; a
  // linalg op has their trait and declares its own writes of its outputs.
  auto effecting = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effecting)
    return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
  SmallVector<MemoryEffects::EffectInstance> effects;
  effecting.getEffects(effects);
  return llvm::any_of(
      effects, [&](const MemoryEffects::EffectInstance &effect) {
        if (!isa<MemoryEffects::Write>(effect.getEffect()) ||
            isRaceDetectorEffect(effect))
          return false;
        if (!effect.getValue())
          return true;
        return llvm::any_of(traceMemoryRoots(effect.getValue(), spawn),
                            [&](const Access::Candidate &written) {
                              return llvm::any_of(
                                  roots, [&](const Access::Candidate &read) {
                                    return written.root.mayAlias(read.root);
                                  });
                            });
      });
}

/// The first op in `spawn` but `except` that may write memory that `buffer`
/// may view.
static Operation *findWriteOf(SpawnOp spawn, Value buffer,
                              Operation *except = nullptr) {
  SmallVector<Access::Candidate, 1> roots = traceMemoryRoots(buffer, spawn);
  Operation *found = nullptr;
  spawn.getBody().walk([&](Operation *op) {
    if (op == except || !mayWrite(op, spawn, roots))
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

/// The first op of the body that uses `buffer` (through views) other than
/// `transfer`, at or before `await` in the body block.
static Operation *findAccessBefore(Value buffer, TransferAsyncOp transfer,
                                   AwaitOp await) {
  Block *body = await->getBlock();
  for (Operation *user : buffer.getUsers()) {
    if (user == transfer)
      continue;
    if (auto view = dyn_cast<ViewLikeOpInterface>(user);
        view && view.getViewSource() == buffer) {
      for (Value result : user->getResults())
        if (Operation *access = findAccessBefore(result, transfer, await))
          return access;
      continue;
    }
    Operation *step = body->findAncestorOpInBlock(*user);
    if (!step || !await->isBeforeInBlock(step))
      return user;
  }
  return nullptr;
}

/// `value` when it is the only view of a scratch with padded rows: a
/// subview at offset zero with unit strides of all its rows (rank 2 or
/// more) less a tail of each, through which every access goes, so that
/// filling it fills all that is ever read of the scratch.
static memref::SubViewOp getPaddedView(Value value) {
  auto view = value.getDefiningOp<memref::SubViewOp>();
  if (!view || !view.getSource().getDefiningOp<ScratchOp>() ||
      !view.getSource().hasOneUse() || !view.hasZeroOffset() ||
      !view.hasUnitStride())
    return nullptr;
  ArrayRef<int64_t> rows = view.getSourceType().getShape().drop_back();
  if (rows.empty() || view.getStaticSizes().drop_back() != rows)
    return nullptr;
  return view;
}

/// Whether `transfer` can be pipelined in `spawn`; fills `pipelined` or
/// says why not.
static std::optional<Refusal> analyzeTransfer(SpawnOp spawn,
                                              TransferAsyncOp transfer,
                                              const Chip *chip,
                                              PipelinedTransfer &pipelined) {
  Block &body = spawn.getBody().front();
  if (transfer->getBlock() != &body)
    return Refusal{"it is not directly in the spawn body (it would not run "
                   "in every step)"};
  pipelined.transfer = transfer;
  Value destination = transfer.getDst();
  pipelined.paddedView = getPaddedView(destination);
  if (pipelined.paddedView)
    destination = pipelined.paddedView.getSource();
  pipelined.scratch = destination.getDefiningOp<ScratchOp>();
  if (!pipelined.scratch)
    return Refusal{"its destination is a view of the scratch; each step gets "
                   "its own copy of the scratch, so the transfer must fill "
                   "all of it"};
  std::string why;
  if (failed(getAsyncCopyChunkBytes(transfer, chip, why)))
    return Refusal{"it is not a cp.async copy: " + why};
  Value token = transfer.getToken();
  pipelined.await = token.hasOneUse()
                        ? dyn_cast<AwaitOp>(*token.getUsers().begin())
                        : AwaitOp();
  if (!pipelined.await || pipelined.await->getBlock() != &body)
    return Refusal{"its token is not awaited in the same step, directly in "
                   "the spawn body"};
  Operation *culprit = nullptr;
  FailureOr<SmallVector<Operation *>> slice =
      getSourceSlice(spawn, transfer.getSrc(), culprit);
  if (failed(slice))
    return Refusal{"its source depends on an op that a step cannot run "
                   "ahead of time (one with memory effects or regions)",
                   culprit};
  pipelined.sourceSlice = std::move(*slice);
  SmallVector<unsigned> arbitrary = spawn.getArbitraryDims();
  bool moves = llvm::any_of(pipelined.sourceSlice, [&](Operation *op) {
    auto index = dyn_cast<GridIndexOp>(op);
    return index && llvm::is_contained(arbitrary, index.getDim());
  });
  // The pipeline loads a tile that does not move once: each step then reads
  // the first step's copy, which the body must not write. A tile that the
  // tensor cores read swizzled must be a TMA copy, which only the pipeline
  // issues; on chips with TMA other such tiles stay plain copies (one would
  // send the others from TMA to cp.async), on chips without TMA cp.async
  // loads them once, in the first step's group.
  if (!moves) {
    if (Operation *write = findWriteOf(spawn, pipelined.scratch, transfer))
      return Refusal{"its source does not move with an arbitrary dimension "
                     "and the spawn writes its destination, which every step "
                     "must read as loaded",
                     write};
    if (!pipelined.scratch->hasAttr(kSwizzleAttrName) && chip && chip->hasTMA())
      return Refusal{"its source does not move with an arbitrary dimension"};
  }
  pipelined.fixed = !moves;
  if (Operation *write = findWriteOf(spawn, transfer.getSrc()))
    return Refusal{"the spawn may write the memory it reads, which a step "
                   "ahead would read before the write",
                   write};
  if (Operation *access =
          findAccessBefore(pipelined.scratch, transfer, pipelined.await))
    return Refusal{"its destination is used before the await (every use of "
                   "a slot must follow the await of its step)",
                   access};
  return std::nullopt;
}

/// `step` (the linear index of the arbitrary coordinates, `steps` of them)
/// as the coordinates along `dims` (innermost fastest).
static DenseMap<unsigned, Value> delinearizeStep(OpBuilder &builder,
                                                 Location loc, Value step,
                                                 ArrayRef<unsigned> dims,
                                                 ArrayRef<Value> sizes) {
  DenseMap<unsigned, Value> coords;
  for (auto [dim, size] : llvm::reverse(llvm::zip_equal(dims, sizes))) {
    coords[dim] = builder.createOrFold<arith::RemUIOp>(loc, step, size);
    step = builder.createOrFold<arith::DivUIOp>(loc, step, size);
  }
  return coords;
}

/// The alignment of the slots: TMA's, or cp.async's widest chunk.
static int64_t getSlotAlignment(bool tma) {
  return tma ? kTMAAlignment : kSlotAlignment;
}

namespace {
/// Builds the pipeline of the transfers of one spawn.
class TransferPipeline {
public:
  TransferPipeline(SpawnOp spawn, ArrayRef<PipelinedTransfer> transfers,
                   int64_t stages, bool sharedByThreads)
      : spawn(spawn), transfers(transfers), stages(stages),
        sharedByThreads(sharedByThreads),
        tma(transfers.front().tile.has_value()) {}

  /// Returns the transfers it creates.
  SmallVector<Operation *> build() {
    Location loc = spawn.getLoc();
    Block &body = spawn.getBody().front();
    OpBuilder builder(spawn.getContext());
    builder.setInsertionPointToStart(&body);
    dims = spawn.getArbitraryDims();
    for (unsigned dim : dims) {
      Value index = GridIndexOp::create(builder, loc, dim);
      Value size = GridDimOp::create(builder, loc, dim);
      sizes.push_back(size);
      step = step ? arith::AddIOp::create(
                        builder, loc,
                        arith::MulIOp::create(builder, loc, step, size), index)
                  : index;
      steps = steps ? arith::MulIOp::create(builder, loc, steps, size) : size;
    }
    Value stageCount = arith::ConstantIndexOp::create(builder, loc, stages);
    Value slot = builder.createOrFold<arith::RemUIOp>(loc, step, stageCount);
    if (tma) {
      // The elected thread issues the loads; one mbarrier per slot.
      Value thread = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
      elected = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, thread,
          arith::ConstantIndexOp::create(builder, loc, 0));
      barriers = createTMABarriers(builder, loc, stages);
    }

    // Whether a thread accesses a slot (the generic proxy), or only the
    // tensor cores read them (wgmma: the async proxy, like TMA's writes).
    threadsAccessSlots =
        llvm::any_of(transfers, [](const PipelinedTransfer &pipelined) {
          return llvm::any_of(
              pipelined.scratch->getUsers(), [&](Operation *user) {
                return user != pipelined.transfer &&
                       !user->hasAttr(VxDialect::kTensorCoreAttrName);
              });
        });
    // N slots of bytes per scratch; the step's slot replaces the scratch.
    OpBuilder host(spawn);
    for (const PipelinedTransfer &pipelined : transfers) {
      ScratchOp scratch = pipelined.scratch;
      builder.setInsertionPoint(scratch);
      SlotBuffer buffer;
      buffer.type = scratch.getType();
      buffer.slotBytes = pipelined.getSlotBytes(getSlotAlignment(tma));
      buffer.swizzle = pipelined.getSwizzle();
      int64_t slots = pipelined.isLoadedOnce(tma) ? 1 : stages;
      buffer.slots = ScratchOp::create(
          builder, scratch.getLoc(),
          MemRefType::get({slots * buffer.slotBytes}, builder.getI8Type()),
          scratch.getMemoryAttr());
      if (Attribute swizzle = scratch->getAttr(kSwizzleAttrName))
        buffer.slots.getDefiningOp()->setAttr(kSwizzleAttrName, swizzle);
      if (tma) {
        buffer.descriptor =
            createTMADescriptor(host, scratch.getLoc(), *pipelined.tile);
      }
      slotBuffers.push_back(buffer);
      scratch.replaceAllUsesWith(
          getSlot(builder, buffer, getSlotIndex(builder, pipelined, slot)));
    }

    builder.setInsertionPoint(transfers.front().transfer);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value isFirst = arith::CmpIOp::create(builder, loc,
                                          arith::CmpIPredicate::eq, step, zero);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value distance = arith::ConstantIndexOp::create(builder, loc, stages - 1);
    auto prologue = scf::IfOp::create(builder, loc, isFirst);
    builder.setInsertionPoint(prologue.thenBlock()->getTerminator());
    // One arrival per step (announcing the bytes of all its loads). A CTA
    // runs one parallel point, so the first step initializes the barriers
    // once.
    if (tma) {
      SmallVector<Value> descriptors =
          llvm::map_to_vector(slotBuffers, [](const SlotBuffer &buffer) {
            return buffer.descriptor;
          });
      gpu::BarrierOp published = initTMABarriers(
          builder, loc, barriers, stages, /*arrivals=*/1, elected, descriptors);
      remarkBarrier(published, "every thread waits on the mbarriers that "
                               "thread 0 initialized in the first step");
    }
    if (stages > 1) {
      auto first = scf::ForOp::create(builder, loc, zero, distance, one);
      builder.setInsertionPoint(first.getBody()->getTerminator());
      issueGuarded(builder, loc, first.getInductionVar());
    }
    builder.setInsertionPointAfter(prologue);
    // One stage (TMA only): the step loads its own tiles into the one slot,
    // which the previous step has left after the barrier.
    if (stages == 1) {
      if (sharedByThreads)
        remarkBarrier(gpu::BarrierOp::create(builder, loc),
                      "the step's TMA loads overwrite the slot that every "
                      "thread read in the previous step");
      fenceSlots(builder, loc);
      issue(builder, loc, step);
    }
    if (tma) {
      // Step s is load s div N of slot s mod N, which completes the phase
      // of that parity.
      Value loads = builder.createOrFold<arith::DivUIOp>(loc, step, stageCount);
      Value parity = arith::IndexCastUIOp::create(builder, loc,
                                                  builder.getI1Type(), loads);
      waitTMALoad(builder, loc, barriers, slot, parity);
    } else {
      Value noToken = ub::PoisonOp::create(
          builder, loc, nvgpu::DeviceAsyncTokenType::get(builder.getContext()));
      nvgpu::DeviceAsyncWaitOp::create(builder, loc, noToken,
                                       builder.getI32IntegerAttr(stages - 2));
    }
    if (stages > 1) {
      // With a wgmma group left in flight, the previous step's slot is
      // free once this step's wait has retired its group.
      bool deferred = tma && deferWgmmaWaits(builder);
      if (sharedByThreads)
        remarkBarrier(gpu::BarrierOp::create(builder, loc),
                      deferred ? "the step refills the slot that the previous "
                                 "step's wgmma group read, which every "
                                 "warpgroup's wgmma.wait_group 1 has retired"
                      : tma    ? "the step refills the slot that every thread "
                                 "read in the previous step"
                               : "the step's slots, which each thread waited "
                                 "for its own copies of, become visible to "
                                 "every thread, and the step refills the slot "
                                 "that every thread read in the previous step");
      // The loads overwrite the slot that the previous step accessed.
      if (tma)
        fenceSlots(builder, loc);
      issueGuarded(builder, loc,
                   arith::AddIOp::create(builder, loc, step, distance));
    }

    // The original transfers, awaits and scratch go, and what only computed
    // their sources.
    SetVector<Operation *> sliceOps;
    for (const PipelinedTransfer &pipelined : transfers) {
      AwaitOp(pipelined.await).erase();
      TransferAsyncOp(pipelined.transfer).erase();
      ScratchOp(pipelined.scratch).erase();
      sliceOps.insert_range(pipelined.sourceSlice);
    }
    SmallVector<Operation *> dead = sliceOps.takeVector();
    llvm::sort(
        dead, [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
    for (Operation *op : dead)
      if (op->use_empty())
        op->erase();
    return created;
  }

private:
  /// The slots that replace one scratch.
  struct SlotBuffer {
    Value slots;
    MemRefType type;
    int64_t slotBytes;
    /// The swizzle of the scratch's layout (0: none).
    int64_t swizzle;
    /// TMA: the tensor map of the transfer.
    Value descriptor;
  };

  /// Orders the threads' accesses of the slots before the TMA loads that
  /// overwrite them (fenceBeforeTMALoads), where threads access them: the
  /// tensor cores' reads are in the async proxy, as the loads are, and
  /// their wait_group and the barrier order them.
  void fenceSlots(OpBuilder &builder, Location loc) {
    if (threadsAccessSlots)
      fenceBeforeTMALoads(builder, loc, elected);
  }

  /// Makes the waits of the body that may leave a wgmma group in flight
  /// into the next step (kDeferrableWaitAttrName) `wait_group 1`, and puts
  /// `builder` after the last of them (its op in the body block): there
  /// the group of the previous step, the last reader of the slot that the
  /// step refills, has completed on the thread. The group left in flight
  /// reads this step's slots, which no load overwrites before the next
  /// step's wait. Returns whether there was one.
  bool deferWgmmaWaits(OpBuilder &builder) {
    Block &body = spawn.getBody().front();
    Operation *last = nullptr;
    spawn.getBody().walk([&](NVVM::WgmmaWaitGroupSyncOp wait) {
      if (!wait->removeAttr(kDeferrableWaitAttrName))
        return;
      wait.setGroup(1);
      Operation *step = body.findAncestorOpInBlock(*wait);
      if (!last || last->isBeforeInBlock(step))
        last = step;
    });
    if (!last)
      return false;
    builder.setInsertionPointAfter(last);
    return true;
  }

  /// The slot of `pipelined` where the step's is `slot`: its one buffer
  /// where the pipeline loads it once.
  Value getSlotIndex(OpBuilder &builder, const PipelinedTransfer &pipelined,
                     Value slot) const {
    if (!pipelined.isLoadedOnce(tma))
      return slot;
    return arith::ConstantIndexOp::create(builder, slot.getLoc(), 0);
  }

  /// The view of slot `slot` of `buffer`, of the scratch's type.
  static Value getSlot(OpBuilder &builder, const SlotBuffer &buffer,
                       Value slot) {
    Location loc = buffer.slots.getLoc();
    Value shift = builder.createOrFold<arith::MulIOp>(
        loc, slot,
        arith::ConstantIndexOp::create(builder, loc, buffer.slotBytes));
    return memref::ViewOp::create(builder, loc, buffer.type, buffer.slots,
                                  shift, ValueRange());
  }

  /// Issues the transfers of step `target` into their slots when it is in
  /// the grid, then commits their group (empty otherwise).
  void issueGuarded(OpBuilder &builder, Location loc, Value target) {
    Value inGrid = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, target, steps);
    auto guard = scf::IfOp::create(builder, loc, inGrid);
    {
      OpBuilder::InsertionGuard insertion(builder);
      builder.setInsertionPoint(guard.thenBlock()->getTerminator());
      issue(builder, loc, target);
    }
    // A group per step for cp.async; TMA loads complete barrier phases.
    if (!tma)
      nvgpu::DeviceAsyncCreateGroupOp::create(
          builder, loc, nvgpu::DeviceAsyncTokenType::get(builder.getContext()),
          ValueRange());
  }

  /// Issues the transfers of step `target` into their slots.
  void issue(OpBuilder &builder, Location loc, Value target) {
    DenseMap<unsigned, Value> coords =
        delinearizeStep(builder, loc, target, dims, sizes);
    Value slot = builder.createOrFold<arith::RemUIOp>(
        loc, target, arith::ConstantIndexOp::create(builder, loc, stages));
    // The tiles loaded once are loaded with the first step's.
    Value isFirst;
    if (llvm::any_of(transfers, [&](const PipelinedTransfer &pipelined) {
          return pipelined.isLoadedOnce(tma);
        }))
      isFirst = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, target,
          arith::ConstantIndexOp::create(builder, loc, 0));
    // One arrival announces the bytes of all the step's loads; the first
    // step's include the tiles loaded once, which its phase completes.
    if (tma) {
      int64_t bytes = 0, onceBytes = 0;
      for (const PipelinedTransfer &pipelined : transfers)
        (pipelined.isLoadedOnce(tma) ? onceBytes : bytes) +=
            pipelined.tile->getBytes();
      Value announced = arith::ConstantIndexOp::create(builder, loc, bytes);
      if (onceBytes) {
        announced = arith::SelectOp::create(
            builder, loc, isFirst,
            arith::ConstantIndexOp::create(builder, loc, bytes + onceBytes),
            announced);
      }
      announceTMABytes(builder, loc, announced, barriers, slot, elected);
    }
    for (auto [pipelined, buffer] : llvm::zip_equal(transfers, slotBuffers)) {
      OpBuilder::InsertionGuard insertion(builder);
      if (pipelined.isLoadedOnce(tma)) {
        auto once = scf::IfOp::create(builder, loc, isFirst);
        builder.setInsertionPoint(once.thenBlock()->getTerminator());
      }
      IRMapping mapping;
      for (Operation *op : pipelined.sourceSlice) {
        auto index = dyn_cast<GridIndexOp>(op);
        if (index && coords.contains(index.getDim()))
          mapping.map(index.getResult(), coords.at(index.getDim()));
        else
          builder.clone(*op, mapping);
      }
      TransferAsyncOp transfer = pipelined.transfer;
      Value source = mapping.lookupOrDefault(transfer.getSrc());
      Value destination =
          getSlot(builder, buffer, getSlotIndex(builder, pipelined, slot));
      if (memref::SubViewOp view = pipelined.paddedView) {
        IRMapping padding;
        padding.map(view.getSource(), destination);
        destination = builder.clone(*view, padding)->getResult(0);
      }
      if (!tma) {
        created.push_back(TransferAsyncOp::create(builder, transfer.getLoc(),
                                                  source, destination));
        continue;
      }
      // The clone has the original's views, which matched.
      std::string why;
      FailureOr<TMATile> tile =
          matchTMATile(source, buffer.type, spawn.getBody(), why,
                       buffer.swizzle);
      assert(succeeded(tile) && "the clone of a TMA tile is one");
      auto workgroup = gpu::AddressSpaceAttr::get(builder.getContext(),
                                                  gpu::AddressSpace::Workgroup);
      Value shared = memref::MemorySpaceCastOp::create(
          builder, transfer.getLoc(),
          MemRefType::get(buffer.type.getShape(), buffer.type.getElementType(),
                          AffineMap(), workgroup),
          destination);
      startTMALoad(builder, transfer.getLoc(), *tile, buffer.descriptor, shared,
                   barriers, slot, elected);
    }
  }

  SpawnOp spawn;
  ArrayRef<PipelinedTransfer> transfers;
  int64_t stages;
  bool sharedByThreads;
  /// Whether TMA copies carry the transfers (all of them, or none).
  bool tma;
  /// Whether threads access the slots (not only the tensor cores).
  bool threadsAccessSlots = true;
  Value elected, barriers;
  SmallVector<unsigned> dims;
  SmallVector<Value> sizes;
  Value step, steps;
  SmallVector<SlotBuffer> slotBuffers;
  SmallVector<Operation *> created;
};
} // namespace

/// The transfers of `spawn` into smem scratch that can be pipelined; with
/// `reportRefusals`, a remark on each that cannot (a warning where the
/// spawn's own `stages` clause asked for pipelining).
static SmallVector<PipelinedTransfer>
collectTransfers(SpawnOp spawn, const Chip *chip, bool reportRefusals) {
  bool explicitRequest = spawn.getStagesAttr() != nullptr;
  SmallVector<PipelinedTransfer> transfers;
  spawn.getBody().walk([&](TransferAsyncOp transfer) {
    auto scratch = getViewRoot(transfer.getDst()).getDefiningOp<ScratchOp>();
    if (!scratch || scratch.getPlacement() != Memory::smem)
      return;
    PipelinedTransfer pipelined;
    std::optional<Refusal> refusal =
        analyzeTransfer(spawn, transfer, chip, pipelined);
    if (!refusal) {
      transfers.push_back(pipelined);
      return;
    }
    if (!reportRefusals)
      return;
    InFlightDiagnostic diagnostic =
        explicitRequest ? transfer.emitWarning() : transfer.emitRemark();
    diagnostic << "transfer is not pipelined: " << refusal->reason;
    if (refusal->culprit)
      diagnostic.attachNote(refusal->culprit->getLoc()) << "here";
  });
  return transfers;
}

/// What the slots of `transfers` cost, carried by TMA or by cp.async.
static SlotCost getSlotCost(ArrayRef<PipelinedTransfer> transfers, bool tma) {
  SlotCost cost;
  cost.tma = tma;
  for (const PipelinedTransfer &pipelined : transfers) {
    int64_t bytes = pipelined.getSlotBytes(getSlotAlignment(tma));
    (pipelined.isLoadedOnce(tma) ? cost.fixedBytes : cost.slotBytes) += bytes;
    cost.scratchBytes += pipelined.getSlotBytes(kSlotAlignment);
  }
  return cost;
}

// TMA's mbarriers are static shared memory, which the limit leaves room for
// up to the dynamic array's alignment; those beyond count here.
int64_t SlotCost::getExtraBytes(int64_t stages, int64_t instancesPerCTA) const {
  int64_t barrierBytes = tma ? llvm::alignTo(stages * kMBarrierBytes,
                                             kDynamicSharedMemoryAlignment) -
                                   kDynamicSharedMemoryAlignment
                             : 0;
  return (stages * slotBytes + fixedBytes - scratchBytes) * instancesPerCTA +
         barrierBytes;
}

// An SM holds CTAs until its shared memory (with the static array before
// the dynamic one and the system's reserve), its threads (whole warps) or
// its CTA count run out.
StagesOccupancy vx::getStagesOccupancy(const SlotCost &cost,
                                       const PipelinedCTA &cta, int64_t stages,
                                       const Chip &chip) {
  Chip::SMLimits sm = chip.getSMLimits();
  StagesOccupancy occupancy;
  occupancy.stages = stages;
  occupancy.threads = cta.threads;
  occupancy.sharedBytes =
      cta.scratchBytes + cost.getExtraBytes(stages, cta.instances);
  int64_t ctaSharedBytes = occupancy.sharedBytes +
                           kDynamicSharedMemoryAlignment +
                           sm.reservedSharedBytesPerBlock;
  int64_t warpThreads = llvm::alignTo(cta.threads, vx::kWarpSize);
  occupancy.ctasPerSM = std::min(
      {sm.blocks, sm.threads / warpThreads, sm.sharedBytes / ctaSharedBytes});
  occupancy.threadsPerSM = occupancy.ctasPerSM * cta.threads;
  occupancy.bytesInFlight =
      occupancy.ctasPerSM * cta.instances * (stages - 1) * cost.slotBytes;
  return occupancy;
}

/// The threads per SM beyond which more occupancy buys little: 16 warps,
/// 4 per scheduler, cover the latency of dependent arithmetic and shared
/// loads.
static constexpr int64_t kLatencyHidingThreadsPerSM = 512;

bool StagesOccupancy::isBetterThan(const StagesOccupancy &other,
                                   const Chip &chip) const {
  int64_t needed = chip.getSMLimits().bytesInFlight;
  auto key = [&](const StagesOccupancy &occupancy) {
    return std::make_tuple(
        std::min(occupancy.bytesInFlight, needed),
        std::min(occupancy.threadsPerSM, kLatencyHidingThreadsPerSM),
        occupancy.stages, occupancy.threadsPerSM, occupancy.threads);
  };
  return key(*this) > key(other);
}

StagesOccupancy vx::chooseStages(const SlotCost &cost, const PipelinedCTA &cta,
                                 int64_t maxStages, const Chip &chip) {
  StagesOccupancy best = getStagesOccupancy(cost, cta, 1, chip);
  for (int64_t stages = 2; stages <= maxStages; ++stages)
    if (StagesOccupancy candidate = getStagesOccupancy(cost, cta, stages, chip);
        candidate.isBetterThan(best, chip))
      best = candidate;
  return best;
}

SmallVector<TransferAsyncOp> vx::getPipelinableTransfers(SpawnOp spawn,
                                                         const Chip *chip) {
  if (spawn.getArbitraryDims().empty())
    return {};
  return llvm::map_to_vector(
      collectTransfers(spawn, chip, /*reportRefusals=*/false),
      [](const PipelinedTransfer &pipelined) { return pipelined.transfer; });
}

SlotCost vx::getAsyncCopySlotCost(SpawnOp spawn, const Chip *chip) {
  if (spawn.getArbitraryDims().empty())
    return {};
  return getSlotCost(collectTransfers(spawn, chip, /*reportRefusals=*/false),
                     /*tma=*/false);
}

/// Says what the `stages` stages that `spawn` pipelines its transfers in
/// cost in occupancy, when fewer would occupy an SM of `chip` better
/// (chooseStages): the CTAs per SM with `stages` and with the fewer, and
/// what the fewer still keep in flight. The stages stay as requested
/// (VX_SPEC 2.2); the remark names the clause that would trade them.
static void remarkOccupancyCost(SpawnOp spawn, const SlotCost &cost,
                                const PipelinedCTA &cta, int64_t stages,
                                const Chip &chip) {
  StagesOccupancy better = chooseStages(cost, cta, stages, chip);
  if (better.stages == stages)
    return;
  StagesOccupancy kept = getStagesOccupancy(cost, cta, stages, chip);
  int64_t needed = chip.getSMLimits().bytesInFlight;
  InFlightDiagnostic remark =
      spawn.emitRemark("pipelines its transfers in ")
      << stages << " stages at a cost in occupancy on '" << chip.getName()
      << "': its CTAs of " << kept.sharedBytes << " bytes of shared memory fit "
      << kept.ctasPerSM << " per SM, where `stages " << better.stages
      << "` would fit " << better.ctasPerSM << " (CTAs of "
      << better.sharedBytes << " bytes) and keep " << better.bytesInFlight
      << " bytes of transfers in flight per SM";
  if (better.bytesInFlight >= needed)
    remark << ", at least the " << needed << " that hide the memory latency";
}

PipelinedSpawn vx::pipelineTransfers(SpawnOp spawn,
                                     const PipelineTarget &target) {
  int64_t requested = spawn.getPipelineStages(target.defaultStages);
  if (spawn.getArbitraryDims().empty())
    return {};
  // TMA on Hopper and newer, when a CTA runs one parallel point on one
  // instance (its barriers' phases then start with the first step).
  bool tmaTarget = target.chip && target.chip->hasTMA() &&
                   target.instancesPerCTA == 1 && target.onePointPerCTA;
  // With one stage only TMA changes the code: the transfers it cannot carry
  // stay as they are, quietly.
  bool pipelining = requested > 1;
  if (!pipelining && !tmaTarget)
    return {};
  SmallVector<PipelinedTransfer> transfers =
      collectTransfers(spawn, target.chip, /*reportRefusals=*/pipelining);
  if (transfers.empty())
    return {};

  // TMA when every transfer is a tile that TMA loads.
  if (tmaTarget) {
    bool allTiles = true;
    for (PipelinedTransfer &pipelined : transfers) {
      std::string why;
      FailureOr<TMATile> tile =
          matchTMATile(pipelined.transfer.getSrc(), pipelined.scratch.getType(),
                       spawn.getBody(), why, pipelined.getSwizzle());
      if (succeeded(tile)) {
        pipelined.tile = *tile;
        continue;
      }
      allTiles = false;
      if (pipelining)
        pipelined.transfer.emitRemark("transfer is pipelined with cp.async, "
                                      "not TMA: ")
            << why;
    }
    if (!allTiles)
      for (PipelinedTransfer &pipelined : transfers)
        pipelined.tile.reset();
  }
  bool tma = transfers.front().tile.has_value();
  if (!pipelining && !tma)
    return {};

  // The most stages up to the requested that fit the shared memory left.
  SlotCost cost = getSlotCost(transfers, tma);
  auto extraBytes = [&](int64_t stages) {
    return cost.getExtraBytes(stages, target.instancesPerCTA);
  };
  int64_t stages = requested;
  while (stages > 1 && extraBytes(stages) > target.freeSharedBytes)
    --stages;
  if (stages < requested) {
    InFlightDiagnostic remark = spawn.emitRemark();
    if (stages > 1)
      remark << "pipelines its transfers in " << stages << " stages instead of "
             << requested;
    else
      remark << "does not pipeline its transfers (" << requested
             << " stages requested)";
    remark << ": " << requested << " slots of " << cost.slotBytes << " bytes";
    if (target.instancesPerCTA > 1)
      remark << " for each of " << target.instancesPerCTA
             << " instances per CTA";
    remark << " need " << extraBytes(requested)
           << " bytes of shared memory more than the scratch, and the CTA has "
           << target.freeSharedBytes << " left";
  }
  if (stages > 1)
    remarkOccupancyCost(
        spawn, cost,
        {target.threadsPerCTA, target.instancesPerCTA, target.scratchBytes},
        stages, target.chip ? *target.chip : Chip::getDefault());
  // One stage is the transfers as they are, unless TMA carries them (in a
  // slot of its alignment).
  if (stages == 1 && (!tma || extraBytes(1) > target.freeSharedBytes))
    return {};
  // The CTA mapping planned its barriers for these transfers' schedule.
  int64_t planned = 0;
  spawn.getBody().walk([&](TransferAsyncOp transfer) {
    planned += transfer->hasAttr(kPipelinableAttrName);
  });
  bool asPlanned = planned == static_cast<int64_t>(transfers.size()) &&
                   llvm::all_of(transfers, [](const PipelinedTransfer &each) {
                     return each.transfer->hasAttr(kPipelinableAttrName);
                   });
  return {TransferPipeline(spawn, transfers, stages, target.sharedByThreads)
              .build(),
          stages, /*pipelined=*/true, asPlanned};
}

/// What the plan of `spawn` tells the pipelining.
static PipelineTarget getPipelineTarget(SpawnOp spawn, LaunchPlanAttr plan,
                                        int64_t stages, const Chip *chip) {
  PipelineTarget target;
  target.chip = chip;
  target.defaultStages = stages;
  target.instancesPerCTA = plan.getInstancesPerCTA();
  target.threadsPerCTA = plan.getThreads();
  target.scratchBytes =
      getSharedMemoryLayout(spawn, target.instancesPerCTA).totalBytes;
  target.freeSharedBytes = getSharedMemoryLimit(chip) - target.scratchBytes;
  // Static extents within the launch grid need no grid-stride loop.
  int64_t total = 1;
  target.onePointPerCTA = true;
  for (std::optional<int64_t> extent :
       getStaticExtents(spawn, target.instancesPerCTA))
    target.onePointPerCTA &= extent &&
                             !llvm::MulOverflow(total, *extent, total) &&
                             total <= kMaxGridX;
  target.sharedByThreads = plan.getCooperative();
  return target;
}

// On the body that every thread runs: the transfers the pipeline issues are
// the CTA's, like the ones they replace.
LogicalResult vx::pipelineSpawnTransfers(ModuleOp module, int64_t stages,
                                         const Chip *chip) {
  SmallVector<SpawnOp> spawns;
  bool valid = true;
  for (SpawnOp spawn : getDeviceSpawns(module)) {
    LaunchPlanAttr plan = LaunchPlanAttr::lookup(spawn);
    if (!plan || !plan.getMapped()) {
      spawn.emitOpError("is not mapped onto its CTA yet: run vx-plan-launch "
                        "and vx-map-cta first");
      valid = false;
    } else if (!plan.getStages()) {
      spawns.push_back(spawn);
    }
  }
  if (!valid)
    return failure();
  for (SpawnOp spawn : spawns) {
    LaunchPlanAttr plan = LaunchPlanAttr::lookup(spawn);
    PipelinedSpawn pipelined =
        pipelineTransfers(spawn, getPipelineTarget(spawn, plan, stages, chip));
    // The tensor cores read these tiles in the swizzled layout that only
    // TMA writes (vx-distribute-tile-ops predicted TMA copies).
    WalkResult unswizzled = spawn.getBody().walk([&](TransferAsyncOp transfer) {
      Operation *root = getViewRoot(transfer.getDst()).getDefiningOp();
      if (!root || !root->hasAttr(kSwizzleAttrName))
        return WalkResult::advance();
      transfer.emitOpError("writes a tile that the tensor cores read in the "
                           "swizzled layout of TMA, and is not a TMA copy "
                           "(TMA needs a static grid with one instance per "
                           "CTA and every transfer of the spawn a TMA tile)");
      return WalkResult::interrupt();
    });
    if (unswizzled.wasInterrupted())
      return failure();
    resolvePipelineBarriers(spawn, pipelined.pipelined, pipelined.asPlanned);
    if (plan.getCooperative())
      for (Operation *transfer : pipelined.transfers)
        setCopyThreads(transfer, plan.getThreads());
    spawn->setAttr(LaunchPlanAttr::kAttrName,
                   plan.withStages(pipelined.stages));
  }
  return success();
}

namespace {
struct VxPipelineTransfersPass
    : public vx::impl::VxPipelineTransfersBase<VxPipelineTransfersPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(
            checkPassOption(module, getArgument(), checkStagesOption(stages))))
      return signalPassFailure();
    FailureOr<std::optional<Chip>> targetChip =
        parseChipOption(module, getArgument(), chip);
    if (failed(targetChip) ||
        failed(pipelineSpawnTransfers(module, stages, getChip(*targetChip))))
      signalPassFailure();
  }
};
} // namespace

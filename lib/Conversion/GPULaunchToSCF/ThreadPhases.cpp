//===- ThreadPhases.cpp - The threads of a block, phase by phase ----------===//
//
// The work-item loops of MCUDA and POCL on structured IR. A block that all
// threads run in step is split into steps: phases, runs of ops that each
// thread can run on its own, and the scf ops with a barrier or a shuffle
// inside, whose regions are split in turn. A barrier ends a phase; a shuffle
// starts one (every thread has deposited its value when the first reads its
// partner's). Each phase becomes a loop over the threads of the block; an
// scf op around a barrier keeps its structure, with its bounds or condition
// (the same on every thread) taken from thread 0.
//
// A value that lives from one phase into a later one is kept per thread: a
// scalar or vector in a buffer of one element per thread, stored where it is
// defined and loaded where it is used. A pure op computed from constants,
// ids and sizes only, or whose result cannot be kept (a view of a memref),
// is computed again where it is used instead, from its operands as that
// thread sees them; a static alloca at the top of a phase is private memory,
// one slice per thread of one buffer per block. The iter_args and results of
// an scf op around a barrier are kept in buffers too.
//
//===----------------------------------------------------------------------===//

#include "ThreadPhases.h"
#include "TMAToSCF.h"
#include "Vx/Target/Limits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vx;

/// The alignment of the buffers that keep values per thread.
static constexpr uint64_t kBufferAlignment = 64;

/// Ops that the threads of a block (of a warp, for a shuffle) meet at. An
/// mbarrier wait becomes a barrier on the CPU (TMAToSCF.h).
static bool isCollective(Operation *op) {
  return isa<gpu::BarrierOp, gpu::ShuffleOp>(op) || isMBarrierWait(op);
}

static bool containsCollective(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isCollective(nested) ? WalkResult::interrupt()
                                    : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Region ops whose regions the threads of a block can run in step.
static bool isSplittable(Operation *op) {
  return isa<scf::ForOp, scf::IfOp, scf::IndexSwitchOp, scf::WhileOp>(op);
}

/// The values that decide where the threads of a splittable op go (as
/// opposed to the data it carries), and what they are called.
static std::pair<SmallVector<Value>, StringRef>
getControlValues(Operation *op) {
  return TypeSwitch<Operation *, std::pair<SmallVector<Value>, StringRef>>(op)
      .Case([](scf::ForOp loop) {
        return std::make_pair(SmallVector<Value>{loop.getLowerBound(),
                                                 loop.getUpperBound(),
                                                 loop.getStep()},
                              StringRef("bounds"));
      })
      .Case([](scf::IfOp branch) {
        return std::make_pair(SmallVector<Value>{branch.getCondition()},
                              StringRef("condition"));
      })
      .Case([](scf::IndexSwitchOp cases) {
        return std::make_pair(SmallVector<Value>{cases.getArg()},
                              StringRef("selector"));
      })
      .Case([](scf::WhileOp loop) {
        return std::make_pair(
            SmallVector<Value>{loop.getConditionOp().getCondition()},
            StringRef("condition"));
      });
}

/// The operands of a splittable op that its regions receive on entry, and
/// the block arguments that receive them.
static std::pair<ValueRange, ValueRange> getEntryFlow(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return {loop.getInitArgs(), loop.getRegionIterArgs()};
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return {loop.getInits(), loop.getBeforeArguments()};
  return {};
}

/// The operands that the terminator of a split block passes on.
static ValueRange getForwardedOperands(Operation *terminator) {
  if (auto condition = dyn_cast<scf::ConditionOp>(terminator))
    return condition.getArgs();
  return terminator->getOperands();
}

/// The values that receive what the terminator of `block` passes on.
static ValueRange getTerminatorTargets(Block &block) {
  Operation *parent = block.getParentOp();
  if (auto loop = dyn_cast<scf::ForOp>(parent))
    return loop.getRegionIterArgs();
  if (auto loop = dyn_cast<scf::WhileOp>(parent))
    return &block == loop.getBeforeBody() ? loop.getAfterArguments()
                                          : loop.getBeforeArguments();
  if (isa<scf::IfOp, scf::IndexSwitchOp>(parent))
    return parent->getResults();
  return {};
}

/// Whether `use` (of an operand of a splittable op) is data the op's
/// regions receive on entry.
static bool isEntryOperand(OpOperand &use) {
  if (auto loop = dyn_cast<scf::ForOp>(use.getOwner()))
    return use.getOperandNumber() >= loop.getNumControlOperands();
  return isa<scf::WhileOp>(use.getOwner());
}

/// Whether `use` (of a terminator operand) is data the terminator passes on.
static bool isForwardedOperand(OpOperand &use) {
  return !isa<scf::ConditionOp>(use.getOwner()) || use.getOperandNumber() > 0;
}

/// Whether a value of `type` can be kept per thread in a buffer.
static bool isKeepable(Type type) {
  return type.isIntOrIndexOrFloat() || isa<VectorType, ComplexType>(type);
}

/// Whether a value that an scf op carries around a barrier can be kept per
/// thread: also a ranked memref (its descriptor), which, unlike a view used
/// after a barrier, cannot be computed again where it is used.
static bool isCarriable(Type type) {
  return isKeepable(type) || isa<MemRefType>(type);
}

/// A static alloca that becomes one slice per thread of a buffer per block.
static bool isPrivateBufferCandidate(Operation *op) {
  auto alloca = dyn_cast<memref::AllocaOp>(op);
  if (!alloca)
    return false;
  MemRefType type = alloca.getType();
  return type.hasStaticShape() && type.getLayout().isIdentity() &&
         !type.getMemorySpace() && alloca.getSymbolOperands().empty();
}

static Value pickDimension(const gpu::KernelDim3 &dims, gpu::Dimension dim) {
  switch (dim) {
  case gpu::Dimension::x:
    return dims.x;
  case gpu::Dimension::y:
    return dims.y;
  case gpu::Dimension::z:
    return dims.z;
  }
  llvm_unreachable("unknown dimension");
}

//===----------------------------------------------------------------------===//
// Divergence
//===----------------------------------------------------------------------===//

namespace {

/// The values of a launch body that may differ between the threads of a
/// block: thread and lane ids (along dimensions of more than one thread),
/// the results of ops that allocate or write memory (per-thread memory,
/// atomics), and whatever depends on them through operands, loop-carried
/// values, or the bounds and conditions of the scf ops that produce it.
/// A load is divergent when its address is.
class Divergence {
public:
  explicit Divergence(gpu::LaunchOp launch);

  bool isDivergent(Value value) const { return divergent.contains(value); }
  bool isAnyDivergent(ValueRange values) const {
    return llvm::any_of(values,
                        [&](Value value) { return isDivergent(value); });
  }

private:
  /// Marks `values` divergent when `condition` holds; returns whether that
  /// changed anything.
  bool markIf(bool condition, ValueRange values);
  bool isThreadDimensionDivergent(gpu::Dimension dim);
  bool update(Operation *op);

  gpu::LaunchOp launch;
  DenseSet<Value> divergent;
};

} // namespace

Divergence::Divergence(gpu::LaunchOp launch) : launch(launch) {
  for (gpu::Dimension dim :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
    markIf(isThreadDimensionDivergent(dim),
           pickDimension(launch.getThreadIds(), dim));
  bool changed = true;
  while (changed) {
    changed = false;
    launch.getBody().walk([&](Operation *op) { changed |= update(op); });
  }
}

bool Divergence::markIf(bool condition, ValueRange values) {
  bool changed = false;
  if (condition)
    for (Value value : values)
      changed |= divergent.insert(value).second;
  return changed;
}

bool Divergence::isThreadDimensionDivergent(gpu::Dimension dim) {
  return !isConstantIntValue(
      pickDimension(launch.getBlockSizeOperandValues(), dim), 1);
}

/// Whether `op` has an effect whose result differs between threads even for
/// the same operands: an allocation (per-thread memory), a write (an atomic's
/// old value), or effects it does not declare.
static bool hasPerThreadEffect(Operation *op) {
  if (isMemoryEffectFree(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return !effects || effects.hasEffect<MemoryEffects::Allocate>() ||
         effects.hasEffect<MemoryEffects::Write>();
}

bool Divergence::update(Operation *op) {
  if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
    return markIf(isThreadDimensionDivergent(id.getDimension()),
                  id.getResult());
  if (isa<gpu::LaneIdOp>(op))
    return markIf(true, op->getResults());
  if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
    bool changed = markIf(true, shuffle.getValid());
    return markIf(isAnyDivergent(op->getOperands()),
                  shuffle.getShuffleResult()) ||
           changed;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    bool control = isAnyDivergent(getControlValues(op).first);
    bool changed = markIf(control, loop.getInductionVar());
    for (auto [init, arg, yielded, result] :
         llvm::zip_equal(loop.getInitArgs(), loop.getRegionIterArgs(),
                         loop.getYieldedValues(), loop.getResults()))
      changed |=
          markIf(control || isAnyDivergent({init, yielded}), {arg, result});
    return changed;
  }
  if (isa<scf::IfOp, scf::IndexSwitchOp>(op)) {
    bool control = isAnyDivergent(getControlValues(op).first);
    bool changed = false;
    for (OpResult result : op->getResults()) {
      bool yieldsDivergent = llvm::any_of(op->getRegions(), [&](Region &r) {
        return !r.empty() && isDivergent(r.front().getTerminator()->getOperand(
                                 result.getResultNumber()));
      });
      changed |= markIf(control || yieldsDivergent, result);
    }
    return changed;
  }
  if (auto loop = dyn_cast<scf::WhileOp>(op)) {
    bool control = isAnyDivergent(getControlValues(op).first);
    bool changed = false;
    for (auto [init, arg, yielded] :
         llvm::zip_equal(loop.getInits(), loop.getBeforeArguments(),
                         loop.getYieldOp().getResults()))
      changed |= markIf(control || isAnyDivergent({init, yielded}), arg);
    for (auto [passed, arg, result] :
         llvm::zip_equal(loop.getConditionOp().getArgs(),
                         loop.getAfterArguments(), loop.getResults()))
      changed |= markIf(control || isDivergent(passed), {arg, result});
    return changed;
  }
  if (op->getNumRegions() != 0) {
    // Other region ops: what flows in may flow anywhere inside and out.
    SetVector<Value> usedInside;
    getUsedValuesDefinedAbove(op->getRegions(), usedInside);
    bool in = isAnyDivergent(op->getOperands()) ||
              isAnyDivergent(usedInside.getArrayRef());
    bool changed = markIf(in, op->getResults());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        changed |= markIf(in, block.getArguments());
    return changed;
  }
  return markIf(isAnyDivergent(op->getOperands()) || hasPerThreadEffect(op),
                op->getResults());
}

/// Checks that every thread of a block reaches `collective` together: it is
/// nested in splittable ops only, whose bounds and conditions are the same
/// on every thread.
static LogicalResult checkReachedByAllThreads(Operation *collective,
                                              const Divergence &divergence,
                                              gpu::LaunchOp launch,
                                              bool report) {
  for (Operation *parent = collective->getParentOp(); parent != launch;
       parent = parent->getParentOp()) {
    if (!isSplittable(parent)) {
      if (report)
        collective->emitOpError()
            << "cannot run on the CPU inside '" << parent->getName()
            << "': a block's threads run in phases only through scf.for, "
               "scf.if, scf.index_switch and scf.while";
      return failure();
    }
    auto [control, what] = getControlValues(parent);
    if (!divergence.isAnyDivergent(control))
      continue;
    if (report) {
      InFlightDiagnostic error = collective->emitOpError();
      if (isa<gpu::BarrierOp>(collective))
        error << "is in divergent control flow: every thread of the block "
                 "must reach it";
      else
        error << "is in divergent control flow: on the CPU every thread of "
                 "the block must reach it";
      error.attachNote(parent->getLoc())
          << "the " << what << " of this '" << parent->getName()
          << "' may differ between the threads of a block";
    }
    return failure();
  }
  auto shuffle = dyn_cast<gpu::ShuffleOp>(collective);
  if (shuffle && divergence.isDivergent(shuffle.getWidth())) {
    if (report)
      shuffle.emitOpError("width must be the same on every thread");
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PhasePlan
//===----------------------------------------------------------------------===//

namespace {

/// A step that the threads of a block take together: a phase (ops that each
/// thread runs on its own, the threads one after another), or a splittable
/// op with a collective inside, whose regions are split in turn.
struct Step {
  SmallVector<Operation *> phase;
  Operation *split = nullptr;
};

/// How the threads of a block run a launch body: the steps of each block
/// that the threads run in step, and what is kept per thread.
class PhasePlan {
public:
  /// Plans the body of `launch`; fails (saying why with `report`) when the
  /// threads cannot run it in phases.
  static FailureOr<PhasePlan> build(gpu::LaunchOp launch, bool report);

  ArrayRef<Step> getSteps(Block &block) const { return steps.at(&block); }
  /// Whether the last phase of `block` also stores what its terminator
  /// passes on (else a loop over the threads of its own does).
  bool storesInLastPhase(Block &block) const {
    return lastPhaseStores.contains(&block);
  }
  /// The values kept in one buffer element per thread.
  ArrayRef<Value> getKeptValues() const { return kept.getArrayRef(); }
  /// Results of split ops kept in the buffer of the block argument that
  /// carries them (a loop result and its iter_arg).
  ArrayRef<std::pair<Value, Value>> getSharedBuffers() const {
    return sharedBuffers;
  }
  ArrayRef<Operation *> getPrivateBuffers() const {
    return privateBuffers.getArrayRef();
  }
  bool isPrivateBuffer(Operation *op) const {
    return privateBuffers.contains(op);
  }

private:
  PhasePlan(gpu::LaunchOp launch, bool report)
      : body(&launch.getBody()), report(report) {}

  LogicalResult planBlock(Block &block);
  LogicalResult planSplit(Operation *split);
  /// Keeps `value` for `use`, a use in a later phase than its definition.
  LogicalResult keepAcrossPhases(Value value, OpOperand &use);
  /// Keeps `value`, a block argument or result of a split op, per thread.
  LogicalResult keepCarried(Operation *split, Value value);
  /// Whether `op` is pure and computes its results from constants, ids,
  /// sizes, values from above the launch and block arguments only: cheaper
  /// to compute again in a later phase than to keep.
  bool dependsOnIdsOnly(Operation *op);

  Region *body;
  bool report;
  DenseMap<Block *, SmallVector<Step>> steps;
  DenseSet<Block *> lastPhaseStores;
  SetVector<Value> kept;
  SmallVector<std::pair<Value, Value>> sharedBuffers;
  DenseSet<Value> recomputed;
  DenseMap<Operation *, bool> idsOnly;
  SetVector<Operation *> privateBuffers;
};

} // namespace

/// Splits `block` into steps: a barrier ends a phase, a shuffle starts one,
/// and a region op with a collective inside is a step of its own.
static SmallVector<Step> splitIntoSteps(Block &block) {
  SmallVector<Step> steps;
  bool phaseOpen = false;
  for (Operation &op : block.without_terminator()) {
    if (isa<gpu::BarrierOp>(op)) {
      phaseOpen = false;
      continue;
    }
    if (op.getNumRegions() != 0 && containsCollective(&op)) {
      steps.push_back(Step{{}, &op});
      phaseOpen = false;
      continue;
    }
    if (!phaseOpen || isa<gpu::ShuffleOp>(op)) {
      steps.emplace_back();
      phaseOpen = true;
    }
    steps.back().phase.push_back(&op);
  }
  return steps;
}

FailureOr<PhasePlan> PhasePlan::build(gpu::LaunchOp launch, bool report) {
  if (failed(checkCollectivesReachedByAllThreads(launch, report)))
    return failure();
  PhasePlan plan(launch, report);
  if (failed(plan.planBlock(launch.getBody().front())))
    return failure();
  return plan;
}

LogicalResult PhasePlan::planBlock(Block &block) {
  SmallVector<Step> blockSteps = splitIntoSteps(block);
  steps[&block] = blockSteps;
  Operation *terminator = block.getTerminator();
  // The last phase stores what the terminator passes on, unless one of its
  // shuffles reads an iter_arg of other threads that the stores overwrite.
  if (!blockSteps.empty() && !blockSteps.back().split) {
    auto loop = dyn_cast<scf::ForOp>(block.getParentOp());
    bool readsOverwritten =
        loop && llvm::any_of(blockSteps.back().phase, [&](Operation *op) {
          auto shuffle = dyn_cast<gpu::ShuffleOp>(op);
          return shuffle && llvm::is_contained(loop.getRegionIterArgs(),
                                               shuffle.getValue());
        });
    if (!readsOverwritten)
      lastPhaseStores.insert(&block);
  }

  DenseMap<Operation *, unsigned> stepOf;
  for (auto [index, step] : llvm::enumerate(blockSteps)) {
    if (step.split)
      stepOf[step.split] = index;
    for (Operation *op : step.phase) {
      stepOf[op] = index;
      if (isPrivateBufferCandidate(op))
        privateBuffers.insert(op);
    }
  }

  for (auto [index, step] : llvm::enumerate(blockSteps)) {
    if (step.split) {
      if (failed(planSplit(step.split)))
        return failure();
      continue;
    }
    bool isLast = index + 1 == blockSteps.size();
    Operation *next = isLast ? nullptr : blockSteps[index + 1].split;
    for (Operation *op : step.phase)
      for (OpResult result : op->getResults())
        for (OpOperand &use : result.getUses()) {
          Operation *user = block.findAncestorOpInBlock(*use.getOwner());
          // Uses in the same phase, and the stores it makes for the
          // terminator and for the entry of the next step.
          if (user == terminator) {
            if (isLast && lastPhaseStores.contains(&block) &&
                isForwardedOperand(use))
              continue;
          } else if (stepOf.lookup(user) == index) {
            continue;
          } else if (user == next && use.getOwner() == next &&
                     isEntryOperand(use)) {
            continue;
          }
          if (failed(keepAcrossPhases(result, use)))
            return failure();
        }
  }
  return success();
}

LogicalResult PhasePlan::planSplit(Operation *split) {
  auto keepIfUsed = [&](Value carrier, Value result) -> LogicalResult {
    if (carrier.use_empty() && (!result || result.use_empty()))
      return success();
    if (failed(keepCarried(split, carrier)))
      return failure();
    if (result)
      sharedBuffers.emplace_back(result, carrier);
    return success();
  };
  if (auto loop = dyn_cast<scf::ForOp>(split)) {
    for (auto [arg, result] :
         llvm::zip_equal(loop.getRegionIterArgs(), loop.getResults()))
      if (failed(keepIfUsed(arg, result)))
        return failure();
  } else if (auto loop = dyn_cast<scf::WhileOp>(split)) {
    for (Value arg : loop.getBeforeArguments())
      if (failed(keepIfUsed(arg, Value())))
        return failure();
    for (auto [arg, result] :
         llvm::zip_equal(loop.getAfterArguments(), loop.getResults()))
      if (failed(keepIfUsed(arg, result)))
        return failure();
  } else {
    for (Value result : split->getResults())
      if (failed(keepIfUsed(result, Value())))
        return failure();
  }
  for (Region &region : split->getRegions())
    for (Block &block : region)
      if (failed(planBlock(block)))
        return failure();
  return success();
}

LogicalResult PhasePlan::keepCarried(Operation *split, Value value) {
  if (!isCarriable(value.getType())) {
    if (report)
      split->emitOpError()
          << "carries a value of type " << value.getType()
          << " across a barrier or shuffle; on the CPU only scalars, "
             "vectors, complex numbers and ranked memrefs can be kept per "
             "thread";
    return failure();
  }
  kept.insert(value);
  return success();
}

LogicalResult PhasePlan::keepAcrossPhases(Value value, OpOperand &use) {
  // Values from above the launch, and block arguments (ids and sizes of the
  // launch, induction variables and kept iter_args of split loops), are
  // available in every phase.
  if (!body->isAncestor(value.getParentRegion()) || isa<BlockArgument>(value) ||
      kept.contains(value) || recomputed.contains(value))
    return success();
  Operation *def = value.getDefiningOp();
  if (privateBuffers.contains(def))
    return success();
  // A shuffle is pure but reads other threads' values.
  bool isRecomputable =
      isPure(def) && def->getNumRegions() == 0 && !isCollective(def);
  if (isRecomputable &&
      (!isKeepable(value.getType()) || dependsOnIdsOnly(def))) {
    recomputed.insert(value);
    for (Value operand : def->getOperands())
      if (failed(keepAcrossPhases(operand, use)))
        return failure();
    return success();
  }
  // A memref that a region op chooses (an scf.if result) is kept like one
  // it carries; an allocation's result is not (its memory would not
  // outlive the phase).
  if (isKeepable(value.getType()) ||
      (def->getNumRegions() > 0 && isCarriable(value.getType()))) {
    kept.insert(value);
    return success();
  }
  if (report) {
    InFlightDiagnostic error = def->emitOpError();
    error << "result of type " << value.getType()
          << " is used after a barrier or shuffle; on the CPU it cannot be "
             "kept per thread";
    error.attachNote(use.getOwner()->getLoc()) << "used here";
  }
  return failure();
}

bool PhasePlan::dependsOnIdsOnly(Operation *op) {
  if (auto it = idsOnly.find(op); it != idsOnly.end())
    return it->second;
  bool result = isPure(op) && op->getNumRegions() == 0 && !isCollective(op) &&
                llvm::all_of(op->getOperands(), [&](Value operand) {
                  Operation *def = operand.getDefiningOp();
                  return !def || !body->isAncestor(operand.getParentRegion()) ||
                         dependsOnIdsOnly(def);
                });
  idsOnly[op] = result;
  return result;
}

LogicalResult vx::checkCollectivesReachedByAllThreads(gpu::LaunchOp launch,
                                                      bool report) {
  Divergence divergence(launch);
  WalkResult walk = launch.getBody().walk([&](Operation *op) {
    if (isCollective(op) &&
        failed(checkReachedByAllThreads(op, divergence, launch, report)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult vx::checkThreadPhases(gpu::LaunchOp launch, bool report) {
  return PhasePlan::build(launch, report);
}

//===----------------------------------------------------------------------===//
// PhaseEmitter
//===----------------------------------------------------------------------===//

namespace {

/// Emits a launch body run by the threads of one block phase by phase.
class PhaseEmitter {
public:
  PhaseEmitter(RewriterBase &rewriter, const PhasePlan &plan,
               gpu::LaunchOp launch, const LaunchBlock &block)
      : rewriter(rewriter), plan(plan), launch(launch), block(block),
        loc(launch.getLoc()) {}

  void emit();

private:
  /// One thread of the block as seen from inside a loop over the threads
  /// (or thread 0 outside, for values that are the same on every thread).
  struct Thread {
    IRMapping values;
    Value linearId;
    Operation *loop = nullptr;
  };

  Thread beginThreadLoop();
  void endThreadLoop(const Thread &thread) {
    rewriter.setInsertionPointAfter(thread.loop);
  }
  Thread threadZero();

  /// `value` as seen by `thread` at the insertion point.
  Value resolve(Value value, Thread &thread);
  /// A heap buffer for the block, freed at its end.
  Value allocateBuffer(MemRefType type, Value count, uint64_t alignment = 1);
  void emitBlock(Block &source);
  void emitPhaseOp(Operation *op, Thread &thread);
  void emitShuffle(gpu::ShuffleOp shuffle, Thread &thread);
  void emitSplit(Operation *split);
  /// Emits `source` at the end of `target`, before its terminator if any.
  void emitInto(Block &source, Block &target);
  /// Stores `values` as seen by `thread` into the buffers of `targets`.
  void storeKept(ValueRange targets, ValueRange values, Thread &thread);
  bool hasKeptTarget(ValueRange targets) const {
    return llvm::any_of(targets,
                        [&](Value target) { return buffers.contains(target); });
  }

  RewriterBase &rewriter;
  const PhasePlan &plan;
  gpu::LaunchOp launch;
  const LaunchBlock &block;
  Location loc;
  Value zero, one, threadCount;
  SmallVector<Value, 3> lastThreadIds;
  /// Values that are the same for every thread: the block's ids and sizes,
  /// induction variables of split loops.
  IRMapping uniform;
  /// The buffer (one element per thread) of each kept value.
  DenseMap<Value, Value> buffers;
  /// The buffer and the bytes per thread of each private alloca.
  DenseMap<Operation *, std::pair<Value, Value>> privateBuffers;
  SmallVector<Value> allocations;
};

} // namespace

Value PhaseEmitter::allocateBuffer(MemRefType type, Value count,
                                   uint64_t alignment) {
  Value buffer = memref::AllocOp::create(
      rewriter, loc, type,
      type.hasStaticShape() ? ValueRange() : ValueRange(count),
      rewriter.getI64IntegerAttr(std::max(alignment, kBufferAlignment)));
  allocations.push_back(buffer);
  return buffer;
}

void PhaseEmitter::emit() {
  zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  // A block without threads (a size of 0 or less) runs nothing: values the
  // same on every thread are read from thread 0, which must exist.
  Value hasThreads;
  for (Value size : block.blockSizes) {
    if (std::optional<int64_t> value = getConstantIntValue(size)) {
      if (*value <= 0)
        return;
      continue;
    }
    Value positive = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::sgt, size, zero);
    hasThreads =
        hasThreads ? arith::AndIOp::create(rewriter, loc, hasThreads, positive)
                   : positive;
  }
  if (hasThreads) {
    auto guard = scf::IfOp::create(rewriter, loc, hasThreads,
                                   /*withElseRegion=*/false);
    rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
  }
  threadCount = rewriter.createOrFold<arith::MulIOp>(
      loc,
      rewriter.createOrFold<arith::MulIOp>(loc, block.blockSizes[0],
                                           block.blockSizes[1]),
      block.blockSizes[2]);
  if (block.reverseThreads)
    for (Value size : block.blockSizes)
      lastThreadIds.push_back(
          rewriter.createOrFold<arith::SubIOp>(loc, size, one));

  // The launch's region arguments other than thread ids.
  auto mapAll = [&](const gpu::KernelDim3 &args, ArrayRef<Value> values) {
    uniform.map(ValueRange{args.x, args.y, args.z}, values);
  };
  mapAll(launch.getBlockIds(), block.ids);
  mapAll(launch.getGridSize(), block.gridSizes);
  mapAll(launch.getBlockSize(), block.blockSizes);

  // Buffers of one element per thread, for the whole block.
  DataLayout layout = DataLayout::closest(launch);
  std::optional<int64_t> staticCount = getConstantIntValue(threadCount);
  int64_t countDim = staticCount ? *staticCount : ShapedType::kDynamic;
  for (Value value : plan.getKeptValues()) {
    Type type = value.getType();
    buffers[value] =
        allocateBuffer(MemRefType::get({countDim}, type), threadCount);
  }
  for (auto [result, carrier] : plan.getSharedBuffers())
    buffers[result] = buffers.at(carrier);
  for (Operation *op : plan.getPrivateBuffers()) {
    auto alloca = cast<memref::AllocaOp>(op);
    MemRefType type = alloca.getType();
    Type element = type.getElementType();
    // Slices as aligned as the alloca, in a buffer at least as aligned.
    uint64_t alignment =
        std::max<uint64_t>(layout.getTypePreferredAlignment(element),
                           alloca.getAlignment().value_or(1));
    uint64_t bytes = llvm::alignTo(layout.getTypeSize(element).getFixedValue() *
                                       type.getNumElements(),
                                   alignment);
    Value slice = arith::ConstantIndexOp::create(rewriter, loc, bytes);
    Value total = rewriter.createOrFold<arith::MulIOp>(loc, slice, threadCount);
    std::optional<int64_t> staticTotal = getConstantIntValue(total);
    auto bufferType =
        MemRefType::get({staticTotal ? *staticTotal : ShapedType::kDynamic},
                        rewriter.getI8Type());
    privateBuffers[op] = {allocateBuffer(bufferType, total, alignment), slice};
  }

  emitBlock(launch.getBody().front());
  for (Value allocation : allocations)
    memref::DeallocOp::create(rewriter, loc, allocation);
}

PhaseEmitter::Thread PhaseEmitter::beginThreadLoop() {
  Thread thread;
  SmallVector<Value, 3> ids(3);
  for (int axis = 2; axis >= 0; --axis) {
    auto loop =
        scf::ForOp::create(rewriter, loc, zero, block.blockSizes[axis], one);
    if (!thread.loop)
      thread.loop = loop;
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
    ids[axis] = loop.getInductionVar();
    if (block.reverseThreads)
      ids[axis] =
          arith::SubIOp::create(rewriter, loc, lastThreadIds[axis], ids[axis]);
  }
  gpu::KernelDim3 args = launch.getThreadIds();
  thread.values.map(ValueRange{args.x, args.y, args.z}, ids);
  // x fastest, as warps are formed.
  thread.linearId = rewriter.createOrFold<arith::AddIOp>(
      loc,
      rewriter.createOrFold<arith::MulIOp>(
          loc,
          rewriter.createOrFold<arith::AddIOp>(
              loc,
              rewriter.createOrFold<arith::MulIOp>(loc, ids[2],
                                                   block.blockSizes[1]),
              ids[1]),
          block.blockSizes[0]),
      ids[0]);
  return thread;
}

PhaseEmitter::Thread PhaseEmitter::threadZero() {
  Thread thread;
  gpu::KernelDim3 args = launch.getThreadIds();
  thread.values.map(ValueRange{args.x, args.y, args.z},
                    ValueRange{zero, zero, zero});
  thread.linearId = zero;
  return thread;
}

Value PhaseEmitter::resolve(Value value, Thread &thread) {
  if (Value known = thread.values.lookupOrNull(value))
    return known;
  if (!launch.getBody().isAncestor(value.getParentRegion()))
    return value;
  Value result;
  if (Value known = uniform.lookupOrNull(value)) {
    result = known;
  } else if (auto it = buffers.find(value); it != buffers.end()) {
    result = memref::LoadOp::create(rewriter, loc, it->second, thread.linearId);
  } else if (Operation *def = value.getDefiningOp();
             plan.isPrivateBuffer(def)) {
    auto [buffer, slice] = privateBuffers.at(def);
    Value shift = arith::MulIOp::create(rewriter, loc, thread.linearId, slice);
    result = memref::ViewOp::create(rewriter, loc, value.getType(), buffer,
                                    shift, ValueRange());
  } else {
    // Recomputed where it is used: a constant, or a pure op whose result
    // cannot be kept, from its operands as this thread sees them.
    for (Value operand : def->getOperands())
      resolve(operand, thread);
    Operation *copy = rewriter.clone(*def, thread.values);
    result = copy->getResult(cast<OpResult>(value).getResultNumber());
  }
  thread.values.map(value, result);
  return result;
}

void PhaseEmitter::storeKept(ValueRange targets, ValueRange values,
                             Thread &thread) {
  // Everything is read before anything is written: a loop may yield its
  // iter_args swapped.
  SmallVector<std::pair<Value, Value>> stores;
  for (auto [target, value] : llvm::zip_equal(targets, values))
    if (auto it = buffers.find(target); it != buffers.end())
      stores.emplace_back(resolve(value, thread), it->second);
  for (auto [value, buffer] : stores)
    memref::StoreOp::create(rewriter, loc, value, buffer, thread.linearId);
}

void PhaseEmitter::emitBlock(Block &source) {
  ArrayRef<Step> steps = plan.getSteps(source);
  Operation *terminator = source.getTerminator();
  ValueRange targets = getTerminatorTargets(source);
  ValueRange forwarded = getForwardedOperands(terminator);
  for (auto [index, step] : llvm::enumerate(steps)) {
    if (Operation *split = step.split) {
      auto [entryValues, entryTargets] = getEntryFlow(split);
      if ((index == 0 || steps[index - 1].split) &&
          hasKeptTarget(entryTargets)) {
        Thread thread = beginThreadLoop();
        storeKept(entryTargets, entryValues, thread);
        endThreadLoop(thread);
      }
      emitSplit(split);
      continue;
    }
    Thread thread = beginThreadLoop();
    for (Operation *op : step.phase)
      emitPhaseOp(op, thread);
    if (index + 1 < steps.size() && steps[index + 1].split) {
      auto [entryValues, entryTargets] = getEntryFlow(steps[index + 1].split);
      storeKept(entryTargets, entryValues, thread);
    }
    if (index + 1 == steps.size() && plan.storesInLastPhase(source))
      storeKept(targets, forwarded, thread);
    endThreadLoop(thread);
  }
  if (!plan.storesInLastPhase(source) && hasKeptTarget(targets)) {
    Thread thread = beginThreadLoop();
    storeKept(targets, forwarded, thread);
    endThreadLoop(thread);
  }
}

void PhaseEmitter::emitPhaseOp(Operation *op, Thread &thread) {
  if (plan.isPrivateBuffer(op))
    return; // Its slice is taken where it is used.
  if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
    emitShuffle(shuffle, thread);
  } else {
    for (Value operand : op->getOperands())
      resolve(operand, thread);
    SetVector<Value> usedInside;
    getUsedValuesDefinedAbove(op->getRegions(), usedInside);
    for (Value value : usedInside)
      resolve(value, thread);
    rewriter.clone(*op, thread.values);
  }
  for (Value result : op->getResults())
    if (auto it = buffers.find(result); it != buffers.end())
      memref::StoreOp::create(rewriter, loc, thread.values.lookup(result),
                              it->second, thread.linearId);
}

/// A shuffle reads its partner's value from the buffer where every thread
/// deposited its own in an earlier phase. The partner is lane `k ^ offset`,
/// `k + offset`, `k - offset` or `offset` of the warp (threads 32w to
/// 32w + 31 in x-fastest order) for lane `k`, as upstream documents; the
/// result is valid when both lanes are among the first `width` of the warp
/// and the partner is a thread of the block. Otherwise, as on NVIDIA GPUs,
/// the thread gets its own value.
void PhaseEmitter::emitShuffle(gpu::ShuffleOp shuffle, Thread &thread) {
  Value offset = resolve(shuffle.getOffset(), thread);
  Value width = resolve(shuffle.getWidth(), thread);
  Type i32 = rewriter.getI32Type();
  Value warpSize = arith::ConstantIndexOp::create(rewriter, loc, kWarpSize);
  Value lane = arith::RemUIOp::create(rewriter, loc, thread.linearId, warpSize);
  Value warpStart = arith::SubIOp::create(rewriter, loc, thread.linearId, lane);
  Value laneId = arith::IndexCastOp::create(rewriter, loc, i32, lane);
  Value partner;
  switch (shuffle.getMode()) {
  case gpu::ShuffleMode::XOR:
    partner = arith::XOrIOp::create(rewriter, loc, laneId, offset);
    break;
  case gpu::ShuffleMode::DOWN:
    partner = arith::AddIOp::create(rewriter, loc, laneId, offset);
    break;
  case gpu::ShuffleMode::UP:
    partner = arith::SubIOp::create(rewriter, loc, laneId, offset);
    break;
  case gpu::ShuffleMode::IDX:
    partner = offset;
    break;
  }
  auto compare = [&](arith::CmpIPredicate predicate, Value lhs, Value rhs) {
    return arith::CmpIOp::create(rewriter, loc, predicate, lhs, rhs);
  };
  auto both = [&](Value lhs, Value rhs) {
    return arith::AndIOp::create(rewriter, loc, lhs, rhs);
  };
  using arith::CmpIPredicate;
  Value zeroI32 = arith::ConstantIntOp::create(rewriter, loc, i32, 0);
  Value warpSizeI32 =
      arith::ConstantIntOp::create(rewriter, loc, i32, kWarpSize);
  Value partnerThread = arith::AddIOp::create(
      rewriter, loc, warpStart,
      arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                 partner));
  Value valid =
      both(both(compare(CmpIPredicate::slt, laneId, width),
                compare(CmpIPredicate::sge, partner, zeroI32)),
           both(both(compare(CmpIPredicate::slt, partner, width),
                     compare(CmpIPredicate::slt, partner, warpSizeI32)),
                compare(CmpIPredicate::ult, partnerThread, threadCount)));
  Value source = shuffle.getValue();
  Value result;
  if (auto it = buffers.find(source); it != buffers.end()) {
    Value from = arith::SelectOp::create(rewriter, loc, valid, partnerThread,
                                         thread.linearId);
    result = memref::LoadOp::create(rewriter, loc, it->second, from);
  } else {
    // The same on every thread: defined above the launch, or a constant.
    result = resolve(source, thread);
  }
  thread.values.map(shuffle.getShuffleResult(), result);
  thread.values.map(shuffle.getValid(), valid);
}

void PhaseEmitter::emitInto(Block &source, Block &target) {
  OpBuilder::InsertionGuard guard(rewriter);
  if (target.mightHaveTerminator())
    rewriter.setInsertionPoint(target.getTerminator());
  else
    rewriter.setInsertionPointToEnd(&target);
  emitBlock(source);
}

void PhaseEmitter::emitSplit(Operation *split) {
  Thread first = threadZero();
  auto sameOnEveryThread = [&](Value value) { return resolve(value, first); };
  Operation *replacement =
      TypeSwitch<Operation *, Operation *>(split)
          .Case([&](scf::ForOp loop) {
            auto phases = scf::ForOp::create(
                rewriter, loc, sameOnEveryThread(loop.getLowerBound()),
                sameOnEveryThread(loop.getUpperBound()),
                sameOnEveryThread(loop.getStep()), ValueRange(), nullptr,
                loop.getUnsignedCmp());
            uniform.map(loop.getInductionVar(), phases.getInductionVar());
            emitInto(*loop.getBody(), *phases.getBody());
            return phases;
          })
          .Case([&](scf::IfOp branch) {
            auto phases = scf::IfOp::create(
                rewriter, loc, sameOnEveryThread(branch.getCondition()),
                /*withElseRegion=*/!branch.getElseRegion().empty());
            emitInto(*branch.thenBlock(), *phases.thenBlock());
            if (!branch.getElseRegion().empty())
              emitInto(*branch.elseBlock(), *phases.elseBlock());
            return phases;
          })
          .Case([&](scf::IndexSwitchOp cases) {
            auto phases = scf::IndexSwitchOp::create(
                rewriter, loc, TypeRange(), sameOnEveryThread(cases.getArg()),
                cases.getCases(), cases.getNumCases());
            for (auto [from, to] :
                 llvm::zip_equal(cases->getRegions(), phases->getRegions())) {
              OpBuilder::InsertionGuard guard(rewriter);
              Block *target = rewriter.createBlock(&to);
              scf::YieldOp::create(rewriter, loc);
              emitInto(from.front(), *target);
            }
            return phases;
          })
          .Case([&](scf::WhileOp loop) {
            auto phases =
                scf::WhileOp::create(rewriter, loc, TypeRange(), ValueRange());
            OpBuilder::InsertionGuard guard(rewriter);
            Block *before = rewriter.createBlock(&phases.getBefore());
            emitInto(*loop.getBeforeBody(), *before);
            Thread last = threadZero();
            scf::ConditionOp::create(
                rewriter, loc,
                resolve(loop.getConditionOp().getCondition(), last),
                ValueRange());
            Block *after = rewriter.createBlock(&phases.getAfter());
            scf::YieldOp::create(rewriter, loc);
            emitInto(*loop.getAfterBody(), *after);
            return phases;
          });
  rewriter.setInsertionPointAfter(replacement);
}

void vx::emitThreadPhases(RewriterBase &rewriter, gpu::LaunchOp launch,
                          const LaunchBlock &block) {
  // Queries become the launch's region arguments (the lane id, from the
  // thread ids), which the phases map for each thread.
  SmallVector<Operation *> queries;
  launch.getBody().walk([&](Operation *op) {
    if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::GridDimOp, gpu::BlockDimOp,
            gpu::LaneIdOp>(op))
      queries.push_back(op);
  });
  for (Operation *op : queries) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    Value value =
        TypeSwitch<Operation *, Value>(op)
            .Case([&](gpu::ThreadIdOp id) {
              return pickDimension(launch.getThreadIds(), id.getDimension());
            })
            .Case([&](gpu::BlockIdOp id) {
              return pickDimension(launch.getBlockIds(), id.getDimension());
            })
            .Case([&](gpu::GridDimOp dim) {
              return pickDimension(launch.getGridSize(), dim.getDimension());
            })
            .Case([&](gpu::BlockDimOp dim) {
              return pickDimension(launch.getBlockSize(), dim.getDimension());
            })
            .Case([&](gpu::LaneIdOp) -> Value {
              Location loc = op->getLoc();
              gpu::KernelDim3 ids = launch.getThreadIds();
              gpu::KernelDim3 sizes = launch.getBlockSize();
              Value linear = arith::AddIOp::create(
                  rewriter, loc,
                  arith::MulIOp::create(
                      rewriter, loc,
                      arith::AddIOp::create(
                          rewriter, loc,
                          arith::MulIOp::create(rewriter, loc, ids.z, sizes.y),
                          ids.y),
                      sizes.x),
                  ids.x);
              return arith::RemUIOp::create(
                  rewriter, loc, linear,
                  arith::ConstantIndexOp::create(rewriter, loc, kWarpSize));
            });
    rewriter.replaceOp(op, value);
  }
  FailureOr<PhasePlan> plan = PhasePlan::build(launch, /*report=*/false);
  assert(succeeded(plan) && "launch must pass checkThreadPhases");
  PhaseEmitter(rewriter, *plan, launch, block).emit();
}

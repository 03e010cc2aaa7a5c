//===- Barriers.cpp - Where the threads of a CTA must synchronize ---------===//
//
// The body of a cooperative spawn is walked in program order with the set
// of accesses made since the last barrier. Before a thread loop, or an
// access outside thread loops (which every thread runs), that may touch an
// element one of the pending accesses touched on another thread, one of
// them a write (RAW, WAR, WAW), a barrier is placed and the set emptied.
// Whether two accesses can meet on different threads is the address
// model's question (SpawnAnalysis::findCrossThreadDependence): iteration i
// of a thread loop runs on thread i mod N, code outside thread loops on
// every thread. Memory that each thread has for itself (private scratch,
// allocas) never needs a barrier. An answer the model cannot give counts
// as a dependence.
//
// Control flow outside thread loops is the same on every thread, so a
// barrier may go anywhere in it. Branches are walked one by one and their
// pending sets joined; a loop (and the body itself, across the steps of the
// arbitrary dimensions) is walked until what reaches its head from the
// previous iteration no longer changes, so that a barrier goes where an
// iteration's accesses meet the next one's. Accesses from earlier
// iterations are asked about as such (`Later`), so that a thread loop that
// only rereads what its own threads wrote in the previous step needs none.
// Writes outside thread loops run on thread 0 alone (the mapping guards
// them), so a later access of the same element on thread 0 needs none.
//
// Transfers that vx-pipeline-transfers will take are modelled the way it
// schedules them: at the first one, a wait for the step's copies and a
// barrier (its own); nothing else of theirs is pending (a copy writes a slot
// that no thread touches until that wait, after the barrier that ends the
// reads of the slot it refills). Where the plan differs from the plain one,
// its barriers carry the condition they hold under, which the pipelining
// resolves. Each barrier's reason is an analysis remark (category
// `vx-barriers`: `--remarks-filter=vx-barriers`).
//
//===----------------------------------------------------------------------===//

#include "CTAMapping.h"
#include "Vx/Analysis/SpawnAnalysis.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Remarks.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::vx;

/// Walks of a loop before its pending set settles; then a barrier at its
/// head ends the search.
static constexpr unsigned kMaxLoopWalks = 4;

namespace {
/// An access made since the last barrier.
struct PendingAccess {
  /// The access, or null for the shared-memory slots that the reduction of
  /// the thread loop `reduction` read.
  const Access *access = nullptr;
  Operation *reduction = nullptr;
  /// The loops around the access whose back edge lies between it and the
  /// point of the walk: it ran in an earlier iteration of each.
  SmallVector<Operation *, 2> earlierIterationOf;
  /// It ran in an earlier step of the arbitrary dimensions.
  bool earlierStep = false;

  Operation *getOp() const { return access ? access->op : reduction; }
  bool operator==(const PendingAccess &other) const {
    return access == other.access && reduction == other.reduction &&
           earlierIterationOf == other.earlierIterationOf &&
           earlierStep == other.earlierStep;
  }
};

using Pending = SmallVector<PendingAccess>;
} // namespace

/// Adds the entries of `from` that `into` does not have.
static void join(Pending &into, const Pending &from) {
  for (const PendingAccess &entry : from)
    if (!llvm::is_contained(into, entry))
      into.push_back(entry);
}

/// The transfers whose token `token` may be: through scf.if and scf.for
/// results and loop-carried values; every transfer of the spawn where the
/// token comes from elsewhere.
static void collectTransfers(Value token, SpawnOp spawn,
                             SmallPtrSetImpl<Operation *> &transfers,
                             SmallPtrSetImpl<Value> &visited) {
  if (!visited.insert(token).second)
    return;
  auto recurse = [&](Value value) {
    collectTransfers(value, spawn, transfers, visited);
  };
  if (auto transfer = token.getDefiningOp<TransferAsyncOp>()) {
    transfers.insert(transfer);
    return;
  }
  if (auto result = dyn_cast<OpResult>(token)) {
    Operation *owner = result.getOwner();
    unsigned position = result.getResultNumber();
    if (auto ifOp = dyn_cast<scf::IfOp>(owner)) {
      recurse(ifOp.thenYield().getOperand(position));
      if (!ifOp.getElseRegion().empty())
        recurse(ifOp.elseYield().getOperand(position));
      return;
    }
    if (auto forOp = dyn_cast<scf::ForOp>(owner)) {
      recurse(forOp.getInitArgs()[position]);
      recurse(forOp.getYieldedValues()[position]);
      return;
    }
  } else {
    auto argument = cast<BlockArgument>(token);
    if (auto forOp = dyn_cast<scf::ForOp>(argument.getOwner()->getParentOp());
        forOp && argument.getArgNumber() > 0) {
      unsigned position = argument.getArgNumber() - 1;
      recurse(forOp.getInitArgs()[position]);
      recurse(forOp.getYieldedValues()[position]);
      return;
    }
  }
  spawn.walk([&](TransferAsyncOp transfer) { transfers.insert(transfer); });
}

std::string vx::describeOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << op->getName() << "'";
  if (auto fileLoc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    os << " (line " << fileLoc.getLine() << ")";
  return text;
}

namespace {
/// The ops before which barriers go, each with its reason.
using BarrierSet = llvm::MapVector<Operation *, std::string>;

class BarrierPlanner {
public:
  /// With `pipelined` (in program order), plans for the schedule that
  /// vx-pipeline-transfers gives them.
  BarrierPlanner(SpawnOp spawn, SpawnAnalysis &analysis, int64_t numThreads,
                 ArrayRef<Operation *> onceEffects,
                 ArrayRef<TransferAsyncOp> pipelined)
      : spawn(spawn), analysis(analysis), numThreads(numThreads),
        onceEffects(onceEffects.begin(), onceEffects.end()) {
    for (const Access &access : analysis.getAccesses())
      if (access.threadLoop)
        threadLoopAccesses[access.threadLoop].push_back(&access);
    for (TransferAsyncOp transfer : pipelined) {
      pipelinedOps.insert(transfer);
      for (Operation *user : transfer.getToken().getUsers())
        pipelinedOps.insert(user);
    }
    if (!pipelined.empty())
      pipelineStart = pipelined.front();
  }

  BarrierSet run() {
    Block &body = spawn.getBody().front();
    if (spawn.getArbitraryDims().empty())
      walkBlock(body, {});
    else
      walkRepeated(spawn, {}, [&](Pending pending) {
        return walkBlock(body, std::move(pending));
      });
    return std::move(barriers);
  }

private:
  /// Walks `block` from `pending`; returns what is pending at its end.
  Pending walkBlock(Block &block, Pending pending) {
    for (Operation &op : block) {
      if (barriers.contains(&op) || isa<gpu::BarrierOp>(op) ||
          &op == pipelineStart)
        pending.clear();
      // The pipeline's wait and barrier order its copies.
      if (pipelinedOps.contains(&op))
        continue;
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        visitThreadLoop(loop, pending);
        continue;
      }
      ArrayRef<const Access *> accesses = analysis.getAccesses(&op);
      if (!accesses.empty() || op.getNumRegions() == 0) {
        visitAccesses(&op, accesses, pending);
        if (auto await = dyn_cast<AwaitOp>(op))
          visitAwait(await, pending);
        continue;
      }
      if (isa<scf::IfOp, scf::IndexSwitchOp>(op)) {
        // One branch runs; an scf.if without else may run none.
        Pending joined;
        for (Region &region : op.getRegions()) {
          if (region.empty())
            join(joined, pending);
          else
            join(joined, walkBlock(region.front(), pending));
        }
        pending = std::move(joined);
        continue;
      }
      // Any other region op (scf.for, scf.while, ...): its regions run in
      // order, any number of times.
      pending = walkRepeated(&op, pending, [&](Pending entry) {
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            entry = walkBlock(nested, std::move(entry));
        return entry;
      });
    }
    return pending;
  }

  /// Walks `walk` (the regions of `loop`, or the spawn body across
  /// arbitrary steps) with what is pending before the loop and what its
  /// previous iteration left, until that settles; returns what may be
  /// pending after it (it may run no iteration).
  Pending walkRepeated(Operation *loop, const Pending &before,
                       function_ref<Pending(Pending)> walk) {
    Pending end;
    for (unsigned walks = 0;; ++walks) {
      Pending entry = before;
      join(entry, fromEarlierIteration(loop, end));
      Pending newEnd = walk(entry);
      if (newEnd == end)
        break;
      end = std::move(newEnd);
      if (walks + 1 == kMaxLoopWalks) {
        requireBarrierBefore(&loop->getRegion(0).front().front(), end,
                             "what one iteration leaves for the next did not "
                             "settle in " +
                                 std::to_string(kMaxLoopWalks) + " walks");
        end = walk(before);
        break;
      }
    }
    Pending after = before;
    join(after, end);
    return after;
  }

  /// `end` seen from the next iteration of `loop`: the entries made in it
  /// ran in an earlier iteration (or step, for the spawn).
  Pending fromEarlierIteration(Operation *loop, const Pending &end) {
    Pending earlier;
    for (PendingAccess entry : end) {
      if (loop->isProperAncestor(entry.getOp())) {
        if (loop == spawn.getOperation())
          entry.earlierStep = true;
        else if (!llvm::is_contained(entry.earlierIterationOf, loop))
          entry.earlierIterationOf.push_back(loop);
      }
      if (!llvm::is_contained(earlier, entry))
        earlier.push_back(std::move(entry));
    }
    return earlier;
  }

  void visitThreadLoop(scf::ParallelOp loop, Pending &pending) {
    ArrayRef<const Access *> accesses;
    if (auto found = threadLoopAccesses.find(loop);
        found != threadLoopAccesses.end())
      accesses = found->second;
    bool sharedReduction = reducesThroughSharedMemory(loop, numThreads);
    std::optional<std::string> reason;
    for (const PendingAccess &entry : pending) {
      // The reduction's slots, read by the previous run of this loop.
      if (entry.reduction) {
        if (sharedReduction && entry.reduction == loop)
          reason = "the thread loop " + describeOp(loop) +
                   " reduces through the shared slots that its previous "
                   "run read";
      } else {
        reason = findConflict(entry, accesses);
      }
      if (reason)
        break;
    }
    if (reason)
      requireBarrierBefore(loop, pending, *reason);
    if (sharedReduction) {
      // The reduction's own barrier orders everything before it.
      pending.clear();
      pending.push_back({nullptr, loop, {}, false});
      return;
    }
    for (const Access *access : accesses)
      pending.push_back({access, nullptr, {}, false});
  }

  void visitAccesses(Operation *op, ArrayRef<const Access *> accesses,
                     Pending &pending) {
    for (const PendingAccess &entry : pending)
      if (std::optional<std::string> reason = findConflict(entry, accesses)) {
        requireBarrierBefore(op, pending, *reason);
        break;
      }
    for (const Access *access : accesses)
      pending.push_back({access, nullptr, {}, false});
  }

  /// The destination of the awaited transfer is written, as far as other
  /// threads can tell, when the await returns (cp.async completes late).
  void visitAwait(AwaitOp await, Pending &pending) {
    SmallPtrSet<Operation *, 4> transfers;
    SmallPtrSet<Value, 8> visited;
    collectTransfers(await.getToken(), spawn, transfers, visited);
    for (Operation *transfer : transfers)
      for (const Access *access : analysis.getAccesses(transfer))
        if (access->isWrite()) {
          PendingAccess entry{access, nullptr, {}, false};
          if (!llvm::is_contained(pending, entry))
            pending.push_back(entry);
        }
  }

  void requireBarrierBefore(Operation *op, Pending &pending,
                            std::string reason) {
    barriers.insert({op, std::move(reason)});
    pending.clear();
  }

  /// Whether `access` runs on thread 0 alone: outside thread loops, in an
  /// op that the mapping guards on thread 0.
  bool isOnThreadZero(const Access &access) const {
    if (access.threadLoop)
      return false;
    for (Operation *op = access.op; op && op != spawn; op = op->getParentOp())
      if (onceEffects.contains(op))
        return true;
    return false;
  }

  /// Why one of `accesses` may touch an element that `earlier` touched on
  /// another thread (the first such); nothing where none can.
  std::optional<std::string> findConflict(const PendingAccess &earlier,
                                          ArrayRef<const Access *> accesses) {
    for (const Access *access : accesses)
      if (std::optional<std::string> reason = findConflict(earlier, *access))
        return reason;
    return std::nullopt;
  }

  /// Why `later` may touch an element that `earlier` touched on another
  /// thread, one of them a write; nothing where it cannot.
  std::optional<std::string> findConflict(const PendingAccess &earlier,
                                          const Access &later) {
    if (!earlier.access)
      return std::nullopt;
    const Access &first = *earlier.access;
    if (!first.isWrite() && !later.isWrite())
      return std::nullopt;
    if (first.kind == AccessKind::AtomicUpdate &&
        later.kind == AccessKind::AtomicUpdate &&
        first.atomicKind == later.atomicKind)
      return std::nullopt; // Updates of one kind commute.
    SmallVector<std::pair<Operation *, PairRelation::Loop>> loops;
    for (Operation *loop : earlier.earlierIterationOf)
      if (loop->isAncestor(later.op))
        loops.push_back({loop, PairRelation::Loop::Later});
    for (const Access::Candidate &candidate : first.candidates) {
      const MemoryRoot &root = candidate.root;
      if (!isSharedByThreads(root) || !later.touches(root))
        continue;
      CollisionResult result = analysis.findCrossThreadDependence(
          first, later, root, numThreads, earlier.earlierStep, loops,
          {isOnThreadZero(first), isOnThreadZero(later)});
      if (result.kind != CollisionResult::Disjoint)
        return describeConflict(earlier, later, root, result);
    }
    return std::nullopt;
  }

  /// "'memref.load' (line 9) may read an element that 'memref.store'
  /// (line 5) wrote on another thread (RAW, thread 0 then thread 1) in the
  /// scratch at ...".
  static std::string describeConflict(const PendingAccess &earlier,
                                      const Access &later,
                                      const MemoryRoot &root,
                                      const CollisionResult &result) {
    const Access &first = *earlier.access;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << describeOp(later.op) << " may "
       << (later.isWrite() ? "write" : "read") << " an element that "
       << describeOp(first.op) << " " << (first.isWrite() ? "wrote" : "read")
       << " on another thread";
    if (earlier.earlierStep)
      os << " in an earlier step";
    else if (!earlier.earlierIterationOf.empty())
      os << " in an earlier iteration of "
         << describeOp(earlier.earlierIterationOf.front());
    os << " (" << (first.isWrite() ? (later.isWrite() ? "WAW" : "RAW") : "WAR");
    if (result.kind == CollisionResult::Collision && result.thread0 &&
        result.thread1)
      os << ", thread " << *result.thread0 << " then thread "
         << *result.thread1;
    os << ") in " << root.describe();
    if (result.kind == CollisionResult::Unknown)
      os << "; the address model cannot tell: " << result.reason;
    return text;
  }

  SpawnOp spawn;
  SpawnAnalysis &analysis;
  int64_t numThreads;
  SmallPtrSet<Operation *, 8> onceEffects;
  /// The pipelined transfers and their awaits, and the first transfer,
  /// where the pipeline's barrier goes.
  SmallPtrSet<Operation *, 4> pipelinedOps;
  Operation *pipelineStart = nullptr;
  DenseMap<scf::ParallelOp, SmallVector<const Access *>> threadLoopAccesses;
  BarrierSet barriers;
};
} // namespace

SmallVector<PlannedBarrier>
vx::planBarriers(SpawnOp spawn, SpawnAnalysis &analysis, int64_t numThreads,
                 ArrayRef<Operation *> onceEffects,
                 ArrayRef<TransferAsyncOp> pipelinable) {
  BarrierSet plain =
      BarrierPlanner(spawn, analysis, numThreads, onceEffects, {}).run();
  SmallVector<PlannedBarrier> planned;
  if (pipelinable.empty()) {
    for (auto &[op, reason] : plain)
      planned.push_back({op, std::move(reason), BarrierCondition::Always});
    return planned;
  }
  BarrierSet pipelined =
      BarrierPlanner(spawn, analysis, numThreads, onceEffects, pipelinable)
          .run();
  for (auto &[op, reason] : plain)
    planned.push_back({op, std::move(reason),
                       pipelined.contains(op)
                           ? BarrierCondition::Always
                           : BarrierCondition::UnlessPipelined});
  for (auto &[op, reason] : pipelined)
    if (!plain.contains(op))
      planned.push_back({op, std::move(reason), BarrierCondition::IfPipelined});
  return planned;
}

void vx::remarkBarrier(gpu::BarrierOp barrier, const Twine &reason) {
  remark::analysis(
      barrier.getLoc(),
      remark::RemarkOpts::name("barrier").category(kBarrierRemarkCategory))
      << reason.str();
}

void vx::resolvePipelineBarriers(SpawnOp spawn, bool pipelined,
                                 bool asPlanned) {
  spawn.getBody().walk([&](Operation *op) {
    if (isa<TransferAsyncOp>(op))
      op->removeAttr(kPipelinableAttrName);
    auto barrier = dyn_cast<gpu::BarrierOp>(op);
    if (!barrier)
      return;
    for (auto [name, dropped] :
         {std::pair{kIfPipelinedAttrName, !pipelined},
          std::pair{kUnlessPipelinedAttrName, pipelined && asPlanned}}) {
      auto reason = barrier->getAttrOfType<StringAttr>(name);
      if (!reason)
        continue;
      if (dropped) {
        barrier.erase();
        return;
      }
      barrier->removeAttr(name);
      remarkBarrier(barrier, reason.getValue());
    }
  });
}

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
//
//===----------------------------------------------------------------------===//

#include "CTAMapping.h"
#include "Vx/Analysis/SpawnAnalysis.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/SetVector.h"

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

namespace {
class BarrierPlanner {
public:
  BarrierPlanner(SpawnOp spawn, SpawnAnalysis &analysis, int64_t numThreads)
      : spawn(spawn), analysis(analysis), numThreads(numThreads) {
    for (const Access &access : analysis.getAccesses())
      if (access.threadLoop)
        threadLoopAccesses[access.threadLoop].push_back(&access);
  }

  SmallVector<Operation *> run() {
    Block &body = spawn.getBody().front();
    if (spawn.getArbitraryDims().empty())
      walkBlock(body, {});
    else
      walkRepeated(spawn, {}, [&](Pending pending) {
        return walkBlock(body, std::move(pending));
      });
    return barriers.takeVector();
  }

private:
  /// Walks `block` from `pending`; returns what is pending at its end.
  Pending walkBlock(Block &block, Pending pending) {
    for (Operation &op : block) {
      if (barriers.contains(&op) || isa<gpu::BarrierOp>(op))
        pending.clear();
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
        requireBarrierBefore(&loop->getRegion(0).front().front(), end);
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
    bool needed = llvm::any_of(pending, [&](const PendingAccess &entry) {
      // The reduction's slots, read by the previous run of this loop.
      if (entry.reduction)
        return sharedReduction && entry.reduction == loop;
      return llvm::any_of(accesses, [&](const Access *access) {
        return mayConflict(entry, *access);
      });
    });
    if (needed)
      requireBarrierBefore(loop, pending);
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
    bool needed = llvm::any_of(pending, [&](const PendingAccess &entry) {
      return llvm::any_of(accesses, [&](const Access *access) {
        return mayConflict(entry, *access);
      });
    });
    if (needed)
      requireBarrierBefore(op, pending);
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

  void requireBarrierBefore(Operation *op, Pending &pending) {
    barriers.insert(op);
    pending.clear();
  }

  /// Whether `later` may touch an element that `earlier` touched on another
  /// thread, one of them a write.
  bool mayConflict(const PendingAccess &earlier, const Access &later) {
    if (!earlier.access)
      return false;
    const Access &first = *earlier.access;
    if (!first.isWrite() && !later.isWrite())
      return false;
    if (first.kind == AccessKind::AtomicUpdate &&
        later.kind == AccessKind::AtomicUpdate &&
        first.atomicKind == later.atomicKind)
      return false; // Updates of one kind commute.
    SmallVector<std::pair<Operation *, PairRelation::Loop>> loops;
    for (Operation *loop : earlier.earlierIterationOf)
      if (loop->isAncestor(later.op))
        loops.push_back({loop, PairRelation::Loop::Later});
    for (const Access::Candidate &candidate : first.candidates) {
      const MemoryRoot &root = candidate.root;
      if (!isSharedByThreads(root) || !later.touches(root))
        continue;
      CollisionResult result = analysis.findCrossThreadDependence(
          first, later, root, numThreads, earlier.earlierStep, loops);
      if (result.kind != CollisionResult::Disjoint)
        return true;
    }
    return false;
  }

  SpawnOp spawn;
  SpawnAnalysis &analysis;
  int64_t numThreads;
  DenseMap<scf::ParallelOp, SmallVector<const Access *>> threadLoopAccesses;
  llvm::SetVector<Operation *> barriers;
};
} // namespace

SmallVector<Operation *>
vx::planBarriers(SpawnOp spawn, SpawnAnalysis &analysis, int64_t numThreads) {
  return BarrierPlanner(spawn, analysis, numThreads).run();
}

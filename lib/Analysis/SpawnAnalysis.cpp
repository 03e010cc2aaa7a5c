//===- SpawnAnalysis.cpp - Which elements two executions touch ------------===//

#include "Vx/Analysis/SpawnAnalysis.h"

#include "IntegerModel.h"
#include "Query.h"

#include <map>

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "vx-analysis"

using namespace mlir;
using namespace mlir::vx;
using namespace mlir::vx::detail;

SpawnAnalysis::SpawnAnalysis(SpawnOp spawn, AnalysisBudget budget)
    : spawn(spawn), budget(budget) {
  collectAccesses();
  model = std::make_unique<IntegerModel>(spawn, budget, [this](Operation *op) {
    // What an op reads is the same for every instance only if nothing
    // in the spawn may write it.
    if (isMemoryEffectFree(op))
      return false;
    auto found = accessesByOp.find(op);
    if (found == accessesByOp.end())
      return true;
    return llvm::any_of(found->second, [&](const Access *access) {
      return llvm::any_of(access->candidates,
                          [&](const Access::Candidate &candidate) {
                            return mayBeWritten(candidate.root);
                          });
    });
  });
  queries = std::make_unique<QueryBuilder>(*model, budget);
}

SpawnAnalysis::~SpawnAnalysis() = default;
SpawnAnalysis::SpawnAnalysis(SpawnAnalysis &&) noexcept = default;

ArrayRef<const Access *> SpawnAnalysis::getAccesses(Operation *op) const {
  auto it = accessesByOp.find(op);
  if (it == accessesByOp.end())
    return {};
  return it->second;
}

bool SpawnAnalysis::mayBeWritten(const MemoryRoot &root) const {
  return llvm::any_of(accesses, [&](const Access &access) {
    return access.isWrite() && access.touches(root);
  });
}

/// Whether the relation is the same with the sides swapped.
static bool isSymmetric(const PairRelation &relation) {
  using G = PairRelation::Grid;
  return (relation.grid == G::DifferentParallelPoints ||
          relation.grid == G::AlongDimension) &&
         relation.loops.empty() &&
         relation.threads == PairRelation::Threads::Any;
}

CollisionResult SpawnAnalysis::findCollision(const Access &first,
                                             const Access &second,
                                             const MemoryRoot &root,
                                             const PairRelation &relation,
                                             Block *firstContext) {
  CollisionResult combined;
  combined.kind = CollisionResult::Disjoint;
  bool symmetric = &first == &second && !firstContext && isSymmetric(relation);
  for (auto [firstIndex, firstCandidate] : llvm::enumerate(first.candidates)) {
    if (!firstCandidate.root.mayAlias(root))
      continue;
    for (auto [secondIndex, secondCandidate] :
         llvm::enumerate(second.candidates)) {
      if (!secondCandidate.root.mayAlias(root))
        continue;
      std::optional<AccessSystem> hoisted;
      if (firstContext)
        hoisted = queries->getSystemIn(first, firstIndex, firstContext);
      const AccessSystem &a =
          hoisted ? *hoisted : queries->getSystem(first, firstIndex);
      const AccessSystem &b = queries->getSystem(second, secondIndex);
      bool sameRoot = firstCandidate.root == secondCandidate.root &&
                      firstCandidate.root.kind != MemoryRoot::Kind::Unknown;
      CollisionResult result;
      if (sameRoot) {
        result = queries->query(a, b, relation,
                                symmetric && firstIndex == secondIndex);
      } else {
        // Different roots that may alias: the addresses cannot be compared.
        AccessSystem looseA = a, looseB = b;
        if (!a.unmodelled && !b.unmodelled)
          looseA.unmodelled = "accesses through a memref the analysis "
                              "cannot trace may reach this buffer";
        result = queries->query(looseA, looseB, relation, false);
      }
      if (result.kind == CollisionResult::Collision)
        return result;
      if (result.kind == CollisionResult::Unknown &&
          combined.kind != CollisionResult::Unknown)
        combined = result;
    }
  }
  return combined;
}

SmallVector<SpawnAnalysis::PairCollision, 0> SpawnAnalysis::findCollisions(
    ArrayRef<const Access *> firsts, ArrayRef<const Access *> seconds,
    const MemoryRoot &root, const PairRelation &relation,
    function_ref<bool(const Access *, const Access *)> skip, bool stopAtFirst) {
  SmallVector<PairCollision, 0> found;
  // Groups of accesses whose systems differ only in address constants.
  using Groups =
      SmallVector<std::pair<std::string, SmallVector<const Access *>>>;
  auto group = [&](ArrayRef<const Access *> members) {
    Groups groups;
    std::map<std::string, unsigned> positions;
    for (const Access *access : members) {
      std::string key;
      unsigned matching = 0, index = 0;
      for (auto [position, candidate] : llvm::enumerate(access->candidates))
        if (candidate.root.mayAlias(root)) {
          ++matching;
          index = position;
        }
      if (matching == 1 && access->candidates[index].root == root)
        key = queries->getShapeKey(queries->getSystem(*access, index));
      else
        key = "single:" + std::to_string(reinterpret_cast<uintptr_t>(access));
      auto [it, inserted] = positions.try_emplace(key, groups.size());
      if (inserted)
        groups.push_back({key, {}});
      groups[it->second].second.push_back(access);
    }
    return groups;
  };
  auto candidateFor = [&](const Access *access) {
    for (auto [position, candidate] : llvm::enumerate(access->candidates))
      if (candidate.root == root)
        return unsigned(position);
    return 0u;
  };
  auto firstGroups = group(firsts), secondGroups = group(seconds);
  unsigned pairs = 0;
  for (auto &[firstKey, firstMembers] : firstGroups) {
    for (auto &[secondKey, secondMembers] : secondGroups) {
      if ((firstMembers.size() > 1 || secondMembers.size() > 1) &&
          !StringRef(firstKey).starts_with("single:") &&
          !StringRef(secondKey).starts_with("single:")) {
        SmallVector<const AccessSystem *> firstSystems, secondSystems;
        for (const Access *access : firstMembers)
          firstSystems.push_back(
              &queries->getSystem(*access, candidateFor(access)));
        for (const Access *access : secondMembers)
          secondSystems.push_back(
              &queries->getSystem(*access, candidateFor(access)));
        AccessSystem firstSummary = queries->summarize(firstSystems);
        AccessSystem secondSummary = queries->summarize(secondSystems);
        CollisionResult summary =
            queries->query(firstSummary, secondSummary, relation,
                           firstKey == secondKey && isSymmetric(relation));
        if (summary.kind == CollisionResult::Disjoint)
          continue;
      }
      for (const Access *first : firstMembers) {
        for (const Access *second : secondMembers) {
          if (skip && skip(first, second))
            continue;
          if (++pairs > budget.maxPairs) {
            CollisionResult unknown;
            unknown.reason = "too many pairs of accesses to decide within the "
                             "budget";
            found.push_back({first, second, unknown});
            return found;
          }
          CollisionResult result =
              findCollision(*first, *second, root, relation);
          if (result.kind == CollisionResult::Disjoint)
            continue;
          bool isCollision = result.kind == CollisionResult::Collision;
          found.push_back({first, second, std::move(result)});
          if (stopAtFirst && isCollision)
            return found;
        }
      }
    }
  }
  return found;
}

CollisionResult SpawnAnalysis::findIterationConflict(const Access &first,
                                                     const Access &second,
                                                     const MemoryRoot &root,
                                                     scf::ParallelOp loop) {
  PairRelation relation = PairRelation::sameInstance();
  relation.threads = PairRelation::Threads::DifferentIterations;
  relation.threadLoop = loop;
  return findCollision(first, second, root, relation);
}

CollisionResult SpawnAnalysis::findCrossThreadDependence(
    const Access &earlier, const Access &later, const MemoryRoot &root,
    unsigned numThreads, bool acrossSteps,
    ArrayRef<std::pair<Operation *, PairRelation::Loop>> loops,
    std::array<bool, 2> onThreadZero) {
  PairRelation relation = PairRelation::sameInstance();
  if (acrossSteps) {
    relation.grid = PairRelation::Grid::LaterArbitraryStep;
    relation.allowEqual = false;
  }
  relation.loops.assign(loops.begin(), loops.end());
  if (numThreads) {
    relation.threads = PairRelation::Threads::DifferentThreads;
    relation.numThreads = numThreads;
    relation.onThreadZero = onThreadZero;
  } else {
    relation.threads = PairRelation::Threads::DifferentLinearIterations;
  }
  return findCollision(earlier, later, root, relation);
}

/// The accesses of a private scratch under an ownership check: those in
/// thread loops, and the reads outside them (which run on every thread).
struct ScratchAccesses {
  SmallVector<const Access *> inLoops, readsOutside;
};

/// Elements of one parallel point touched at any time from two threads
/// (of `threads` threads, or of different linear iterations when absent).
static PairRelation getOwnershipRelation(std::optional<unsigned> threads) {
  PairRelation relation;
  relation.grid = PairRelation::Grid::SameParallelPoint;
  if (threads) {
    relation.threads = PairRelation::Threads::DifferentThreads;
    relation.numThreads = *threads;
  } else {
    relation.threads = PairRelation::Threads::DifferentLinearIterations;
  }
  return relation;
}

/// Whether two threads touch one element of `root` (the witness in `out`),
/// or nothing if that is unknown (the reason in `out`).
static std::optional<bool>
findOwnershipConflict(SpawnAnalysis &analysis, const MemoryRoot &root,
                      const ScratchAccesses &scratch,
                      std::optional<unsigned> threads, OwnershipResult &out) {
  bool unknown = false;
  auto record = [&](const Access *first, const Access *second,
                    CollisionResult result) {
    if (result.kind == CollisionResult::Collision) {
      out.first = first;
      out.second = second;
      out.witness = std::move(result);
      return true;
    }
    if (result.kind == CollisionResult::Unknown && !unknown) {
      unknown = true;
      out.reason = result.reason;
    }
    return false;
  };
  PairRelation relation = getOwnershipRelation(threads);
  ArrayRef<const Access *> inLoops = scratch.inLoops;
  for (auto [position, first] : llvm::enumerate(inLoops))
    for (const Access *second : inLoops.drop_front(position))
      if (record(first, second,
                 analysis.findCollision(*first, *second, root, relation)))
        return true;
  // Code outside thread loops runs on every thread: it must not read what
  // one thread writes.
  PairRelation anyThread =
      getOwnershipRelation(threads ? threads : std::optional<unsigned>(2));
  for (const Access *read : scratch.readsOutside)
    for (const Access *write : inLoops)
      if (write->isWrite() &&
          record(write, read,
                 analysis.findCollision(*write, *read, root, anyThread)))
        return true;
  if (unknown)
    return std::nullopt;
  return false;
}

/// The linear index of iteration `ivs` of the thread loop of `access`
/// (row-major over its dimensions), where its bounds are constant.
static std::optional<int64_t> getLinearIteration(const Access *access,
                                                 ArrayRef<int64_t> ivs) {
  scf::ParallelOp loop = access->threadLoop;
  if (!loop || ivs.size() != loop.getNumLoops())
    return std::nullopt;
  int64_t index = 0;
  for (unsigned dim = 0; dim < loop.getNumLoops(); ++dim) {
    std::optional<int64_t> lower =
        getConstantIntValue(loop.getLowerBound()[dim]);
    std::optional<int64_t> upper =
        getConstantIntValue(loop.getUpperBound()[dim]);
    std::optional<int64_t> step = getConstantIntValue(loop.getStep()[dim]);
    if (!lower || !upper || !step || *step <= 0)
      return std::nullopt;
    int64_t trips =
        std::max<int64_t>(llvm::divideCeil(*upper - *lower, *step), 0);
    index = index * trips + (ivs[dim] - *lower) / *step;
  }
  return index;
}

OwnershipResult
SpawnAnalysis::checkOwnership(ScratchOp scratch,
                              std::optional<unsigned> numThreads) {
  return checkOwnership(
      MemoryRoot{MemoryRoot::Kind::Scratch, scratch.getResult(), {}},
      numThreads);
}

OwnershipResult
SpawnAnalysis::checkOwnership(const MemoryRoot &root,
                              std::optional<unsigned> numThreads) {
  OwnershipResult ownership;
  if (numThreads == 1) {
    // One thread touches every element.
    ownership.kind = OwnershipResult::OwnedForSomeThreadCounts;
    ownership.threadCounts = {1};
    return ownership;
  }
  ScratchAccesses scratchAccesses;
  for (const Access &access : accesses) {
    if (!access.touches(root))
      continue;
    if (access.threadLoop)
      scratchAccesses.inLoops.push_back(&access);
    else if (!access.isWrite())
      scratchAccesses.readsOutside.push_back(&access);
  }
  auto conflicts = [&](std::optional<unsigned> threads, OwnershipResult &out) {
    return findOwnershipConflict(*this, root, scratchAccesses, threads, out);
  };
  if (numThreads) {
    // Owned by every thread count is owned by this one, and that proof has
    // no iteration-to-thread wrap-around cases: often far cheaper. Where it
    // fails, the query for N gets the sample budget it would have had.
    unsigned samplesLeft = queries->getSamplesLeft();
    OwnershipResult anyCount;
    if (conflicts(std::nullopt, anyCount) == false) {
      ownership.kind = OwnershipResult::OwnedForAnyThreadCount;
      return ownership;
    }
    queries->setSamplesLeft(samplesLeft);
    std::optional<bool> conflict = conflicts(*numThreads, ownership);
    if (!conflict)
      ownership.kind = OwnershipResult::Unknown;
    else if (*conflict)
      ownership.kind = OwnershipResult::NotOwned;
    else {
      ownership.kind = OwnershipResult::OwnedForSomeThreadCounts;
      ownership.threadCounts = {*numThreads};
    }
    return ownership;
  }
  std::optional<bool> conflict = conflicts(std::nullopt, ownership);
  if (!conflict) {
    ownership.kind = OwnershipResult::Unknown;
    return ownership;
  }
  if (!*conflict) {
    ownership.kind = OwnershipResult::OwnedForAnyThreadCount;
    return ownership;
  }
  // Code outside thread loops reads what one thread writes: every count
  // above 1 fails.
  if (!ownership.first->threadLoop || !ownership.second->threadLoop) {
    ownership.kind = OwnershipResult::NotOwned;
    return ownership;
  }
  // Two linear iterations p != q touch one element: only thread counts that
  // divide p - q can keep it on one thread; check those.
  const CollisionResult &witness = ownership.witness;
  std::optional<int64_t> p =
      getLinearIteration(ownership.first, witness.iteration0);
  std::optional<int64_t> q =
      getLinearIteration(ownership.second, witness.iteration1);
  OwnershipResult notOwned = ownership;
  notOwned.kind = OwnershipResult::NotOwned;
  if (!p || !q || *p == *q) {
    ownership.kind = OwnershipResult::Unknown;
    ownership.reason = "cannot tell which thread counts keep the elements on "
                       "one thread";
    return ownership;
  }
  SmallVector<unsigned> owned = {1};
  int64_t distance = std::abs(*p - *q);
  for (unsigned threads = 2; threads <= 1024; ++threads) {
    if (distance % threads != 0)
      continue;
    OwnershipResult scratchResult;
    std::optional<bool> conflictFor = conflicts(threads, scratchResult);
    if (!conflictFor) {
      ownership.kind = OwnershipResult::Unknown;
      ownership.reason = scratchResult.reason;
      return ownership;
    }
    if (!*conflictFor)
      owned.push_back(threads);
  }
  if (owned.size() == 1) {
    // The witness for the smallest thread count, with threads.
    conflicts(2, notOwned);
    return notOwned;
  }
  ownership.kind = OwnershipResult::OwnedForSomeThreadCounts;
  ownership.threadCounts = std::move(owned);
  return ownership;
}

void SpawnAnalysis::minimizeWitness(CollisionResult &result) {
  queries->minimizeWitness(result);
}

void SpawnAnalysis::limitSamples(unsigned samples) {
  queries->limitSamples(samples);
}

void SpawnAnalysis::resetSamples() { queries->resetSamples(); }

CollisionResult SpawnAnalysis::findCoExecution(Operation *first,
                                               Operation *second,
                                               const PairRelation &relation) {
  return queries->query(queries->getOpSystem(first),
                        queries->getOpSystem(second), relation,
                        first == second && isSymmetric(relation));
}

CollisionResult SpawnAnalysis::findExecution(
    Block *block, ArrayRef<std::pair<Value, bool>> conditions,
    Operation *firstIterationOf, scf::ForOp emptyLoop) {
  SmallVector<unsigned> constraints;
  for (auto [condition, truth] : conditions)
    constraints.push_back(model->addConstraint(
        model->getCondition(condition, truth), /*definitional=*/false));
  if (firstIterationOf)
    constraints.push_back(model->addConstraint(
        {Conjunction{{LinearForm::getColumn(
                         model->getIterationColumn(firstIterationOf))},
                     {}}},
        /*definitional=*/false));
  if (emptyLoop) {
    bool isSigned = !emptyLoop.getUnsignedCmp();
    Term lower = isSigned ? model->getSigned(emptyLoop.getLowerBound())
                          : model->getUnsigned(emptyLoop.getLowerBound());
    Term upper = isSigned ? model->getSigned(emptyLoop.getUpperBound())
                          : model->getUnsigned(emptyLoop.getUpperBound());
    if (!lower.isAffine() || !upper.isAffine()) {
      CollisionResult unknown;
      unknown.reason = "a loop whose bounds the analysis cannot follow";
      return unknown;
    }
    LinearForm empty = lower.linear;
    empty.add(upper.linear, Int(-1));
    constraints.push_back(model->addConstraint({Conjunction{{}, {empty}}},
                                               /*definitional=*/false));
  }
  AccessSystem system = queries->getBlockSystem(block, constraints);
  AccessSystem nothing;
  nothing.op = system.op;
  return queries->query(system, nothing, PairRelation::sameInstance(),
                        /*symmetric=*/false);
}

std::pair<llvm::SmallBitVector, bool>
SpawnAnalysis::getDependences(const Access &access) {
  Sources total;
  total.gridDims.resize(spawn.getRank());
  auto addValue = [&](Value value) { total.merge(model->getSources(value)); };
  for (Value index : access.indices)
    addValue(index);
  for (const Access::Candidate &candidate : access.candidates) {
    for (Operation *view : candidate.views)
      for (Value operand : view->getOperands())
        if (!isa<BaseMemRefType>(operand.getType()))
          addValue(operand);
    for (auto [condition, truth] : candidate.conditions)
      addValue(condition);
    if (candidate.root.kind == MemoryRoot::Kind::Unknown)
      total.varies = true;
  }
  if (access.unmodelled)
    total.varies = true;
  // The control around the access.
  for (Operation *parent = access.op->getParentOp(); parent && parent != spawn;
       parent = parent->getParentOp()) {
    if (isa<scf::WhileOp>(parent))
      total.varies = true;
    if (isModelledLoop(parent) ||
        isa<scf::IfOp, scf::IndexSwitchOp, affine::AffineIfOp>(parent)) {
      for (Value operand : parent->getOperands())
        if (isa<IndexType, IntegerType>(operand.getType()))
          addValue(operand);
      continue;
    }
    if (!isa<scf::ExecuteRegionOp, memref::AllocaScopeOp>(parent))
      total.varies = true;
  }
  return {total.gridDims, total.varies};
}

//===----------------------------------------------------------------------===//
// SpawnAnalyses
//===----------------------------------------------------------------------===//

SpawnAnalysis &SpawnAnalyses::get(SpawnOp spawn) {
  std::unique_ptr<SpawnAnalysis> &analysis = analyses[spawn];
  if (!analysis) {
    LLVM_DEBUG(llvm::dbgs() << "[vx-analysis] analyzing the spawn at "
                            << formatLocation(spawn.getLoc()) << "\n");
    analysis = std::make_unique<SpawnAnalysis>(spawn);
  }
  return *analysis;
}

SpawnAnalyses &SpawnAnalyses::getFor(SpawnOp spawn, Operation *root,
                                     AnalysisManager manager) {
  auto function = spawn->getParentOfType<FunctionOpInterface>();
  if (function && root->isProperAncestor(function))
    return manager.getChildAnalysis<SpawnAnalyses>(function);
  return manager.getAnalysis<SpawnAnalyses>();
}

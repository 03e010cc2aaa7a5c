//===- OwnedScratch.cpp - Each thread keeps its part of private scratch ---===//
//
// Private scratch used in thread loops is owned (vx-verify-semantics proves
// it): every element is touched by one iteration of the thread loops, which
// runs on one thread. Each thread then keeps only the elements of its own
// iterations. An index along a dimension is split into a part that depends
// on the thread loop's induction variables, a multiple of c, and a part in
// [q c, q c + c) that does not need to (inner loop counters, vector lanes):
//
//   acc[8 ty + i][8 tx + j], i, j in [0, 8)  ->  part[i][j]  (c = 8, 8)
//
// The first part picks the block of c elements that the iteration owns, so
// a thread's elements of one iteration are told apart by the second part,
// and its iterations by their round (iteration / N), where each element is
// reached by one linear iteration (owned for every thread count; an
// element owned by iterations i and i + k N would have two slots). The
// thread's part is a
// `round x c_0 x ... ` buffer (no round dimension with one round); a
// dimension that no access splits stays whole. A cyclic dimension,
// `s g + t` with t in [0, s) the same function of the thread loop's
// induction variables in every access, keeps one element per multiple of
// s, indexed by g:
//
//   acc[64 i + t], i in [0, 4)  ->  part[i]
// Small loops whose counters
// index the part are unrolled, so that the part is accessed at constant
// indices and LLVM keeps it in registers. A buffer that cannot be split
// keeps a whole copy per thread (correct, slower), with a remark saying why.
//
//===----------------------------------------------------------------------===//

#include "CTAMapping.h"
#include "Vx/Analysis/SpawnAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::vx;

/// Unrolling limits for the loops that index a thread's part: iterations,
/// and ops of the unrolled loop. A loop left rolled puts the part in local
/// memory (a load or store per access), so the budget is generous: a chunk
/// of 16 keys of attention, 16 dot products and 16 updates of a 64-element
/// row (about 12000 ops), unrolls as the expert's CUDA does.
static constexpr int64_t kMaxUnrolledIterations = 64;
static constexpr int64_t kMaxUnrolledOps = 16384;

namespace {
/// An index as a constant plus a sum of multiples of values.
struct IndexSum {
  SmallVector<std::pair<Value, int64_t>> terms;
  int64_t constant = 0;

  /// Adds `factor` times `other`; false on overflow.
  bool add(const IndexSum &other, int64_t factor) {
    int64_t scaled;
    if (llvm::MulOverflow(other.constant, factor, scaled) ||
        llvm::AddOverflow(constant, scaled, constant))
      return false;
    for (auto [value, coefficient] : other.terms) {
      if (llvm::MulOverflow(coefficient, factor, scaled))
        return false;
      auto *it = llvm::find_if(
          terms, [&, v = value](auto &term) { return term.first == v; });
      if (it == terms.end())
        terms.push_back({value, scaled});
      else if (llvm::AddOverflow(it->second, scaled, it->second))
        return false;
    }
    llvm::erase_if(terms, [](auto &term) { return term.second == 0; });
    return true;
  }

  /// This sum as an index value at the builder.
  Value build(OpBuilder &builder, Location loc) const {
    Value sum;
    auto add = [&](Value term) {
      sum = sum ? arith::AddIOp::create(builder, loc, sum, term).getResult()
                : term;
    };
    for (auto [value, coefficient] : terms)
      add(coefficient == 1
              ? value
              : arith::MulIOp::create(
                    builder, loc, value,
                    arith::ConstantIndexOp::create(builder, loc, coefficient))
                    .getResult());
    if (constant != 0 || !sum)
      add(arith::ConstantIndexOp::create(builder, loc, constant));
    return sum;
  }

  /// This sum over its values as an affine map of symbols, for bounds.
  ValueBoundsConstraintSet::Variable toVariable(MLIRContext *context) const {
    AffineExpr expr = getAffineConstantExpr(constant, context);
    SmallVector<Value> operands;
    for (auto [position, term] : llvm::enumerate(terms)) {
      expr = expr + getAffineSymbolExpr(position, context) * term.second;
      operands.push_back(term.first);
    }
    return ValueBoundsConstraintSet::Variable(
        AffineMap::get(0, terms.size(), expr), operands);
  }
};
} // namespace

/// `value` as a sum through addi, subi and multiplications by constants;
/// any other value is a term of its own.
static IndexSum expand(Value value) {
  IndexSum sum;
  if (std::optional<int64_t> constant = getConstantIntValue(value)) {
    sum.constant = *constant;
    return sum;
  }
  Operation *def = value.getDefiningOp();
  bool ok = false;
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def)) {
    IndexSum lhs = expand(def->getOperand(0));
    ok = lhs.add(expand(def->getOperand(1)), isa<arith::AddIOp>(def) ? 1 : -1);
    sum = std::move(lhs);
  } else if (isa_and_nonnull<arith::MulIOp>(def)) {
    for (unsigned side : {0u, 1u})
      if (std::optional<int64_t> factor =
              getConstantIntValue(def->getOperand(1 - side))) {
        ok = sum.add(expand(def->getOperand(side)), *factor);
        break;
      }
  }
  if (!ok) {
    sum = IndexSum();
    sum.terms.push_back({value, 1});
  }
  return sum;
}

/// The memref, indices and vector shape of a load or store of `buffer`.
struct ScratchAccess {
  Operation *op;
  OperandRange indices;
  ArrayRef<int64_t> vectorShape;
};

static std::optional<ScratchAccess> getScratchAccess(Operation *op,
                                                     Value buffer) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return ScratchAccess{op, load.getIndices(), {}};
  if (auto store = dyn_cast<memref::StoreOp>(op);
      store && store.getMemRef() == buffer)
    return ScratchAccess{op, store.getIndices(), {}};
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return ScratchAccess{op, load.getIndices(),
                         load.getVectorType().getShape()};
  if (auto store = dyn_cast<vector::StoreOp>(op);
      store && store.getBase() == buffer)
    return ScratchAccess{op, store.getIndices(),
                         store.getVectorType().getShape()};
  return std::nullopt;
}

struct OwnedScratchSplit::Plan {
  ScratchOp scratch;
  MemRefType partType;
  bool hasRounds = false;
  struct Rewrite {
    Operation *op;
    scf::ParallelOp threadLoop;
    /// The index into the part along each dimension: a sum, or (for a
    /// dimension kept whole) the access's own index.
    SmallVector<std::optional<IndexSum>> indices;
  };
  SmallVector<Rewrite> rewrites;
};

namespace {
/// An index of a scratch access: the terms of its thread loop's induction
/// variables, and the rest.
struct IndexSplit {
  IndexSum threadPart, rest;
};
/// An access of a scratch buffer with its indices split.
struct SplitAccess {
  ScratchAccess access;
  SmallVector<IndexSplit> indices;
};
using Rewrites = MutableArrayRef<OwnedScratchSplit::Plan::Rewrite>;
} // namespace

/// The accesses of `scratch`, each in a thread loop of static bounds, with
/// their indices split, and in `rounds` the most iterations a thread runs
/// of one of those loops; or why they cannot be split.
static FailureOr<SmallVector<SplitAccess>>
splitAccesses(ScratchOp scratch, SpawnOp spawn, int64_t numThreads,
              int64_t &rounds, std::string &why) {
  SmallVector<SplitAccess> accesses;
  rounds = 1;
  for (Operation *user : scratch->getUsers()) {
    std::optional<ScratchAccess> access = getScratchAccess(user, scratch);
    if (!access) {
      why = ("'" + user->getName().getStringRef() +
             "' uses it (only loads and stores are split)")
                .str();
      return failure();
    }
    scf::ParallelOp loop = SpawnAnalysis::getThreadLoop(user, spawn);
    if (!loop) {
      why = "code outside thread loops accesses it";
      return failure();
    }
    std::optional<int64_t> iterations = getStaticIterationCount(loop);
    if (!iterations) {
      why = "a thread loop with dynamic bounds accesses it";
      return failure();
    }
    rounds =
        std::max<int64_t>(rounds, llvm::divideCeil(*iterations, numThreads));
    SmallVector<IndexSplit> splits;
    for (Value index : access->indices) {
      IndexSum sum = expand(index);
      IndexSplit split;
      for (auto [value, coefficient] : sum.terms) {
        bool isThreadIv = llvm::is_contained(loop.getInductionVars(), value);
        (isThreadIv ? split.threadPart : split.rest)
            .terms.push_back({value, coefficient});
      }
      split.rest.constant = sum.constant;
      splits.push_back(std::move(split));
    }
    accesses.push_back({*access, std::move(splits)});
  }
  return accesses;
}

/// The lanes of `access` along dimension `dim` of a buffer of rank `rank`.
static int64_t getLanes(const ScratchAccess &access, int64_t dim,
                        int64_t rank) {
  int64_t vectorDim =
      dim - (rank - static_cast<int64_t>(access.vectorShape.size()));
  return vectorDim >= 0 ? access.vectorShape[vectorDim] : 1;
}

/// Blocked: every access's index along `dim` is `c * f(thread ivs) + rest`
/// (c = `blockSize`) with all the rests in one block [q c, q c + c): the
/// part keeps c elements, indexed by rest - q c (set in `rewrites`).
/// Returns the part's extent, or nothing with `why`.
static std::optional<int64_t> splitBlocked(ArrayRef<SplitAccess> accesses,
                                           int64_t dim, int64_t rank,
                                           int64_t blockSize, Rewrites rewrites,
                                           std::string &why) {
  std::optional<int64_t> block;
  SmallVector<IndexSum> locals;
  for (const SplitAccess &split : accesses) {
    const IndexSum &rest = split.indices[dim].rest;
    MLIRContext *context = split.access.op->getContext();
    FailureOr<int64_t> low = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::LB, rest.toVariable(context));
    FailureOr<int64_t> high = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, rest.toVariable(context),
        /*stopCondition=*/nullptr, /*closedUB=*/true);
    int64_t first =
        succeeded(low) ? llvm::divideFloorSigned(*low, blockSize) : 0;
    if (failed(low) || failed(high) ||
        llvm::divideFloorSigned(*high + getLanes(split.access, dim, rank) - 1,
                                blockSize) != first ||
        (block && *block != first)) {
      why = ("index " + Twine(dim) + " of '" +
             split.access.op->getName().getStringRef() +
             "' is neither c times a value of the thread loop's "
             "induction variables plus an offset in [0, c) that "
             "every access shares (c = " +
             Twine(blockSize) +
             "), nor a multiple of s plus one such value in [0, s)")
                .str();
      return std::nullopt;
    }
    block = first;
    IndexSum local = rest;
    local.constant -= first * blockSize;
    locals.push_back(std::move(local));
  }
  for (auto [rewrite, local] : llvm::zip_equal(rewrites, locals))
    rewrite.indices[dim] = std::move(local);
  return blockSize;
}

/// Cyclic: every access's index along `dim` is `s * g + t`, with t one
/// expression of the thread ivs for all accesses, in [0, s), and g not
/// depending on them: the part keeps one element per multiple of s,
/// indexed by g (set in `rewrites`; scalar accesses along the dimension).
/// Returns the part's extent of a buffer of `type`, or nothing.
static std::optional<int64_t> splitCyclic(ArrayRef<SplitAccess> accesses,
                                          int64_t dim, MemRefType type,
                                          SpawnOp spawn, Rewrites rewrites) {
  // The thread part as (induction variable position, coefficient) pairs,
  // the same in every access (each in its own thread loop), and its range
  // from the loop's static bounds.
  using Normalized = SmallVector<std::pair<unsigned, int64_t>>;
  std::optional<Normalized> common;
  int64_t stride = 0, low = 0, high = 0;
  for (const SplitAccess &split : accesses) {
    if (getLanes(split.access, dim, type.getRank()) != 1)
      return std::nullopt;
    scf::ParallelOp loop = SpawnAnalysis::getThreadLoop(split.access.op, spawn);
    Normalized normalized;
    int64_t accessLow = 0, accessHigh = 0;
    for (auto [value, coefficient] : split.indices[dim].threadPart.terms) {
      unsigned ivDim = cast<BlockArgument>(value).getArgNumber();
      std::optional<int64_t> lb =
          getConstantIntValue(loop.getLowerBound()[ivDim]);
      std::optional<int64_t> ub =
          getConstantIntValue(loop.getUpperBound()[ivDim]);
      std::optional<int64_t> step = getConstantIntValue(loop.getStep()[ivDim]);
      if (!lb || !ub || !step || *ub <= *lb)
        return std::nullopt;
      int64_t last = *lb + (llvm::divideCeil(*ub - *lb, *step) - 1) * *step;
      accessLow += coefficient * (coefficient > 0 ? *lb : last);
      accessHigh += coefficient * (coefficient > 0 ? last : *lb);
      normalized.push_back({ivDim, coefficient});
    }
    llvm::sort(normalized);
    if (common &&
        (*common != normalized || low != accessLow || high != accessHigh))
      return std::nullopt;
    common = std::move(normalized);
    low = accessLow;
    high = accessHigh;
    const IndexSum &rest = split.indices[dim].rest;
    stride = std::gcd(stride, std::abs(rest.constant));
    for (auto [value, coefficient] : rest.terms)
      stride = std::gcd(stride, std::abs(coefficient));
  }
  if (stride <= 1 || low < 0 || high >= stride)
    return std::nullopt;
  for (auto [rewrite, split] : llvm::zip_equal(rewrites, accesses)) {
    IndexSum local;
    local.constant = split.indices[dim].rest.constant / stride;
    for (auto [value, coefficient] : split.indices[dim].rest.terms)
      local.terms.push_back({value, coefficient / stride});
    rewrite.indices[dim] = std::move(local);
  }
  return llvm::divideCeil(type.getDimSize(dim), stride);
}

/// The shape of the part of a buffer of `type` that a thread keeps, after
/// `accesses`, with the rewrites of the accesses' indices; or why it cannot
/// be split.
static FailureOr<SmallVector<int64_t>>
getPartShape(ArrayRef<SplitAccess> accesses, MemRefType type, SpawnOp spawn,
             Rewrites rewrites, std::string &why) {
  SmallVector<int64_t> shape;
  bool anySplit = false;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    int64_t blockSize = 0;
    for (const SplitAccess &split : accesses)
      for (auto [value, coefficient] : split.indices[dim].threadPart.terms)
        blockSize = std::gcd(blockSize, std::abs(coefficient));
    if (blockSize == 0) {
      // No access moves along this dimension with the iteration: whole.
      shape.push_back(type.getDimSize(dim));
      continue;
    }
    anySplit = true;
    std::string blockedWhy;
    std::optional<int64_t> extent = splitBlocked(
        accesses, dim, type.getRank(), blockSize, rewrites, blockedWhy);
    if (!extent)
      extent = splitCyclic(accesses, dim, type, spawn, rewrites);
    if (!extent) {
      why = blockedWhy;
      return failure();
    }
    shape.push_back(*extent);
  }
  if (!anySplit) {
    why = "no index of it depends on a thread loop's induction variables";
    return failure();
  }
  return shape;
}

/// How `scratch` splits, or why it cannot.
static FailureOr<OwnedScratchSplit::Plan>
planSplit(ScratchOp scratch, SpawnOp spawn, SpawnAnalysis &analysis,
          int64_t numThreads, std::string &why) {
  MemRefType type = scratch.getType();
  OwnedScratchSplit::Plan plan;
  plan.scratch = scratch;
  int64_t rounds = 1;
  FailureOr<SmallVector<SplitAccess>> accesses =
      splitAccesses(scratch, spawn, numThreads, rounds, why);
  if (failed(accesses))
    return failure();
  plan.hasRounds = rounds > 1;
  for (const SplitAccess &split : *accesses)
    plan.rewrites.push_back(
        {split.access.op, SpawnAnalysis::getThreadLoop(split.access.op, spawn),
         SmallVector<std::optional<IndexSum>>(type.getRank())});
  FailureOr<SmallVector<int64_t>> partShape =
      getPartShape(*accesses, type, spawn, plan.rewrites, why);
  if (failed(partShape))
    return failure();
  SmallVector<int64_t> shape;
  if (plan.hasRounds)
    shape.push_back(rounds);
  llvm::append_range(shape, *partShape);

  // The threads own the buffer (checked before). With rounds, the slot of
  // an element is also indexed by the round of its iterations, which is
  // one round only when one linear iteration touches the element: owned
  // for every thread count. Owned for some counts, an element's
  // iterations i and i + k N share a thread but not a round.
  if (plan.hasRounds && analysis.checkOwnership(scratch, std::nullopt).kind !=
                            OwnershipResult::OwnedForAnyThreadCount) {
    why = "a thread may reach one element in different rounds of the "
          "thread loops (it is owned for some thread counts only)";
    return failure();
  }
  plan.partType = MemRefType::get(shape, type.getElementType());
  return plan;
}

/// The private scratch of `spawn` used in its thread loops.
static SmallVector<ScratchOp> getThreadLoopScratch(SpawnOp spawn) {
  SmallVector<ScratchOp> buffers;
  for (ScratchOp scratch : spawn.getBody().front().getOps<ScratchOp>())
    if (scratch.getPlacement() == Memory::private_ &&
        llvm::any_of(scratch->getUsers(), [&](Operation *op) {
          return SpawnAnalysis::getThreadLoop(op, spawn);
        }))
      buffers.push_back(scratch);
  return buffers;
}

LogicalResult vx::checkOwnedScratch(SpawnOp spawn, SpawnAnalysis &analysis,
                                    int64_t numThreads) {
  bool owned = true;
  for (ScratchOp scratch : getThreadLoopScratch(spawn)) {
    // As vx-verify-semantics: each scratch's proof gets the whole sample
    // budget (a fragment group's tiles have many accesses each).
    analysis.resetSamples();
    OwnershipResult ownership = analysis.checkOwnership(scratch, numThreads);
    if (ownership.kind == OwnershipResult::OwnedForAnyThreadCount ||
        ownership.kind == OwnershipResult::OwnedForSomeThreadCounts)
      continue;
    owned = false;
    InFlightDiagnostic diag = scratch.emitError()
                              << "private scratch used in thread loops is "
                                 "not proven owned by the "
                              << numThreads << " threads of the CTA";
    if (ownership.kind == OwnershipResult::Unknown)
      diag << ": " << ownership.reason;
    diag.attachNote() << "vx-verify-semantics with threads-per-block="
                      << numThreads << " names the element and the iterations";
  }
  return success(owned);
}

OwnedScratchSplit::OwnedScratchSplit(SpawnOp spawn, SpawnAnalysis &analysis,
                                     int64_t numThreads) {
  if (numThreads == 1)
    return; // One thread keeps everything anyway.
  for (ScratchOp scratch : getThreadLoopScratch(spawn)) {
    std::string why;
    FailureOr<Plan> plan = planSplit(scratch, spawn, analysis, numThreads, why);
    if (succeeded(plan)) {
      plans.push_back(std::move(*plan));
      continue;
    }
    scratch.emitRemark("private scratch keeps a whole copy per thread of the ")
        << numThreads << "-thread CTA: " << why;
  }
}

OwnedScratchSplit::~OwnedScratchSplit() = default;

/// The scf.for loops whose induction variables `value` is computed from.
static void collectIndexLoops(Value value, SetVector<scf::ForOp> &loops,
                              SmallPtrSetImpl<Value> &visited) {
  if (!visited.insert(value).second)
    return;
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    if (auto loop = dyn_cast<scf::ForOp>(argument.getOwner()->getParentOp());
        loop && loop.getInductionVar() == argument)
      loops.insert(loop);
    return;
  }
  Operation *def = value.getDefiningOp();
  if (!def || !isPure(def))
    return;
  for (Value operand : def->getOperands())
    collectIndexLoops(operand, loops, visited);
}

/// The ops `loop` would have fully unrolled.
static int64_t getUnrolledSize(scf::ForOp loop, int64_t trips) {
  int64_t ops = 0;
  loop.getBody()->walk([&](Operation *) { ++ops; });
  return ops * trips;
}

/// Why the owned-scratch unrolling leaves `loop` rolled, or nothing.
static std::optional<std::string> getRolledReason(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips)
    return std::string("its trip count is not a constant");
  if (trips->getSExtValue() > kMaxUnrolledIterations)
    return (Twine(trips->getSExtValue()) + " iterations, more than " +
            Twine(kMaxUnrolledIterations))
        .str();
  int64_t ops = getUnrolledSize(loop, trips->getSExtValue());
  if (ops > kMaxUnrolledOps)
    return (Twine(ops) + " operations unrolled, more than " +
            Twine(kMaxUnrolledOps))
        .str();
  return std::nullopt;
}

void OwnedScratchSplit::apply(RewriterBase &rewriter,
                              const DenseMap<Operation *, Value> &rounds) {
  SetVector<scf::ForOp> indexLoops;
  SmallPtrSet<Value, 32> visited;
  for (Plan &plan : plans) {
    rewriter.setInsertionPoint(plan.scratch);
    Value part = ScratchOp::create(
        rewriter, plan.scratch.getLoc(), plan.partType,
        MemoryAttr::get(rewriter.getContext(), Memory::private_));
    for (Plan::Rewrite &rewrite : plan.rewrites) {
      Operation *op = rewrite.op;
      Location loc = op->getLoc();
      rewriter.setInsertionPoint(op);
      std::optional<ScratchAccess> access =
          getScratchAccess(op, plan.scratch.getResult());
      SmallVector<Value> indices;
      if (plan.hasRounds)
        indices.push_back(rounds.lookup(rewrite.threadLoop));
      for (auto [index, local] :
           llvm::zip_equal(access->indices, rewrite.indices))
        indices.push_back(local ? local->build(rewriter, loc) : index);
      for (Value index : indices)
        collectIndexLoops(index, indexLoops, visited);
      if (auto load = dyn_cast<memref::LoadOp>(op))
        rewriter.replaceOpWithNewOp<memref::LoadOp>(load, part, indices);
      else if (auto store = dyn_cast<memref::StoreOp>(op))
        rewriter.replaceOpWithNewOp<memref::StoreOp>(store, store.getValue(),
                                                     part, indices);
      else if (auto load = dyn_cast<vector::LoadOp>(op))
        rewriter.replaceOpWithNewOp<vector::LoadOp>(load, load.getVectorType(),
                                                    part, indices);
      else if (auto store = cast<vector::StoreOp>(op))
        rewriter.replaceOpWithNewOp<vector::StoreOp>(
            store, store.getValueToStore(), part, indices);
    }
    rewriter.eraseOp(plan.scratch);
  }

  // Innermost first, so that an outer loop's size counts the unrolled
  // inner ones.
  SmallVector<scf::ForOp> loops = indexLoops.takeVector();
  auto depth = [](Operation *op) {
    unsigned depth = 0;
    for (; op; op = op->getParentOp())
      ++depth;
    return depth;
  };
  llvm::sort(loops,
             [&](scf::ForOp a, scf::ForOp b) { return depth(a) > depth(b); });
  for (scf::ForOp loop : loops)
    if (!getRolledReason(loop))
      (void)loopUnrollFull(loop);
}

/// Why `index`, a non-constant index of private scratch, is not a
/// constant, and the op (a loop, or the op computing it) to point at.
static std::pair<std::string, Operation *> describeDynamicIndex(Value index) {
  Value term = expand(index).terms.front().first;
  auto argument = dyn_cast<BlockArgument>(term);
  if (!argument) {
    Operation *def = term.getDefiningOp();
    return {("it is computed by '" + def->getName().getStringRef() + "'").str(),
            def};
  }
  Operation *owner = argument.getOwner()->getParentOp();
  std::string why = ("it is the counter of an '" +
                     owner->getName().getStringRef() + "' that stays a loop")
                        .str();
  if (auto loop = dyn_cast<scf::ForOp>(owner)) {
    if (std::optional<std::string> rolled = getRolledReason(loop))
      why += " (" + *rolled + ")";
  } else if (isa<scf::ParallelOp>(owner)) {
    why += " (a parallel loop inside a thread loop, which is not unrolled)";
  }
  return {why, owner};
}

void vx::remarkScratchInLocalMemory(SpawnOp spawn) {
  for (ScratchOp scratch : spawn.getBody().front().getOps<ScratchOp>()) {
    if (scratch.getPlacement() != Memory::private_)
      continue;
    for (Operation *user : scratch->getUsers()) {
      std::optional<ScratchAccess> access = getScratchAccess(user, scratch);
      if (!access)
        continue;
      auto dynamic = llvm::find_if(access->indices, [](Value index) {
        return !expand(index).terms.empty();
      });
      if (dynamic == access->indices.end())
        continue;
      auto [why, origin] = describeDynamicIndex(*dynamic);
      InFlightDiagnostic remark =
          scratch.emitRemark("private scratch stays in local memory: index ")
          << (dynamic - access->indices.begin()) << " of '" << user->getName()
          << "' is not a constant, " << why
          << " (registers hold only what constant indices reach)";
      remark.attachNote(user->getLoc()) << "the access";
      remark.attachNote(origin->getLoc()) << "the index comes from here";
      break;
    }
  }
}

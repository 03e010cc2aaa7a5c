//===- PadSharedTiles.cpp - Bank-conflict-free rows of smem tiles ---------===//
//
// vx-pad-shared-tiles: the thread loops of a planned cooperative body are
// evaluated as the CTA mapping will run them (iteration i on thread i mod
// N, a warp 32 consecutive threads), and each access of an smem scratch
// tile in them is priced in wavefronts per warp with the model of
// bench/bank_conflicts.py: 32 banks of 4 bytes, an access served in phases
// of 32, 16 or 8 lanes (4-, 8-, 16-byte accesses), a phase taking as many
// wavefronts as the most distinct words one bank holds. A tile read down
// its columns (a transpose through shared memory) puts the lanes of a warp
// one row apart: with rows of 32 floats, 32 lanes in one bank. The pass
// pads such a tile's rows by the fewest elements that minimize the worst
// access (one float: 33-float rows, as an expert writes), through the
// padded view that the ldmatrix layout uses, and says so in a remark.
//
//===----------------------------------------------------------------------===//

#include "CTAMapping.h"
#include "LaunchPlan.h"
#include "Vx/Conversion/VxToGPU/VxToGPU.h"
#include "Vx/Conversion/VxTransferToNVGPU/SharedLayout.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXPADSHAREDTILES
#include "Vx/Conversion/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

namespace {
constexpr int64_t kWarpLanes = 32;
constexpr int64_t kBanks = 32, kBankBytes = 4;
/// Rows are padded by at most one line of the banks.
constexpr int64_t kMaxPaddingBytes = kBanks * kBankBytes;
/// The widest access the vectorizer forms, and the warps evaluated per
/// thread loop (the first ones; every warp of a thread loop with static
/// bounds runs the same index arithmetic).
constexpr int64_t kVectorBytes = 16;
constexpr int64_t kMaxWarps = 64;
/// vx-unroll-thread-loops' default budget: a loop within it is unrolled,
/// so vx-vectorize-shared-accesses sees its counter as constants.
constexpr int64_t kUnrollBudget = 8192;

/// The value of an index on one lane: exact, or exact up to a shift that
/// is the same on every lane (a value from outside the thread loop), which
/// leaves the bank conflicts unchanged. `varying`: it depends on the lane.
struct LaneValue {
  int64_t value = 0;
  bool shifted = false;
  bool varying = false;
};

/// Evaluates index values on one lane of a thread loop: its induction
/// variables and the counters of the loops inside it are bound.
class LaneEvaluator {
public:
  LaneEvaluator(Region &threadLoop, const DenseMap<Value, int64_t> &bound)
      : threadLoop(threadLoop), bound(bound) {}

  std::optional<LaneValue> evaluate(Value value) {
    if (auto it = cache.find(value); it != cache.end())
      return it->second;
    std::optional<LaneValue> result = compute(value);
    cache[value] = result;
    return result;
  }

private:
  std::optional<LaneValue> compute(Value value) {
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return LaneValue{constant.getSExtValue(), false, false};
    if (auto it = bound.find(value); it != bound.end())
      return LaneValue{it->second, false, true};
    Operation *def = value.getDefiningOp();
    if (!threadLoop.isAncestor(value.getParentRegion()))
      return LaneValue{0, true, false};
    if (!def)
      return std::nullopt; // A counter of a loop with dynamic bounds.
    SmallVector<LaneValue> operands;
    for (Value operand : def->getOperands()) {
      std::optional<LaneValue> lane = evaluate(operand);
      if (!lane)
        return std::nullopt;
      operands.push_back(*lane);
    }
    bool varying =
        llvm::any_of(operands, [](LaneValue v) { return v.varying; });
    bool shifted =
        llvm::any_of(operands, [](LaneValue v) { return v.shifted; });
    auto binary = [&](auto fn) -> std::optional<LaneValue> {
      return LaneValue{fn(operands[0].value, operands[1].value), shifted,
                       varying};
    };
    // Sums keep a common shift, and so do products by constants.
    if (isa<arith::AddIOp>(def))
      return binary([](int64_t a, int64_t b) { return a + b; });
    if (isa<arith::SubIOp>(def))
      return binary([](int64_t a, int64_t b) { return a - b; });
    if (isa<arith::MulIOp>(def)) {
      auto isConstant = [](LaneValue v) { return !v.shifted && !v.varying; };
      if (!shifted || isConstant(operands[0]) || isConstant(operands[1]))
        return binary([](int64_t a, int64_t b) { return a * b; });
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp>(def))
      return operands[0];
    // Anything else is exact on exact operands, and the same on every lane
    // when no operand varies.
    if (!shifted) {
      if (std::optional<int64_t> folded = fold(def, operands))
        return LaneValue{*folded, false, varying};
    }
    if (!varying && def->getNumResults() == 1)
      return LaneValue{0, true, false};
    return std::nullopt;
  }

  static std::optional<int64_t> fold(Operation *def,
                                     ArrayRef<LaneValue> operands) {
    auto at = [&](unsigned i) { return operands[i].value; };
    if (isa<arith::DivUIOp, arith::DivSIOp>(def) && at(1) > 0 && at(0) >= 0)
      return at(0) / at(1);
    if (isa<arith::RemUIOp, arith::RemSIOp>(def) && at(1) > 0 && at(0) >= 0)
      return at(0) % at(1);
    if (isa<arith::ShLIOp>(def) && at(1) >= 0 && at(1) < 63)
      return at(0) << at(1);
    if (isa<arith::ShRUIOp, arith::ShRSIOp>(def) && at(1) >= 0 && at(1) < 63)
      return at(0) >> at(1);
    if (isa<arith::AndIOp>(def))
      return at(0) & at(1);
    if (isa<arith::OrIOp>(def))
      return at(0) | at(1);
    if (isa<arith::XOrIOp>(def))
      return at(0) ^ at(1);
    if (isa<arith::MinSIOp, arith::MinUIOp>(def))
      return std::min(at(0), at(1));
    if (isa<arith::MaxSIOp, arith::MaxUIOp>(def))
      return std::max(at(0), at(1));
    auto apply = dyn_cast<affine::AffineApplyOp>(def);
    if (apply && apply.getAffineMap().getNumSymbols() == 0) {
      SmallVector<int64_t> values;
      for (const LaneValue &operand : operands)
        values.push_back(operand.value);
      SmallVector<int64_t> results = apply.getAffineMap().compose(values);
      if (results.size() == 1)
        return results.front();
    }
    return std::nullopt;
  }

  Region &threadLoop;
  const DenseMap<Value, int64_t> &bound;
  DenseMap<Value, std::optional<LaneValue>> cache;
};

/// Where each lane of each warp evaluated accesses a tile: (row, column),
/// the row linearized over the leading dims; nothing for a lane that does
/// not run.
using LanePlaces =
    SmallVector<SmallVector<std::optional<std::pair<int64_t, int64_t>>>>;

/// An access of a tile in a thread loop, and where its lanes fall.
struct TileAccess {
  Operation *op;
  /// Bytes per lane: the element's, or the vector's that the access is or
  /// will be joined into (vx-vectorize-shared-accesses).
  int64_t bytes;
  /// Whether the vectorizer will join it (it does not see through the
  /// padded view, so a padded tile loses the wide access).
  bool predictedVector;
  LanePlaces warps;
};

/// The conflicts of an access at a row pitch: the most wavefronts one
/// phase takes, and the wavefronts of all warps evaluated.
struct Cost {
  int64_t ways = 1;
  int64_t wavefronts = 0;
};
} // namespace

static Cost getCost(const TileAccess &access, int64_t pitchElements,
                    int64_t elementBytes) {
  Cost cost;
  int64_t words = std::max<int64_t>(1, access.bytes / kBankBytes);
  int64_t lanesPerPhase = kWarpLanes / words;
  for (const auto &warp : access.warps) {
    for (size_t first = 0; first < warp.size(); first += lanesPerPhase) {
      DenseSet<int64_t> phaseWords;
      for (size_t lane = first;
           lane < std::min(warp.size(), first + lanesPerPhase); ++lane) {
        if (!warp[lane])
          continue;
        int64_t byte =
            (warp[lane]->first * pitchElements + warp[lane]->second) *
            elementBytes;
        for (int64_t k = 0; k < words; ++k)
          phaseWords.insert(llvm::divideFloorSigned(byte, kBankBytes) + k);
      }
      if (phaseWords.empty())
        continue;
      DenseMap<int64_t, int64_t> perBank;
      int64_t most = 0;
      for (int64_t word : phaseWords)
        most = std::max(most, ++perBank[llvm::mod(word, kBanks)]);
      cost.ways = std::max(cost.ways, most);
      cost.wavefronts += most;
    }
  }
  return cost;
}

/// The memref that `op` accesses, if it is a load or store (scalar or
/// vector), else null.
static Value getMemRef(Operation *op) {
  return TypeSwitch<Operation *, Value>(op)
      .Case<memref::LoadOp, memref::StoreOp>(
          [](auto access) { return access.getMemRef(); })
      .Case<vector::LoadOp, vector::StoreOp>(
          [](auto access) { return access.getBase(); })
      .Default([](Operation *) { return Value(); });
}

/// The indices of the access `op` (getMemRef is not null).
static ValueRange getIndices(Operation *op) {
  return TypeSwitch<Operation *, ValueRange>(op)
      .Case<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp>(
          [](auto access) { return access.getIndices(); });
}

/// The trip count of a loop dim from `lb` to `ub` by `step`, when they are
/// constants.
static std::optional<int64_t> getTripCount(Value lb, Value ub, Value step) {
  std::optional<int64_t> lower = getConstantIntValue(lb);
  std::optional<int64_t> upper = getConstantIntValue(ub);
  std::optional<int64_t> stride = getConstantIntValue(step);
  if (!lower || !upper || !stride || *stride <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, llvm::divideCeil(*upper - *lower, *stride));
}

/// The loops between `op` and `threadLoop` whose counters are bound to
/// their lower bounds on every lane (the first iteration, which every lane
/// runs at once), innermost first: `scf.for` and nested `scf.parallel`
/// with constant lower bounds.
static void bindInnerCounters(Operation *op, scf::ParallelOp threadLoop,
                              DenseMap<Value, int64_t> &bound) {
  for (Operation *parent = op->getParentOp(); parent != threadLoop;
       parent = parent->getParentOp()) {
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      if (std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()))
        bound[loop.getInductionVar()] = *lb;
    } else if (auto loop = dyn_cast<scf::ParallelOp>(parent)) {
      for (auto [iv, lb] :
           llvm::zip(loop.getInductionVars(), loop.getLowerBound()))
        if (std::optional<int64_t> lower = getConstantIntValue(lb))
          bound[iv] = *lower;
    }
  }
}

/// The innermost loop between `op` and `threadLoop` whose counter only the
/// innermost index of the scalar access `op` uses, with a static trip count
/// and a body that vx-unroll-thread-loops unrolls: the loop along which
/// vx-vectorize-shared-accesses may join consecutive accesses.
static scf::ForOp getVectorLoop(Operation *op, scf::ParallelOp threadLoop) {
  for (Operation *parent = op->getParentOp(); parent != threadLoop;
       parent = parent->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(parent);
    if (!loop)
      continue;
    std::optional<int64_t> trips = getTripCount(
        loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
    if (!trips || getConstantIntValue(loop.getStep()) != 1)
      continue;
    int64_t bodyOps = 0;
    loop.getBody()->walk([&](Operation *) { ++bodyOps; });
    if (*trips * bodyOps > kUnrollBudget)
      continue;
    ValueRange indices = getIndices(op);
    Value iv = loop.getInductionVar();
    auto usesCounter = [&](Value index) {
      SetVector<Value> seen;
      SmallVector<Value> worklist{index};
      while (!worklist.empty()) {
        Value value = worklist.pop_back_val();
        if (value == iv)
          return true;
        if (Operation *def = value.getDefiningOp();
            def && loop->isAncestor(def) && seen.insert(value))
          llvm::append_range(worklist, def->getOperands());
      }
      return false;
    };
    if (llvm::any_of(indices.drop_back(), usesCounter) ||
        !usesCounter(indices.back()))
      continue;
    return loop;
  }
  return {};
}

/// The static trip counts of `loop`'s dims, or nothing.
static std::optional<SmallVector<int64_t>>
getThreadLoopTrips(scf::ParallelOp loop) {
  SmallVector<int64_t> trips;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> trip = getTripCount(lb, ub, step);
    if (!trip)
      return std::nullopt;
    trips.push_back(*trip);
  }
  return trips;
}

/// Where each lane of each evaluated warp of `threadLoop` (iteration i on
/// thread i mod `threads`) accesses `tile` with `op`, with the loop
/// counters of `bound`
/// (the lanes' induction variables are added); nothing where an index is
/// unknown.
static std::optional<LanePlaces> evaluateLanes(Operation *op,
                                               scf::ParallelOp threadLoop,
                                               ArrayRef<int64_t> trips,
                                               int64_t threads, MemRefType tile,
                                               DenseMap<Value, int64_t> bound) {
  int64_t total = 1;
  for (int64_t trip : trips)
    total *= trip;
  int64_t warpsPerRound = llvm::divideCeil(threads, kWarpLanes);
  ValueRange indices = getIndices(op);
  LanePlaces warps;
  for (int64_t round = 0; round * threads < total; ++round) {
    for (int64_t warp = 0; warp < warpsPerRound; ++warp) {
      if (int64_t(warps.size()) == kMaxWarps)
        return warps;
      auto &lanes = warps.emplace_back();
      for (int64_t lane = 0; lane < kWarpLanes; ++lane) {
        int64_t thread = warp * kWarpLanes + lane;
        int64_t iteration = round * threads + thread;
        if (thread >= threads || iteration >= total) {
          lanes.push_back(std::nullopt);
          continue;
        }
        // Row-major delinearization, as the CTA mapping does.
        int64_t rest = iteration;
        for (int64_t dim = trips.size() - 1; dim >= 0; --dim) {
          int64_t lb = *getConstantIntValue(threadLoop.getLowerBound()[dim]);
          int64_t step = *getConstantIntValue(threadLoop.getStep()[dim]);
          bound[threadLoop.getInductionVars()[dim]] =
              lb + (rest % trips[dim]) * step;
          rest /= trips[dim];
        }
        LaneEvaluator evaluator(threadLoop.getRegion(), bound);
        int64_t row = 0, column = 0;
        for (auto [dim, index] : llvm::enumerate(indices)) {
          std::optional<LaneValue> value = evaluator.evaluate(index);
          if (!value)
            return std::nullopt;
          if (dim + 1 == indices.size())
            column = value->value;
          else
            row = row * tile.getDimSize(dim) + value->value;
        }
        lanes.push_back(std::make_pair(row, column));
      }
    }
  }
  return warps;
}

/// The bytes of the vector access that vx-vectorize-shared-accesses will
/// join the scalar access `op` into, along the counter of `loop` (its
/// places `first` at the loop's first iteration): the widest chunk of 16
/// or 8 bytes that the trip count, the row and every lane's first column
/// keep aligned, whose elements the next iterations access. 0: none.
static int64_t getPredictedVectorBytes(Operation *op, scf::ForOp loop,
                                       scf::ParallelOp threadLoop,
                                       ArrayRef<int64_t> trips, int64_t threads,
                                       MemRefType tile,
                                       DenseMap<Value, int64_t> bound,
                                       const LanePlaces &first) {
  int64_t elementBytes = tile.getElementTypeBitWidth() / 8;
  int64_t loopTrips =
      *getTripCount(loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  auto counter = bound.find(loop.getInductionVar());
  if (counter == bound.end())
    return 0;
  counter->second += 1;
  std::optional<LanePlaces> next =
      evaluateLanes(op, threadLoop, trips, threads, tile, bound);
  if (!next)
    return 0;
  for (int64_t bytes : {kVectorBytes, kVectorBytes / 2}) {
    int64_t width = bytes / elementBytes;
    if (width < 2 || bytes % elementBytes || loopTrips % width ||
        tile.getShape().back() % width)
      continue;
    bool aligned = true;
    for (auto [warp, nextWarp] : llvm::zip(first, *next))
      for (auto [place, nextPlace] : llvm::zip(warp, nextWarp))
        aligned &= !place || (place->second % width == 0 &&
                              nextPlace->first == place->first &&
                              nextPlace->second == place->second + 1);
    if (aligned)
      return bytes;
  }
  return 0;
}

/// The accesses of `tile` in the thread loops of `spawn` whose lanes the
/// evaluation knows (`threads` threads per CTA). Accesses outside thread
/// loops have no conflicts (one thread writes, every thread reads one
/// element).
static SmallVector<TileAccess> getTileAccesses(ScratchOp tile, int64_t threads,
                                               SpawnOp spawn) {
  MemRefType type = tile.getType();
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  SmallVector<TileAccess> accesses;
  for (scf::ParallelOp threadLoop : getThreadLoops(spawn)) {
    std::optional<SmallVector<int64_t>> trips = getThreadLoopTrips(threadLoop);
    if (!trips)
      continue;
    threadLoop.walk([&](Operation *op) {
      if (getMemRef(op) != tile.getResult())
        return;
      DenseMap<Value, int64_t> bound;
      bindInnerCounters(op, threadLoop, bound);
      std::optional<LanePlaces> places =
          evaluateLanes(op, threadLoop, *trips, threads, type, bound);
      if (!places)
        return;
      TileAccess access{op, elementBytes, false, std::move(*places)};
      Type accessed = op->getNumResults() ? op->getResult(0).getType()
                                          : op->getOperand(0).getType();
      if (auto vector = dyn_cast<VectorType>(accessed)) {
        access.bytes = vector.getNumElements() * elementBytes;
      } else if (scf::ForOp loop = getVectorLoop(op, threadLoop)) {
        if (int64_t bytes =
                getPredictedVectorBytes(op, loop, threadLoop, *trips, threads,
                                        type, bound, access.warps)) {
          access.bytes = bytes;
          access.predictedVector = true;
        }
      }
      accesses.push_back(std::move(access));
    });
  }
  return accesses;
}

/// Why `tile`, whose accesses conflict, cannot get padded rows, if it
/// cannot: its layout is fixed by a use other than an access or a
/// transfer's destination, by a TMA copy, or by accesses that padding would
/// narrow.
static std::optional<std::string>
getUnpaddableReason(ScratchOp tile, ArrayRef<TileAccess> accesses,
                    const Chip *chip) {
  if (tile.getType().getRank() < 2)
    return std::string("it has no rows to pad: rank 1");
  for (Operation *user : tile->getUsers()) {
    auto transfer = dyn_cast<TransferAsyncOp>(user);
    if (!getMemRef(user) && !(transfer && transfer.getDst() == tile))
      return "it is used by " + describeOp(user);
  }
  if (chip && chip->hasTMA() && hasTMAWriter(tile))
    return "a TMA copy writes it dense on " + chip->getName().str();
  for (const TileAccess &access : accesses)
    if (access.predictedVector)
      return "vx-vectorize-shared-accesses joins its " +
             std::to_string(access.bytes) + "-byte accesses (" +
             describeOp(access.op) + ") in dense rows only";
  return std::nullopt;
}

/// The alignment in bytes that a padding of `tile`'s rows must keep: its
/// vector accesses', and its transfers' chunks (cp.async copies 16 bytes
/// at a time where the rows allow it).
static int64_t getPaddingAlignment(ScratchOp tile,
                                   ArrayRef<TileAccess> accesses) {
  MemRefType type = tile.getType();
  int64_t pitch = type.getShape().back() * type.getElementTypeBitWidth() / 8;
  int64_t alignment = 1;
  for (const TileAccess &access : accesses)
    alignment = std::lcm(alignment, access.bytes);
  if (llvm::any_of(tile->getUsers(), llvm::IsaPred<TransferAsyncOp>))
    alignment = std::lcm(alignment, std::gcd(pitch, kVectorBytes));
  return alignment;
}

/// The worst cost of `accesses` at `pitch` elements a row, the sum of their
/// wavefronts, and the access with the worst.
static std::tuple<int64_t, int64_t, Operation *>
getWorstCost(ArrayRef<TileAccess> accesses, int64_t pitch,
             int64_t elementBytes) {
  int64_t worst = 0, total = 0;
  Operation *worstOp = nullptr;
  for (const TileAccess &access : accesses) {
    Cost cost = getCost(access, pitch, elementBytes);
    total += cost.wavefronts;
    if (cost.ways > worst) {
      worst = cost.ways;
      worstOp = access.op;
    }
  }
  return {worst, total, worstOp};
}

/// Pads the rows of the smem scratch `tile` of `spawn` (a planned
/// cooperative body of `threads` threads) where its thread-loop accesses
/// conflict, with a remark either way.
static void padTile(RewriterBase &rewriter, ScratchOp tile, int64_t threads,
                    SpawnOp spawn, const Chip *chip) {
  MemRefType type = tile.getType();
  Type element = type.getElementType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8)
    return;
  SmallVector<TileAccess> accesses = getTileAccesses(tile, threads, spawn);
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  int64_t row = type.getShape().back();
  auto [ways, wavefronts, worstOp] = getWorstCost(accesses, row, elementBytes);
  if (ways <= 1)
    return;
  int64_t pitch = row * elementBytes;
  std::string conflicts =
      std::to_string(ways) + "-way bank conflicts of " + describeOp(worstOp);
  if (std::optional<std::string> reason =
          getUnpaddableReason(tile, accesses, chip)) {
    tile.emitRemark("dense layout kept: ")
        << conflicts << " (" << *reason << ")";
    return;
  }
  int64_t alignment = getPaddingAlignment(tile, accesses);
  int64_t best = 0, bestWays = ways, bestWavefronts = wavefronts;
  for (int64_t padding = 1; padding * elementBytes <= kMaxPaddingBytes;
       ++padding) {
    if ((padding * elementBytes) % alignment)
      continue;
    auto [paddedWays, paddedWavefronts, op] =
        getWorstCost(accesses, row + padding, elementBytes);
    if (std::make_pair(paddedWays, paddedWavefronts) <
        std::make_pair(bestWays, bestWavefronts)) {
      best = padding;
      bestWays = paddedWays;
      bestWavefronts = paddedWavefronts;
    }
  }
  if (!best) {
    tile.emitRemark("dense layout kept: ")
        << conflicts << " (no padding by a multiple of " << alignment
        << " bytes, which its vector accesses and transfers need, "
           "lowers them)";
    return;
  }
  int64_t rows = type.getNumElements() / row;
  int64_t extraBytes = rows * best * elementBytes;
  int64_t sharedBytes = getSharedMemoryLayout(spawn, 1).totalBytes;
  if (sharedBytes + extraBytes > getSharedMemoryLimit(chip)) {
    tile.emitRemark("dense layout kept: ")
        << conflicts << " (the padding's " << extraBytes
        << " bytes would exceed the " << getSharedMemoryLimit(chip)
        << " bytes of shared memory a CTA has)";
    return;
  }
  ScratchOp padded = padScratchRows(rewriter, tile, best);
  padded.emitRemark("padded from ")
      << pitch << " to " << pitch + best * elementBytes
      << " bytes a row: " << conflicts << " -> " << bestWays;
}

void vx::padSharedTiles(ModuleOp module, const Chip *chip) {
  IRRewriter rewriter(module.getContext());
  for (SpawnOp spawn : getDeviceSpawns(module)) {
    LaunchPlanAttr plan = LaunchPlanAttr::lookup(spawn);
    if (!plan || !plan.getCooperative() || plan.getMapped())
      continue;
    for (ScratchOp tile : llvm::make_early_inc_range(
             spawn.getBody().front().getOps<ScratchOp>()))
      if (tile.getPlacement() == Memory::smem)
        padTile(rewriter, tile, plan.getThreads(), spawn, chip);
  }
}

namespace {
struct VxPadSharedTilesPass
    : public vx::impl::VxPadSharedTilesBase<VxPadSharedTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<std::optional<Chip>> targetChip =
        parseChipOption(getOperation(), getArgument(), chip);
    if (failed(targetChip))
      return signalPassFailure();
    padSharedTiles(getOperation(), getChip(*targetChip));
  }
};
} // namespace

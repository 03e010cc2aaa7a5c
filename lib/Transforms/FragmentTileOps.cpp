//===- FragmentTileOps.cpp - Tile ops in the mma.sync fragment layout -----===//
//
// The tile ops that flash attention applies to a matmul's accumulator (row
// max and row sum, elementwise ops with row broadcasts, the conversion of
// S to the bf16 P that is the A operand of the next matmul) computed where
// the tensor cores leave the values: in the registers of the mma.sync
// fragment layout, as FlashAttention-2 does. The private tiles that these
// ops connect to a fitting matmul form a group; the group's warps split the
// rows only, so that every row lives in one warp (16-row fragments: lane
// l holds rows l / 4 and l / 4 + 8, columns 2 (l % 4) and the next of each
// 8-column fragment). An M x N tile becomes
// `memref<warpsM x 1 x 8 x 4 x V x T>` as the accumulators of
// MmaSyncTileOps.cpp, a row vector of M `memref<warpsM x 1 x 8 x 4 x R>`
// (R = 2 rows per 16-row fragment, replicated over the four lanes of a
// quad). Every op is a thread loop over the lanes touching only its own
// lane's values, so the checker proves the tiles owned as any private
// scratch; a row reduction combines a lane's values in registers, then
// the quad's with two `gpu.shuffle xor` (1, 2). See docs/design.md,
// "Tile ops in the fragment layout". On sm_90a a group may take wgmma
// (WgmmaTileOps.cpp, planWgmmaGroup), whose layout is per warp the same:
// warp n is then the warp of a warpgroup, its fragments 64 rows.
//
//===----------------------------------------------------------------------===//

#include "MmaSyncFragments.h"
#include "Vx/Analysis/SpawnAnalysis.h"
#include "Vx/Target/Limits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::vx;

/// Rows of a 16-row fragment that one lane holds (g and g + 8).
static constexpr int64_t kRowsPerLane = 2;

SmallVector<linalg::MatmulOp> FragmentGroup::getMatmuls() const {
  SmallVector<linalg::MatmulOp> matmuls;
  for (Operation *op : ops)
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
      matmuls.push_back(matmul);
  return matmuls;
}

/// The private scratch that `value` is directly, if any.
static ScratchOp getPrivateScratch(Value value) {
  auto scratch = value.getDefiningOp<ScratchOp>();
  if (scratch && scratch.getPlacement() == Memory::private_)
    return scratch;
  return nullptr;
}

/// Whether the combiner of `reduce` is one commutative, associative arith
/// op of its two arguments, which the quad's shuffles may reorder.
static bool hasReorderableCombiner(linalg::ReduceOp reduce) {
  Block &body = reduce.getCombiner().front();
  if (body.getOperations().size() != 2)
    return false;
  Operation &combiner = body.front();
  if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp, arith::AddFOp, arith::MulFOp>(combiner))
    return false;
  return combiner.getNumOperands() == 2 &&
         llvm::all_of(combiner.getOperands(),
                      [&](Value v) { return v.getParentBlock() == &body; }) &&
         combiner.getOperand(0) != combiner.getOperand(1) &&
         body.getTerminator()->getOperand(0) == combiner.getResult(0);
}

namespace {
/// Builds the checks of one group and collects its ops and tiles.
class GroupPlanner {
public:
  GroupPlanner(SpawnOp spawn, ArrayRef<Operation *> tileOps,
               const TileOpsOptions &options)
      : spawn(spawn), tileOps(tileOps), options(options) {}

  /// The group reached from `seed`'s tiles, or why it cannot take the
  /// fragment layout.
  FailureOr<FragmentGroup> plan(linalg::MatmulOp seed, int64_t ctaSize,
                                std::string &why);

  /// The ops collected so far.
  ArrayRef<Operation *> getOps() const { return ops.getArrayRef(); }

  /// Whether planning stopped with an error (a thread loop of the user's
  /// that the group's layout cannot run) rather than a reason to fall back.
  bool hasEmittedError() const { return emittedError; }

private:
  std::optional<std::string> checkTiles();
  std::optional<std::string> checkOp(Operation *op);
  std::optional<std::string> checkMatmul(linalg::MatmulOp matmul);
  std::optional<std::string> checkElementwise(Operation *op);
  std::optional<std::string> checkReduce(linalg::ReduceOp reduce);
  LogicalResult checkThreadLoop(scf::ParallelOp loop);
  bool isGroupTile(Value value) const {
    return tiles.contains(getPrivateScratch(value));
  }
  bool isRowVector(Value value) const {
    return cast<MemRefType>(value.getType()).getRank() == 1;
  }

  SpawnOp spawn;
  ArrayRef<Operation *> tileOps;
  const TileOpsOptions &options;
  SetVector<ScratchOp> tiles;
  SetVector<Operation *> ops;
  int64_t rows = 0;
  bool emittedError = false;
};
} // namespace

FailureOr<FragmentGroup> GroupPlanner::plan(linalg::MatmulOp seed,
                                            int64_t ctaSize, std::string &why) {
  auto fail = [&](std::string reason) -> FailureOr<FragmentGroup> {
    why = std::move(reason);
    return failure();
  };
  tiles.insert(getMatmulAccumulator(seed));
  // Close over the tile ops of the tiles and the tiles of those ops.
  for (size_t next = 0; next < tiles.size(); ++next) {
    Value tile = ScratchOp(tiles[next]).getResult();
    for (Operation *user : tile.getUsers()) {
      // A thread loop of the user's joins the group with the private tiles
      // it accesses (VX_SPEC 2.3: mapped onto the tiles' layout, or an
      // error), checked once the group takes the layout.
      if (!llvm::is_contained(tileOps, user)) {
        if (scf::ParallelOp loop = SpawnAnalysis::getThreadLoop(user, spawn)) {
          if (ops.insert(loop))
            loop.walk([&](Operation *inner) {
              for (Value operand : inner->getOperands())
                if (ScratchOp scratch = getPrivateScratch(operand))
                  tiles.insert(scratch);
            });
          continue;
        }
        return fail(("the accumulator's group of private tiles is also used "
                     "by '" +
                     user->getName().getStringRef() + "' (not a tile op)")
                        .str());
      }
      ops.insert(user);
      for (Value operand : user->getOperands()) {
        if (ScratchOp scratch = getPrivateScratch(operand)) {
          tiles.insert(scratch);
        } else if (!getPrivateTiles(operand, spawn).empty()) {
          return fail(("'" + user->getName().getStringRef() +
                       "' uses a view of private scratch")
                          .str());
        }
      }
    }
  }
  if (std::optional<std::string> reason = checkTiles())
    return fail(*reason);
  if (ctaSize % kWarpSize != 0)
    return fail(
        ("the CTA has " + Twine(ctaSize) + " threads, not whole warps").str());
  for (Operation *op : tileOps)
    if (ops.contains(op))
      if (std::optional<std::string> reason = checkOp(op))
        return fail(*reason);
  for (Operation *op : ops)
    if (auto loop = dyn_cast<scf::ParallelOp>(op))
      if (failed(checkThreadLoop(loop)))
        return failure();
  // The most warps that divide the 16-row fragments.
  int64_t fragments = rows / kMmaM;
  int64_t warps = std::min(ctaSize / kWarpSize, fragments);
  while (fragments % warps)
    --warps;
  FragmentGroup group{warps, fragments / warps, false, {}, {}};
  group.tiles.assign(tiles.begin(), tiles.end());
  // In program order: the tile ops and the thread loops between them.
  spawn.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!ops.contains(op))
      return WalkResult::advance();
    group.ops.push_back(op);
    return WalkResult::skip();
  });
  return group;
}

std::optional<std::string> GroupPlanner::checkTiles() {
  for (ScratchOp tile : tiles) {
    MemRefType type = tile.getType();
    if (!type.hasStaticShape() || type.getRank() == 0 || type.getRank() > 2)
      return std::string("a private tile of its group is not a static tile "
                         "or row vector");
    if (rows && type.getShape()[0] != rows)
      return std::string("the private tiles of its group differ in rows");
    rows = type.getShape()[0];
    if (type.getRank() == 2 && type.getShape()[1] % kMmaN)
      return ("a private tile of its group has " + Twine(type.getShape()[1]) +
              " columns, not a multiple of " + Twine(kMmaN))
          .str();
  }
  if (rows % kMmaM)
    return ("its group's tiles have " + Twine(rows) +
            " rows, not a multiple of " + Twine(kMmaM))
        .str();
  return std::nullopt;
}

std::optional<std::string> GroupPlanner::checkOp(Operation *op) {
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    if (fill.getInputs()[0].getType() !=
        getElementTypeOrSelf(fill.getOutputs()[0].getType()))
      return std::string("a fill of its group converts its value");
    return std::nullopt;
  }
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
    return checkMatmul(matmul);
  if (auto reduce = dyn_cast<linalg::ReduceOp>(op))
    return checkReduce(reduce);
  return checkElementwise(op);
}

std::optional<std::string> GroupPlanner::checkMatmul(linalg::MatmulOp matmul) {
  auto describe = [](const Twine &why) {
    return ("a matmul of its group " + why).str();
  };
  ScratchOp acc = getMatmulAccumulator(matmul);
  if (!acc || !tiles.contains(acc))
    return describe("writes memory outside it");
  if (!getTensorCoreKind(matmul, options.tf32))
    return describe("has element types without tensor cores");
  if (std::optional<std::string> why =
          getMmaSyncMatmulReason(matmul, spawn, options, true))
    return describe("does not fit: " + *why);
  Value a = matmul.getInputs()[0];
  if (llvm::is_contained(matmul.getInputs(), acc.getResult()))
    return describe("reads its accumulator as an operand");
  if (ScratchOp scratch = getPrivateScratch(a)) {
    AffineMap map = matmul.getMatchingIndexingMap(&matmul->getOpOperand(0));
    if (map != AffineMap::getMultiDimIdentityMap(3, matmul.getContext())
                   .getSubMap({0, 2}))
      return describe("reads a private A transposed");
    if (getElementTypeOrSelf(a.getType()) !=
        getElementTypeOrSelf(matmul.getInputs()[1].getType()))
      return describe("reads a private A of another type than B");
  }
  return std::nullopt;
}

std::optional<std::string> GroupPlanner::checkReduce(linalg::ReduceOp reduce) {
  if (reduce.getInputs().size() != 1 ||
      reduce.getDimensions() != ArrayRef<int64_t>{1})
    return std::string("a reduction of its group is not one row reduction");
  if (!tiles.contains(getPrivateScratch(reduce.getInputs()[0])) ||
      !tiles.contains(getPrivateScratch(reduce.getInits()[0])))
    return std::string("a row reduction of its group reads or writes memory "
                       "outside it");
  if (!hasReorderableCombiner(reduce))
    return std::string("a row reduction of its group combines with other "
                       "than one commutative arith op (the quad's shuffles "
                       "reorder it)");
  return std::nullopt;
}

std::optional<std::string> GroupPlanner::checkElementwise(Operation *op) {
  std::string name = op->getName().getStringRef().str();
  auto describe = [&](const Twine &why) {
    return ("'" + name + "' of its group " + why).str();
  };
  if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    if (cast<MemRefType>(copy.getTarget().getType()).getShape()[0] != rows)
      return describe("has other rows than its tiles");
    if (!tiles.contains(getPrivateScratch(copy.getTarget())) &&
        isRowVector(copy.getTarget()))
      return describe("writes a row vector outside it (the quad holds each "
                      "row four times)");
    return std::nullopt;
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() != 0 ||
      linalgOp.getNumDpsInits() != 1)
    return describe("is not elementwise with one output");
  int64_t loops = linalgOp.getNumLoops();
  if (loops != 1 && loops != 2)
    return describe("is not over rows or a tile");
  MLIRContext *context = op->getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(loops, context);
  AffineMap rowMap = identity.getSubMap({0});
  if (linalgOp.getStaticLoopRanges()[0] != rows)
    return describe("has other rows than its tiles");
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      return describe("has an operand that is not a memref");
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    bool inGroup = tiles.contains(getPrivateScratch(operand.get()));
    if (map != identity && map != rowMap)
      return describe("reads with a map that is neither the identity nor a "
                      "row broadcast");
    if (linalgOp.isDpsInit(&operand) && map != identity)
      return describe("writes a row broadcast");
    if (linalgOp.isDpsInit(&operand) && !inGroup && loops == 1)
      return describe("writes a row vector outside it (the quad holds each "
                      "row four times)");
  }
  return std::nullopt;
}

/// Why the row loop `loop` (over rows only) cannot run on each of the four
/// lanes that hold a row: it writes memory that is not a tile of the group
/// (it would write it four times), or nothing.
static std::optional<ThreadLoopMismatch>
getQuadWriteMismatch(scf::ParallelOp loop, function_ref<bool(Value)> isTile) {
  std::optional<ThreadLoopMismatch> mismatch;
  loop.getBody()->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op);
        store && isTile(store.getMemRef()))
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (effects ? !effects.hasEffect<MemoryEffects::Write>()
                : op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    mismatch = ThreadLoopMismatch{
        op, "it runs over rows only, which the four lanes of a quad each "
            "hold, and may write other memory than the group's tiles"};
    return WalkResult::interrupt();
  });
  return mismatch;
}

LogicalResult GroupPlanner::checkThreadLoop(scf::ParallelOp loop) {
  auto isTile = [&](Value value) { return isGroupTile(value); };
  std::optional<ThreadLoopMismatch> mismatch =
      getElementwiseLoopMismatch(loop, isTile);
  if (!mismatch && loop.getNumLoops() == 2) {
    int64_t columns = *getConstantIntValue(loop.getUpperBound()[1]);
    if (columns % kMmaN)
      mismatch = ThreadLoopMismatch{
          nullptr, ("its " + Twine(columns) + " columns are not a multiple " +
                    "of " + Twine(kMmaN) + " (a fragment's)")
                       .str()};
  }
  if (!mismatch && loop.getNumLoops() == 1)
    mismatch = getQuadWriteMismatch(loop, isTile);
  if (!mismatch)
    return success();
  // The tiles in conflict: those the access at fault touches, or else all
  // that the loop touches.
  SetVector<Value> conflicts;
  auto collect = [&](Operation *op) {
    for (Value operand : op->getOperands())
      if (isTile(operand))
        conflicts.insert(operand);
  };
  if (mismatch->op)
    collect(mismatch->op);
  if (conflicts.empty())
    loop.walk(collect);
  InFlightDiagnostic error =
      loop.emitError("this thread loop touches private tiles that tile ops "
                     "compute in the mma.sync fragment layout, and cannot be "
                     "mapped onto it: ")
      << mismatch->reason;
  if (mismatch->op)
    error.attachNote(mismatch->op->getLoc()) << "the access";
  for (Operation *op : ops)
    if (!isa<scf::ParallelOp>(op) &&
        llvm::any_of(op->getOperands(),
                     [&](Value v) { return conflicts.contains(v); }))
      error.attachNote(op->getLoc())
          << "the tile op '" << op->getName() << "' it conflicts with";
  emittedError = true;
  return failure();
}

std::optional<ThreadLoopMismatch>
vx::getElementwiseLoopMismatch(scf::ParallelOp loop,
                               function_ref<bool(Value)> isTile) {
  auto ofLoop = [](const Twine &reason) {
    return ThreadLoopMismatch{nullptr, reason.str()};
  };
  if (loop.getNumResults())
    return ofLoop("it reduces across the threads");
  if (loop.getNumLoops() > 2)
    return ofLoop("it has " + Twine(loop.getNumLoops()) +
                  " dimensions, not the rows (and columns) of a tile");
  SmallVector<int64_t> sizes;
  for (auto [lower, upper, step] : llvm::zip_equal(
           loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> size = getConstantIntValue(upper);
    if (getConstantIntValue(lower) != 0 || getConstantIntValue(step) != 1 ||
        !size)
      return ofLoop("its bounds are not constants from 0 in steps of 1");
    sizes.push_back(*size);
  }
  SmallVector<Value> ivs = loop.getInductionVars();
  std::optional<ThreadLoopMismatch> mismatch;
  loop.getBody()->walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      if (!isTile(operand))
        continue;
      auto fail = [&](const Twine &reason) {
        mismatch = ThreadLoopMismatch{op, reason.str()};
        return WalkResult::interrupt();
      };
      ValueRange indices;
      if (auto load = dyn_cast<memref::LoadOp>(op))
        indices = load.getIndices();
      else if (auto store = dyn_cast<memref::StoreOp>(op))
        indices = store.getIndices();
      else
        return fail("it accesses a tile with '" + op->getName().getStringRef() +
                    "', not memref.load or memref.store");
      if (indices.size() > ivs.size() ||
          !llvm::equal(indices, ArrayRef(ivs).take_front(indices.size())))
        return fail("it indexes a tile with other values than its induction "
                    "variables in order ([r, c] of a tile, [r] of a row "
                    "vector)");
      ArrayRef<int64_t> shape = cast<MemRefType>(operand.getType()).getShape();
      for (auto [dim, size] : llvm::enumerate(shape))
        if (sizes[dim] != size)
          return fail("it spans " + Twine(sizes[dim]) + " of the tile's " +
                      Twine(size) + (dim == 0 ? " rows" : " columns"));
    }
    return WalkResult::advance();
  });
  return mismatch;
}

SmallVector<scf::ParallelOp>
vx::getThreadLoopsOverTiles(SpawnOp spawn, function_ref<bool(Value)> isTile) {
  SmallVector<scf::ParallelOp> loops;
  spawn.getBody().walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
    WalkResult touches = loop.getBody()->walk([&](Operation *op) {
      return llvm::any_of(op->getOperands(), isTile) ? WalkResult::interrupt()
                                                     : WalkResult::advance();
    });
    if (touches.wasInterrupted())
      loops.push_back(loop);
    return WalkResult::skip();
  });
  return loops;
}

FailureOr<SmallVector<FragmentGroup>>
vx::planFragmentGroups(SpawnOp spawn, ArrayRef<Operation *> tileOps,
                       const TileOpsOptions &options, int64_t ctaSize,
                       DenseMap<Operation *, std::string> &reasons) {
  SmallVector<FragmentGroup> groups;
  auto isPlanned = [&](Operation *op) {
    return reasons.contains(op) ||
           llvm::any_of(groups, [&](const FragmentGroup &group) {
             return llvm::is_contained(group.ops, op);
           });
  };
  for (Operation *op : tileOps) {
    auto matmul = dyn_cast<linalg::MatmulOp>(op);
    if (!matmul || !getTensorCoreKind(matmul, options.tf32) ||
        isPlanned(matmul))
      continue;
    // A matmul that does not fit by itself gets the reason from the
    // accumulator lowering.
    ScratchOp acc = getMatmulAccumulator(matmul);
    if (!acc || getMmaSyncMatmulReason(matmul, spawn, options, true))
      continue;
    // A group only where the accumulators' own layout does not do.
    SmallVector<Operation *> uses;
    if (!getAccumulatorReason(acc, tileOps, spawn, uses) &&
        getPrivateTiles(matmul.getInputs()[0], spawn).empty())
      continue;
    GroupPlanner planner(spawn, tileOps, options);
    std::string why;
    FailureOr<FragmentGroup> group = planner.plan(matmul, ctaSize, why);
    if (succeeded(group)) {
      groups.push_back(std::move(*group));
      continue;
    }
    if (planner.hasEmittedError())
      return failure();
    // The group's matmuls (as far as it was collected) fall back together.
    reasons.try_emplace(matmul, why);
    for (Operation *other : planner.getOps())
      if (isa<linalg::MatmulOp>(other))
        reasons.try_emplace(other, why);
  }
  return groups;
}

namespace {
/// Builds one lane's part of a group's op: the lane's values of its tiles
/// and row vectors, the elements of other memory at their rows and
/// columns.
class GroupLaneBuilder {
public:
  GroupLaneBuilder(OpBuilder &b, Location loc, const FragmentGroup &group,
                   const DenseMap<Value, Value> &fragments, const Lane &lane)
      : b(b), loc(loc), group(group), fragments(fragments), lane(lane) {}

  /// A point of a tile: fragment (fm, fn), row half h (rows g, g + 8),
  /// column e of the lane's pair.
  struct Point {
    Value fm, fn, half, column;
  };

  /// Loads `memref` at `point` (a row vector: at its row).
  Value load(Value memref, const Point &point) {
    auto [target, indices] = locate(memref, point);
    return memref::LoadOp::create(b, loc, target, indices);
  }
  void store(Value value, Value memref, const Point &point) {
    auto [target, indices] = locate(memref, point);
    memref::StoreOp::create(b, loc, value, target, indices);
  }

  /// The value index of `point` in a tile of `fragsN` fragment columns.
  Value getTileIndex(const Point &point, int64_t fragsN) {
    return buildSum(b, loc,
                    {{point.fm, fragsN * kValuesPerFragment},
                     {point.fn, kValuesPerFragment},
                     {point.half, 2},
                     {point.column, 1}},
                    0);
  }

  /// Applies `body` (a linalg region) to `arguments` (null for those it
  /// does not use); its yielded values.
  SmallVector<Value> apply(Block &body, ArrayRef<Value> arguments) {
    IRMapping mapping;
    for (auto [argument, value] :
         llvm::zip_equal(body.getArguments(), arguments))
      if (value)
        mapping.map(argument, value);
    for (Operation &op : body.without_terminator())
      b.clone(op, mapping);
    return llvm::map_to_vector(body.getTerminator()->getOperands(),
                               [&](Value v) { return mapping.lookup(v); });
  }

  /// The row and column of the tiles at `point`.
  std::pair<Value, Value> getElement(const Point &point) {
    int64_t fragmentRows = group.getFragmentRows();
    Value row = buildSum(b, loc,
                         {{lane.warpM, group.fragsM * fragmentRows},
                          {point.fm, fragmentRows},
                          {lane.warpN, kMmaM},
                          {point.half, kMmaM / 2},
                          {lane.group, 1}},
                         0);
    Value column = buildSum(
        b, loc, {{point.fn, kMmaN}, {lane.pair, 2}, {point.column, 1}}, 0);
    return {row, column};
  }

private:
  std::pair<Value, SmallVector<Value>> locate(Value memref,
                                              const Point &point) {
    auto type = cast<MemRefType>(memref.getType());
    bool rowVector = type.getRank() == 1;
    if (Value parts = fragments.lookup(memref)) {
      Value index =
          rowVector
              ? buildSum(b, loc, {{point.fm, kRowsPerLane}, {point.half, 1}}, 0)
              : getTileIndex(point, type.getShape()[1] / kMmaN);
      return {parts, {lane.warpM, lane.warpN, lane.group, lane.pair, index}};
    }
    auto [row, column] = getElement(point);
    if (rowVector)
      return {memref, {row}};
    return {memref, {row, column}};
  }

  OpBuilder &b;
  Location loc;
  const FragmentGroup &group;
  const DenseMap<Value, Value> &fragments;
  const Lane &lane;
};
} // namespace

/// Loops over the lane's points of a tile of `columns` columns (none: a row
/// vector, fn and e zero).
static void
buildPointLoops(OpBuilder &b, Location loc, const FragmentGroup &group,
                std::optional<int64_t> columns,
                function_ref<void(OpBuilder &, GroupLaneBuilder::Point)> body) {
  SmallVector<int64_t> counts = {group.fragsM, kRowsPerLane};
  if (columns)
    counts.append({*columns / kMmaN, 2});
  buildLoops(b, loc, counts, [&](OpBuilder &nested, ValueRange ivs) {
    Value zero = arith::ConstantIndexOp::create(nested, loc, 0);
    body(nested,
         {ivs[0], columns ? ivs[2] : zero, ivs[1], columns ? ivs[3] : zero});
  });
}

/// An elementwise op (a linalg op with parallel loops over rows, or rows
/// and columns, or a copy) at each of the lane's points.
static void buildElementwise(OpBuilder &b, Location loc, Operation *op,
                             const FragmentGroup &group,
                             const DenseMap<Value, Value> &fragments,
                             const Lane &lane) {
  auto shape =
      cast<MemRefType>(op->getOperand(op->getNumOperands() - 1).getType())
          .getShape();
  std::optional<int64_t> columns;
  if (shape.size() == 2)
    columns = shape[1];
  buildPointLoops(b, loc, group, columns, [&](OpBuilder &nested, auto point) {
    GroupLaneBuilder builder(nested, loc, group, fragments, lane);
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      builder.store(builder.load(copy.getSource(), point), copy.getTarget(),
                    point);
      return;
    }
    auto linalgOp = cast<linalg::LinalgOp>(op);
    SmallVector<Value> arguments;
    for (OpOperand &operand : op->getOpOperands()) {
      // A row vector read in a loop over rows and columns: the lane's value
      // of the point's row.
      arguments.push_back(
          linalgOp.getMatchingBlockArgument(&operand).use_empty()
              ? Value()
              : builder.load(operand.get(), point));
    }
    SmallVector<Value> results = builder.apply(*linalgOp.getBlock(), arguments);
    builder.store(results.front(), linalgOp.getDpsInits()[0], point);
  });
}

/// Combines `partial`, a lane's value of a row, with those of the other
/// three lanes of its quad (lanes 4g + t, t < 4, hold the row) by butterfly
/// shuffles: every lane ends with the row's.
static Value
combineAcrossQuad(OpBuilder &b, Location loc, Value partial,
                  function_ref<Value(Value shuffled, Value partial)> combine) {
  for (int64_t offset = 1; offset < kLanesPerRow; offset *= 2) {
    auto shuffle = gpu::ShuffleOp::create(b, loc, partial, offset, kWarpSize,
                                          gpu::ShuffleMode::XOR);
    // Placed by the compiler in whole warps: the spawn-body op check and
    // the memory model take it as registers only.
    shuffle->setAttr(VxDialect::kTensorCoreAttrName, b.getUnitAttr());
    partial = combine(shuffle.getShuffleResult(), partial);
  }
  return partial;
}

/// A row reduction: per row of the lane, its values combined in order, the
/// quad's partial results combined by butterfly shuffles (each lane then
/// holds the row's), the result combined with the initial value. Without
/// `acrossQuad` (a row vector kept as per-lane partial sums,
/// getPartialRowSums) the shuffles are left to the vector's readers.
static void buildRowReduce(OpBuilder &b, Location loc, linalg::ReduceOp reduce,
                           const FragmentGroup &group,
                           const DenseMap<Value, Value> &fragments,
                           const Lane &lane, bool acrossQuad) {
  Value input = reduce.getInputs()[0], init = reduce.getInits()[0];
  int64_t fragsN = cast<MemRefType>(input.getType()).getShape()[1] / kMmaN;
  Block &combiner = reduce.getCombiner().front();
  buildPointLoops(
      b, loc, group, std::nullopt, [&](OpBuilder &nested, auto row) {
        GroupLaneBuilder builder(nested, loc, group, fragments, lane);
        auto combine = [&](OpBuilder &at, Value value, Value partial) {
          GroupLaneBuilder inner(at, loc, group, fragments, lane);
          return inner.apply(combiner, {value, partial}).front();
        };
        auto valueAt = [&](OpBuilder &at, Value fn, int64_t column) {
          GroupLaneBuilder inner(at, loc, group, fragments, lane);
          return inner.load(input,
                            {row.fm, fn, row.half,
                             arith::ConstantIndexOp::create(at, loc, column)});
        };
        Value first = arith::ConstantIndexOp::create(nested, loc, 0);
        Value partial = combine(nested, valueAt(nested, first, 1),
                                valueAt(nested, first, 0));
        if (fragsN > 1) {
          auto loop = scf::ForOp::create(
              nested, loc, arith::ConstantIndexOp::create(nested, loc, 1),
              arith::ConstantIndexOp::create(nested, loc, fragsN),
              arith::ConstantIndexOp::create(nested, loc, 1),
              ValueRange{partial},
              [&](OpBuilder &body, Location, Value fn, ValueRange carried) {
                Value next = carried.front();
                for (int64_t column : {0, 1})
                  next = combine(body, valueAt(body, fn, column), next);
                scf::YieldOp::create(body, loc, next);
              });
          partial = loop.getResult(0);
        }
        if (acrossQuad)
          partial = combineAcrossQuad(
              nested, loc, partial, [&](Value shuffled, Value partial) {
                return combine(nested, shuffled, partial);
              });
        builder.store(combine(nested, partial, builder.load(init, row)), init,
                      row);
      });
}

/// A thread loop of the user's over the group's tiles (elementwise, checked
/// by the planner) at each of the lane's points: its body with the
/// induction variables at the point's row (and column), its accesses of
/// the group's tiles at the lane's values.
static void buildThreadLoop(OpBuilder &b, Location loc, scf::ParallelOp loop,
                            const FragmentGroup &group,
                            const DenseMap<Value, Value> &fragments,
                            const Lane &lane) {
  std::optional<int64_t> columns;
  if (loop.getNumLoops() == 2)
    columns = *getConstantIntValue(loop.getUpperBound()[1]);
  buildPointLoops(b, loc, group, columns, [&](OpBuilder &nested, auto point) {
    GroupLaneBuilder builder(nested, loc, group, fragments, lane);
    auto [row, column] = builder.getElement(point);
    IRMapping mapping;
    mapping.map(loop.getInductionVars().front(), row);
    if (columns)
      mapping.map(loop.getInductionVars().back(), column);
    SmallVector<Operation *> accesses;
    for (Operation &op : loop.getBody()->without_terminator())
      nested.clone(op, mapping)->walk([&](Operation *clone) {
        if (isa<memref::LoadOp, memref::StoreOp>(clone) &&
            llvm::any_of(clone->getOperands(),
                         [&](Value v) { return fragments.contains(v); }))
          accesses.push_back(clone);
      });
    for (Operation *access : accesses) {
      OpBuilder at(access);
      GroupLaneBuilder inPlace(at, access->getLoc(), group, fragments, lane);
      if (auto load = dyn_cast<memref::LoadOp>(access)) {
        load.replaceAllUsesWith(inPlace.load(load.getMemRef(), point));
      } else {
        auto store = cast<memref::StoreOp>(access);
        inPlace.store(store.getValueToStore(), store.getMemRef(), point);
      }
      access->erase();
    }
  });
}

/// Whether `op`, a group op, touches `tile`, a group tile.
static bool touches(Operation *op, Value tile) {
  if (!isa<scf::ParallelOp>(op))
    return llvm::is_contained(op->getOperands(), tile);
  return op
      ->walk([&](Operation *inner) {
        return llvm::is_contained(inner->getOperands(), tile)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether `op`, a group op, writes `tile`, a group tile.
static bool writes(Operation *op, Value tile) {
  if (isa<scf::ParallelOp>(op))
    return op
        ->walk([&](memref::StoreOp store) {
          return store.getMemRef() == tile ? WalkResult::interrupt()
                                           : WalkResult::advance();
        })
        .wasInterrupted();
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return copy.getTarget() == tile;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && llvm::is_contained(linalgOp.getDpsInits(), tile);
}

/// Whether `op`, which writes the row vector `sum`, keeps the sum of the
/// four lanes' copies of each row what it would be written whole: a fill
/// with zero, a row reduction with addf into it, or `sum` times another
/// operand (the same on the four lanes: every row vector is).
static bool isLinearInQuadSum(Operation *op, Value sum) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
  if (auto reduce = dyn_cast<linalg::ReduceOp>(op))
    return isa<arith::AddFOp>(reduce.getCombiner().front().front());
  if (!isa<linalg::MapOp, linalg::GenericOp>(op))
    return false;
  Block &body = op->getRegion(0).front();
  auto mulf = dyn_cast<arith::MulFOp>(body.front());
  if (!mulf || body.getOperations().size() != 2 ||
      body.getTerminator()->getOperand(0) != mulf.getResult())
    return false;
  auto operandOf = [&](Value value) -> Value {
    auto argument = dyn_cast<BlockArgument>(value);
    if (!argument || argument.getOwner() != &body)
      return nullptr;
    return op->getOperand(argument.getArgNumber());
  };
  Value lhs = operandOf(mulf.getLhs()), rhs = operandOf(mulf.getRhs());
  return lhs && rhs && (lhs == sum) != (rhs == sum);
}

/// The row vectors of `group` kept as per-lane partial sums across its ops
/// (the softmax denominator l of flash attention, as FlashAttention-2 keeps
/// it): those that an addf row reduction writes and that every other
/// writer updates linearly (isLinearInQuadSum). The reduction then adds
/// only the lane's values; an op that reads such a vector without writing
/// it reads it summed over the quad (rewriteFragmentGroup), so the
/// shuffles run where the whole value is needed rather than at every
/// reduction. Any other writer keeps the vector whole (conservatively).
static SetVector<Value> getPartialRowSums(const FragmentGroup &group) {
  SetVector<Value> sums;
  for (ScratchOp tile : group.tiles) {
    Value vector = tile.getResult();
    if (tile.getType().getRank() != 1)
      continue;
    bool reduced = false, linear = true;
    for (Operation *op : group.ops) {
      if (!touches(op, vector) || !writes(op, vector))
        continue;
      linear &= isLinearInQuadSum(op, vector);
      reduced |= isa<linalg::ReduceOp>(op);
    }
    if (reduced && linear)
      sums.insert(vector);
  }
  return sums;
}

/// A thread loop over the lanes that stores the row vector `sum` summed over
/// each quad, from its partial sums in `partial` into its fragments in
/// `whole`.
static void buildQuadSum(OpBuilder &b, Location loc, const FragmentGroup &group,
                         Value sum, const DenseMap<Value, Value> &partial,
                         const DenseMap<Value, Value> &whole) {
  MmaTiling laneTiling = group.getTiling(kMmaN);
  buildLaneLoop(b, loc, laneTiling, [&](OpBuilder &laneBuilder, Lane lane) {
    buildPointLoops(
        laneBuilder, loc, group, std::nullopt,
        [&](OpBuilder &nested, auto row) {
          GroupLaneBuilder from(nested, loc, group, partial, lane);
          GroupLaneBuilder to(nested, loc, group, whole, lane);
          auto add = [&](Value shuffled, Value value) -> Value {
            return arith::AddFOp::create(nested, loc, shuffled, value);
          };
          to.store(combineAcrossQuad(nested, loc, from.load(sum, row), add),
                   sum, row);
        });
  });
}

/// Before `op`: each partial row sum in `partialSums` that `op` reads
/// without writing it, summed over the quad into its scratch in
/// `wholeSums`. The fragments `op` reads: those of `fragments`, with those
/// sums whole.
static DenseMap<Value, Value>
sumPartialsReadBy(OpBuilder &b, Operation *op, const FragmentGroup &group,
                  const DenseMap<Value, Value> &fragments,
                  const SetVector<Value> &partialSums,
                  const DenseMap<Value, Value> &wholeSums) {
  DenseMap<Value, Value> read = fragments;
  for (Value sum : partialSums) {
    if (!touches(op, sum) || writes(op, sum))
      continue;
    DenseMap<Value, Value> whole = {{sum, wholeSums.lookup(sum)}};
    buildQuadSum(b, op->getLoc(), group, sum, fragments, whole);
    read[sum] = whole[sum];
  }
  return read;
}

void vx::rewriteFragmentGroup(RewriterBase &rewriter,
                              const FragmentGroup &group) {
  DenseMap<Value, Value> tileFragments, wholeSums;
  SetVector<Value> partialSums = getPartialRowSums(group);
  for (ScratchOp tile : group.tiles) {
    MemRefType type = tile.getType();
    int64_t values =
        type.getRank() == 1
            ? group.fragsM * kRowsPerLane
            : group.fragsM * (type.getShape()[1] / kMmaN) * kValuesPerFragment;
    rewriter.setInsertionPoint(tile);
    auto fragmentType =
        MemRefType::get({group.warpsM, group.getWarpsN(),
                         kWarpSize / kLanesPerRow, kLanesPerRow, values},
                        type.getElementType());
    tileFragments[tile.getResult()] = ScratchOp::create(
        rewriter, tile.getLoc(), fragmentType, tile.getMemoryAttr());
    if (partialSums.contains(tile.getResult()))
      wholeSums[tile.getResult()] = ScratchOp::create(
          rewriter, tile.getLoc(), fragmentType, tile.getMemoryAttr());
  }
  auto getTiling = [&](Value tile) {
    return group.getTiling(cast<MemRefType>(tile.getType()).getShape()[1]);
  };
  MmaTiling laneTiling = group.getTiling(kMmaN);
  // The matmuls right after a zero fill of their accumulator (S = Q K^T),
  // which wgmma may overwrite instead of adding to.
  DenseSet<Operation *> zeroFilled;
  for (linalg::MatmulOp matmul : group.getMatmuls())
    if (auto fill = dyn_cast_or_null<linalg::FillOp>(matmul->getPrevNode()))
      if (fill.getOutputs()[0] == matmul.getOutputs()[0] &&
          matchPattern(fill.getInputs()[0], m_PosZeroFloat()))
        zeroFilled.insert(matmul);
  for (Operation *op : group.ops) {
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    DenseMap<Value, Value> fragments = sumPartialsReadBy(
        rewriter, op, group, tileFragments, partialSums, wholeSums);
    buildLaneLoop(rewriter, loc, laneTiling, [&](OpBuilder &b, Lane lane) {
      if (auto fill = dyn_cast<linalg::FillOp>(op)) {
        Value tile = fill.getOutputs()[0];
        auto type = cast<MemRefType>(fragments[tile].getType());
        buildLoops(b, loc, {type.getShape().back()},
                   [&](OpBuilder &nested, ValueRange ivs) {
                     memref::StoreOp::create(
                         nested, loc, fill.getInputs()[0], fragments[tile],
                         ValueRange{lane.warpM, lane.warpN, lane.group,
                                    lane.pair, ivs[0]});
                   });
      } else if (auto matmul = dyn_cast<linalg::MatmulOp>(op)) {
        Value acc = matmul.getOutputs()[0], a = matmul.getInputs()[0];
        std::optional<RegisterOperand> registerA;
        if (Value parts = fragments.lookup(a))
          registerA = RegisterOperand{parts, getTiling(a)};
        if (group.wgmma) {
          buildGroupWgmma(b, loc, matmul, getTiling(acc), fragments[acc], lane,
                          registerA, zeroFilled.contains(matmul));
          return;
        }
        std::array<bool, 2> ldmatrix = {
            !registerA && !getLdmatrixReason(matmul->getOpOperand(0)),
            !getLdmatrixReason(matmul->getOpOperand(1))};
        buildMmaSync(b, loc, matmul, getTiling(acc), ldmatrix, fragments[acc],
                     lane, registerA);
      } else if (auto reduce = dyn_cast<linalg::ReduceOp>(op)) {
        buildRowReduce(b, loc, reduce, group, fragments, lane,
                       !partialSums.contains(reduce.getInits()[0]));
      } else if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        buildThreadLoop(b, loc, loop, group, fragments, lane);
      } else {
        buildElementwise(b, loc, op, group, fragments, lane);
      }
    });
    rewriter.eraseOp(op);
  }
  for (ScratchOp tile : group.tiles)
    rewriter.eraseOp(tile);
}

//===- MmaSyncTileOps.cpp - linalg.matmul tile ops on mma.sync ------------===//
//
// A linalg.matmul tile op (VX_SPEC section 2.3) with bf16 or f16 operands
// and a private f32 accumulator becomes `mma.sync.m16n8k16` on sm_80 and
// newer: the CTA's warps tile the accumulator, each warp's part is a grid
// of 16x8 fragments, and each lane keeps the four values of every fragment
// that the PTX ISA's fragment layout gives it. The accumulator scratch is
// replaced by one in that layout, indexed by the lane's coordinates, so the
// fill, the matmul and the copies of the accumulator are thread loops that
// each touch only their own thread's values: the checker proves them owned
// and the CTA mapping keeps them in registers. See docs/design.md,
// "Tensor cores".
//
//===----------------------------------------------------------------------===//

#include "Vx/Target/Limits.h"
#include "Vx/Transforms/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::vx;

namespace {
/// The shape of one `mma.sync` (m16n8k16) and of a lane's share of it.
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;
constexpr int64_t kLanesPerRow = 4;
/// Accumulator values of one fragment per lane (two rows, two columns).
constexpr int64_t kValuesPerFragment = 4;

/// How the warps of the CTA cover an M x N accumulator: a warpsM x warpsN
/// grid of warps, each owning fragsM x fragsN fragments of 16x8.
struct MmaTiling {
  int64_t warpsM, warpsN, fragsM, fragsN;

  int64_t getWarpRows() const { return fragsM * kMmaM; }
  int64_t getWarpColumns() const { return fragsN * kMmaN; }
  int64_t getValuesPerLane() const {
    return fragsM * fragsN * kValuesPerFragment;
  }
};

/// A private accumulator computed on the tensor cores, with the tile ops
/// that touch it.
struct Accumulator {
  ScratchOp scratch;
  SmallVector<Operation *> ops;
  MmaTiling tiling;
};

/// A lane of the MMA thread loop: its warp's coordinates in the warp grid,
/// its row in a fragment (lane / 4) and its pair of columns (lane % 4).
struct Lane {
  Value warpM, warpN, group, pair;
};
} // namespace

/// The element types of `matmul`, named for the remarks, when they would
/// suit the tensor cores at all (VX_SPEC 2.3).
std::optional<StringRef> vx::getTensorCoreKind(linalg::MatmulOp matmul,
                                               bool tf32) {
  Type a = getElementTypeOrSelf(matmul.getInputs()[0].getType());
  Type b = getElementTypeOrSelf(matmul.getInputs()[1].getType());
  Type c = getElementTypeOrSelf(matmul.getOutputs()[0].getType());
  if (a != b || !(c.isF32() || c.isF16()))
    return std::nullopt;
  if (a.isBF16())
    return StringRef("bf16 operands");
  if (a.isF16())
    return StringRef("f16 operands");
  if (a.isF32() && c.isF32())
    return tf32 ? StringRef("f32 operands (tf32=true)")
                : StringRef("f32 operands");
  return std::nullopt;
}

std::optional<std::string>
vx::getTensorCoreMatmulReason(linalg::MatmulOp matmul,
                              const TileOpsOptions &options) {
  Type a = getElementTypeOrSelf(matmul.getInputs()[0].getType());
  Type c = getElementTypeOrSelf(matmul.getOutputs()[0].getType());
  if (a.isF32())
    return std::string(options.tf32
                           ? "the TF32 tensor-core lowering is not built yet"
                           : "f32 operands use the tensor cores only with "
                             "tf32=true");
  if (!c.isF32())
    return std::string("the tensor-core lowering takes an f32 accumulator "
                       "only");
  for (Value operand : matmul->getOperands())
    if (!cast<MemRefType>(operand.getType()).hasStaticShape())
      return std::string("its tiles have dynamic shapes");
  for (AffineMap map : matmul.getIndexingMapsArray())
    if (!map.isProjectedPermutation() || map.getNumResults() != 2)
      return std::string("its indexing maps are not transpositions");
  MLIRContext *context = matmul.getContext();
  if (matmul.getMatchingIndexingMap(matmul.getDpsInitOperand(0)) !=
      AffineMap::getMultiDimIdentityMap(3, context).getMajorSubMap(2))
    return std::string("its accumulator map is transposed");
  return std::nullopt;
}

/// Why `matmul` cannot be one on `mma.sync.m16n8k16` by itself (its
/// types, shape, operands and the chip), or nothing.
static std::optional<std::string>
getMatmulReason(linalg::MatmulOp matmul, SpawnOp spawn,
                const TileOpsOptions &options) {
  if (options.chip->getSMNumber() < 80)
    return ("'" + options.chip->getName() +
            "' has no mma.sync.m16n8k16 (sm_80 and newer)")
        .str();
  if (std::optional<std::string> why =
          getTensorCoreMatmulReason(matmul, options))
    return why;
  SmallVector<int64_t> ranges = matmul.getStaticLoopRanges();
  int64_t m = ranges[0], n = ranges[1], k = ranges[2];
  if (m % kMmaM != 0)
    return ("M (" + Twine(m) + ") is not a multiple of " + Twine(kMmaM)).str();
  if (n % kMmaN != 0)
    return ("N (" + Twine(n) + ") is not a multiple of " + Twine(kMmaN)).str();
  if (k % kMmaK != 0)
    return ("K (" + Twine(k) + ") is not a multiple of " + Twine(kMmaK)).str();
  for (Value operand : matmul.getInputs())
    if (!getPrivateTiles(operand, spawn).empty())
      return std::string("an operand is private scratch (A and B are read "
                         "from shared or global memory)");
  return std::nullopt;
}

/// The warp grid for an M x N accumulator on a CTA of `ctaSize` threads:
/// the most warps (up to the CTA's) that divide the fragment grid, as
/// square a warp tile as possible among those.
static MmaTiling chooseTiling(int64_t m, int64_t n, int64_t ctaSize) {
  int64_t rows = m / kMmaM, columns = n / kMmaN;
  for (int64_t warps = std::min(ctaSize / kWarpSize, rows * columns); warps > 1;
       --warps) {
    std::optional<MmaTiling> best;
    for (int64_t warpsM = 1; warpsM <= warps; ++warpsM) {
      int64_t warpsN = warps / warpsM;
      if (warps % warpsM || rows % warpsM || columns % warpsN)
        continue;
      MmaTiling tiling{warpsM, warpsN, rows / warpsM, columns / warpsN};
      auto skew = [](const MmaTiling &t) {
        return std::abs(t.getWarpRows() - t.getWarpColumns());
      };
      if (!best || skew(tiling) < skew(*best))
        best = tiling;
    }
    if (best)
      return *best;
  }
  return MmaTiling{1, 1, rows, columns};
}

/// The accumulator that `op`, a tile op, may write on the tensor cores:
/// the private scratch that a matmul's output is directly.
ScratchOp vx::getMatmulAccumulator(linalg::MatmulOp matmul) {
  auto scratch = matmul.getOutputs()[0].getDefiningOp<ScratchOp>();
  if (scratch && scratch.getPlacement() == Memory::private_)
    return scratch;
  return nullptr;
}

/// Why the accumulator `scratch` cannot live in the fragment layout: a use
/// other than a fill of it, a matmul into it and a copy out of it (into
/// memory that is not private), all tile ops. Collects the uses.
std::optional<std::string>
vx::getAccumulatorReason(ScratchOp scratch, ArrayRef<Operation *> tileOps,
                     SpawnOp spawn, SmallVectorImpl<Operation *> &uses) {
  Value tile = scratch.getResult();
  for (Operation *user : tile.getUsers()) {
    auto describe = [&](StringRef why) {
      return ("the accumulator is also used by '" +
              user->getName().getStringRef() + "' (" + why + ")")
          .str();
    };
    if (!llvm::is_contained(tileOps, user))
      return describe("not a tile op");
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      if (fill.getInputs()[0].getType() != getElementTypeOrSelf(tile.getType()))
        return describe("a fill with another type");
    } else if (auto matmul = dyn_cast<linalg::MatmulOp>(user)) {
      if (matmul.getOutputs()[0] != tile ||
          llvm::is_contained(matmul.getInputs(), tile))
        return describe("a matmul operand");
    } else if (isa<memref::CopyOp, linalg::CopyOp>(user)) {
      Value source = user->getOperand(0), target = user->getOperand(1);
      if (source != tile)
        return describe("a copy into it");
      if (!getPrivateTiles(target, spawn).empty())
        return describe("a copy into private scratch");
    } else {
      return describe("no MMA-fragment form of it is built");
    }
    uses.push_back(user);
  }
  return std::nullopt;
}

/// `terms` (value, factor) summed with `constant`, as index arithmetic.
Value vx::buildSum(OpBuilder &b, Location loc,
                      ArrayRef<std::pair<Value, int64_t>> terms,
                      int64_t constant) {
  Value sum;
  auto add = [&](Value term) {
    sum = sum ? arith::AddIOp::create(b, loc, sum, term).getResult() : term;
  };
  for (auto [value, factor] : terms) {
    if (factor == 1)
      add(value);
    else
      add(arith::MulIOp::create(
          b, loc, value, arith::ConstantIndexOp::create(b, loc, factor)));
  }
  if (constant != 0 || !sum)
    add(arith::ConstantIndexOp::create(b, loc, constant));
  return sum;
}

/// Builds the thread loop over the lanes of the tiling's warps, ivs (warp
/// m, warp n, lane / 4, lane % 4): iteration i (row-major) is lane i mod 32
/// of warp i / 32, so on any CTA whose size is a multiple of 32 it runs on
/// a thread whose lane is the one the fragment layout assumes.
static void buildLaneLoop(OpBuilder &b, Location loc, const MmaTiling &tiling,
                          function_ref<void(OpBuilder &, Lane)> body) {
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  SmallVector<Value> lower(4, index(0)), steps(4, index(1));
  SmallVector<Value> upper = {index(tiling.warpsM), index(tiling.warpsN),
                              index(kWarpSize / kLanesPerRow),
                              index(kLanesPerRow)};
  scf::ParallelOp::create(b, loc, lower, upper, steps,
                          [&](OpBuilder &nested, Location, ValueRange ivs) {
                            body(nested, Lane{ivs[0], ivs[1], ivs[2], ivs[3]});
                            scf::ReduceOp::create(nested, loc);
                          });
}

/// Builds `scf.for` loops from 0 to each of `counts` around `body`.
void vx::buildLoops(OpBuilder &b, Location loc, ArrayRef<int64_t> counts,
                       function_ref<void(OpBuilder &, ValueRange)> body) {
  SmallVector<Value> lower, upper, steps;
  for (int64_t count : counts) {
    lower.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    upper.push_back(arith::ConstantIndexOp::create(b, loc, count));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  scf::buildLoopNest(
      b, loc, lower, upper, steps,
      [&](OpBuilder &nested, Location, ValueRange ivs) { body(nested, ivs); });
}

namespace {
/// Builds the accesses of one accumulator in the fragment layout.
class FragmentBuilder {
public:
  FragmentBuilder(OpBuilder &b, Location loc, const MmaTiling &tiling,
                  Value fragments, const Lane &lane)
      : b(b), loc(loc), tiling(tiling), fragments(fragments), lane(lane) {}

  /// The index of value `value` (0..3) of fragment (fm, fn) in the lane's
  /// part.
  Value getValueIndex(Value fm, Value fn, int64_t value) {
    return buildSum(
        b, loc,
        {{fm, tiling.fragsN * kValuesPerFragment}, {fn, kValuesPerFragment}},
        value);
  }
  Value load(Value index) {
    return memref::LoadOp::create(b, loc, fragments, getIndices(index));
  }
  void store(Value value, Value index) {
    memref::StoreOp::create(b, loc, value, fragments, getIndices(index));
  }
  /// The accumulator row of the lane in fragment row `fm`, plus `offset`.
  Value getRow(Value fm, int64_t offset) {
    return buildSum(
        b, loc,
        {{lane.warpM, tiling.getWarpRows()}, {fm, kMmaM}, {lane.group, 1}},
        offset);
  }
  /// The accumulator column of the lane's first value in fragment column
  /// `fn`, plus `offset`.
  Value getColumn(Value fn, int64_t offset) {
    return buildSum(
        b, loc,
        {{lane.warpN, tiling.getWarpColumns()}, {fn, kMmaN}, {lane.pair, 2}},
        offset);
  }

private:
  SmallVector<Value> getIndices(Value index) {
    return {lane.warpM, lane.warpN, lane.group, lane.pair, index};
  }

  OpBuilder &b;
  Location loc;
  const MmaTiling &tiling;
  Value fragments;
  const Lane &lane;
};
} // namespace

/// The indices of operand `operand` of `matmul` at loop point (m, n, k).
static SmallVector<Value> getOperandIndices(linalg::MatmulOp matmul,
                                            OpOperand &operand, Value m,
                                            Value n, Value k) {
  SmallVector<Value> point = {m, n, k};
  SmallVector<Value> indices;
  for (AffineExpr result : matmul.getMatchingIndexingMap(&operand).getResults())
    indices.push_back(point[cast<AffineDimExpr>(result).getPosition()]);
  return indices;
}

/// One A or B register of `mma.sync`: the elements (row, column) and
/// (row, column + 1) of the fragment's K dimension, packed, as the PTX ISA
/// lays a register out (the first element in the low half).
static Value buildOperandRegister(OpBuilder &b, Location loc,
                                  linalg::MatmulOp matmul, OpOperand &operand,
                                  ArrayRef<Value> firstPoint,
                                  ArrayRef<Value> secondPoint) {
  SmallVector<Value> elements;
  for (ArrayRef<Value> point : {firstPoint, secondPoint})
    elements.push_back(memref::LoadOp::create(
        b, loc, operand.get(),
        getOperandIndices(matmul, operand, point[0], point[1], point[2])));
  Type elementType = elements[0].getType();
  auto pair = vector::FromElementsOp::create(
      b, loc, VectorType::get({2}, elementType), elements);
  // nvvm.mma.sync takes bf16 pairs as i32 and f16 pairs as vector<2xf16>.
  if (!elementType.isBF16())
    return pair;
  Value bits = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), pair);
  return vector::ExtractOp::create(b, loc, bits, ArrayRef<int64_t>{0});
}

/// The body of the matmul's thread loop for `lane`: along K in steps of
/// 16, every fragment of the lane's warp accumulates one `mma.sync`.
static void buildMmaSync(OpBuilder &b, Location loc, linalg::MatmulOp matmul,
                         const MmaTiling &tiling, Value fragments,
                         const Lane &lane) {
  FragmentBuilder accumulator(b, loc, tiling, fragments, lane);
  int64_t k = matmul.getStaticLoopRanges()[2];
  Type elementType = getElementTypeOrSelf(matmul.getInputs()[0].getType());
  NVVM::MMATypes ptxType =
      elementType.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  OpOperand &a = matmul->getOpOperand(0), &bOperand = matmul->getOpOperand(1);
  buildLoops(
      b, loc, {k / kMmaK, tiling.fragsM, tiling.fragsN},
      [&](OpBuilder &nested, ValueRange ivs) {
        Value kStep = ivs[0], fm = ivs[1], fn = ivs[2];
        Value zero = arith::ConstantIndexOp::create(nested, loc, 0);
        // A: rows g and g + 8; columns 2 (lane % 4) (+1), and + 8.
        SmallVector<Value> rows = {accumulator.getRow(fm, 0),
                                   accumulator.getRow(fm, 8)};
        auto getK = [&](int64_t offset) {
          return buildSum(nested, loc, {{kStep, kMmaK}, {lane.pair, 2}},
                          offset);
        };
        SmallVector<Value> ks = {getK(0), getK(1), getK(8), getK(9)};
        SmallVector<Value> aRegisters;
        for (int64_t half : {0, 2})
          for (Value row : rows)
            aRegisters.push_back(buildOperandRegister(
                nested, loc, matmul, a, {row, zero, ks[half]},
                {row, zero, ks[half + 1]}));
        // B: rows (K) as A's columns; column g of the fragment.
        Value column = buildSum(nested, loc,
                                {{lane.warpN, tiling.getWarpColumns()},
                                 {fn, kMmaN},
                                 {lane.group, 1}},
                                0);
        SmallVector<Value> bRegisters;
        for (int64_t half : {0, 2})
          bRegisters.push_back(buildOperandRegister(
              nested, loc, matmul, bOperand, {zero, column, ks[half]},
              {zero, column, ks[half + 1]}));
        SmallVector<Value> indices, values;
        for (int64_t value = 0; value < kValuesPerFragment; ++value) {
          indices.push_back(accumulator.getValueIndex(fm, fn, value));
          values.push_back(accumulator.load(indices.back()));
        }
        Type f32 = nested.getF32Type();
        auto resultType = LLVM::LLVMStructType::getLiteral(
            nested.getContext(), {f32, f32, f32, f32});
        auto mma = NVVM::MmaOp::create(
            nested, loc, resultType, aRegisters, bRegisters, values,
            {kMmaM, kMmaN, kMmaK}, std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        mma->setAttr(VxDialect::kTensorCoreAttrName, nested.getUnitAttr());
        for (int64_t value = 0; value < kValuesPerFragment; ++value) {
          auto result =
              LLVM::ExtractValueOp::create(nested, loc, mma.getRes(), value);
          result->setAttr(VxDialect::kTensorCoreAttrName, nested.getUnitAttr());
          accumulator.store(result, indices[value]);
        }
      });
}

/// The body of a fill's thread loop: every value of the lane's part.
static void buildFill(OpBuilder &b, Location loc, linalg::FillOp fill,
                      const MmaTiling &tiling, Value fragments,
                      const Lane &lane) {
  buildLoops(b, loc, {tiling.getValuesPerLane()},
             [&](OpBuilder &nested, ValueRange ivs) {
               FragmentBuilder inLoop(nested, loc, tiling, fragments, lane);
               inLoop.store(fill.getInputs()[0], ivs[0]);
             });
}

/// The body of a copy's thread loop: the lane's values to their elements
/// of `target`.
static void buildCopyOut(OpBuilder &b, Location loc, Value target,
                         const MmaTiling &tiling, Value fragments,
                         const Lane &lane) {
  buildLoops(
      b, loc, {tiling.fragsM, tiling.fragsN, 2, 2},
      [&](OpBuilder &nested, ValueRange ivs) {
        FragmentBuilder accumulator(nested, loc, tiling, fragments, lane);
        Value fm = ivs[0], fn = ivs[1], half = ivs[2], pair = ivs[3];
        // c0, c1 on row g, c2, c3 on row g + 8.
        Value row = buildSum(nested, loc,
                             {{accumulator.getRow(fm, 0), 1}, {half, 8}}, 0);
        Value column = buildSum(
            nested, loc, {{accumulator.getColumn(fn, 0), 1}, {pair, 1}}, 0);
        Value index = buildSum(
            nested, loc,
            {{accumulator.getValueIndex(fm, fn, 0), 1}, {half, 2}, {pair, 1}},
            0);
        memref::StoreOp::create(nested, loc, accumulator.load(index), target,
                                ValueRange{row, column});
      });
}

/// Replaces `acc`'s scratch by one in the fragment layout and its ops by
/// thread loops over the lanes.
static void rewriteAccumulator(RewriterBase &rewriter, Accumulator &acc) {
  const MmaTiling &tiling = acc.tiling;
  Location loc = acc.scratch.getLoc();
  rewriter.setInsertionPoint(acc.scratch);
  auto type =
      MemRefType::get({tiling.warpsM, tiling.warpsN, kWarpSize / kLanesPerRow,
                       kLanesPerRow, tiling.getValuesPerLane()},
                      getElementTypeOrSelf(acc.scratch.getType()));
  Value fragments =
      ScratchOp::create(rewriter, loc, type, acc.scratch.getMemoryAttr());
  for (Operation *op : acc.ops) {
    rewriter.setInsertionPoint(op);
    buildLaneLoop(rewriter, op->getLoc(), tiling, [&](OpBuilder &b, Lane lane) {
      Location opLoc = op->getLoc();
      if (auto fill = dyn_cast<linalg::FillOp>(op))
        buildFill(b, opLoc, fill, tiling, fragments, lane);
      else if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
        buildMmaSync(b, opLoc, matmul, tiling, fragments, lane);
      else
        buildCopyOut(b, opLoc, op->getOperand(1), tiling, fragments, lane);
    });
    rewriter.eraseOp(op);
  }
  rewriter.eraseOp(acc.scratch);
}

void vx::lowerMatmulsToMmaSync(RewriterBase &rewriter, SpawnOp spawn,
                               ArrayRef<Operation *> tileOps,
                               const TileOpsOptions &options) {
  int64_t ctaSize = spawn.getCTASize(
      options.threadsPerBlock ? options.threadsPerBlock : kDefaultCTASize);
  SmallVector<Accumulator> accumulators;
  DenseMap<Operation *, std::string> reasons;
  for (Operation *op : tileOps) {
    auto matmul = dyn_cast<linalg::MatmulOp>(op);
    if (!matmul || !getTensorCoreKind(matmul, options.tf32))
      continue;
    ScratchOp scratch = getMatmulAccumulator(matmul);
    std::optional<std::string> reason = getMatmulReason(matmul, spawn, options);
    if (!reason && !scratch)
      reason = "the accumulator is not a private scratch tile";
    if (!reason && ctaSize % kWarpSize != 0)
      reason =
          ("the CTA has " + Twine(ctaSize) + " threads, not whole warps").str();
    SmallVector<Operation *> uses;
    if (!reason)
      reason = getAccumulatorReason(scratch, tileOps, spawn, uses);
    if (reason) {
      reasons[op] = *reason;
      continue;
    }
    if (llvm::any_of(accumulators, [&](const Accumulator &acc) {
          return acc.scratch == scratch;
        }))
      continue;
    ArrayRef<int64_t> shape = scratch.getType().getShape();
    accumulators.push_back(
        {scratch, uses, chooseTiling(shape[0], shape[1], ctaSize)});
  }
  // Every matmul into an accumulator must fit, or none of them uses the
  // fragment layout.
  llvm::erase_if(accumulators, [&](const Accumulator &acc) {
    for (Operation *op : acc.ops)
      if (auto it = reasons.find(op); it != reasons.end()) {
        for (Operation *other : acc.ops)
          if (other != op && isa<linalg::MatmulOp>(other))
            reasons.try_emplace(other, "another matmul into its "
                                       "accumulator does not fit");
        return true;
      }
    return false;
  });
  for (Operation *op : tileOps) {
    auto matmul = dyn_cast<linalg::MatmulOp>(op);
    if (!matmul || !options.remarkOnMatmuls)
      continue;
    std::optional<StringRef> kind = getTensorCoreKind(matmul, options.tf32);
    if (!kind)
      continue;
    if (auto it = reasons.find(op); it != reasons.end()) {
      matmul.emitRemark("the ") << *kind << " would suit the tensor cores, but "
                                << it->second << ": computed with FMA code";
      continue;
    }
    const Accumulator &acc =
        *llvm::find_if(accumulators, [&](const Accumulator &acc) {
          return llvm::is_contained(acc.ops, op);
        });
    matmul.emitRemark("computed on the tensor cores: mma.sync.m16n8k16 on ")
        << acc.tiling.warpsM * acc.tiling.warpsN << " warps ("
        << acc.tiling.warpsM << "x" << acc.tiling.warpsN << "), "
        << acc.tiling.getWarpRows() << "x" << acc.tiling.getWarpColumns()
        << " of the accumulator per warp";
  }
  for (Accumulator &acc : accumulators)
    rewriteAccumulator(rewriter, acc);
}

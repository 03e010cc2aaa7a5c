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
// and the CTA mapping keeps them in registers. The A and B fragments come
// from shared memory with `ldmatrix`, whose tiles get a row pitch that
// spreads each 8x8 matrix over all banks. See docs/design.md, "Tensor
// cores".
//
//===----------------------------------------------------------------------===//

#include "MmaSyncFragments.h"
#include "Vx/Conversion/VxTransferToNVGPU/SharedLayout.h"
#include "Vx/Target/Limits.h"
#include "Vx/Transforms/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::vx;

namespace {
/// `ldmatrix` reads 8x8 matrices of 16-bit elements, a row of 16 bytes per
/// lane address; shared memory has 32 banks of 4 bytes (128 bytes a row).
constexpr int64_t kMatrixRows = 8, kMatrixRowBytes = 16;
constexpr int64_t kBankRowBytes = 128;

/// A private accumulator computed on the tensor cores, with the tile ops
/// that touch it.
struct Accumulator {
  ScratchOp scratch;
  SmallVector<Operation *> ops;
  MmaTiling tiling;
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

std::optional<std::string>
vx::getMmaSyncMatmulReason(linalg::MatmulOp matmul, SpawnOp spawn,
                           const TileOpsOptions &options, bool allowPrivateA) {
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
  for (Value operand : matmul.getInputs().drop_front(allowPrivateA ? 1 : 0))
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
  for (int64_t warps = std::min(ctaSize / vx::kWarpSize, rows * columns);
       warps > 1; --warps) {
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

bool vx::isTruncatingCopy(Operation *op, Value tile) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!isa<linalg::MapOp, linalg::GenericOp>(op) ||
      linalgOp.getNumDpsInputs() != 1 || linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getDpsInputOperand(0)->get() != tile ||
      linalgOp.getNumParallelLoops() != linalgOp.getNumLoops() ||
      !llvm::all_of(linalgOp.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block &body = op->getRegion(0).front();
  auto truncf = dyn_cast<arith::TruncFOp>(body.front());
  Operation *yield = body.getTerminator();
  return truncf && truncf.getIn() == body.getArgument(0) &&
         yield->getNumOperands() == 1 &&
         yield->getOperand(0) == truncf.getResult();
}

/// Why the accumulator `scratch` cannot live in the fragment layout: a use
/// other than a fill of it, a matmul into it and a copy out of it (into
/// memory that is not private; also converted, isTruncatingCopy), all tile
/// ops. Collects the uses.
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
    } else if (isa<memref::CopyOp, linalg::CopyOp>(user) ||
               isTruncatingCopy(user, tile)) {
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

/// On any CTA whose size is a multiple of 32 iteration i runs on a thread
/// whose lane is the one the fragment layout assumes.
void vx::buildLaneLoop(OpBuilder &b, Location loc, const MmaTiling &tiling,
                       function_ref<void(OpBuilder &, Lane)> body) {
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  SmallVector<Value> lower(4, index(0)), steps(4, index(1));
  SmallVector<Value> upper = {index(tiling.warpsM), index(tiling.warpsN),
                              index(vx::kWarpSize / kLanesPerRow),
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

/// As the PTX ISA lays a register out: the first element in the low half.
Value vx::packRegister(OpBuilder &b, Location loc, Value pair) {
  // nvvm.mma.sync takes bf16 pairs as i32 and f16 pairs as vector<2xf16>.
  if (!getElementTypeOrSelf(pair.getType()).isBF16())
    return pair;
  Value bits = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), pair);
  return vector::ExtractOp::create(b, loc, bits, ArrayRef<int64_t>{0});
}

namespace {
/// A group of A or B registers that one `ldmatrix` loads: register j holds
/// the 8x8 matrix whose offset from the group's origin is 8 times bit
/// `outerBit` of j along M (A) or N (B), 8 times bit `kBit` of j along K.
struct RegisterGroup {
  int64_t count;
  std::optional<unsigned> outerBit;
  unsigned kBit;

  int64_t getOuterOffset(int64_t j) const {
    return outerBit ? ((j >> *outerBit) & 1) * kMatrixRows : 0;
  }
  int64_t getKOffset(int64_t j) const {
    return ((j >> kBit) & 1) * kMatrixRows;
  }
};

/// A's four registers of a 16x16 fragment (a0..a3: rows g and g + 8, then
/// the same with K + 8); B's two of one 8-column fragment (b0, b1: K and
/// K + 8), or four of two neighbouring ones.
constexpr RegisterGroup kAGroup{4, 0, 1};
constexpr RegisterGroup kBGroup{2, std::nullopt, 0};
constexpr RegisterGroup kBPairGroup{4, 1, 0};

/// Loads the registers of A or B, seen as an (outer, K) matrix with outer
/// M for A and N for B, for one lane: with `ldmatrix` from shared memory,
/// or element by element.
class OperandLoader {
public:
  OperandLoader(OpBuilder &b, Location loc, linalg::MatmulOp matmul,
                OpOperand &operand, const Lane &lane, bool ldmatrix)
      : b(b), loc(loc), matmul(matmul), operand(operand), lane(lane),
        ldmatrix(ldmatrix) {}

  /// The registers of `group` at (outer, k) = (`outer`, `k`).
  SmallVector<Value> load(Value outer, Value k, const RegisterGroup &group) {
    return ldmatrix ? loadMatrices(outer, k, group)
                    : loadElements(outer, k, group);
  }

private:
  /// The indices of `operand` at (outer, k).
  SmallVector<Value> getIndices(Value outer, Value k) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    bool isA = operand.getOperandNumber() == 0;
    return getOperandIndices(matmul, operand, isA ? outer : zero,
                             isA ? zero : outer, k);
  }

  /// Whether K is the contiguous dimension of the stored operand (else the
  /// matrices are stored transposed).
  bool isKContiguous() {
    AffineMap map = matmul.getMatchingIndexingMap(&operand);
    return cast<AffineDimExpr>(map.getResults().back()).getPosition() == 2;
  }

  /// Lane l gives the address of row l mod 8 of matrix (l / 8) mod count:
  /// along K where K is contiguous, else along the outer dimension, which
  /// `.trans` turns into the same registers (PTX ISA, ldmatrix).
  SmallVector<Value> loadMatrices(Value outer, Value k,
                                  const RegisterGroup &group) {
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    // l = 4 * group + pair, so l mod 8 = 4 (group mod 2) + pair and bit n of
    // l / 8 is bit n + 1 of the lane's group.
    Value row = buildSum(
        b, loc,
        {{arith::RemUIOp::create(b, loc, lane.group, index(2)), kLanesPerRow},
         {lane.pair, 1}},
        0);
    auto getOffset = [&](std::optional<unsigned> bit) -> Value {
      if (!bit)
        return index(0);
      Value shifted =
          arith::DivUIOp::create(b, loc, lane.group, index(int64_t(2) << *bit));
      return buildSum(
          b, loc,
          {{arith::RemUIOp::create(b, loc, shifted, index(2)), kMatrixRows}},
          0);
    };
    bool kContiguous = isKContiguous();
    Value rowOuter = kContiguous ? row : index(0);
    Value rowK = kContiguous ? index(0) : row;
    Value outerIndex = buildSum(
        b, loc, {{outer, 1}, {getOffset(group.outerBit), 1}, {rowOuter, 1}}, 0);
    Value kIndex =
        buildSum(b, loc, {{k, 1}, {getOffset(group.kBit), 1}, {rowK, 1}}, 0);
    auto type = cast<MemRefType>(operand.get().getType());
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    Value shared = memref::MemorySpaceCastOp::create(
        b, loc,
        MemRefType::get(type.getShape(), type.getElementType(),
                        type.getLayout(), workgroup),
        operand.get());
    auto matrices = nvgpu::LdMatrixOp::create(
        b, loc, VectorType::get({group.count, 2}, type.getElementType()),
        shared, getIndices(outerIndex, kIndex), !kContiguous, group.count);
    // Placed by the compiler: the spawn-body op check lets it through.
    matrices->setAttr(VxDialect::kTensorCoreAttrName, b.getUnitAttr());
    SmallVector<Value> registers;
    for (int64_t j = 0; j < group.count; ++j)
      registers.push_back(
          packRegister(b, loc, vector::ExtractOp::create(b, loc, matrices, j)));
    return registers;
  }

  /// Register j holds the elements (outer + g, k + 2 (lane % 4)) and the
  /// next along K, offset as the group's matrix j.
  SmallVector<Value> loadElements(Value outer, Value k,
                                  const RegisterGroup &group) {
    SmallVector<Value> registers;
    for (int64_t j = 0; j < group.count; ++j) {
      Value outerIndex = buildSum(b, loc, {{outer, 1}, {lane.group, 1}},
                                  group.getOuterOffset(j));
      SmallVector<Value> elements;
      for (int64_t element : {0, 1}) {
        Value kIndex = buildSum(b, loc, {{k, 1}, {lane.pair, 2}},
                                group.getKOffset(j) + element);
        elements.push_back(memref::LoadOp::create(
            b, loc, operand.get(), getIndices(outerIndex, kIndex)));
      }
      Value pair = vector::FromElementsOp::create(
          b, loc, VectorType::get({2}, elements[0].getType()), elements);
      registers.push_back(packRegister(b, loc, pair));
    }
    return registers;
  }

  OpBuilder &b;
  Location loc;
  linalg::MatmulOp matmul;
  OpOperand &operand;
  const Lane &lane;
  bool ldmatrix;
};
} // namespace

/// A's four registers of M fragment `fm` at K step `kStep` from the
/// fragments of a private tile (FlashAttention-2's P), as
/// getRegisterAOffset places them.
static SmallVector<Value> loadRegisterA(OpBuilder &b, Location loc,
                                        const RegisterOperand &operand,
                                        const Lane &lane, Value fm,
                                        Value kStep) {
  const MmaTiling &tiling = operand.tiling;
  Type type = getElementTypeOrSelf(operand.fragments.getType());
  SmallVector<Value> registers;
  for (int64_t j = 0; j < 4; ++j) {
    SmallVector<Value> pair;
    for (int64_t element : {0, 1}) {
      Value index = buildSum(b, loc,
                             {{fm, tiling.fragsN * kValuesPerFragment},
                              {kStep, 2 * kValuesPerFragment}},
                             getRegisterAOffset(j, element));
      pair.push_back(memref::LoadOp::create(
          b, loc, operand.fragments,
          ValueRange{lane.warpM, lane.warpN, lane.group, lane.pair, index}));
    }
    registers.push_back(
        packRegister(b, loc,
                     vector::FromElementsOp::create(
                         b, loc, VectorType::get({2}, type), pair)));
  }
  return registers;
}

/// The body of the matmul's thread loop for `lane`: loops along K in steps
/// of 16, over the warp's M fragments and over its N fragments in pairs
/// (one at a time when there is an odd number), each iteration loading its
/// A and B registers (`ldmatrix` where `ldmatrix` says so, per operand) and
/// accumulating one `mma.sync` per N fragment. Loops, not copies: the
/// checker and the ownership proof reason on them symbolically; the
/// ownership rewrite unrolls them, after which LLVM merges the loads that
/// repeat across fragments (each A and B register is loaded once a step).
void vx::buildMmaSync(OpBuilder &b, Location loc, linalg::MatmulOp matmul,
                      const MmaTiling &tiling, std::array<bool, 2> ldmatrix,
                      Value fragments, const Lane &lane,
                      const std::optional<RegisterOperand> &registerA) {
  int64_t k = matmul.getStaticLoopRanges()[2];
  Type elementType = getElementTypeOrSelf(matmul.getInputs()[0].getType());
  NVVM::MMATypes ptxType =
      elementType.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  int64_t fragsPerB = tiling.fragsN % 2 == 0 ? 2 : 1;
  const RegisterGroup &bGroup = fragsPerB == 2 ? kBPairGroup : kBGroup;
  buildLoops(
      b, loc, {k / kMmaK, tiling.fragsM, tiling.fragsN / fragsPerB},
      [&](OpBuilder &nested, ValueRange ivs) {
        Value kStep = buildSum(nested, loc, {{ivs[0], kMmaK}}, 0);
        Value fm = ivs[1], bIndex = ivs[2];
        OperandLoader aLoader(nested, loc, matmul, matmul->getOpOperand(0),
                              lane, ldmatrix[0]);
        OperandLoader bLoader(nested, loc, matmul, matmul->getOpOperand(1),
                              lane, ldmatrix[1]);
        Value row = buildSum(
            nested, loc, {{lane.warpM, tiling.getWarpRows()}, {fm, kMmaM}}, 0);
        SmallVector<Value> aRegisters =
            registerA ? loadRegisterA(nested, loc, *registerA, lane, fm, ivs[0])
                      : aLoader.load(row, kStep, kAGroup);
        Value column = buildSum(nested, loc,
                                {{lane.warpN, tiling.getWarpColumns()},
                                 {bIndex, fragsPerB * kMmaN}},
                                0);
        SmallVector<Value> bRegisters = bLoader.load(column, kStep, bGroup);
        FragmentBuilder accumulator(nested, loc, tiling, fragments, lane);
        Type f32 = nested.getF32Type();
        auto resultType = LLVM::LLVMStructType::getLiteral(
            nested.getContext(), {f32, f32, f32, f32});
        for (int64_t half = 0; half < fragsPerB; ++half) {
          // Fragment (fm, fragsPerB bIndex + half), as one sum of the loop
          // counters: the checker proves sums of counters owned directly.
          SmallVector<Value> indices, values;
          for (int64_t value = 0; value < kValuesPerFragment; ++value) {
            indices.push_back(
                buildSum(nested, loc,
                         {{fm, tiling.fragsN * kValuesPerFragment},
                          {bIndex, fragsPerB * kValuesPerFragment}},
                         half * kValuesPerFragment + value));
            values.push_back(accumulator.load(indices.back()));
          }
          auto mma = NVVM::MmaOp::create(
              nested, loc, resultType, aRegisters,
              ArrayRef(bRegisters).slice(2 * half, 2), values,
              {kMmaM, kMmaN, kMmaK}, std::nullopt, std::nullopt,
              std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          mma->setAttr(VxDialect::kTensorCoreAttrName, nested.getUnitAttr());
          for (int64_t value = 0; value < kValuesPerFragment; ++value) {
            auto result =
                LLVM::ExtractValueOp::create(nested, loc, mma.getRes(), value);
            result->setAttr(VxDialect::kTensorCoreAttrName,
                            nested.getUnitAttr());
            accumulator.store(result, indices[value]);
          }
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
        Value value = accumulator.load(index);
        Type type = getElementTypeOrSelf(target.getType());
        if (value.getType() != type)
          value = arith::TruncFOp::create(nested, loc, type, value);
        memref::StoreOp::create(nested, loc, value, target,
                                ValueRange{row, column});
      });
}

/// The shared-memory scratch that `value` views through subviews, if any.
static ScratchOp getSharedScratch(Value value) {
  while (auto subview = value.getDefiningOp<memref::SubViewOp>())
    value = subview.getSource();
  auto scratch = value.getDefiningOp<ScratchOp>();
  if (scratch && scratch.getPlacement() == Memory::smem)
    return scratch;
  return nullptr;
}

/// Every lane gives the address of a row of 16 bytes, in shared memory,
/// 16-byte aligned.
std::optional<std::string> vx::getLdmatrixReason(OpOperand &operand) {
  if (!getSharedScratch(operand.get()))
    return std::string("it is not shared-memory scratch");
  auto type = cast<MemRefType>(operand.get().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(strides.front()) ||
      ShapedType::isDynamic(offset))
    return std::string("its rows are not contiguous at a static pitch");
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  if ((strides.front() * bytes) % kMatrixRowBytes ||
      (offset * bytes) % kMatrixRowBytes)
    return std::string("its rows are not 16-byte aligned");
  return std::nullopt;
}

/// Gives each shared tile that the matmuls of `accumulators` read directly
/// a row pitch at which `ldmatrix` is bank-conflict-free: the eight rows of
/// 16 bytes of a matrix fall on distinct quarters of the 128 bytes of
/// banks when the pitch is an odd multiple of 16 bytes, so an even one
/// gets 16 bytes of padding. The tile becomes a view of a wider scratch,
/// so every writer (thread loops, transfers, copies) uses the same layout.
/// A tile that a TMA copy may write (on chips with TMA) keeps the dense
/// layout that TMA writes.
/// Remarks name the layout of each tile.
void vx::chooseSharedLayouts(RewriterBase &rewriter,
                             ArrayRef<linalg::MatmulOp> matmuls,
                             const TileOpsOptions &options) {
  SetVector<ScratchOp> tiles;
  for (linalg::MatmulOp matmul : matmuls)
    for (Value input : matmul.getInputs())
      if (auto scratch = input.getDefiningOp<ScratchOp>();
          scratch && scratch.getPlacement() == Memory::smem &&
          scratch.getType().getLayout().isIdentity())
        tiles.insert(scratch);
  for (ScratchOp tile : tiles) {
    MemRefType type = tile.getType();
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    int64_t pitch = type.getShape().back() * elementBytes;
    if (pitch % kMatrixRowBytes)
      continue;
    int64_t ways =
        std::gcd(pitch / kMatrixRowBytes, kBankRowBytes / kMatrixRowBytes);
    if (ways == 1 || (options.chip->hasTMA() && hasTMAWriter(tile))) {
      if (!options.remarkOnMatmuls)
        continue;
      InFlightDiagnostic remark = tile.emitRemark("ldmatrix reads this tile "
                                                  "with dense rows of ")
                                  << pitch << " bytes";
      if (ways == 1)
        remark << ": bank-conflict-free";
      else
        remark << ", the layout TMA writes on " << options.chip->getName()
               << ": " << ways << "-way bank conflicts";
      continue;
    }
    ScratchOp padded =
        padScratchRows(rewriter, tile, kMatrixRowBytes / elementBytes);
    if (options.remarkOnMatmuls)
      padded.emitRemark("ldmatrix reads this tile with rows padded from ")
          << pitch << " to " << pitch + kMatrixRowBytes
          << " bytes: bank-conflict-free";
  }
}

/// Remarks on each operand of `matmul` in memory that `ldmatrix` cannot
/// read, with the reason.
static void remarkOnElementLoads(linalg::MatmulOp matmul, SpawnOp spawn) {
  for (int64_t operand : {0, 1}) {
    if (!getPrivateTiles(matmul->getOperand(operand), spawn).empty())
      continue; // Registers.
    if (std::optional<std::string> reason =
            getLdmatrixReason(matmul->getOpOperand(operand)))
      matmul.emitRemark("operand ")
          << (operand == 0 ? "A" : "B")
          << " is loaded element by element, not with ldmatrix: " << *reason;
  }
}

/// Replaces `acc`'s scratch by one in the fragment layout and its ops by
/// thread loops over the lanes.
static void rewriteAccumulator(RewriterBase &rewriter, Accumulator &acc) {
  const MmaTiling &tiling = acc.tiling;
  Location loc = acc.scratch.getLoc();
  rewriter.setInsertionPoint(acc.scratch);
  auto type = MemRefType::get({tiling.warpsM, tiling.warpsN,
                               vx::kWarpSize / kLanesPerRow, kLanesPerRow,
                               tiling.getValuesPerLane()},
                              getElementTypeOrSelf(acc.scratch.getType()));
  Value fragments =
      ScratchOp::create(rewriter, loc, type, acc.scratch.getMemoryAttr());
  for (Operation *op : acc.ops) {
    rewriter.setInsertionPoint(op);
    buildLaneLoop(rewriter, op->getLoc(), tiling, [&](OpBuilder &b, Lane lane) {
      Location opLoc = op->getLoc();
      if (auto fill = dyn_cast<linalg::FillOp>(op)) {
        buildFill(b, opLoc, fill, tiling, fragments, lane);
      } else if (auto matmul = dyn_cast<linalg::MatmulOp>(op)) {
        std::array<bool, 2> ldmatrix;
        for (int64_t operand : {0, 1})
          ldmatrix[operand] = !getLdmatrixReason(matmul->getOpOperand(operand));
        buildMmaSync(b, opLoc, matmul, tiling, ldmatrix, fragments, lane,
                     std::nullopt);
      } else {
        buildCopyOut(b, opLoc, op->getOperand(1), tiling, fragments, lane);
      }
    });
    rewriter.eraseOp(op);
  }
  rewriter.eraseOp(acc.scratch);
}

LogicalResult
vx::lowerFragmentGroups(RewriterBase &rewriter, SpawnOp spawn,
                        ArrayRef<Operation *> tileOps,
                        const TileOpsOptions &options,
                        DenseMap<Operation *, std::string> &reasons) {
  int64_t ctaSize = spawn.getCTASize(
      options.threadsPerBlock ? options.threadsPerBlock : kDefaultCTASize);
  FailureOr<SmallVector<FragmentGroup>> planned =
      planFragmentGroups(spawn, tileOps, options, ctaSize, reasons);
  if (failed(planned))
    return failure();
  SmallVector<FragmentGroup> &groups = *planned;
  // On sm_90a the groups that fit take wgmma; the others keep mma.sync,
  // with the reason in their remarks.
  SmallVector<std::optional<std::string>> notWgmma(groups.size());
  if (options.chip->hasWgmma())
    for (auto [group, why] : llvm::zip_equal(groups, notWgmma))
      why = planWgmmaGroup(group, spawn, ctaSize);
  SmallVector<linalg::MatmulOp> matmuls;
  for (const FragmentGroup &group : groups)
    if (!group.wgmma)
      llvm::append_range(matmuls, group.getMatmuls());
  chooseSharedLayouts(rewriter, matmuls, options);
  if (options.remarkOnMatmuls) {
    for (auto [group, why] : llvm::zip_equal(groups, notWgmma)) {
      for (linalg::MatmulOp matmul : group.getMatmuls()) {
        int64_t columns = matmul.getStaticLoopRanges()[1];
        bool registerA = !getPrivateTiles(matmul.getInputs()[0], spawn).empty();
        InFlightDiagnostic remark =
            matmul.emitRemark("computed on the tensor cores: ");
        if (group.wgmma)
          remark << "wgmma.mma_async.m64n" << columns << "k16 on "
                 << group.warpsM
                 << (group.warpsM == 1 ? " warpgroup, " : " warpgroups, ")
                 << group.fragsM * group.getFragmentRows() << "x" << columns
                 << " of the accumulator per warpgroup";
        else
          remark << "mma.sync.m16n8k16 on " << group.warpsM << " warps ("
                 << group.warpsM << "x1), " << group.fragsM * kMmaM << "x"
                 << columns << " of the accumulator per warp";
        remark << ", with the row and elementwise tile ops of its "
               << group.tiles.size() << " private tiles in the fragment layout"
               << (registerA ? "; A from registers" : "");
        if (group.wgmma)
          remark << (registerA ? ", B" : "; A and B")
                 << " in shared memory through descriptors";
        if (why)
          remark << "; not wgmma.mma_async: " << *why;
        remark.report();
        if (!group.wgmma)
          remarkOnElementLoads(matmul, spawn);
      }
    }
  }
  for (const FragmentGroup &group : groups)
    rewriteFragmentGroup(rewriter, group);
  return success();
}

LogicalResult vx::lowerMatmulsToMmaSync(RewriterBase &rewriter, SpawnOp spawn,
                                        ArrayRef<Operation *> tileOps,
                                        const TileOpsOptions &options) {
  int64_t ctaSize = spawn.getCTASize(
      options.threadsPerBlock ? options.threadsPerBlock : kDefaultCTASize);
  SmallVector<Accumulator> accumulators;
  DenseMap<Operation *, std::string> reasons;
  if (failed(lowerFragmentGroups(rewriter, spawn, tileOps, options, reasons)))
    return failure();
  // The groups' ops are thread loops now.
  SmallVector<Operation *> rest = getTileOps(spawn);
  tileOps = rest;
  for (Operation *op : tileOps) {
    auto matmul = dyn_cast<linalg::MatmulOp>(op);
    if (!matmul || !getTensorCoreKind(matmul, options.tf32) ||
        reasons.contains(op))
      continue;
    ScratchOp scratch = getMatmulAccumulator(matmul);
    std::optional<std::string> reason =
        getMmaSyncMatmulReason(matmul, spawn, options, false);
    if (!reason && !scratch)
      reason = "the accumulator is not a private scratch tile";
    if (!reason && ctaSize % vx::kWarpSize != 0)
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
  SmallVector<linalg::MatmulOp> matmuls;
  for (const Accumulator &acc : accumulators)
    for (Operation *op : acc.ops)
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
        matmuls.push_back(matmul);
  chooseSharedLayouts(rewriter, matmuls, options);
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
    remarkOnElementLoads(matmul, spawn);
  }
  for (Accumulator &acc : accumulators)
    rewriteAccumulator(rewriter, acc);
  return success();
}

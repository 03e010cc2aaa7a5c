//===- WgmmaTileOps.cpp - linalg.matmul tile ops on wgmma.mma_async -------===//
//
// A linalg.matmul tile op (VX_SPEC section 2.3) with bf16 or f16 operands
// in smem scratch and a private f32 accumulator becomes sm_90a's warpgroup
// MMA, `wgmma.mma_async.m64nNk16`: the CTA's warpgroups (128 threads each)
// split the accumulator's rows in blocks of 64, each lane keeps the values
// that the PTX ISA's wgmma fragment layout gives it (registers across the
// arbitrary steps), and A and B are read from shared memory through matrix
// descriptors. The operand tiles are in the swizzled layout that their TMA
// transfers write: the tile's scratch carries the swizzle (kSwizzleAttrName,
// a row of 32, 64 or 128 bytes; wider rows are panels of it, a TMA box
// each), which the TMA tensor map and the descriptors then agree on. See
// docs/design.md, "Tensor cores".
//
//===----------------------------------------------------------------------===//

#include "MmaSyncFragments.h"
#include "Vx/Conversion/VxTransferToNVGPU/TMA.h"
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
/// The shape of one `wgmma.mma_async` (m64nNk16, N a multiple of 8 up to
/// 256) and of the warpgroup that issues it.
constexpr int64_t kWgmmaM = 64, kWgmmaK = 16, kWgmmaNStep = 8;
constexpr int64_t kWgmmaMaxN = 256;
constexpr int64_t kWarpgroupSize = kWarpsPerWarpgroup * vx::kWarpSize;
/// Per warp, the accumulator layout is mma.sync's C fragment (16 rows)
/// tiled over N: 4 values of a lane per 8 columns (two rows, two columns).
constexpr int64_t kRowsPerWarp = kMmaM;
constexpr int64_t kValuesPerColumnBlock = kValuesPerFragment;
/// The swizzle widths, in bytes of a row, that TMA and the descriptors
/// share, widest first; the pattern repeats every 8 rows.
constexpr int64_t kSwizzleRows = 8;
constexpr std::array<int64_t, 3> kSwizzleWidths = {128, 64, 32};

/// How an operand tile sits in shared memory: panels of `swizzle` bytes of
/// every row (the tile's rows are one or more swizzle widths), each its
/// rows one after the other, swizzled; K along a row (K-major) or M/N
/// along it (MN-major).
struct OperandLayout {
  ScratchOp scratch;
  int64_t swizzle = 0;
  bool kMajor = true;

  MemRefType getTileType() const { return ScratchOp(scratch).getType(); }
  /// The bytes of a panel, the distance between two.
  int64_t getPanelBytes() const {
    return getTileType().getShape().front() * swizzle;
  }
  /// The panels of the tile, and the columns of each.
  int64_t getPanels() const {
    MemRefType type = getTileType();
    return type.getShape().back() * type.getElementTypeBitWidth() / 8 / swizzle;
  }
  int64_t getPanelColumns() const {
    return swizzle * 8 / getTileType().getElementTypeBitWidth();
  }
  /// The constant part of the matrix descriptor (PTX ISA, "Matrix
  /// Descriptor Format"): leading and stride byte offsets >> 4 in bits
  /// 16-29 and 32-45, the swizzle mode in bits 62-63. Rows 8 apart are one
  /// swizzle pattern (8 rows of `swizzle` bytes) apart. For an MN-major
  /// tile the leading offset is the distance between the panels that one
  /// wgmma's N (or M) spans; a K-major one's K step stays in a panel, and
  /// its leading offset is unused (16 bytes, as CUTLASS sets it).
  int64_t getDescriptorBits() const {
    int64_t pattern = kSwizzleRows * swizzle;
    int64_t leading = kMajor ? 16 : getPanelBytes();
    int64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    return (leading >> 4) << 16 | (pattern >> 4) << 32 | mode << 62;
  }
  /// The bytes from the tile's start to its K step `step` (16 wide): 16
  /// rows on (MN-major), or 32 bytes along the rows, in the panel that
  /// holds them (K-major).
  int64_t getKStepBytes(int64_t step) const {
    if (!kMajor)
      return step * kWgmmaK * swizzle;
    int64_t column = step * kWgmmaK * 2;
    return column / swizzle * getPanelBytes() + column % swizzle;
  }
};

/// How the warpgroups of the CTA cover an M x N accumulator: `warpgroups`
/// blocks of rows, each `fragsM` wgmma fragments of 64 x N.
struct WgmmaTiling {
  int64_t warpgroups, fragsM, n;

  int64_t getWarpgroupRows() const { return fragsM * kWgmmaM; }
  int64_t getFragmentValues() const {
    return n / kWgmmaNStep * kValuesPerColumnBlock;
  }
  int64_t getValuesPerLane() const { return fragsM * getFragmentValues(); }
  /// The warps as the lane loop of MmaSyncFragments.h runs them: warp m is
  /// the warpgroup, warp n its warp.
  MmaTiling getWarpTiling() const {
    return {warpgroups, kWarpsPerWarpgroup, fragsM, n / kWgmmaNStep};
  }
};

/// A matmul that wgmma computes, with the layouts of its operands.
struct WgmmaMatmul {
  linalg::MatmulOp matmul;
  OperandLayout a, b;
};

/// A private accumulator computed on the tensor cores, with the tile ops
/// that touch it.
struct Accumulator {
  ScratchOp scratch;
  SmallVector<Operation *> ops;
  WgmmaTiling tiling;
  /// Whether its matmul's group may stay in flight into the next step
  /// (kDeferrableWaitAttrName).
  bool deferrable = false;
};
} // namespace

/// Marks `op` as an op of the tensor-core code: it touches registers only
/// (or reads a tile's address, see MemoryRoots), which a spawn body holds
/// although user code may not.
template <typename OpT>
static OpT markTensorCore(OpT op) {
  op->setAttr(VxDialect::kTensorCoreAttrName,
              UnitAttr::get(op->getContext()));
  return op;
}

/// The operand name of `index` (0: A, 1: B) for the remarks.
static StringRef getOperandName(unsigned index) { return index ? "B" : "A"; }

/// Why `transfer`, the one that writes the tile `scratch`, would not be a
/// TMA copy with the `swizzle` layout, or nothing.
static std::optional<std::string> getTransferReason(TransferAsyncOp transfer,
                                                    ScratchOp scratch,
                                                    int64_t swizzle,
                                                    SpawnOp spawn) {
  std::string why;
  if (failed(matchTMATile(transfer.getSrc(), scratch.getType(),
                          spawn.getBody(), why, swizzle)))
    return why;
  return std::nullopt;
}

/// The layout of operand `index` of `matmul` by its tile alone, or why
/// wgmma cannot read it: a whole smem scratch tile whose rows (along the
/// innermost dimension) are a multiple of a swizzle width, the widest that
/// divides them.
static FailureOr<OperandLayout>
getTileLayout(linalg::MatmulOp matmul, unsigned index, std::string &why) {
  StringRef name = getOperandName(index);
  OpOperand &operand = matmul->getOpOperand(index);
  auto scratch = operand.get().getDefiningOp<ScratchOp>();
  if (!scratch || scratch.getPlacement() != Memory::smem) {
    why = ("the " + name +
           " tile is not an smem scratch tile (wgmma reads whole tiles in "
           "shared memory)")
              .str();
    return failure();
  }
  OperandLayout layout;
  layout.scratch = scratch;
  // A (m, k) or B (n, k) is K-major; B (k, n) is MN-major.
  unsigned kDim = cast<AffineDimExpr>(
                      matmul.getMatchingIndexingMap(&operand).getResult(1))
                      .getPosition();
  layout.kMajor = kDim == 2;
  if (index == 0 && !layout.kMajor) {
    why = "A is read transposed (M-major), which the wgmma lowering does not "
          "build";
    return failure();
  }
  MemRefType type = scratch.getType();
  int64_t rowBytes = type.getShape().back() * type.getElementTypeBitWidth() / 8;
  const int64_t *swizzle = llvm::find_if(
      kSwizzleWidths, [&](int64_t width) { return rowBytes % width == 0; });
  if (swizzle == kSwizzleWidths.end()) {
    why = ("the rows of the " + name + " tile are " + Twine(rowBytes) +
           " bytes, and the swizzled layouts that TMA writes and wgmma reads "
           "take rows of a multiple of 32 bytes")
              .str();
    return failure();
  }
  layout.swizzle = *swizzle;
  return layout;
}

/// The layout of operand `index` of `matmul`, or why wgmma cannot read it:
/// a tile of getTileLayout written only by TMA transfers (or swizzled
/// elementwise writers) and read only by matmuls.
static FailureOr<OperandLayout> getOperandLayout(linalg::MatmulOp matmul,
                                                 unsigned index, SpawnOp spawn,
                                                 std::string &why) {
  FailureOr<OperandLayout> layout = getTileLayout(matmul, index, why);
  if (failed(layout))
    return failure();
  StringRef name = getOperandName(index);
  ScratchOp scratch = layout->scratch;
  for (Operation *user : scratch->getUsers()) {
    if (auto transfer = dyn_cast<TransferAsyncOp>(user);
        transfer && transfer.getDst() == scratch.getResult()) {
      if (std::optional<std::string> reason =
              getTransferReason(transfer, scratch, layout->swizzle, spawn)) {
        why = ("the transfer into the " + name +
               " tile cannot be a TMA copy, which writes the swizzled layout "
               "that wgmma reads: " + *reason)
                  .str();
        return failure();
      }
      continue;
    }
    if (isSwizzledTileWriter(user, scratch.getResult(), spawn))
      continue;
    auto reader = dyn_cast<linalg::MatmulOp>(user);
    if (!reader || reader.getOutputs()[0] == scratch.getResult()) {
      why = ("the " + name + " tile is also accessed by '" +
             user->getName().getStringRef() +
             "' (only TMA transfers and elementwise tile ops write, and only "
             "matmuls read, the swizzled layout that wgmma reads)")
                .str();
      return failure();
    }
  }
  return layout;
}

/// Why `matmul`'s shape does not fit `wgmma.mma_async.m64nNk16` with one
/// wgmma along N, or nothing.
static std::optional<std::string> getShapeReason(linalg::MatmulOp matmul) {
  SmallVector<int64_t> ranges = matmul.getStaticLoopRanges();
  int64_t m = ranges[0], n = ranges[1], k = ranges[2];
  if (m % kWgmmaM != 0)
    return ("M (" + Twine(m) + ") is not a multiple of " + Twine(kWgmmaM) +
            " (wgmma.mma_async's m64)")
        .str();
  if (n % kWgmmaNStep != 0 || n > kWgmmaMaxN)
    return ("N (" + Twine(n) + ") is not a multiple of 8 up to 256 "
            "(wgmma.mma_async's n)")
        .str();
  if (k % kWgmmaK != 0)
    return ("K (" + Twine(k) + ") is not a multiple of " + Twine(kWgmmaK))
        .str();
  return std::nullopt;
}

/// Why `matmul` cannot be one on `wgmma.mma_async` by itself (its types,
/// shape and operands), or nothing; fills `wgmma` when it can.
static std::optional<std::string> getMatmulReason(linalg::MatmulOp matmul,
                                                  SpawnOp spawn,
                                                  const TileOpsOptions &options,
                                                  WgmmaMatmul &wgmma) {
  if (std::optional<std::string> why =
          getTensorCoreMatmulReason(matmul, options))
    return why;
  if (std::optional<std::string> why = getShapeReason(matmul))
    return why;
  wgmma.matmul = matmul;
  for (unsigned index : {0u, 1u}) {
    std::string why;
    FailureOr<OperandLayout> layout =
        getOperandLayout(matmul, index, spawn, why);
    if (failed(layout))
      return why;
    (index ? wgmma.b : wgmma.a) = *layout;
  }
  return std::nullopt;
}

/// Whether `wgmma`, the only matmul of `spawn` on wgmma, may leave its group
/// in flight into the next step (kDeferrableWaitAttrName): it runs in
/// every step (directly in the body, so each step's group retires the
/// previous one's), and only TMA transfers write its operand tiles (a
/// pipeline then decides where their slots are refilled).
static bool isDeferrable(WgmmaMatmul wgmma, SpawnOp spawn) {
  if (wgmma.matmul->getBlock() != &spawn.getBody().front())
    return false;
  return llvm::all_of(
      std::array<OperandLayout, 2>{wgmma.a, wgmma.b},
      [&](const OperandLayout &layout) {
        return llvm::all_of(layout.scratch->getUsers(), [&](Operation *user) {
          return user == wgmma.matmul || isa<TransferAsyncOp>(user);
        });
      });
}

/// The warpgroups for an M x N accumulator on `warpgroups` of them: the
/// most that divide its 64-row fragments.
static WgmmaTiling chooseTiling(int64_t m, int64_t n, int64_t warpgroups) {
  int64_t fragments = m / kWgmmaM;
  int64_t used = std::min(warpgroups, fragments);
  while (fragments % used)
    --used;
  return {used, fragments / used, n};
}

/// The indices of value `value` of the lane's part of the accumulator.
static SmallVector<Value> getFragmentIndices(const Lane &lane, Value value) {
  return {lane.warpM, lane.warpN, lane.group, lane.pair, value};
}

/// The matrix descriptor of `layout`'s tile from `offset` bytes into it
/// (an index), as i64: the shared address >> 4 in bits 0-13. The tile's
/// address is that of its view's base plus its offset, so the slots of a
/// pipeline and the views of the shared-memory layout keep it.
static Value buildDescriptor(OpBuilder &b, Location loc,
                             OperandLayout layout, Value offset) {
  Value tile = layout.scratch.getResult();
  auto metadata =
      markTensorCore(memref::ExtractStridedMetadataOp::create(b, loc, tile));
  Value base = markTensorCore(memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, metadata.getBaseBuffer()));
  int64_t elementBytes = layout.scratch.getType().getElementTypeBitWidth() / 8;
  Value address = buildSum(
      b, loc, {{base, 1}, {metadata.getOffset(), elementBytes}, {offset, 1}},
      0);
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, value);
  };
  Value bits = arith::IndexCastUIOp::create(b, loc, i64, address);
  bits = arith::ShRUIOp::create(b, loc, bits, constant(4));
  bits = arith::AndIOp::create(b, loc, bits, constant(0x3fff));
  return arith::OrIOp::create(b, loc, bits,
                              constant(layout.getDescriptorBits()));
}

/// `descriptor` moved on by `bytes` (a multiple of 16 within the shared
/// window, so the address field does not carry).
static Value offsetDescriptor(OpBuilder &b, Location loc, Value descriptor,
                              int64_t bytes) {
  if (bytes == 0)
    return descriptor;
  return arith::AddIOp::create(
      b, loc, descriptor,
      arith::ConstantIntOp::create(b, loc, b.getI64Type(), bytes >> 4));
}

/// The PTX of one `wgmma.mma_async.m64nNk16` with A from four registers
/// and B through a descriptor (which upstream's NVVM op does not build):
/// the accumulator's values are operands 0 to V - 1, tied to the inputs V
/// to 2V - 1, then A's registers and B's descriptor; with `scaleD` false
/// the accumulator's inputs are not added.
static std::pair<std::string, std::string>
getRegisterAWgmmaAsm(int64_t n, StringRef type, bool transposeB, bool scaleD) {
  int64_t values = n / kWgmmaNStep * kValuesPerColumnBlock;
  std::string code, constraints;
  llvm::raw_string_ostream asmCode(code), asmConstraints(constraints);
  asmCode << "wgmma.mma_async.sync.aligned.m64n" << n << "k16.f32." << type
          << "." << type << " {";
  for (int64_t value = 0; value < values; ++value) {
    asmCode << (value ? ", $" : "$") << value;
    asmConstraints << "=f,";
  }
  for (int64_t value = 0; value < values; ++value)
    asmConstraints << value << ",";
  int64_t a = 2 * values;
  asmCode << "}, {$" << a << ", $" << a + 1 << ", $" << a + 2 << ", $" << a + 3
          << "}, $" << a + 4 << ", " << scaleD << ", 1, 1, " << transposeB
          << ";";
  asmConstraints << "r,r,r,r,l";
  return {code, constraints};
}

/// One A register as the inline PTX takes it: the i32 of a pair of 16-bit
/// elements, the first in the low half.
static Value getRegisterBits(OpBuilder &b, Location loc, Value pair) {
  Value bits = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), pair);
  return vector::ExtractOp::create(b, loc, bits, ArrayRef<int64_t>{0});
}

/// The body of the matmul's thread loop for `lane`: the warpgroup's
/// fragments, loaded into wgmma's accumulator structs, accumulate every K
/// step of the tile in one wgmma group, which the lane waits for before it
/// stores the values back (registers, once the loop nest is unrolled). A
/// is read from `registerA` when given (the m16n8k16 A fragment of each
/// warp's 16 rows, as the PTX ISA lays out wgmma's register A), else
/// through a descriptor. With `overwrite` the fragments' values are not
/// read: the first K step does not add them (scale-d 0), so their
/// registers need no writes before the fence. Returns the wait.
static NVVM::WgmmaWaitGroupSyncOp
buildWgmma(OpBuilder &b, Location loc, WgmmaMatmul wgmma,
           const WgmmaTiling &tiling, Value fragments, const Lane &lane,
           const std::optional<RegisterOperand> &registerA, bool overwrite) {
  MLIRContext *context = b.getContext();
  int64_t k = wgmma.matmul.getStaticLoopRanges()[2];
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value descriptorA;
  if (!registerA) {
    // A's rows of this warpgroup; B is shared by the warpgroups.
    Value aRows = buildSum(
        b, loc, {{lane.warpM, tiling.getWarpgroupRows() * wgmma.a.swizzle}}, 0);
    descriptorA = buildDescriptor(b, loc, wgmma.a, aRows);
  }
  Value descriptorB = buildDescriptor(b, loc, wgmma.b, zero);

  Type f32 = b.getF32Type();
  int64_t values = tiling.getFragmentValues();
  auto structType = LLVM::LLVMStructType::getLiteral(
      context, SmallVector<Type>(values, f32));
  auto valueIndex = [&](int64_t fm, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, fm * values + value);
  };
  // A fragment's values move as one vector, a single access for the
  // checker.
  auto vectorType = VectorType::get({values}, f32);
  SmallVector<Value> accumulators;
  for (int64_t fm = 0; fm < tiling.fragsM; ++fm) {
    Value acc = markTensorCore(LLVM::PoisonOp::create(b, loc, structType));
    if (overwrite) {
      accumulators.push_back(acc);
      continue;
    }
    Value vector =
        vector::LoadOp::create(b, loc, vectorType, fragments,
                               getFragmentIndices(lane, valueIndex(fm, 0)));
    for (int64_t value = 0; value < values; ++value) {
      Value element = vector::ExtractOp::create(b, loc, vector, value);
      acc = markTensorCore(
          LLVM::InsertValueOp::create(b, loc, acc, element, value));
    }
    accumulators.push_back(acc);
  }
  // A's registers from the lane's values of A's tile, loaded as one
  // vector (one access for the checker), before the fence as the
  // accumulators' (PTX ISA, "wgmma.fence": registers that wgmma reads are
  // written before it).
  SmallVector<SmallVector<Value>> aRegisters;
  if (registerA) {
    auto aType = cast<MemRefType>(registerA->fragments.getType());
    int64_t fragsN = registerA->tiling.fragsN;
    Value aValues = vector::LoadOp::create(
        b, loc,
        VectorType::get({aType.getShape().back()}, aType.getElementType()),
        registerA->fragments, getFragmentIndices(lane, zero));
    for (int64_t fm = 0; fm < tiling.fragsM; ++fm)
      for (int64_t step = 0; step < k / kWgmmaK; ++step) {
        SmallVector<Value> registers;
        for (int64_t reg = 0; reg < 4; ++reg) {
          SmallVector<Value> pair;
          for (int64_t element : {0, 1})
            pair.push_back(vector::ExtractOp::create(
                b, loc, aValues,
                fm * fragsN * kValuesPerFragment +
                    step * 2 * kValuesPerFragment +
                    getRegisterAOffset(reg, element)));
          registers.push_back(getRegisterBits(
              b, loc,
              vector::FromElementsOp::create(
                  b, loc, VectorType::get({2}, aType.getElementType()), pair)));
        }
        aRegisters.push_back(std::move(registers));
      }
  }
  markTensorCore(NVVM::WgmmaFenceAlignedOp::create(b, loc));
  Type elementType =
      getElementTypeOrSelf(wgmma.matmul.getInputs()[1].getType());
  auto types = NVVM::WGMMATypesAttr::get(
      context, elementType.isBF16() ? NVVM::WGMMATypes::bf16
                                    : NVVM::WGMMATypes::f16);
  auto scaleIn = NVVM::WGMMAScaleInAttr::get(context, NVVM::WGMMAScaleIn::one);
  auto layoutOf = [&](const OperandLayout &layout, bool isB) {
    // K-major is "row" for A and "col" for B (no transpose).
    bool rowLayout = layout.kMajor != isB;
    return NVVM::MMALayoutAttr::get(context, rowLayout
                                                 ? NVVM::MMALayout::row
                                                 : NVVM::MMALayout::col);
  };
  for (auto [fm, acc] : llvm::enumerate(accumulators))
    for (int64_t step = 0; step < k / kWgmmaK; ++step) {
      bool scaleD = step > 0 || !overwrite;
      Value stepA;
      if (!registerA)
        stepA = offsetDescriptor(b, loc, descriptorA,
                                 static_cast<int64_t>(fm) * kWgmmaM *
                                         wgmma.a.swizzle +
                                     wgmma.a.getKStepBytes(step));
      Value stepB =
          offsetDescriptor(b, loc, descriptorB, wgmma.b.getKStepBytes(step));
      if (registerA) {
        auto [code, constraints] = getRegisterAWgmmaAsm(
            tiling.n, elementType.isBF16() ? "bf16" : "f16", !wgmma.b.kMajor,
            scaleD);
        SmallVector<Value> operands;
        for (int64_t value = 0; value < values; ++value)
          operands.push_back(
              markTensorCore(LLVM::ExtractValueOp::create(b, loc, acc, value)));
        llvm::append_range(operands, aRegisters[fm * (k / kWgmmaK) + step]);
        operands.push_back(stepB);
        acc = markTensorCore(LLVM::InlineAsmOp::create(
                                 b, loc, structType, operands, code,
                                 constraints, /*has_side_effects=*/true,
                                 /*is_align_stack=*/false,
                                 LLVM::tailcallkind::TailCallKind::None,
                                 LLVM::AsmDialectAttr::get(
                                     context, LLVM::AsmDialect::AD_ATT),
                                 /*operand_attrs=*/ArrayAttr()))
                  .getResult(0);
        continue;
      }
      acc = markTensorCore(NVVM::WgmmaMmaAsyncOp::create(
          b, loc, structType, acc, stepA, stepB,
          NVVM::MMAShapeAttr::get(context, kWgmmaM, tiling.n, kWgmmaK), types,
          types, NVVM::WGMMATypesAttr::get(context, NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(context,
                                       scaleD ? NVVM::WGMMAScaleOut::one
                                              : NVVM::WGMMAScaleOut::zero),
          scaleIn, scaleIn, layoutOf(wgmma.a, false), layoutOf(wgmma.b, true),
          /*satfinite=*/nullptr));
    }
  markTensorCore(NVVM::WgmmaGroupSyncAlignedOp::create(b, loc));
  auto wait = markTensorCore(NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0));
  for (auto [fm, acc] : llvm::enumerate(accumulators)) {
    SmallVector<Value> elements;
    for (int64_t value = 0; value < values; ++value)
      elements.push_back(
          markTensorCore(LLVM::ExtractValueOp::create(b, loc, acc, value)));
    Value vector =
        vector::FromElementsOp::create(b, loc, vectorType, elements);
    vector::StoreOp::create(
        b, loc, vector, fragments,
        getFragmentIndices(lane, valueIndex(static_cast<int64_t>(fm), 0)));
  }
  return wait;
}

/// The body of a fill's thread loop: every value of the lane's part, then
/// a wgmma.fence, which orders these register writes before the next
/// wgmma.mma_async (PTX ISA, "wgmma.fence"). Being an op with effects, it
/// also keeps a fill that runs at the first step in its branch: without it
/// LLVM turns the branch into a select per accumulator, on every step.
static void buildFill(OpBuilder &b, Location loc, linalg::FillOp fill,
                      const WgmmaTiling &tiling, Value fragments,
                      const Lane &lane) {
  buildLoops(b, loc, {tiling.getValuesPerLane()},
             [&](OpBuilder &nested, ValueRange ivs) {
               memref::StoreOp::create(
                   nested, loc, fill.getInputs()[0], fragments,
                   getFragmentIndices(lane, ivs[0]));
             });
  markTensorCore(NVVM::WgmmaFenceAlignedOp::create(b, loc));
}

/// Whether `value` (an index) is a multiple of two: a constant that is, a
/// product with a factor that is, a sum of terms that are.
static bool isEven(OpFoldResult value) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return *constant % 2 == 0;
  auto operation = cast<Value>(value).getDefiningOp();
  if (auto product = dyn_cast_or_null<arith::MulIOp>(operation))
    return isEven(product.getLhs()) || isEven(product.getRhs());
  if (auto sum = dyn_cast_or_null<arith::AddIOp>(operation))
    return isEven(sum.getLhs()) && isEven(sum.getRhs());
  return false;
}

/// Whether the elements of `target` at even columns (its innermost index)
/// start pairs aligned to the pair's size: its innermost stride is 1, its
/// other strides and its offset are even, through same-rank subviews with
/// unit strides (then an even innermost offset keeps the offset even) of
/// memory whose base address is aligned to a pair (a GPU allocation is, to
/// 256 bytes; TMA assumes 16 bytes of its tensors).
static bool isPairAligned(Value target) {
  while (true) {
    auto type = cast<MemRefType>(target.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1 ||
        llvm::any_of(ArrayRef(strides).drop_back(), [](int64_t stride) {
          return ShapedType::isDynamic(stride) || stride % 2 != 0;
        }))
      return false;
    if (!ShapedType::isDynamic(offset))
      return offset % 2 == 0;
    auto subview = target.getDefiningOp<memref::SubViewOp>();
    if (!subview || !subview.hasUnitStride() ||
        subview.getSourceType().getRank() != type.getRank() ||
        !isEven(subview.getMixedOffsets().back()))
      return false;
    target = subview.getSource();
  }
}

/// The body of a copy's thread loop: the lane's values to their elements
/// of `target`, converted to its element type (a truncating copy). Per 8
/// columns j, values 2h and 2h + 1 are row 16 warp + group + 8h, columns
/// 8j + 2 pair and the next (PTX ISA, "Register Fragments" of wgmma's D):
/// a pair, which one store writes (st.global.b32 of bf16x2, .v2.f32 of
/// f32) where the target keeps pairs aligned.
static void buildCopyOut(OpBuilder &b, Location loc, Value target,
                         const WgmmaTiling &tiling, Value fragments,
                         const Lane &lane) {
  Type type = getElementTypeOrSelf(target.getType());
  bool pairs = isPairAligned(target);
  int64_t pairBytes = 2 * type.getIntOrFloatBitWidth() / 8;
  buildLoops(
      b, loc, {tiling.fragsM, tiling.n / kWgmmaNStep, 2},
      [&](OpBuilder &nested, ValueRange ivs) {
        Value fm = ivs[0], block = ivs[1], half = ivs[2];
        Value row = buildSum(nested, loc,
                             {{lane.warpM, tiling.getWarpgroupRows()},
                              {fm, kWgmmaM},
                              {lane.warpN, kRowsPerWarp},
                              {lane.group, 1},
                              {half, 8}},
                             0);
        SmallVector<Value> columns, values;
        for (int64_t element : {0, 1}) {
          columns.push_back(buildSum(
              nested, loc, {{block, kWgmmaNStep}, {lane.pair, 2}}, element));
          Value index = buildSum(nested, loc,
                                 {{fm, tiling.getFragmentValues()},
                                  {block, kValuesPerColumnBlock},
                                  {half, 2}},
                                 element);
          Value value = memref::LoadOp::create(
              nested, loc, fragments, getFragmentIndices(lane, index));
          if (value.getType() != type)
            value = arith::TruncFOp::create(nested, loc, type, value);
          values.push_back(value);
        }
        if (!pairs) {
          for (auto [value, column] : llvm::zip_equal(values, columns))
            memref::StoreOp::create(nested, loc, value, target,
                                    ValueRange{row, column});
          return;
        }
        Value pair = vector::FromElementsOp::create(
            nested, loc, VectorType::get({2}, type), values);
        vector::StoreOp::create(nested, loc, pair, target,
                                ValueRange{row, columns.front()},
                                /*nontemporal=*/false,
                                llvm::MaybeAlign(pairBytes));
      });
}

/// Replaces `acc`'s scratch by one in the fragment layout and its ops by
/// thread loops over the lanes.
static void rewriteAccumulator(RewriterBase &rewriter, Accumulator &acc,
                               ArrayRef<WgmmaMatmul> matmuls) {
  const WgmmaTiling &tiling = acc.tiling;
  Location loc = acc.scratch.getLoc();
  rewriter.setInsertionPoint(acc.scratch);
  auto type = MemRefType::get({tiling.warpgroups, kWarpsPerWarpgroup,
                               vx::kWarpSize / kLanesPerRow, kLanesPerRow,
                               tiling.getValuesPerLane()},
                              getElementTypeOrSelf(acc.scratch.getType()));
  Value fragments =
      ScratchOp::create(rewriter, loc, type, acc.scratch.getMemoryAttr());
  for (Operation *op : acc.ops) {
    rewriter.setInsertionPoint(op);
    buildLaneLoop(
        rewriter, op->getLoc(), tiling.getWarpTiling(),
        [&](OpBuilder &b, Lane lane) {
          Location opLoc = op->getLoc();
          // A group that a matmul left in flight still writes the registers
          // (PTX ISA, "wgmma.wait_group"): the other ops wait for it.
          if (acc.deferrable && !isa<linalg::MatmulOp>(op))
            markTensorCore(NVVM::WgmmaWaitGroupSyncOp::create(b, opLoc, 0));
          if (auto fill = dyn_cast<linalg::FillOp>(op)) {
            buildFill(b, opLoc, fill, tiling, fragments, lane);
          } else if (isa<linalg::MatmulOp>(op)) {
            WgmmaMatmul wgmma = *llvm::find_if(
                matmuls, [&](WgmmaMatmul w) { return w.matmul == op; });
            auto wait = buildWgmma(b, opLoc, wgmma, tiling, fragments, lane,
                                   std::nullopt, /*overwrite=*/false);
            if (acc.deferrable)
              wait->setAttr(kDeferrableWaitAttrName, b.getUnitAttr());
          } else {
            buildCopyOut(b, opLoc, op->getOperand(1), tiling, fragments, lane);
          }
        });
    rewriter.eraseOp(op);
  }
  rewriter.eraseOp(acc.scratch);
}

void vx::lowerMatmulsToWgmma(RewriterBase &rewriter, SpawnOp spawn,
                             ArrayRef<Operation *> tileOps,
                             const TileOpsOptions &options) {
  int64_t ctaSize = spawn.getCTASize(
      options.threadsPerBlock ? options.threadsPerBlock : kDefaultCTASize);
  SmallVector<Accumulator> accumulators;
  SmallVector<WgmmaMatmul> matmuls;
  DenseMap<Operation *, std::string> reasons;
  for (Operation *op : tileOps) {
    auto matmul = dyn_cast<linalg::MatmulOp>(op);
    if (!matmul || !getTensorCoreKind(matmul, options.tf32))
      continue;
    WgmmaMatmul wgmma;
    std::optional<std::string> reason =
        getMatmulReason(matmul, spawn, options, wgmma);
    ScratchOp scratch = getMatmulAccumulator(matmul);
    if (!reason && !scratch)
      reason = "the accumulator is not a private scratch tile";
    if (!reason && ctaSize % kWarpgroupSize != 0)
      reason = ("the CTA has " + Twine(ctaSize) +
                " threads, not whole warpgroups of 128")
                   .str();
    SmallVector<Operation *> uses;
    if (!reason)
      reason = getAccumulatorReason(scratch, tileOps, spawn, uses);
    if (reason) {
      reasons[op] = *reason;
      continue;
    }
    matmuls.push_back(wgmma);
    if (llvm::any_of(accumulators, [&](const Accumulator &acc) {
          return acc.scratch == scratch;
        }))
      continue;
    ArrayRef<int64_t> shape = scratch.getType().getShape();
    accumulators.push_back(
        {scratch, uses,
         chooseTiling(shape[0], shape[1], ctaSize / kWarpgroupSize)});
  }
  // Every matmul into an accumulator, and every matmul reading a swizzled
  // tile, must fit, or none of them uses wgmma.
  for (bool changed = true; changed;) {
    changed = false;
    auto rejected = [&](Operation *op) { return reasons.contains(op); };
    for (WgmmaMatmul wgmma : matmuls) {
      if (rejected(wgmma.matmul))
        continue;
      const Accumulator &acc =
          *llvm::find_if(accumulators, [&](const Accumulator &acc) {
            return llvm::is_contained(acc.ops, wgmma.matmul.getOperation());
          });
      auto isRejectedMatmul = [&](Operation *user) {
        return isa<linalg::MatmulOp>(user) && rejected(user);
      };
      std::optional<std::string> reason;
      if (llvm::any_of(acc.ops, isRejectedMatmul))
        reason = "another matmul into its accumulator does not fit";
      std::array<OperandLayout, 2> layouts = {wgmma.a, wgmma.b};
      for (auto [index, layout] : llvm::enumerate(layouts))
        if (!reason &&
            llvm::any_of(layout.scratch->getUsers(), isRejectedMatmul))
          reason = ("another matmul that reads its " +
                    getOperandName(index) + " tile does not fit")
                       .str();
      if (reason) {
        reasons[wgmma.matmul] = *reason;
        changed = true;
      }
    }
  }
  llvm::erase_if(matmuls, [&](WgmmaMatmul wgmma) {
    return reasons.contains(wgmma.matmul);
  });
  llvm::erase_if(accumulators, [&](const Accumulator &acc) {
    return llvm::any_of(acc.ops,
                        [&](Operation *op) { return reasons.contains(op); });
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
    WgmmaMatmul wgmma = *llvm::find_if(
        matmuls, [&](WgmmaMatmul w) { return w.matmul == op; });
    InFlightDiagnostic remark =
        matmul.emitRemark("computed on the tensor cores: wgmma.mma_async.m64n")
        << acc.tiling.n << "k16 on " << acc.tiling.warpgroups
        << (acc.tiling.warpgroups == 1 ? " warpgroup, " : " warpgroups, ")
        << acc.tiling.getWarpgroupRows() << "x" << acc.tiling.n
        << " of the accumulator per warpgroup; A and B in shared memory "
           "with the "
        << wgmma.a.swizzle << "B and " << wgmma.b.swizzle
        << "B swizzles of their TMA transfers";
    std::array<OperandLayout, 2> layouts = {wgmma.a, wgmma.b};
    for (auto [index, layout] : llvm::enumerate(layouts))
      if (layout.getPanels() > 1)
        remark << "; " << getOperandName(index) << " in " << layout.getPanels()
               << " panels of " << layout.getPanelColumns()
               << " columns, a TMA box each";
  }
  for (WgmmaMatmul wgmma : matmuls)
    for (OperandLayout layout : {wgmma.a, wgmma.b})
      layout.scratch->setAttr(kSwizzleAttrName,
                              rewriter.getI64IntegerAttr(layout.swizzle));
  if (matmuls.size() == 1 && accumulators.size() == 1)
    accumulators.front().deferrable = isDeferrable(matmuls.front(), spawn);
  for (Accumulator &acc : accumulators)
    rewriteAccumulator(rewriter, acc, matmuls);
}

std::optional<std::string> vx::planWgmmaGroup(FragmentGroup &group,
                                              SpawnOp spawn, int64_t ctaSize) {
  int64_t rows = group.getRows();
  if (rows % kWgmmaM != 0)
    return ("its group's tiles have " + Twine(rows) +
            " rows, not a multiple of wgmma's " + Twine(kWgmmaM))
        .str();
  if (ctaSize % kWarpgroupSize != 0)
    return ("the CTA has " + Twine(ctaSize) +
            " threads, not whole warpgroups of 128")
        .str();
  SmallVector<OperandLayout> layouts;
  for (linalg::MatmulOp matmul : group.getMatmuls()) {
    if (std::optional<std::string> why = getShapeReason(matmul))
      return why;
    for (unsigned index : {0u, 1u}) {
      // A private A is a tile of the group (planFragmentGroups): registers.
      auto scratch = matmul.getInputs()[index].getDefiningOp<ScratchOp>();
      if (index == 0 && llvm::is_contained(group.tiles, scratch))
        continue;
      std::string why;
      FailureOr<OperandLayout> layout =
          getOperandLayout(matmul, index, spawn, why);
      if (failed(layout))
        return why;
      // Every reader must agree on the swizzle that the tile gets.
      if (llvm::any_of(layout->scratch->getUsers(), [&](Operation *user) {
            return isa<linalg::MatmulOp>(user) &&
                   !llvm::is_contained(group.ops, user);
          }))
        return ("the " + getOperandName(index) +
                " tile is also read by a matmul outside its group")
            .str();
      layouts.push_back(*layout);
    }
  }
  WgmmaTiling tiling =
      chooseTiling(rows, kWgmmaNStep, ctaSize / kWarpgroupSize);
  group.wgmma = true;
  group.warpsM = tiling.warpgroups;
  group.fragsM = tiling.fragsM;
  for (const OperandLayout &layout : layouts)
    layout.scratch->setAttr(
        kSwizzleAttrName,
        IntegerAttr::get(IntegerType::get(spawn.getContext(), 64),
                         layout.swizzle));
  return std::nullopt;
}

void vx::buildGroupWgmma(OpBuilder &b, Location loc, linalg::MatmulOp matmul,
                         const MmaTiling &tiling, Value fragments,
                         const Lane &lane,
                         const std::optional<RegisterOperand> &registerA,
                         bool overwrite) {
  // planWgmmaGroup checked the layouts.
  std::string unused;
  WgmmaMatmul wgmma{matmul, {}, *getTileLayout(matmul, 1, unused)};
  if (!registerA)
    wgmma.a = *getTileLayout(matmul, 0, unused);
  buildWgmma(b, loc, wgmma,
             {tiling.warpsM, tiling.fragsM, tiling.getWarpColumns()}, fragments,
             lane, registerA, overwrite);
}

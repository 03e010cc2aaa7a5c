//===- VectorizeSharedAccesses.cpp - Wide accesses of smem scratch -------===//
//
// vx-vectorize-shared-accesses: in the code that every thread of a mapped
// CTA runs, the scalar loads (stores) of an smem scratch that read (write)
// the 2 or 4 adjacent elements of an 8- or 16-byte aligned chunk become one
// vector.load (vector.store) with that alignment: ld.shared.v4 /
// st.shared.v4 in the PTX. LLVM's load-store vectorizer cannot do it: the
// alignment it needs comes from the thread index arithmetic and from the
// layout of dynamic shared memory, which it does not see.
//
//===----------------------------------------------------------------------===//

#include "LaunchPlan.h"
#include "Vx/Conversion/VxToGPU/VxToGPU.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include <numeric>

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXVECTORIZESHAREDACCESSES
#include "Vx/Conversion/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

namespace {
/// An index as sum(coefficient * term) + constant, the terms being the
/// values that are not sums or constant multiples.
struct LinearIndex {
  llvm::MapVector<Value, int64_t> terms;
  int64_t constant = 0;

  void add(const LinearIndex &other, int64_t scale) {
    for (auto [term, coefficient] : other.terms)
      terms[term] += scale * coefficient;
    constant += scale * other.constant;
  }

  /// Whether the two indices differ by a constant at most.
  bool hasTermsOf(const LinearIndex &other) const {
    auto nonZero = [](const llvm::MapVector<Value, int64_t> &map) {
      return llvm::count_if(map, [](auto term) { return term.second != 0; });
    };
    if (nonZero(terms) != nonZero(other.terms))
      return false;
    return llvm::all_of(terms, [&](auto term) {
      return term.second == 0 || other.terms.lookup(term.first) == term.second;
    });
  }

  /// The largest power of two dividing every coefficient (up to `limit`).
  int64_t getTermsAlignment(int64_t limit) const {
    int64_t divisor = 0;
    for (auto [term, coefficient] : terms)
      divisor = std::gcd(divisor, coefficient);
    return divisor ? std::min(limit, int64_t(llvm::MinAlign(divisor, limit)))
                   : limit;
  }
};
} // namespace

static LinearIndex getLinearIndex(Value index) {
  LinearIndex linear;
  APInt constant;
  if (matchPattern(index, m_ConstantInt(&constant))) {
    linear.constant = constant.getSExtValue();
    return linear;
  }
  Operation *def = index.getDefiningOp();
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def)) {
    linear.add(getLinearIndex(def->getOperand(0)), 1);
    linear.add(getLinearIndex(def->getOperand(1)),
               isa<arith::SubIOp>(def) ? -1 : 1);
    return linear;
  }
  if (isa_and_nonnull<arith::MulIOp>(def)) {
    LinearIndex lhs = getLinearIndex(def->getOperand(0));
    LinearIndex rhs = getLinearIndex(def->getOperand(1));
    if (rhs.terms.empty())
      std::swap(lhs, rhs);
    if (lhs.terms.empty()) {
      linear.add(rhs, lhs.constant);
      return linear;
    }
  }
  linear.terms[index] = 1;
  return linear;
}

namespace {
/// A scalar load or store of an smem scratch, its element offset in the
/// scratch as a linear index.
struct ScalarAccess {
  Operation *op;
  LinearIndex offset;
};
} // namespace

/// The memref that `op` (a memref.load or memref.store) accesses.
static Value getAccessedMemRef(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return load.getMemRef();
  return cast<memref::StoreOp>(op).getMemRef();
}

static ValueRange getAccessIndices(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return load.getIndices();
  return cast<memref::StoreOp>(op).getIndices();
}

/// The element offset of `op`'s access of `scratch` (identity layout).
static LinearIndex getElementOffset(Operation *op, MemRefType scratch) {
  LinearIndex offset;
  int64_t stride = 1;
  ValueRange indices = getAccessIndices(op);
  for (int64_t dim = scratch.getRank() - 1; dim >= 0; --dim) {
    offset.add(getLinearIndex(indices[dim]), stride);
    stride *= scratch.getDimSize(dim);
  }
  return offset;
}

/// Whether `op` may write `scratch`: an op writing memory it does not name,
/// or a memref that may be a view of `scratch` (one whose root is not an
/// allocation of its own or a buffer from above `spawn`).
static bool mayWrite(Operation *op, Value scratch, SpawnOp spawn) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects)
    return true;
  for (const MemoryEffects::EffectInstance &effect : *effects) {
    if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()) ||
        isRaceDetectorEffect(effect))
      continue;
    Value root = effect.getValue();
    if (!root)
      return true;
    while (auto view = root.getDefiningOp<ViewLikeOpInterface>())
      root = view.getViewSource();
    if (root == scratch)
      return true;
    Operation *def = root.getDefiningOp();
    bool allocation =
        isa_and_nonnull<ScratchOp, memref::AllocaOp, memref::AllocOp>(def);
    if (!allocation && spawn->isAncestor(root.getParentRegion()->getParentOp()))
      return true;
  }
  return false;
}

/// Whether `op` may read `scratch` (a store group must not move past one).
static bool mayRead(Operation *op, Value scratch) {
  bool reads = false;
  op->walk([&](Operation *nested) {
    if (auto load = dyn_cast<memref::LoadOp>(nested))
      reads |= load.getMemRef() == scratch;
    else if (!isa<memref::StoreOp>(nested))
      reads |= llvm::is_contained(nested->getOperands(), scratch);
  });
  return reads;
}

/// Whether `access` is of `first`'s kind at `first`'s offset plus `delta`
/// in [0, width).
static bool isInChunk(const ScalarAccess &access, const ScalarAccess &first,
                      int64_t width) {
  int64_t delta = access.offset.constant - first.offset.constant;
  return access.op->getName() == first.op->getName() && delta >= 0 &&
         delta < width && access.offset.hasTermsOf(first.offset);
}

/// The widest chunk of adjacent elements (16 or 8 bytes) starting at
/// `first`'s offset that the `accesses` not `done` cover, all alike (loads
/// or stores): its elements and bytes; {0, 0} when none.
static std::pair<int64_t, int64_t> getChunk(const ScalarAccess &first,
                                            ArrayRef<ScalarAccess> accesses,
                                            const DenseSet<Operation *> &done,
                                            int64_t elementBytes,
                                            int64_t rowElements) {
  for (int64_t bytes : {16, 8}) {
    int64_t width = bytes / elementBytes;
    if (width < 2 || bytes % elementBytes || rowElements % width ||
        first.offset.constant % width ||
        first.offset.getTermsAlignment(width) < width)
      continue;
    bool covered = llvm::all_of(llvm::seq<int64_t>(1, width), [&](int64_t k) {
      return llvm::any_of(accesses, [&](const ScalarAccess &access) {
        return !done.contains(access.op) && isInChunk(access, first, width) &&
               access.offset.constant == first.offset.constant + k;
      });
    });
    if (covered)
      return {width, bytes};
  }
  return {0, 0};
}

/// The indices of the chunk's first element, built before `anchor` from
/// the indices of `anchor` (an access of the chunk, which lies in one row).
static SmallVector<Value> getChunkIndices(OpBuilder &builder, Operation *anchor,
                                          int64_t anchorToFirst) {
  SmallVector<Value> indices(getAccessIndices(anchor));
  if (anchorToFirst)
    indices.back() =
        arith::AddIOp::create(builder, anchor->getLoc(), indices.back(),
                              arith::ConstantIndexOp::create(
                                  builder, anchor->getLoc(), anchorToFirst));
  return indices;
}

/// Replaces the chunks of `accesses` (in program order, with no write of
/// the scratch between them for loads, no access for stores) by vector
/// accesses.
static void vectorizeRun(ArrayRef<ScalarAccess> accesses, Value scratch) {
  auto type = cast<MemRefType>(scratch.getType());
  Type elementType = type.getElementType();
  int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  int64_t rowElements = type.getShape().back();
  DenseSet<Operation *> done;
  for (const ScalarAccess &first : accesses) {
    if (done.contains(first.op))
      continue;
    auto [width, bytes] =
        getChunk(first, accesses, done, elementBytes, rowElements);
    if (!width)
      continue;
    SmallVector<const ScalarAccess *> chunk;
    for (const ScalarAccess &access : accesses)
      if (!done.contains(access.op) && isInChunk(access, first, width))
        chunk.push_back(&access);
    bool isLoad = isa<memref::LoadOp>(first.op);
    // The stores move to the last of them: past no store that may write
    // one of their elements (one whose offset has other terms).
    if (!isLoad && llvm::any_of(accesses, [&](const ScalarAccess &access) {
          return !done.contains(access.op) &&
                 chunk.front()->op->isBeforeInBlock(access.op) &&
                 access.op->isBeforeInBlock(chunk.back()->op) &&
                 !access.offset.hasTermsOf(first.offset);
        }))
      continue;
    auto vectorType = VectorType::get({width}, elementType);
    // Loads read at the first of them, stores write at the last.
    const ScalarAccess *anchor = isLoad ? chunk.front() : chunk.back();
    OpBuilder builder(anchor->op);
    Location loc = anchor->op->getLoc();
    SmallVector<Value> indices = getChunkIndices(
        builder, anchor->op, first.offset.constant - anchor->offset.constant);
    if (isLoad) {
      Value vector = vector::LoadOp::create(builder, loc, vectorType, scratch,
                                            indices, /*nontemporal=*/false,
                                            llvm::MaybeAlign(bytes));
      for (const ScalarAccess *access : chunk)
        access->op->getResult(0).replaceAllUsesWith(vector::ExtractOp::create(
            builder, loc, vector,
            access->offset.constant - first.offset.constant));
    } else {
      // In program order: the last store of each element wins.
      SmallVector<Value> elements(width);
      for (const ScalarAccess *access : chunk)
        elements[access->offset.constant - first.offset.constant] =
            cast<memref::StoreOp>(access->op).getValueToStore();
      Value vector =
          vector::FromElementsOp::create(builder, loc, vectorType, elements);
      vector::StoreOp::create(builder, loc, vector, scratch, indices,
                              /*nontemporal=*/false, llvm::MaybeAlign(bytes));
    }
    for (const ScalarAccess *access : chunk) {
      done.insert(access->op);
      access->op->erase();
    }
  }
}

/// Vectorizes the accesses of smem scratch `scratch` in each block of
/// `spawn`, between the ops that may write it (loads) or touch it
/// otherwise (stores).
static void vectorizeScratch(SpawnOp spawn, ScratchOp scratchOp) {
  Value scratch = scratchOp.getResult();
  auto type = cast<MemRefType>(scratch.getType());
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementType().getIntOrFloatBitWidth() % 8)
    return;
  SmallVector<Block *> blocks;
  spawn.getBody().walk([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks) {
    for (bool loads : {true, false}) {
      SmallVector<SmallVector<ScalarAccess>> runs(1);
      for (Operation &op : *block) {
        bool access =
            loads ? isa<memref::LoadOp>(op) : isa<memref::StoreOp>(op);
        if (access && getAccessedMemRef(&op) == scratch) {
          runs.back().push_back({&op, getElementOffset(&op, type)});
          continue;
        }
        if (mayWrite(&op, scratch, spawn) || (!loads && mayRead(&op, scratch)))
          runs.emplace_back();
      }
      for (ArrayRef<ScalarAccess> run : runs)
        vectorizeRun(run, scratch);
    }
  }
}

namespace {
struct VxVectorizeSharedAccessesPass
    : public vx::impl::VxVectorizeSharedAccessesBase<
          VxVectorizeSharedAccessesPass> {
  using Base::Base;

  void runOnOperation() override {
    for (SpawnOp spawn : getDeviceSpawns(getOperation())) {
      LaunchPlanAttr plan = LaunchPlanAttr::lookup(spawn);
      if (!plan || !plan.getCooperative() || !plan.getMapped())
        continue;
      for (auto scratch : spawn.getBody().front().getOps<ScratchOp>())
        if (scratch.getPlacement() == Memory::smem)
          vectorizeScratch(spawn, scratch);
    }
  }
};
} // namespace

//===- ThreadLoops.cpp - Thread loops over the threads of a CTA -----------===//
//
// A thread loop's iterations, in row-major order of its dimensions, are
// spread over the CTA: iteration i runs on thread i mod N, so that the
// threads of a warp run consecutive iterations (coalesced accesses when the
// innermost dimension walks contiguous memory). Its scf.reduce becomes a
// per-thread partial value, combined across the CTA by warp butterflies of
// shuffles and, between warps, through shared memory; every thread combines
// the warps' values in the same order, so that all see the same result.
//
//===----------------------------------------------------------------------===//

#include "CTAMapping.h"
#include "Vx/Target/Limits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vx;

/// The number of iterations along dimension `dim` of `loop` (scf.parallel
/// steps are positive; an empty range runs none).
static OpFoldResult getTripCount(OpBuilder &builder, Location loc,
                                 scf::ParallelOp loop, unsigned dim) {
  OpFoldResult lower = getAsOpFoldResult(loop.getLowerBound()[dim]);
  OpFoldResult upper = getAsOpFoldResult(loop.getUpperBound()[dim]);
  OpFoldResult step = getAsOpFoldResult(loop.getStep()[dim]);
  std::optional<int64_t> lb = getConstantIntValue(lower),
                         ub = getConstantIntValue(upper),
                         st = getConstantIntValue(step);
  if (lb && ub && st)
    return builder.getIndexAttr(
        std::max<int64_t>(0, llvm::divideCeilSigned(*ub - *lb, *st)));
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value span = arith::SubIOp::create(builder, loc, loop.getUpperBound()[dim],
                                     loop.getLowerBound()[dim]);
  span = arith::MaxSIOp::create(builder, loc, span, zero);
  return arith::CeilDivUIOp::create(builder, loc, span, loop.getStep()[dim])
      .getResult();
}

std::optional<int64_t> vx::getStaticIterationCount(scf::ParallelOp loop) {
  int64_t total = 1;
  for (unsigned dim = 0; dim < loop.getNumLoops(); ++dim) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[dim]),
                           ub = getConstantIntValue(loop.getUpperBound()[dim]),
                           st = getConstantIntValue(loop.getStep()[dim]);
    if (!lb || !ub || !st)
      return std::nullopt;
    total *= std::max<int64_t>(0, llvm::divideCeilSigned(*ub - *lb, *st));
  }
  return total;
}

/// Whether a warp shuffle carries values of `type` (32- and 64-bit
/// integers and floats; index through i64).
static bool isShuffleable(Type type) {
  if (type.isIndex())
    return true;
  return type.isIntOrFloat() && (type.getIntOrFloatBitWidth() == 32 ||
                                 type.getIntOrFloatBitWidth() == 64);
}

/// arith's identity of `kind` for `type`. arith sizes the integer
/// identities with getIntOrFloatBitWidth, which `index` does not have (what
/// it read made a signed minimum start from -1, or an attribute whose
/// printing never ends); index is 64-bit on every Vx target, so its
/// identities are i64's.
static TypedAttr getIdentityAttr(arith::AtomicRMWKind kind, Type type,
                                 OpBuilder &builder, Location loc) {
  if (!type.isIndex())
    return arith::getIdentityValueAttr(kind, type, builder, loc);
  auto identity = cast<IntegerAttr>(
      arith::getIdentityValueAttr(kind, builder.getI64Type(), builder, loc));
  return builder.getIndexAttr(identity.getValue().getSExtValue());
}

/// The kind of a single-op integer combiner.
static std::optional<arith::AtomicRMWKind> getIntegerKind(Operation &op) {
  using K = arith::AtomicRMWKind;
  return TypeSwitch<Operation *, std::optional<K>>(&op)
      .Case([](arith::AddIOp) { return K::addi; })
      .Case([](arith::MulIOp) { return K::muli; })
      .Case([](arith::AndIOp) { return K::andi; })
      .Case([](arith::OrIOp) { return K::ori; })
      .Case([](arith::XOrIOp) { return K::xori; })
      .Case([](arith::MinSIOp) { return K::mins; })
      .Case([](arith::MaxSIOp) { return K::maxs; })
      .Case([](arith::MinUIOp) { return K::minu; })
      .Case([](arith::MaxUIOp) { return K::maxu; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The identity of the combiner `reducer` (the region of one scf.reduce
/// operand) when it is a single commutative arith op, or the compare and
/// select form of a minimum or maximum.
static std::optional<TypedAttr>
getCombinerIdentity(Block &reducer, OpBuilder &builder, Location loc) {
  Value lhs = reducer.getArgument(0), rhs = reducer.getArgument(1);
  auto ops = reducer.without_terminator();
  Value result = reducer.getTerminator()->getOperand(0);
  auto readsBoth = [&](Operation *op) {
    return op->getNumOperands() == 2 &&
           ((op->getOperand(0) == lhs && op->getOperand(1) == rhs) ||
            (op->getOperand(0) == rhs && op->getOperand(1) == lhs));
  };
  if (llvm::hasSingleElement(ops)) {
    Operation &op = *ops.begin();
    if (op.getNumResults() != 1 || op.getResult(0) != result || !readsBoth(&op))
      return std::nullopt;
    if (!result.getType().isIndex())
      return arith::getNeutralElement(&op);
    if (std::optional<arith::AtomicRMWKind> kind = getIntegerKind(op))
      return getIdentityAttr(*kind, result.getType(), builder, loc);
    return std::nullopt;
  }
  // cmp(a, b) ? a : b, the form convert-scf-to-openmp recognizes.
  if (std::distance(ops.begin(), ops.end()) != 2)
    return std::nullopt;
  auto select = result.getDefiningOp<arith::SelectOp>();
  if (!select ||
      !((select.getTrueValue() == lhs && select.getFalseValue() == rhs) ||
        (select.getTrueValue() == rhs && select.getFalseValue() == lhs)))
    return std::nullopt;
  Operation *compare = select.getCondition().getDefiningOp();
  if (!compare || compare->getBlock() != &reducer || !readsBoth(compare))
    return std::nullopt;
  // Whether the select keeps the larger operand of the comparison.
  bool keepsFirst = select.getTrueValue() == compare->getOperand(0);
  std::optional<arith::AtomicRMWKind> kind;
  if (auto cmpf = dyn_cast<arith::CmpFOp>(compare)) {
    using P = arith::CmpFPredicate;
    P predicate = cmpf.getPredicate();
    bool greater =
        llvm::is_contained({P::OGT, P::OGE, P::UGT, P::UGE}, predicate);
    bool less = llvm::is_contained({P::OLT, P::OLE, P::ULT, P::ULE}, predicate);
    if (greater || less)
      kind = greater == keepsFirst ? arith::AtomicRMWKind::maximumf
                                   : arith::AtomicRMWKind::minimumf;
  } else if (auto cmpi = dyn_cast<arith::CmpIOp>(compare)) {
    using P = arith::CmpIPredicate;
    P predicate = cmpi.getPredicate();
    bool isSigned =
        llvm::is_contained({P::sgt, P::sge, P::slt, P::sle}, predicate);
    bool greater =
        llvm::is_contained({P::sgt, P::sge, P::ugt, P::uge}, predicate);
    if (predicate != P::eq && predicate != P::ne) {
      bool max = greater == keepsFirst;
      kind =
          isSigned
              ? (max ? arith::AtomicRMWKind::maxs : arith::AtomicRMWKind::mins)
              : (max ? arith::AtomicRMWKind::maxu : arith::AtomicRMWKind::minu);
    }
  }
  if (!kind)
    return std::nullopt;
  return getIdentityAttr(*kind, result.getType(), builder, loc);
}

/// `reducer` applied to `lhs` and `rhs`, its ops cloned at the builder.
static Value combine(OpBuilder &builder, Block &reducer, Value lhs, Value rhs) {
  IRMapping mapping;
  mapping.map(reducer.getArgument(0), lhs);
  mapping.map(reducer.getArgument(1), rhs);
  for (Operation &op : reducer.without_terminator())
    builder.clone(op, mapping);
  return mapping.lookupOrDefault(reducer.getTerminator()->getOperand(0));
}

/// Whether `reducer` is one op with the Commutative trait: its two
/// operand orders give the same bits, so the lanes of a butterfly agree.
static bool isSingleCommutativeOp(Block &reducer) {
  auto ops = reducer.without_terminator();
  return llvm::hasSingleElement(ops) &&
         ops.begin()->hasTrait<OpTrait::IsCommutative>();
}

bool vx::reducesThroughSharedMemory(scf::ParallelOp loop, int64_t numThreads) {
  if (numThreads == 1)
    return false;
  return llvm::any_of(loop.getResultTypes(), [&](Type type) {
    return numThreads != kWarpSize || !isShuffleable(type);
  });
}

LogicalResult vx::checkThreadLoopReductions(scf::ParallelOp loop,
                                            int64_t numThreads) {
  if (loop.getNumResults() == 0)
    return success();
  auto reduce = cast<scf::ReduceOp>(loop.getBody()->getTerminator());
  OpBuilder builder(loop);
  std::optional<int64_t> iterations = getStaticIterationCount(loop);
  for (Region &reducer : reduce.getReductions()) {
    if (getCombinerIdentity(reducer.front(), builder, loop.getLoc()))
      continue;
    // Without an identity each thread starts from its first value, so each
    // needs one.
    if (iterations && *iterations >= numThreads)
      continue;
    return reduce.emitOpError("in a thread loop combines across the ")
           << numThreads
           << " threads of a CTA: its combiner needs a known identity (one "
              "arith op such as addf, mulf, maximumf, andi, or the compare "
              "and select form of a minimum or maximum), or the loop at "
              "least as many iterations as there are threads";
  }
  return success();
}

namespace {
/// Builds the CTA-wide combination of the threads' partial values.
struct CTAReducer {
  RewriterBase &rewriter;
  SpawnOp spawn;
  ThreadShare share;
  Location loc;

  Value shuffle(Value value, int64_t offset, gpu::ShuffleMode mode) {
    Type type = value.getType();
    if (type.isIndex())
      value = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                         value);
    Value result =
        gpu::ShuffleOp::create(rewriter, loc, value, offset, kWarpSize, mode)
            .getShuffleResult();
    if (type.isIndex())
      result = arith::IndexCastOp::create(rewriter, loc, type, result);
    return result;
  }

  /// Shared memory for `slots` values of `type`: a scratch buffer of its
  /// own, so that reductions do not wait for each other.
  Value createScratch(Type type, int64_t slots) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&spawn.getBody().front());
    return ScratchOp::create(
        rewriter, loc, MemRefType::get({slots}, type),
        MemoryAttr::get(rewriter.getContext(), Memory::smem));
  }

  /// A butterfly of xor shuffles over `lanes` lanes (a power of two): every
  /// lane ends with the combination of its group's values.
  Value butterfly(Value value, Block &reducer, int64_t lanes) {
    for (int64_t offset = lanes / 2; offset >= 1; offset /= 2)
      value = combine(rewriter, reducer, value,
                      shuffle(value, offset, gpu::ShuffleMode::XOR));
    return value;
  }

  /// The butterfly's result, the same on every lane: when `reducer` is not
  /// one commutative op (a compare and select may order equal values such
  /// as +0 and -0 differently on the two lanes of a pair), lane 0's.
  Value uniformButterfly(Value value, Block &reducer, int64_t lanes) {
    value = butterfly(value, reducer, lanes);
    if (!isSingleCommutativeOp(reducer))
      value = shuffle(value, 0, gpu::ShuffleMode::IDX);
    return value;
  }

  Value reduce(Value partial, Block &reducer) {
    if (share.count == 1)
      return partial;
    Type type = partial.getType();
    bool shuffles = isShuffleable(type) && share.count % kWarpSize == 0;
    if (shuffles && share.count == kWarpSize)
      return uniformButterfly(partial, reducer, kWarpSize);
    Value value = shuffles ? butterfly(partial, reducer, kWarpSize) : partial;
    // One slot per warp (per thread without shuffles), written by its first
    // lane, read by every thread after a barrier.
    int64_t slots = shuffles ? share.count / kWarpSize : share.count;
    Value scratch = createScratch(type, slots);
    Value slot = share.id;
    Value lane;
    if (shuffles) {
      Value warp = arith::ConstantIndexOp::create(rewriter, loc, kWarpSize);
      slot = arith::DivUIOp::create(rewriter, loc, share.id, warp);
      lane = arith::RemUIOp::create(rewriter, loc, share.id, warp);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value writes = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, lane, zero);
      auto ifFirstLane = scf::IfOp::create(rewriter, loc, writes);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ifFirstLane.thenBlock()->getTerminator());
      memref::StoreOp::create(rewriter, loc, value, scratch, slot);
    } else {
      memref::StoreOp::create(rewriter, loc, value, scratch, slot);
    }
    remarkBarrier(gpu::BarrierOp::create(rewriter, loc),
                  "the reduction's partial values in shared memory become "
                  "visible to every thread");
    if (shuffles && llvm::isPowerOf2_64(slots)) {
      // Every warp finishes by itself: lane i reads warp i mod W's value and
      // a butterfly over W lanes combines them (one load per thread).
      Value mask = arith::ConstantIndexOp::create(rewriter, loc, slots - 1);
      Value own = memref::LoadOp::create(
          rewriter, loc, scratch,
          ValueRange{arith::AndIOp::create(rewriter, loc, lane, mask)});
      return uniformButterfly(own, reducer, slots);
    }
    // Every thread combines the slots in order.
    Value first = memref::LoadOp::create(
        rewriter, loc, scratch,
        ValueRange{arith::ConstantIndexOp::create(rewriter, loc, 0)});
    auto fold = scf::ForOp::create(
        rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 1),
        arith::ConstantIndexOp::create(rewriter, loc, slots),
        arith::ConstantIndexOp::create(rewriter, loc, 1), ValueRange{first},
        [&](OpBuilder &nested, Location nestedLoc, Value slot,
            ValueRange carried) {
          Value next = memref::LoadOp::create(nested, nestedLoc, scratch, slot);
          scf::YieldOp::create(nested, nestedLoc,
                               combine(nested, reducer, carried[0], next));
        });
    return fold.getResult(0);
  }
};
} // namespace

Value vx::distributeThreadLoop(RewriterBase &rewriter, SpawnOp spawn,
                               scf::ParallelOp loop, ThreadShare share) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  SmallVector<OpFoldResult> trips;
  for (unsigned dim = 0; dim < loop.getNumLoops(); ++dim)
    trips.push_back(getTripCount(rewriter, loc, loop, dim));
  OpFoldResult total = getProduct(rewriter, loc, trips);

  // Each thread's partial values start from the combiner's identity, or
  // (checkThreadLoopReductions has made sure every thread has an iteration)
  // from its first value, which a flag tells apart.
  auto reduce = cast<scf::ReduceOp>(loop.getBody()->getTerminator());
  unsigned numResults = loop.getNumResults();
  SmallVector<Value> inits;
  SmallVector<std::optional<unsigned>> flagOf(numResults);
  SmallVector<unsigned> withoutIdentity;
  for (auto [position, reducer] : llvm::enumerate(reduce.getReductions())) {
    std::optional<TypedAttr> identity =
        getCombinerIdentity(reducer.front(), rewriter, loc);
    if (identity) {
      inits.push_back(arith::ConstantOp::create(rewriter, loc, *identity));
      continue;
    }
    inits.push_back(loop.getInitVals()[position]);
    withoutIdentity.push_back(position);
  }
  for (unsigned position : withoutIdentity) {
    flagOf[position] = inits.size();
    inits.push_back(arith::ConstantIntOp::create(rewriter, loc, 0, 1));
  }

  Value round;
  Block *body = loop.getBody();
  SmallVector<Value> partials = buildSharedLoop(
      rewriter, loc, total, share, inits,
      [&](OpBuilder &nested, Location nestedLoc, Value index, Value thisRound,
          ValueRange carried) {
        round = thisRound;
        SmallVector<Value> ivs =
            delinearizeIndex(nested, nestedLoc, index, trips);
        for (unsigned dim = 0; dim < loop.getNumLoops(); ++dim) {
          Value step = loop.getStep()[dim], lower = loop.getLowerBound()[dim];
          if (!isOneInteger(getAsOpFoldResult(step)))
            ivs[dim] = arith::MulIOp::create(nested, nestedLoc, ivs[dim], step);
          if (!isZeroInteger(getAsOpFoldResult(lower)))
            ivs[dim] =
                arith::AddIOp::create(nested, nestedLoc, ivs[dim], lower);
          rewriter.replaceAllUsesWith(body->getArgument(dim), ivs[dim]);
        }
        for (Operation &op :
             llvm::make_early_inc_range(body->without_terminator()))
          rewriter.moveOpBefore(&op, nested.getInsertionBlock(),
                                nested.getInsertionPoint());
        SmallVector<Value> next(carried);
        for (auto [position, reducer] :
             llvm::enumerate(reduce.getReductions())) {
          Value value = reduce.getOperands()[position];
          Value combined =
              combine(nested, reducer.front(), carried[position], value);
          if (std::optional<unsigned> flag = flagOf[position]) {
            combined = arith::SelectOp::create(nested, nestedLoc,
                                               carried[*flag], combined, value);
            next[*flag] = arith::ConstantIntOp::create(nested, nestedLoc, 1, 1);
          }
          next[position] = combined;
        }
        return next;
      });

  CTAReducer reducer{rewriter, spawn, share, loc};
  SmallVector<Value> results;
  for (auto [position, region] : llvm::enumerate(reduce.getReductions())) {
    Value reduced = reducer.reduce(partials[position], region.front());
    results.push_back(combine(rewriter, region.front(),
                              loop.getInitVals()[position], reduced));
  }
  rewriter.replaceOp(loop, results);
  return round;
}

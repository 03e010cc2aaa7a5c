//===- Conditions.cpp - Conditions and control contexts of a spawn body ---===//
//
// The IntegerModel's conditions (i1 values as disjunctive normal forms over
// terms) and the contexts of blocks: the constraints under which a block
// runs (scf.if, scf.index_switch, affine.if, scf.while conditions) and the
// iteration columns of the loops around it.
//
//===----------------------------------------------------------------------===//

#include "IntegerModel.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "vx-analysis"

using namespace mlir;
using namespace mlir::vx;
using namespace mlir::vx::detail;

//===----------------------------------------------------------------------===//
// Conditions
//===----------------------------------------------------------------------===//

std::optional<DNF> IntegerModel::compare(arith::CmpIPredicate predicate,
                                         Value lhs, Value rhs) {
  using P = arith::CmpIPredicate;
  bool isUnsigned = predicate == P::ult || predicate == P::ule ||
                    predicate == P::ugt || predicate == P::uge;
  Term a = isUnsigned ? getUnsigned(lhs) : getSigned(lhs);
  Term b = isUnsigned ? getUnsigned(rhs) : getSigned(rhs);
  if (!a.isAffine() || !b.isAffine())
    return std::nullopt;
  LinearForm diff = difference(a.linear, b.linear); // lhs - rhs
  LinearForm negatedDiff = diff;
  negatedDiff.scale(Int(-1));
  switch (predicate) {
  case P::eq:
    return equality(diff);
  case P::ne:
    return nonZero(diff);
  case P::slt:
  case P::ult:
    return inequality(shifted(negatedDiff, Int(-1)));
  case P::sle:
  case P::ule:
    return inequality(negatedDiff);
  case P::sgt:
  case P::ugt:
    return inequality(shifted(diff, Int(-1)));
  case P::sge:
  case P::uge:
    return inequality(diff);
  }
  llvm_unreachable("unknown predicate");
}

DNF IntegerModel::getCondition(Value value, bool truth) {
  return getConditionImpl(value, truth, 0);
}

DNF IntegerModel::getConditionImpl(Value value, bool truth, unsigned depth) {
  // The fallback: the boolean's unsigned reading is 1 (or 0).
  auto generic = [&]() -> DNF {
    LLVM_DEBUG(llvm::dbgs() << "[vx-analysis] condition " << value
                            << " read through its bits\n");
    if (booleansInProgress.contains(value.getAsOpaquePointer())) {
      opaqueBooleans.insert(value.getAsOpaquePointer());
      return alwaysTrue();
    }
    // An i1 whose bits lie in [-1, 0] (a signed boolean column) is true at
    // -1; otherwise read it unsigned.
    Term bitsTerm = getBits(value);
    if (bitsTerm.isAffine() && getIntegerWidth(value.getType()) == 1) {
      auto [lower, upper] = getInterval(bitsTerm.linear);
      if (lower && upper && *lower >= Int(-1) && *upper <= Int(0))
        return equality(shifted(bitsTerm.linear, Int(truth ? 1 : 0)));
    }
    Term reading = getUnsigned(value);
    if (!reading.isAffine())
      return alwaysTrue();
    return equality(shifted(reading.linear, Int(truth ? -1 : 0)));
  };
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.isZero() == !truth ? alwaysTrue() : DNF();
  Operation *def = value.getDefiningOp();
  if (!def || depth > 16)
    return generic();
  auto bounded = [&](DNF dnf) -> DNF {
    return dnf.size() > budget.maxAlternatives ? generic() : dnf;
  };
  if (auto compareOp = dyn_cast<arith::CmpIOp>(def)) {
    arith::CmpIPredicate predicate = compareOp.getPredicate();
    if (!truth)
      predicate = arith::invertPredicate(predicate);
    if (std::optional<DNF> dnf =
            compare(predicate, compareOp.getLhs(), compareOp.getRhs()))
      return *dnf;
    return generic();
  }
  if (!value.getType().isInteger(1))
    return generic();
  auto sub = [&](Value operand, bool operandTruth) {
    return getConditionImpl(operand, operandTruth, depth + 1);
  };
  if (isa<arith::AndIOp>(def)) {
    if (truth)
      return bounded(conjoin(sub(def->getOperand(0), true),
                             sub(def->getOperand(1), true)));
    return bounded(
        concat(sub(def->getOperand(0), false), sub(def->getOperand(1), false)));
  }
  if (isa<arith::OrIOp>(def)) {
    if (truth)
      return bounded(
          concat(sub(def->getOperand(0), true), sub(def->getOperand(1), true)));
    return bounded(conjoin(sub(def->getOperand(0), false),
                           sub(def->getOperand(1), false)));
  }
  if (isa<arith::XOrIOp>(def)) {
    Value a = def->getOperand(0), b = def->getOperand(1);
    // a ^ b holds when exactly one holds.
    DNF same = concat(conjoin(sub(a, true), sub(b, true)),
                      conjoin(sub(a, false), sub(b, false)));
    DNF different = concat(conjoin(sub(a, true), sub(b, false)),
                           conjoin(sub(a, false), sub(b, true)));
    return bounded(truth ? different : same);
  }
  if (auto select = dyn_cast<arith::SelectOp>(def))
    return bounded(concat(conjoin(sub(select.getCondition(), true),
                                  sub(select.getTrueValue(), truth)),
                          conjoin(sub(select.getCondition(), false),
                                  sub(select.getFalseValue(), truth))));
  if (isa<arith::TruncIOp>(def)) {
    Term bit = getModulo(getBits(def->getOperand(0)), Int(2), value);
    if (!bit.isAffine())
      return generic();
    return equality(shifted(bit.linear, Int(truth ? -1 : 0)));
  }
  return generic();
}

//===----------------------------------------------------------------------===//
// Contexts
//===----------------------------------------------------------------------===//

/// The condition under which an affine.if's then region (or else region)
/// runs.
static DNF getAffineIfCondition(IntegerModel &model, affine::AffineIfOp op,
                                bool thenRegion) {
  IntegerSet set = op.getIntegerSet();
  auto [dims, symbols] =
      getAffineOperands(model, set.getNumDims(), op.getOperands());
  Conjunction all;
  DNF anyViolated;
  for (auto [expr, isEquality] :
       llvm::zip_equal(set.getConstraints(), set.getEqFlags())) {
    Term term = model.wrap(model.getAffineTerm(expr, dims, symbols), 64,
                           /*isSigned=*/true, Value());
    if (!term.isAffine())
      return alwaysTrue();
    LinearForm negated = term.linear;
    negated.scale(Int(-1));
    if (isEquality) {
      all.equalities.push_back(term.linear);
      llvm::append_range(anyViolated, nonZero(term.linear));
    } else {
      all.inequalities.push_back(term.linear);
      llvm::append_range(anyViolated, inequality(shifted(negated, Int(-1))));
    }
  }
  return thenRegion ? DNF{all} : anyViolated;
}

const Context &IntegerModel::getContext(Block *block) {
  if (auto it = contexts.find(block); it != contexts.end())
    return it->second;
  // The chain of blocks from `block` up to the body (or a cached context).
  SmallVector<Block *> chain;
  for (Block *current = block; current && !contexts.count(current);) {
    chain.push_back(current);
    Operation *parent = current->getParentOp();
    if (!parent || parent == spawn)
      break;
    current = parent->getBlock();
  }
  for (Block *current : llvm::reverse(chain)) {
    Operation *parent = current->getParentOp();
    Context context;
    if (parent && parent != spawn)
      context = contexts.lookup(parent->getBlock());
    else {
      contexts[current] = context;
      continue;
    }
    Region *region = current->getParent();
    auto addDNF = [&](DNF dnf) {
      context.constraints.push_back(
          addConstraint(std::move(dnf), /*definitional=*/false));
    };
    auto approximate = [&](std::string why) {
      LLVM_DEBUG(llvm::dbgs()
                 << "[vx-analysis] approximate context: " << why << "\n");
      if (!context.approximation)
        context.approximation = std::move(why);
    };
    if (auto branch = dyn_cast<scf::IfOp>(parent)) {
      addDNF(getCondition(branch.getCondition(),
                          region == &branch.getThenRegion()));
    } else if (auto switchOp = dyn_cast<scf::IndexSwitchOp>(parent)) {
      Term selector = getSigned(switchOp.getArg());
      if (!selector.isAffine()) {
        approximate("an 'scf.index_switch' on a symbolic product");
      } else if (region == &switchOp.getDefaultRegion()) {
        for (int64_t caseValue : switchOp.getCases()) {
          addDNF(nonZero(shifted(selector.linear, Int(-caseValue))));
        }
      } else {
        unsigned position = region->getRegionNumber() - 1;
        addDNF(equality(
            shifted(selector.linear, Int(-switchOp.getCases()[position]))));
      }
    } else if (auto affineIf = dyn_cast<affine::AffineIfOp>(parent)) {
      addDNF(getAffineIfCondition(*this, affineIf,
                                  region == &affineIf.getThenRegion()));
    } else if (auto whileOp = dyn_cast<scf::WhileOp>(parent)) {
      buildWhileContext(whileOp, current, context);
    } else if (isModelledLoop(parent)) {
      unsigned numDims = 1;
      if (auto parallel = dyn_cast<scf::ParallelOp>(parent))
        numDims = parallel.getNumLoops();
      if (auto forall = dyn_cast<scf::ForallOp>(parent))
        numDims = forall.getRank();
      for (unsigned dim = 0; dim < numDims; ++dim) {
        unsigned iteration = getIterationColumn(parent, dim);
        context.columns.push_back(iteration);
        // Bounds the model drops let the loop run where it may not: what
        // runs inside is not proven to run.
        if (columns[iteration].approximate)
          approximate(("an access inside '" + parent->getName().getStringRef() +
                       "', whose bounds the analysis does not model")
                          .str());
      }
    } else if (!isa<scf::ExecuteRegionOp, memref::AllocaScopeOp>(parent)) {
      approximate(("an access inside '" + parent->getName().getStringRef() +
                   "', whose control the analysis does not model")
                      .str());
    }
    contexts[current] = std::move(context);
  }
  return contexts[block];
}

/// The predicate that compares the operands the other way round.
static arith::CmpIPredicate swapOperands(arith::CmpIPredicate predicate) {
  using P = arith::CmpIPredicate;
  switch (predicate) {
  case P::eq:
  case P::ne:
    return predicate;
  case P::slt:
    return P::sgt;
  case P::sle:
    return P::sge;
  case P::sgt:
    return P::slt;
  case P::sge:
    return P::sle;
  case P::ult:
    return P::ugt;
  case P::ule:
    return P::uge;
  case P::ugt:
    return P::ult;
  case P::uge:
    return P::ule;
  }
  llvm_unreachable("unknown predicate");
}

/// The step of a recognized counter: the after region yields
/// `after_arg + step` for the before argument forwarded as `after_arg`.
static std::optional<Int> getCounterStep(scf::WhileOp loop, unsigned position) {
  Block &before = loop.getBefore().front();
  Block &after = loop.getAfter().front();
  scf::ConditionOp condition = loop.getConditionOp();
  auto yield = cast<scf::YieldOp>(after.getTerminator());
  BlockArgument beforeArg = before.getArgument(position);
  Value next = yield.getOperand(position);
  Operation *def = next.getDefiningOp();
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def))
    return std::nullopt;
  for (unsigned side : {0u, 1u}) {
    if (side == 1 && isa<arith::SubIOp>(def))
      break;
    auto arg = dyn_cast<BlockArgument>(def->getOperand(side));
    APInt step;
    if (!arg || arg.getOwner() != &after ||
        condition.getArgs()[arg.getArgNumber()] != beforeArg ||
        !matchPattern(def->getOperand(1 - side), m_ConstantInt(&step)))
      continue;
    Int value = toInt(step, /*isSigned=*/true);
    if (value == 0)
      return std::nullopt;
    return isa<arith::SubIOp>(def) ? -value : value;
  }
  return std::nullopt;
}

Term IntegerModel::buildWhileArgument(BlockArgument arg) {
  auto loop = cast<scf::WhileOp>(arg.getOwner()->getParentOp());
  if (arg.getOwner() != &loop.getBefore().front())
    return getBits(loop.getConditionOp().getArgs()[arg.getArgNumber()]);
  std::optional<Int> step = getCounterStep(loop, arg.getArgNumber());
  if (!step)
    return Term::getColumn(addOpaque(arg, getIntegerWidth(arg.getType())));
  // Iteration t holds init + step * t (modulo 2^width).
  Term term = getBits(loop.getInits()[arg.getArgNumber()]);
  term.add(Term::getColumn(getIterationColumn(loop)), *step);
  return term;
}

void IntegerModel::buildWhileContext(scf::WhileOp loop, Block *block,
                                     Context &context) {
  if (block != &loop.getAfter().front()) {
    context.approximation = "an access in the condition region of "
                            "'scf.while'";
    return;
  }
  unsigned iteration = getIterationColumn(loop);
  context.columns.push_back(iteration);
  Value condition = loop.getConditionOp().getCondition();
  // Exact when the condition bounds one counter in the direction it moves:
  // then the iterations that run are a prefix on which the counter's value
  // does not wrap, so it is its starting reading plus step * t.
  if (auto compareOp = condition.getDefiningOp<arith::CmpIOp>()) {
    using P = arith::CmpIPredicate;
    Block &before = loop.getBefore().front();
    for (bool counterOnLeft : {true, false}) {
      Value counter = counterOnLeft ? compareOp.getLhs() : compareOp.getRhs();
      Value bound = counterOnLeft ? compareOp.getRhs() : compareOp.getLhs();
      auto arg = dyn_cast<BlockArgument>(counter);
      if (!arg || arg.getOwner() != &before ||
          loop.getBefore().isAncestor(bound.getParentRegion()))
        continue;
      std::optional<Int> step = getCounterStep(loop, arg.getArgNumber());
      if (!step)
        continue;
      P predicate = counterOnLeft ? compareOp.getPredicate()
                                  : swapOperands(compareOp.getPredicate());
      bool isUnsigned = predicate == P::ult || predicate == P::ule ||
                        predicate == P::ugt || predicate == P::uge;
      bool upward = predicate == P::slt || predicate == P::sle ||
                    predicate == P::ult || predicate == P::ule;
      bool downward = predicate == P::sgt || predicate == P::sge ||
                      predicate == P::ugt || predicate == P::uge;
      if (!((upward && *step > 0) || (downward && *step < 0)))
        continue;
      Value init = loop.getInits()[arg.getArgNumber()];
      Term start = isUnsigned ? getUnsigned(init) : getSigned(init);
      Term limit = isUnsigned ? getUnsigned(bound) : getSigned(bound);
      if (!start.isAffine() || !limit.isAffine())
        continue;
      LinearForm value = start.linear;
      value.add(LinearForm::getColumn(iteration), *step);
      LinearForm room = upward ? difference(limit.linear, value)
                               : difference(value, limit.linear);
      bool strict = predicate == P::slt || predicate == P::ult ||
                    predicate == P::sgt || predicate == P::ugt;
      context.constraints.push_back(
          addConstraint(inequality(shifted(room, Int(strict ? -1 : 0))),
                        /*definitional=*/false));
      return;
    }
  }
  context.constraints.push_back(
      addConstraint(getCondition(condition, true), /*definitional=*/false));
  if (!context.approximation)
    context.approximation = "an 'scf.while' whose condition is not a bound "
                            "on a counter";
}

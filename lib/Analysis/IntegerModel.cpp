//===- IntegerModel.cpp - Integer values of a spawn body as columns -------===//

#include "IntegerModel.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "vx-analysis"

using namespace mlir;
using namespace mlir::vx;
using namespace mlir::vx::detail;

void Sources::merge(const Sources &other) {
  if (gridDims.size() < other.gridDims.size())
    gridDims.resize(other.gridDims.size());
  gridDims |= other.gridDims;
  varies |= other.varies;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

unsigned mlir::vx::detail::getIntegerWidth(Type type) {
  if (type.isIndex())
    return IndexType::kInternalStorageBitWidth;
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth();
  return 0;
}

bool mlir::vx::detail::isModelledLoop(Operation *op) {
  return isa<scf::ForOp, scf::ParallelOp, scf::ForallOp, affine::AffineForOp,
             scf::WhileOp>(op);
}

//===----------------------------------------------------------------------===//
// IntegerModel
//===----------------------------------------------------------------------===//

IntegerModel::IntegerModel(SpawnOp spawn, const AnalysisBudget &budget,
                           std::function<bool(Operation *)> readsMutableMemory)
    : spawn(spawn), budget(budget),
      readsMutableMemory(std::move(readsMutableMemory)) {
  // Dynamic grid sizes are chosen by a witness, not quantified over: the
  // captured values they are computed from are extents.
  for (OpFoldResult size : spawn.getMixedGrid()) {
    auto value = dyn_cast<Value>(size);
    if (!value)
      continue;
    Term term = getBits(value);
    for (const auto &[column, coefficient] : term.linear.terms)
      if (columns[column].kind == ColumnKind::Opaque &&
          columns[column].sources.isInvariant())
        columns[column].kind = ColumnKind::Extent;
  }
}

unsigned IntegerModel::addColumn(Column column) {
  columns.push_back(std::move(column));
  return columns.size() - 1;
}

unsigned IntegerModel::addConstraint(DNF alternatives, bool definitional) {
  constraints.push_back({std::move(alternatives), definitional, std::nullopt});
  return constraints.size() - 1;
}

void IntegerModel::setTypeBounds(unsigned column, Type type) {
  unsigned width = getIntegerWidth(type);
  if (!width)
    return;
  auto [lower, upper] = getReadingRange(width, /*isSigned=*/true);
  columns[column].lower = lower;
  columns[column].upper = upper;
  Conjunction domain;
  domain.inequalities.push_back(shifted(LinearForm::getColumn(column), -lower));
  domain.inequalities.push_back(
      shifted(LinearForm::getColumn(column, Int(-1)), upper));
  attach(column, addConstraint({domain}, /*definitional=*/true));
}

std::pair<std::optional<Int>, std::optional<Int>>
IntegerModel::getInterval(const LinearForm &form) const {
  std::optional<Int> lower = form.constant, upper = form.constant;
  for (const auto &[column, coefficient] : form.terms) {
    const Column &info = columns[column];
    const std::optional<Int> &low = coefficient > 0 ? info.lower : info.upper;
    const std::optional<Int> &high = coefficient > 0 ? info.upper : info.lower;
    if (lower && low)
      *lower += coefficient * *low;
    else
      lower.reset();
    if (upper && high)
      *upper += coefficient * *high;
    else
      upper.reset();
  }
  return {lower, upper};
}

/// The innermost loop-like op of `spawn`'s body around `op`.
static Operation *getScope(Operation *op, SpawnOp spawn) {
  for (Operation *parent = op->getParentOp(); parent && parent != spawn;
       parent = parent->getParentOp())
    if (isModelledLoop(parent) ||
        parent->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return parent;
  return nullptr;
}

Column IntegerModel::getOpaqueColumn(Value value) {
  Column column{ColumnKind::Opaque};
  column.value = value;
  if (!value) {
    column.sources.varies = true;
    return column;
  }
  column.sources = getSources(value);
  if (Operation *def = value.getDefiningOp())
    column.scope = getScope(def, spawn);
  else if (spawn.isDefinedInBody(value))
    column.scope = value.getParentBlock()->getParentOp();
  return column;
}

unsigned IntegerModel::addOpaque(Value value, std::optional<unsigned> width) {
  auto it = opaqueColumns.find(value);
  if (it != opaqueColumns.end())
    return it->second;
  unsigned id = addColumn(getOpaqueColumn(value));
  opaqueColumns[value] = id;
  if (width)
    setTypeBounds(id, IntegerType::get(value.getContext(), *width));
  return id;
}

unsigned IntegerModel::addElementColumn(std::optional<Int> extent,
                                        Value origin) {
  Column column{ColumnKind::Element};
  column.value = origin;
  column.lower = Int(0);
  if (extent) {
    column.upper = *extent - Int(1);
    column.constantExtent = *extent;
  }
  unsigned id = addColumn(std::move(column));
  Conjunction range;
  range.inequalities.push_back(LinearForm::getColumn(id));
  if (extent)
    range.inequalities.push_back(
        shifted(LinearForm::getColumn(id, Int(-1)), *extent - Int(1)));
  attach(id, addConstraint({range}, /*definitional=*/false));
  return id;
}

Term IntegerModel::getFloorDiv(const Term &term, const Int &divisor,
                               Value origin) {
  if (term.isConstant())
    return Term::getConstant(floorDiv(term.linear.constant, divisor));
  Column column{ColumnKind::Derived};
  column.value = origin;
  auto [lower, upper] = getInterval(term.linear);
  if (lower)
    column.lower = floorDiv(*lower, divisor);
  if (upper)
    column.upper = floorDiv(*upper, divisor);
  unsigned quotient = addColumn(std::move(column));
  // divisor * q <= x <= divisor * q + divisor - 1.
  LinearForm scaled = LinearForm::getColumn(quotient, divisor);
  Conjunction definition;
  definition.inequalities.push_back(difference(term.linear, scaled));
  definition.inequalities.push_back(
      shifted(difference(scaled, term.linear), divisor - Int(1)));
  attach(quotient, addConstraint({definition}, /*definitional=*/true));
  return Term::getColumn(quotient);
}

Term IntegerModel::getModulo(const Term &term, const Int &modulus,
                             Value origin) {
  Term quotient = getFloorDiv(term, modulus, origin);
  Term result = term;
  result.add(quotient, -modulus);
  return result;
}

Term IntegerModel::wrap(const Term &term, unsigned width, bool isSigned,
                        Value origin) {
  // Symbolic strides are read as their mathematical value: a linearized
  // index over symbolic sizes is assumed not to wrap (docs/design.md).
  if (!term.isAffine())
    return term;
  auto [rangeLower, rangeUpper] = getReadingRange(width, isSigned);
  auto [lower, upper] = getInterval(term.linear);
  if (lower && upper && *lower >= rangeLower && *upper <= rangeUpper)
    return term;
  // value = x - 2^w * floor((x - rangeLower) / 2^w).
  Int modulus = pow2(width);
  Term shiftedTerm = term;
  shiftedTerm.linear.constant -= rangeLower;
  // A wrap count of a huge range (a narrow reading of a 64-bit scalar) takes
  // the integer sampler too long: the reading becomes a column of its own,
  // with the reading's range. For a value the same in every instance (a
  // function of captured scalars) it is still quantified over every value,
  // which only weakens what the model proves; otherwise it is approximate.
  if (lower && upper &&
      floorDiv(*upper - rangeLower, modulus) -
              floorDiv(*lower - rangeLower, modulus) >
          Int(1 << 16)) {
    LLVM_DEBUG(llvm::dbgs() << "[vx-analysis] a column of its own: the "
                            << width << "-bit reading of " << origin
                            << " wraps too often to count\n");
    Column column = getOpaqueColumn(origin);
    column.approximate = !column.sources.isInvariant();
    column.lower = rangeLower;
    column.upper = rangeUpper;
    unsigned id = addColumn(std::move(column));
    Conjunction domain;
    domain.inequalities.push_back(
        shifted(LinearForm::getColumn(id), -rangeLower));
    domain.inequalities.push_back(
        shifted(LinearForm::getColumn(id, Int(-1)), rangeUpper));
    attach(id, addConstraint({domain}, /*definitional=*/true));
    return Term::getColumn(id);
  }
  Term wraps = getFloorDiv(shiftedTerm, modulus, origin);
  if (isSigned && !wraps.isConstant())
    columns[wraps.linear.terms.front().first].isSignedWrapCount = true;
  Term result = term;
  result.add(wraps, -modulus);
  return result;
}

Term IntegerModel::getSigned(Value value) {
  auto key = std::make_pair(value, 1u);
  if (auto it = readings.find(key); it != readings.end())
    return it->second;
  Term result =
      wrap(getBits(value), getIntegerWidth(value.getType()), true, value);
  readings[key] = result;
  return result;
}

Term IntegerModel::getUnsigned(Value value) {
  auto key = std::make_pair(value, 0u);
  if (auto it = readings.find(key); it != readings.end())
    return it->second;
  Term result =
      wrap(getBits(value), getIntegerWidth(value.getType()), false, value);
  readings[key] = result;
  return result;
}

//===----------------------------------------------------------------------===//
// Grid and loop columns
//===----------------------------------------------------------------------===//

unsigned IntegerModel::getGridColumn(unsigned dim) {
  if (auto it = gridColumns.find(dim); it != gridColumns.end())
    return it->second;
  Column column{ColumnKind::Grid};
  column.dim = dim;
  column.lower = Int(0);
  OpFoldResult size = spawn.getMixedGrid()[dim];
  std::optional<Term> extent;
  if (std::optional<int64_t> constant = getConstantIntValue(size)) {
    column.upper = Int(*constant - 1);
    column.constantExtent = Int(*constant);
  } else {
    // A grid has fewer than 2^63 instances (its linear id is an index), so
    // a dynamic size is at most (2^63 - 1) / the product of the static ones.
    Int staticProduct(1);
    for (int64_t staticSize : spawn.getStaticGrid())
      if (!ShapedType::isDynamic(staticSize) && staticSize > 0)
        staticProduct *= Int(staticSize);
    column.upper = floorDiv(pow2(63) - Int(1), staticProduct) - Int(1);
    extent = getSigned(cast<Value>(size));
    if (extent->isAffine() && extent->linear.constant == 0 &&
        extent->linear.terms.size() == 1 && extent->linear.terms[0].second == 1)
      column.symbolExtent = extent->linear.terms[0].first;
  }
  unsigned id = addColumn(std::move(column));
  gridColumns[dim] = id;
  Conjunction bounds;
  bounds.inequalities.push_back(LinearForm::getColumn(id));
  if (extent && extent->isAffine())
    bounds.inequalities.push_back(shifted(
        difference(extent->linear, LinearForm::getColumn(id)), Int(-1)));
  bounds.inequalities.push_back(
      shifted(LinearForm::getColumn(id, Int(-1)), *columns[id].upper));
  attach(id, addConstraint({bounds}, /*definitional=*/false));
  return id;
}

/// The lower and upper bounds and the step of dimension `dim` of `loop`
/// (scf.for, scf.parallel, scf.forall), as values or constants.
static std::optional<std::tuple<OpFoldResult, OpFoldResult, OpFoldResult>>
getLoopBounds(Operation *loop, unsigned dim) {
  if (auto forOp = dyn_cast<scf::ForOp>(loop))
    return std::make_tuple(OpFoldResult(forOp.getLowerBound()),
                           OpFoldResult(forOp.getUpperBound()),
                           OpFoldResult(forOp.getStep()));
  if (auto parallel = dyn_cast<scf::ParallelOp>(loop))
    return std::make_tuple(OpFoldResult(parallel.getLowerBound()[dim]),
                           OpFoldResult(parallel.getUpperBound()[dim]),
                           OpFoldResult(parallel.getStep()[dim]));
  if (auto forall = dyn_cast<scf::ForallOp>(loop))
    return std::make_tuple(forall.getMixedLowerBound()[dim],
                           forall.getMixedUpperBound()[dim],
                           forall.getMixedStep()[dim]);
  return std::nullopt;
}

/// The term of `value` (a bound of a loop) read signed or unsigned, if affine.
static std::optional<Term> getBoundTerm(IntegerModel &model, OpFoldResult value,
                                        bool isSigned) {
  if (std::optional<int64_t> constant = getConstantIntValue(value)) {
    // The constant's bits read as the loop compares them.
    Int reading(*constant);
    if (!isSigned && *constant < 0)
      reading += pow2(64);
    return Term::getConstant(reading);
  }
  Value operand = cast<Value>(value);
  Term term = isSigned ? model.getSigned(operand) : model.getUnsigned(operand);
  if (!term.isAffine())
    return std::nullopt;
  return term;
}

static bool isUnsignedLoop(Operation *loop) {
  auto forOp = dyn_cast<scf::ForOp>(loop);
  return forOp && forOp.getUnsignedCmp();
}

std::pair<SmallVector<Term>, SmallVector<Term>>
mlir::vx::detail::getAffineOperands(IntegerModel &model, unsigned numDims,
                                    ValueRange operands) {
  SmallVector<Term> dims, symbols;
  for (auto [position, operand] : llvm::enumerate(operands))
    (position < numDims ? dims : symbols).push_back(model.getBits(operand));
  return {std::move(dims), std::move(symbols)};
}

/// The terms of the results of `map` applied to `operands` (index values).
static SmallVector<Term> getAffineResults(IntegerModel &model, AffineMap map,
                                          ValueRange operands) {
  auto [dims, symbols] = getAffineOperands(model, map.getNumDims(), operands);
  SmallVector<Term> results;
  for (AffineExpr expr : map.getResults())
    results.push_back(model.wrap(model.getAffineTerm(expr, dims, symbols), 64,
                                 /*isSigned=*/true, Value()));
  return results;
}

unsigned IntegerModel::getIterationColumn(Operation *loop, unsigned dim) {
  auto key = std::make_pair(loop, dim);
  if (auto it = iterationColumns.find(key); it != iterationColumns.end())
    return it->second;
  Column column{ColumnKind::Iteration};
  column.dim = dim;
  column.scope = loop;
  column.lower = Int(0);
  unsigned id = addColumn(std::move(column));
  iterationColumns[key] = id;
  if (auto whileOp = dyn_cast<scf::WhileOp>(loop)) {
    attach(id, addConstraint(inequality(LinearForm::getColumn(id)),
                             /*definitional=*/false));
    return id;
  }

  Conjunction bounds;
  bounds.inequalities.push_back(LinearForm::getColumn(id));
  std::optional<Term> induction = getInductionTerm(loop, dim);
  auto addBelow = [&](const std::optional<Term> &bound) {
    // induction <= bound - 1.
    if (induction && bound && induction->isAffine() && bound->isAffine())
      bounds.inequalities.push_back(
          shifted(difference(bound->linear, induction->linear), Int(-1)));
    else
      columns[id].approximate = true;
  };
  if (auto loopBounds = getLoopBounds(loop, dim)) {
    auto [lower, upper, step] = *loopBounds;
    addBelow(getBoundTerm(*this, upper, !isUnsignedLoop(loop)));
    std::optional<int64_t> stepConstant = getConstantIntValue(step);
    if (!stepConstant || *stepConstant <= 0)
      columns[id].approximate = true;
    if (std::optional<Int> trips = getConstantTripCount(loop, dim))
      columns[id].upper = std::max(*trips - Int(1), Int(0));
    if (std::optional<int64_t> lowerConstant = getConstantIntValue(lower);
        lowerConstant && *lowerConstant == 0 && stepConstant &&
        *stepConstant == 1) {
      // A digit of a mixed-radix index: [0, upper).
      if (std::optional<int64_t> upperConstant = getConstantIntValue(upper))
        columns[id].constantExtent = Int(*upperConstant);
      else if (std::optional<Term> upperTerm = getBoundTerm(*this, upper, true);
               upperTerm && upperTerm->linear.constant == 0 &&
               upperTerm->linear.terms.size() == 1 &&
               upperTerm->linear.terms[0].second == 1 &&
               columns[upperTerm->linear.terms[0].first].sources.isInvariant())
        columns[id].symbolExtent = upperTerm->linear.terms[0].first;
    }
  } else if (auto affineLoop = dyn_cast<affine::AffineForOp>(loop)) {
    for (const Term &bound :
         getAffineResults(*this, affineLoop.getUpperBoundMap(),
                          affineLoop.getUpperBoundOperands()))
      addBelow(bound);
    AffineMap lowerMap = affineLoop.getLowerBoundMap();
    if (lowerMap.getNumResults() != 1) {
      // The column is the induction variable itself, above every bound.
      for (const Term &bound : getAffineResults(
               *this, lowerMap, affineLoop.getLowerBoundOperands())) {
        if (bound.isAffine())
          bounds.inequalities.push_back(
              difference(LinearForm::getColumn(id), bound.linear));
        else
          columns[id].approximate = true;
      }
      if (affineLoop.getStepAsInt() != 1)
        columns[id].approximate = true;
    }
  }
  attach(id, addConstraint({bounds}, /*definitional=*/false));
  return id;
}

std::optional<Term> IntegerModel::getInductionTerm(Operation *loop,
                                                   unsigned dim) {
  unsigned iteration = getIterationColumn(loop, dim);
  if (auto loopBounds = getLoopBounds(loop, dim)) {
    auto [lower, upper, step] = *loopBounds;
    std::optional<Term> start =
        getBoundTerm(*this, lower, !isUnsignedLoop(loop));
    if (!start)
      return std::nullopt;
    std::optional<int64_t> stepConstant = getConstantIntValue(step);
    Int scale(stepConstant && *stepConstant > 0 ? *stepConstant : 1);
    start->add(Term::getColumn(iteration), scale);
    return start;
  }
  if (auto affineLoop = dyn_cast<affine::AffineForOp>(loop)) {
    AffineMap lowerMap = affineLoop.getLowerBoundMap();
    if (lowerMap.getNumResults() != 1)
      return Term::getColumn(iteration);
    Term start =
        getAffineResults(*this, lowerMap, affineLoop.getLowerBoundOperands())
            .front();
    start.add(Term::getColumn(iteration), Int(affineLoop.getStepAsInt()));
    return start;
  }
  return std::nullopt;
}

std::optional<Int> IntegerModel::getConstantTripCount(Operation *loop,
                                                      unsigned dim) {
  if (auto affineLoop = dyn_cast<affine::AffineForOp>(loop)) {
    if (!affineLoop.hasConstantBounds())
      return std::nullopt;
    int64_t trips = llvm::divideCeil(affineLoop.getConstantUpperBound() -
                                         affineLoop.getConstantLowerBound(),
                                     affineLoop.getStepAsInt());
    return Int(std::max<int64_t>(trips, 0));
  }
  auto loopBounds = getLoopBounds(loop, dim);
  if (!loopBounds)
    return std::nullopt;
  auto [lower, upper, step] = *loopBounds;
  std::optional<int64_t> lowerConstant = getConstantIntValue(lower),
                         upperConstant = getConstantIntValue(upper),
                         stepConstant = getConstantIntValue(step);
  if (!stepConstant || *stepConstant <= 0)
    return std::nullopt;
  if (lowerConstant && upperConstant) {
    if (isUnsignedLoop(loop) && (*lowerConstant < 0 || *upperConstant < 0))
      return std::nullopt;
    if (*upperConstant <= *lowerConstant)
      return Int(0);
    return Int(
        llvm::divideCeil(*upperConstant - *lowerConstant, *stepConstant));
  }
  // Bounds that move together (`j to j + 8`, j an enclosing loop's counter):
  // their difference is constant.
  bool isSigned = !isUnsignedLoop(loop);
  std::optional<Term> lowerTerm = getBoundTerm(*this, lower, isSigned);
  std::optional<Term> upperTerm = getBoundTerm(*this, upper, isSigned);
  if (!lowerTerm || !upperTerm)
    return std::nullopt;
  LinearForm extent = difference(upperTerm->linear, lowerTerm->linear);
  if (!extent.isConstant())
    return std::nullopt;
  if (extent.constant <= 0)
    return Int(0);
  Int stepInt(*stepConstant);
  return (extent.constant + stepInt - Int(1)) / stepInt;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// The integer operands an i1 condition is built from, without recursion.
static void collectConditionOperands(Value condition,
                                     SmallVectorImpl<Value> &operands) {
  SmallVector<Value> stack{condition};
  llvm::SmallPtrSet<void *, 8> seen;
  while (!stack.empty()) {
    Value value = stack.pop_back_val();
    if (!seen.insert(value.getAsOpaquePointer()).second || seen.size() > 64)
      continue;
    Operation *def = value.getDefiningOp();
    if (isa_and_nonnull<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(def) &&
        def->getResult(0).getType().isInteger(1)) {
      llvm::append_range(stack, def->getOperands());
    } else if (auto select = dyn_cast_or_null<arith::SelectOp>(def)) {
      llvm::append_range(stack, select->getOperands());
    } else if (isa_and_nonnull<arith::CmpIOp, arith::TruncIOp>(def)) {
      llvm::append_range(operands, def->getOperands());
    } else {
      operands.push_back(value);
    }
  }
}

SmallVector<Value> IntegerModel::getBitsDependences(Value value) {
  SmallVector<Value> dependences;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (!spawn.isDefinedInBody(arg))
      return dependences;
    if (auto whileOp = dyn_cast<scf::WhileOp>(owner)) {
      if (arg.getOwner() == &whileOp.getBefore().front())
        dependences.push_back(whileOp.getInits()[arg.getArgNumber()]);
      else
        dependences.push_back(
            whileOp.getConditionOp().getArgs()[arg.getArgNumber()]);
      return dependences;
    }
    if (isModelledLoop(owner))
      for (Value operand : owner->getOperands())
        if (isa<IndexType, IntegerType>(operand.getType()))
          dependences.push_back(operand);
    return dependences;
  }
  Operation *def = value.getDefiningOp();
  if (isa<arith::SelectOp>(def)) {
    collectConditionOperands(def->getOperand(0), dependences);
    dependences.push_back(def->getOperand(1));
    dependences.push_back(def->getOperand(2));
    return dependences;
  }
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(def) &&
      value.getType().isInteger(1)) {
    collectConditionOperands(value, dependences);
    return dependences;
  }
  if (def->getDialect() && def->getDialect()->getNamespace() == "arith" &&
      def->getNumRegions() == 0) {
    llvm::append_range(dependences, def->getOperands());
    return dependences;
  }
  if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
    llvm::append_range(dependences, apply.getMapOperands());
    return dependences;
  }
  if (auto branch = dyn_cast<scf::IfOp>(def)) {
    unsigned position = cast<OpResult>(value).getResultNumber();
    collectConditionOperands(branch.getCondition(), dependences);
    dependences.push_back(branch.thenYield().getOperand(position));
    dependences.push_back(branch.elseYield().getOperand(position));
    return dependences;
  }
  if (auto switchOp = dyn_cast<scf::IndexSwitchOp>(def)) {
    unsigned position = cast<OpResult>(value).getResultNumber();
    dependences.push_back(switchOp.getArg());
    for (Region &region : switchOp->getRegions())
      dependences.push_back(
          region.front().getTerminator()->getOperand(position));
    return dependences;
  }
  if (auto gridDim = dyn_cast<GridDimOp>(def))
    if (gridDim->getParentOfType<SpawnOp>() == spawn)
      if (auto size = dyn_cast<Value>(spawn.getMixedGrid()[gridDim.getDim()]))
        dependences.push_back(size);
  return dependences;
}

Term IntegerModel::getBits(Value root) {
  if (auto it = bits.find(root); it != bits.end())
    return it->second;
  SmallVector<std::pair<Value, bool>> stack{{root, false}};
  llvm::SmallPtrSet<void *, 16> inProgress;
  while (!stack.empty()) {
    auto [value, expanded] = stack.pop_back_val();
    if (bits.count(value))
      continue;
    if (!expanded) {
      if (!inProgress.insert(value.getAsOpaquePointer()).second) {
        // A cycle (only through unrecognized loop-carried values): opaque.
        bits[value] =
            Term::getColumn(addOpaque(value, getIntegerWidth(value.getType())));
        continue;
      }
      stack.push_back({value, true});
      for (Value dependence : getBitsDependences(value))
        if (!bits.count(dependence))
          stack.push_back({dependence, false});
      continue;
    }
    Term term = computeBits(value);
    LLVM_DEBUG(llvm::dbgs()
               << "[vx-analysis] bits of " << value << ": " << term << "\n");
    bits[value] = std::move(term);
  }
  return bits.lookup(root);
}

Term IntegerModel::getOpaqueBits(Value value) {
  unsigned width = getIntegerWidth(value.getType());
  return Term::getColumn(
      addOpaque(value, width ? std::optional<unsigned>(width) : std::nullopt));
}

Term IntegerModel::computeBits(Value value) {
  unsigned width = getIntegerWidth(value.getType());
  if (!width)
    return getOpaqueBits(value);
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return Term::getConstant(toInt(constant, /*isSigned=*/true));
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    std::optional<Term> term = computeArgumentBits(arg);
    if (!term)
      LLVM_DEBUG(llvm::dbgs() << "[vx-analysis] opaque: argument " << arg
                              << " (captured, or not an induction variable "
                                 "of a modelled loop)\n");
    return term ? *term : getOpaqueBits(value);
  }
  Operation *def = value.getDefiningOp();
  if (width == 1 && isa<arith::CmpIOp, arith::AndIOp, arith::OrIOp,
                        arith::XOrIOp, arith::SelectOp>(def))
    return computeBooleanBits(value);
  auto result = cast<OpResult>(value);
  std::optional<Term> term =
      TypeSwitch<Operation *, std::optional<Term>>(def)
          .Case<GridIndexOp, GridDimOp>(
              [&](auto op) { return computeGridBits(op); })
          .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp>(
              [&](auto op) { return computeArithmeticBits(op); })
          .Case<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp,
                arith::CeilDivUIOp, arith::CeilDivSIOp, arith::RemUIOp,
                arith::RemSIOp>(
              [&](Operation *op) { return buildDivision(op); })
          .Case<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp, arith::AndIOp,
                arith::XOrIOp>(
              [&](Operation *op) { return computeBitwiseBits(op); })
          .Case<arith::TruncIOp, arith::ExtUIOp, arith::ExtSIOp,
                arith::IndexCastOp, arith::IndexCastUIOp>(
              [&](Operation *op) { return computeCastBits(op); })
          .Case<arith::SelectOp, arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp,
                arith::MaxUIOp>(
              [&](Operation *op) { return computeChoiceBits(op); })
          .Case([&](affine::AffineApplyOp apply) -> std::optional<Term> {
            AffineMap map = apply.getAffineMap();
            auto [dims, symbols] = getAffineOperands(*this, map.getNumDims(),
                                                     apply.getMapOperands());
            return buildAffineExpr(map.getResult(0), dims, symbols, value);
          })
          .Case<scf::IfOp, scf::IndexSwitchOp>(
              [&](auto op) { return computeRegionResultBits(op, result); })
          .Default([](Operation *) { return std::nullopt; });
  if (term)
    return *term;
  LLVM_DEBUG(llvm::dbgs() << "[vx-analysis] opaque: '" << def->getName()
                          << "' is not modelled for these operands: " << value
                          << "\n");
  return getOpaqueBits(value);
}

std::optional<Term> IntegerModel::computeArgumentBits(BlockArgument arg) {
  if (!spawn.isDefinedInBody(arg))
    return std::nullopt;
  Operation *owner = arg.getOwner()->getParentOp();
  if (isa<scf::WhileOp>(owner))
    return buildWhileArgument(arg);
  std::optional<unsigned> dim;
  if (auto forOp = dyn_cast<scf::ForOp>(owner)) {
    if (arg == forOp.getInductionVar())
      dim = 0;
  } else if (isa<scf::ParallelOp>(owner)) {
    dim = arg.getArgNumber();
  } else if (auto forall = dyn_cast<scf::ForallOp>(owner)) {
    if (arg.getArgNumber() < forall.getRank())
      dim = arg.getArgNumber();
  } else if (auto affineLoop = dyn_cast<affine::AffineForOp>(owner)) {
    if (arg == affineLoop.getInductionVar())
      dim = 0;
  }
  if (!dim)
    return std::nullopt;
  return getInductionTerm(owner, *dim);
}

std::optional<Term> IntegerModel::computeGridBits(GridIndexOp index) {
  if (index->getParentOfType<SpawnOp>() != spawn)
    return std::nullopt;
  return Term::getColumn(getGridColumn(index.getDim()));
}

std::optional<Term> IntegerModel::computeGridBits(GridDimOp gridDim) {
  if (gridDim->getParentOfType<SpawnOp>() != spawn)
    return std::nullopt;
  OpFoldResult size = spawn.getMixedGrid()[gridDim.getDim()];
  if (std::optional<int64_t> constantSize = getConstantIntValue(size))
    return Term::getConstant(Int(*constantSize));
  return getBits(cast<Value>(size));
}

// Overflow of a flagged op makes its result poison, and an execution that
// uses poison as an address, a bound or a condition is undefined: the model
// keeps the executions in which the flagged reading of the result is the
// exact result of the same readings of the operands.
std::optional<Term>
IntegerModel::computeNoWrapBits(Operation *op,
                                arith::IntegerOverflowFlags flags) {
  bool nsw = arith::bitEnumContainsAll(flags, arith::IntegerOverflowFlags::nsw);
  bool nuw = arith::bitEnumContainsAll(flags, arith::IntegerOverflowFlags::nuw);
  if (!nsw && !nuw)
    return std::nullopt;
  Value result = op->getResult(0);
  unsigned width = getIntegerWidth(result.getType());
  auto getExact = [&](bool isSigned) -> std::optional<Term> {
    auto read = [&](Value value) {
      return isSigned ? getSigned(value) : getUnsigned(value);
    };
    Term lhs = read(op->getOperand(0)), rhs = read(op->getOperand(1));
    std::optional<Term> exact;
    if (isa<arith::AddIOp>(op)) {
      lhs.add(rhs);
      exact = lhs;
    } else if (isa<arith::SubIOp>(op)) {
      lhs.add(rhs, Int(-1));
      exact = lhs;
    } else if (rhs.isConstant()) {
      exact = scaled(lhs, rhs.linear.constant);
    } else if (lhs.isConstant()) {
      exact = scaled(rhs, lhs.linear.constant);
    }
    if (!exact || !exact->isAffine())
      return std::nullopt;
    return exact;
  };
  std::optional<Term> exact = getExact(/*isSigned=*/nsw);
  std::optional<Term> exactUnsigned =
      nsw && nuw ? getExact(/*isSigned=*/false) : std::nullopt;
  if (!exact || (nsw && nuw && !exactUnsigned))
    return std::nullopt;
  auto [lower, upper] = getReadingRange(width, nsw);
  Column column{ColumnKind::Derived};
  column.value = result;
  column.lower = lower;
  column.upper = upper;
  unsigned id = addColumn(std::move(column));
  Conjunction definition;
  definition.equalities.push_back(
      difference(exact->linear, LinearForm::getColumn(id)));
  definition.inequalities.push_back(shifted(LinearForm::getColumn(id), -lower));
  definition.inequalities.push_back(
      shifted(LinearForm::getColumn(id, Int(-1)), upper));
  if (exactUnsigned) {
    auto [unsignedLower, unsignedUpper] = getReadingRange(width, false);
    definition.inequalities.push_back(
        shifted(exactUnsigned->linear, -unsignedLower));
    definition.inequalities.push_back(shifted(
        difference(LinearForm(), exactUnsigned->linear), unsignedUpper));
  }
  attach(id, addConstraint({definition}, /*definitional=*/false));
  return Term::getColumn(id);
}

std::optional<Term> IntegerModel::computeArithmeticBits(arith::AddIOp op) {
  if (std::optional<Term> exact = computeNoWrapBits(op, op.getOverflowFlags()))
    return exact;
  Term term = getBits(op.getLhs());
  term.add(getBits(op.getRhs()));
  return term;
}

std::optional<Term> IntegerModel::computeArithmeticBits(arith::SubIOp op) {
  if (std::optional<Term> exact = computeNoWrapBits(op, op.getOverflowFlags()))
    return exact;
  Term term = getBits(op.getLhs());
  term.add(getBits(op.getRhs()), Int(-1));
  return term;
}

std::optional<unsigned> IntegerModel::getSymbolColumn(const Term &term,
                                                      Value operand) {
  if (term.isAffine() && term.linear.constant == 0 &&
      term.linear.terms.size() == 1 && term.linear.terms[0].second == 1) {
    const Column &column = columns[term.linear.terms[0].first];
    if ((column.kind == ColumnKind::Opaque ||
         column.kind == ColumnKind::Extent) &&
        column.sources.isInvariant())
      return term.linear.terms[0].first;
  }
  // A symbol the body computes from captured values (`%n - 1`) is a column
  // of its own, the same in both instances.
  if (getSources(operand).isInvariant())
    return addOpaque(operand, getIntegerWidth(operand.getType()));
  return std::nullopt;
}

std::optional<Term> IntegerModel::computeArithmeticBits(arith::MulIOp op) {
  if (std::optional<Term> exact = computeNoWrapBits(op, op.getOverflowFlags()))
    return exact;
  Term lhs = getBits(op.getLhs()), rhs = getBits(op.getRhs());
  if (rhs.isConstant())
    return scaled(lhs, rhs.linear.constant);
  if (lhs.isConstant())
    return scaled(rhs, lhs.linear.constant);
  // `index * symbol` in 64 bits, the symbol the same for every instance: a
  // symbolic stride.
  if (getIntegerWidth(op.getType()) != 64)
    return std::nullopt;
  for (auto [factor, symbol, symbolValue] :
       {std::make_tuple(&lhs, &rhs, op.getRhs()),
        std::make_tuple(&rhs, &lhs, op.getLhs())}) {
    if (std::optional<unsigned> column =
            getSymbolColumn(*symbol, symbolValue)) {
      Term term;
      term.products.push_back(
          {std::make_shared<const Term>(*factor), *column, Int(1)});
      return term;
    }
  }
  return std::nullopt;
}

std::optional<Term> IntegerModel::computeBitwiseBits(Operation *op) {
  Value result = op->getResult(0);
  unsigned width = getIntegerWidth(result.getType());
  if (isa<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp>(op)) {
    Term amount = getBits(op->getOperand(1));
    if (!amount.isConstant() || amount.linear.constant < 0 ||
        amount.linear.constant >= Int(width))
      return std::nullopt;
    Int factor = pow2(unsigned(int64_t(amount.linear.constant)));
    if (isa<arith::ShLIOp>(op))
      return scaled(getBits(op->getOperand(0)), factor);
    Term operand = isa<arith::ShRUIOp>(op) ? getUnsigned(op->getOperand(0))
                                           : getSigned(op->getOperand(0));
    if (!operand.isAffine())
      return std::nullopt;
    return getFloorDiv(operand, factor, result);
  }
  for (unsigned side : {0u, 1u}) {
    APInt mask;
    if (!matchPattern(op->getOperand(1 - side), m_ConstantInt(&mask)))
      continue;
    Term operand = getBits(op->getOperand(side));
    // x ^ -1 is -1 - x.
    if (isa<arith::XOrIOp>(op) && mask.isAllOnes()) {
      Term term = Term::getConstant(Int(-1));
      term.add(operand, Int(-1));
      return term;
    }
    // x & (2^k - 1) is x mod 2^k.
    if (isa<arith::AndIOp>(op) && mask.isAllOnes())
      return operand;
    if (isa<arith::AndIOp>(op) && mask.isMask())
      return getModulo(operand, pow2(mask.countTrailingOnes()), result);
  }
  return std::nullopt;
}

std::optional<Term> IntegerModel::computeCastBits(Operation *op) {
  Value operand = op->getOperand(0);
  if (isa<arith::TruncIOp>(op))
    return getBits(operand);
  if (isa<arith::ExtUIOp>(op))
    return getUnsigned(operand);
  if (isa<arith::ExtSIOp>(op))
    return getSigned(operand);
  // index_cast and index_castui: a truncation, or an extension read signed
  // or unsigned.
  if (getIntegerWidth(op->getResult(0).getType()) <=
      getIntegerWidth(operand.getType()))
    return getBits(operand);
  return isa<arith::IndexCastOp>(op) ? getSigned(operand)
                                     : getUnsigned(operand);
}

Term IntegerModel::computeBooleanBits(Value value) {
  // A boolean used as a value: 1 where the condition holds, else 0. A
  // condition that falls back to the boolean's bits leaves them opaque.
  void *key = value.getAsOpaquePointer();
  booleansInProgress.insert(key);
  std::pair<DNF, Term> cases[] = {
      {getCondition(value, true), Term::getConstant(Int(1))},
      {getCondition(value, false), Term::getConstant(Int(0))}};
  booleansInProgress.erase(key);
  if (opaqueBooleans.contains(key)) {
    LLVM_DEBUG(llvm::dbgs() << "[vx-analysis] opaque: the condition of "
                            << value << " needs its own bits\n");
    return getOpaqueBits(value);
  }
  return buildCases(value, cases);
}

std::optional<Term> IntegerModel::computeChoiceBits(Operation *op) {
  Value value = op->getResult(0);
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    std::pair<DNF, Term> cases[] = {{getCondition(select.getCondition(), true),
                                     getBits(select.getTrueValue())},
                                    {getCondition(select.getCondition(), false),
                                     getBits(select.getFalseValue())}};
    return buildCases(value, cases);
  }
  bool isSigned = isa<arith::MinSIOp, arith::MaxSIOp>(op);
  bool isMin = isa<arith::MinSIOp, arith::MinUIOp>(op);
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Term a = isSigned ? getSigned(lhs) : getUnsigned(lhs);
  Term b = isSigned ? getSigned(rhs) : getUnsigned(rhs);
  if (!a.isAffine() || !b.isAffine())
    return std::nullopt;
  // min: a where a <= b, else b; max: a where a >= b, else b.
  LinearForm aFirst =
      isMin ? difference(b.linear, a.linear) : difference(a.linear, b.linear);
  LinearForm bFirst = shifted(aFirst, Int(1));
  bFirst.scale(Int(-1));
  std::pair<DNF, Term> cases[] = {{inequality(aFirst), getBits(lhs)},
                                  {inequality(bFirst), getBits(rhs)}};
  return buildCases(value, cases);
}

std::optional<Term> IntegerModel::computeRegionResultBits(scf::IfOp branch,
                                                          OpResult result) {
  unsigned position = result.getResultNumber();
  std::pair<DNF, Term> cases[] = {
      {getCondition(branch.getCondition(), true),
       getBits(branch.thenYield().getOperand(position))},
      {getCondition(branch.getCondition(), false),
       getBits(branch.elseYield().getOperand(position))}};
  return buildCases(result, cases);
}

std::optional<Term>
IntegerModel::computeRegionResultBits(scf::IndexSwitchOp switchOp,
                                      OpResult result) {
  unsigned position = result.getResultNumber();
  Term selector = getSigned(switchOp.getArg());
  if (!selector.isAffine())
    return std::nullopt;
  std::vector<std::pair<DNF, Term>> cases;
  DNF otherwise = alwaysTrue();
  for (auto [caseValue, region] :
       llvm::zip_equal(switchOp.getCases(), switchOp.getCaseRegions())) {
    LinearForm differs = shifted(selector.linear, Int(-caseValue));
    cases.push_back(
        {equality(differs),
         getBits(region.front().getTerminator()->getOperand(position))});
    otherwise = conjoin(otherwise, nonZero(differs));
    if (otherwise.size() > budget.maxAlternatives)
      return std::nullopt;
  }
  cases.push_back(
      {otherwise,
       getBits(
           switchOp.getDefaultBlock().getTerminator()->getOperand(position))});
  return buildCases(result, cases);
}

Term IntegerModel::buildCases(Value origin,
                              ArrayRef<std::pair<DNF, Term>> cases) {
  Column column{ColumnKind::Derived};
  column.value = origin;
  std::optional<Int> lower, upper;
  bool first = true;
  for (const auto &[condition, term] : cases) {
    if (!term.isAffine())
      return Term::getColumn(
          addOpaque(origin, getIntegerWidth(origin.getType())));
    auto [low, high] = getInterval(term.linear);
    if (first) {
      lower = low;
      upper = high;
      first = false;
      continue;
    }
    lower = lower && low ? std::optional<Int>(std::min(*lower, *low))
                         : std::nullopt;
    upper = upper && high ? std::optional<Int>(std::max(*upper, *high))
                          : std::nullopt;
  }
  column.lower = lower;
  column.upper = upper;
  unsigned result = addColumn(std::move(column));
  DNF alternatives;
  for (const auto &[condition, term] : cases) {
    for (const Conjunction &conjunction : condition) {
      Conjunction alternative = conjunction;
      alternative.equalities.push_back(
          difference(LinearForm::getColumn(result), term.linear));
      alternatives.push_back(std::move(alternative));
    }
  }
  if (alternatives.size() > budget.maxAlternatives) {
    LLVM_DEBUG(llvm::dbgs() << "[vx-analysis] approximate: the cases of "
                            << origin << " have " << alternatives.size()
                            << " alternatives, over the budget\n");
    Column opaque = getOpaqueColumn(origin);
    opaque.sources.varies = true;
    opaque.approximate = true;
    opaque.lower = columns[result].lower;
    opaque.upper = columns[result].upper;
    columns[result] = std::move(opaque);
    return Term::getColumn(result);
  }
  attach(result, addConstraint(std::move(alternatives), /*definitional=*/true));
  return Term::getColumn(result);
}

Term IntegerModel::buildDivision(Operation *op) {
  Value result = op->getResult(0);
  unsigned width = getIntegerWidth(result.getType());
  auto opaque = [&] { return Term::getColumn(addOpaque(result, width)); };
  Term divisorBits = getBits(op->getOperand(1));
  if (!divisorBits.isConstant())
    return opaque();
  bool isUnsigned = isa<arith::DivUIOp, arith::CeilDivUIOp, arith::RemUIOp>(op);
  // The divisor's reading.
  Int modulus = pow2(width);
  Int divisor = mod(divisorBits.linear.constant, modulus);
  if (!isUnsigned && divisor >= pow2(width - 1))
    divisor -= modulus;
  if (divisor == 0)
    return opaque(); // Undefined behavior.
  Term dividend = isUnsigned ? getUnsigned(op->getOperand(0))
                             : getSigned(op->getOperand(0));
  if (!dividend.isAffine())
    return opaque();
  Int magnitude = abs(divisor);
  auto floorOf = [&](const Term &x) {
    return getFloorDiv(x, magnitude, result);
  };
  auto negated = [&](const Term &x) { return scaled(x, Int(-1)); };
  // trunc(x / magnitude), the quotient of signed division.
  auto truncated = [&](const Term &x) -> Term {
    auto [lower, upper] = getInterval(x.linear);
    if (lower && *lower >= 0)
      return floorOf(x);
    if (upper && *upper <= 0)
      return negated(floorOf(negated(x)));
    if (x.isConstant())
      return Term::getConstant(x.linear.constant / magnitude);
    // x >= 0 and m q <= x <= m q + m - 1, or x < 0 and m q - m + 1 <= x <= m q.
    Column column{ColumnKind::Derived};
    column.value = result;
    if (lower)
      column.lower = -(abs(*lower) / magnitude);
    if (upper)
      column.upper = abs(*upper) / magnitude;
    unsigned quotient = addColumn(std::move(column));
    LinearForm scaledQuotient = LinearForm::getColumn(quotient, magnitude);
    Conjunction positive, negative;
    positive.inequalities.push_back(x.linear);
    positive.inequalities.push_back(difference(x.linear, scaledQuotient));
    positive.inequalities.push_back(
        shifted(difference(scaledQuotient, x.linear), magnitude - Int(1)));
    negative.inequalities.push_back(shifted(negated(x).linear, Int(-1)));
    negative.inequalities.push_back(
        shifted(difference(x.linear, scaledQuotient), magnitude - Int(1)));
    negative.inequalities.push_back(difference(scaledQuotient, x.linear));
    attach(quotient,
           addConstraint({positive, negative}, /*definitional=*/true));
    return Term::getColumn(quotient);
  };
  bool positiveDivisor = divisor > 0;
  if (isa<arith::DivUIOp>(op))
    return floorOf(dividend);
  if (isa<arith::RemUIOp>(op))
    return getModulo(dividend, magnitude, result);
  if (isa<arith::CeilDivUIOp>(op)) {
    Term shiftedDividend = dividend;
    shiftedDividend.linear.constant += magnitude - Int(1);
    return floorOf(shiftedDividend);
  }
  if (isa<arith::FloorDivSIOp>(op))
    return positiveDivisor ? floorOf(dividend) : floorOf(negated(dividend));
  if (isa<arith::CeilDivSIOp>(op))
    return positiveDivisor ? negated(floorOf(negated(dividend)))
                           : negated(floorOf(dividend));
  Term quotient = truncated(dividend);
  if (isa<arith::DivSIOp>(op))
    return positiveDivisor ? quotient : negated(quotient);
  // remsi: x - magnitude * trunc(x / magnitude).
  Term remainder = dividend;
  remainder.add(quotient, -magnitude);
  return remainder;
}

Term IntegerModel::buildAffineExpr(AffineExpr root, ArrayRef<Term> dims,
                                   ArrayRef<Term> symbols, Value origin) {
  DenseMap<AffineExpr, Term> values;
  auto unknown = [&]() -> Term {
    LLVM_DEBUG(llvm::dbgs()
               << "[vx-analysis] approximate: affine expression " << root
               << " is not a constant multiple or a "
                  "division by a positive constant\n");
    Column column = getOpaqueColumn(origin);
    column.approximate = true;
    column.sources.varies = true;
    return Term::getColumn(addColumn(std::move(column)));
  };
  root.walk([&](AffineExpr expr) {
    if (values.count(expr))
      return;
    Term term;
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      term = dims[dim.getPosition()];
    } else if (auto symbol = dyn_cast<AffineSymbolExpr>(expr)) {
      term = symbols[symbol.getPosition()];
    } else if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
      term = Term::getConstant(Int(constant.getValue()));
    } else {
      auto binary = cast<AffineBinaryOpExpr>(expr);
      Term lhs = values.lookup(binary.getLHS());
      Term rhs = values.lookup(binary.getRHS());
      switch (expr.getKind()) {
      case AffineExprKind::Add:
        term = lhs;
        term.add(rhs);
        break;
      case AffineExprKind::Mul:
        if (rhs.isConstant())
          term = scaled(lhs, rhs.linear.constant);
        else if (lhs.isConstant())
          term = scaled(rhs, lhs.linear.constant);
        else
          term = unknown();
        break;
      default: {
        // floordiv, ceildiv and mod of the signed index value by a positive
        // constant (what lower-affine computes).
        Term dividend = wrap(lhs, 64, true, origin);
        if (!rhs.isConstant() || rhs.linear.constant <= 0 ||
            !dividend.isAffine()) {
          term = unknown();
          break;
        }
        Int divisor = rhs.linear.constant;
        if (expr.getKind() == AffineExprKind::Mod) {
          term = getModulo(dividend, divisor, origin);
        } else if (expr.getKind() == AffineExprKind::FloorDiv) {
          term = getFloorDiv(dividend, divisor, origin);
        } else {
          dividend.linear.constant += divisor - Int(1);
          term = getFloorDiv(dividend, divisor, origin);
        }
      }
      }
    }
    values[expr] = std::move(term);
  });
  return values.lookup(root);
}

//===----------------------------------------------------------------------===//
// Sources and closures
//===----------------------------------------------------------------------===//

const Sources &IntegerModel::getSources(Value root) {
  if (auto it = sources.find(root); it != sources.end())
    return it->second;
  unsigned rank = spawn.getRank();
  SmallVector<std::pair<Value, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [value, expanded] = stack.pop_back_val();
    if (sources.count(value))
      continue;
    Sources result;
    result.gridDims.resize(rank);
    Operation *def = value.getDefiningOp();
    bool inBody = spawn.isDefinedInBody(value);
    if (!inBody) {
      sources[value] = result;
      continue;
    }
    if (!def) {
      result.varies = true; // A loop's induction variable or carried value.
      sources[value] = result;
      continue;
    }
    if (auto index = dyn_cast<GridIndexOp>(def)) {
      result.gridDims.set(index.getDim());
      sources[value] = result;
      continue;
    }
    if (!expanded) {
      stack.push_back({value, true});
      for (Value operand : def->getOperands())
        if (!sources.count(operand))
          stack.push_back({operand, false});
      continue;
    }
    for (Value operand : def->getOperands())
      result.merge(sources.lookup(operand));
    if (def->getNumRegions() != 0 || readsMutableMemory(def))
      result.varies = true;
    sources[value] = result;
  }
  return sources[root];
}

void IntegerModel::close(SmallVectorImpl<unsigned> &closedColumns,
                         SmallVectorImpl<unsigned> &closedConstraints) const {
  llvm::SmallDenseSet<unsigned, 32> seenColumns(closedColumns.begin(),
                                                closedColumns.end());
  llvm::SmallDenseSet<unsigned, 32> seenConstraints(closedConstraints.begin(),
                                                    closedConstraints.end());
  SmallVector<unsigned> columnWork(closedColumns.begin(), closedColumns.end());
  SmallVector<unsigned> constraintWork(closedConstraints.begin(),
                                       closedConstraints.end());
  auto addColumn = [&](unsigned column) {
    if (seenColumns.insert(column).second) {
      closedColumns.push_back(column);
      columnWork.push_back(column);
    }
  };
  while (!columnWork.empty() || !constraintWork.empty()) {
    if (!columnWork.empty()) {
      unsigned column = columnWork.pop_back_val();
      for (unsigned constraint : columns[column].constraints)
        if (seenConstraints.insert(constraint).second) {
          closedConstraints.push_back(constraint);
          constraintWork.push_back(constraint);
        }
      if (columns[column].symbolExtent)
        addColumn(*columns[column].symbolExtent);
      continue;
    }
    unsigned constraint = constraintWork.pop_back_val();
    for (const Conjunction &conjunction : constraints[constraint].alternatives)
      for (const auto *forms :
           {&conjunction.equalities, &conjunction.inequalities})
        for (const LinearForm &form : *forms)
          for (const auto &[column, coefficient] : form.terms)
            addColumn(column);
  }
}

unsigned IntegerModel::getDimensionColumn(Value memref, unsigned dim) {
  auto key = std::make_pair(memref, dim);
  if (auto it = dimensionColumns.find(key); it != dimensionColumns.end())
    return it->second;
  Column column{ColumnKind::Opaque};
  column.value = memref;
  column.sources.gridDims.resize(spawn.getRank());
  unsigned id = addColumn(std::move(column));
  dimensionColumns[key] = id;
  setTypeBounds(id, IndexType::get(memref.getContext()));
  columns[id].lower = Int(0);
  attach(id, addConstraint(inequality(LinearForm::getColumn(id)),
                           /*definitional=*/true));
  return id;
}

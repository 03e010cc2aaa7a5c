//===- IntegerModel.cpp - Integer values of a spawn body as columns -------===//

#include "IntegerModel.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::vx;
using namespace mlir::vx::detail;

//===----------------------------------------------------------------------===//
// Forms and terms
//===----------------------------------------------------------------------===//

LinearForm LinearForm::getConstant(Int value) {
  LinearForm form;
  form.constant = value;
  return form;
}

LinearForm LinearForm::getColumn(unsigned column, Int coefficient) {
  LinearForm form;
  if (coefficient != 0)
    form.terms.push_back({column, coefficient});
  return form;
}

void LinearForm::add(const LinearForm &other, const Int &scale) {
  if (scale == 0)
    return;
  constant += other.constant * scale;
  if (other.terms.empty())
    return;
  SmallVector<std::pair<unsigned, Int>, 4> merged;
  merged.reserve(terms.size() + other.terms.size());
  auto *a = terms.begin(), *aEnd = terms.end();
  const auto *b = other.terms.begin(), *bEnd = other.terms.end();
  while (a != aEnd || b != bEnd) {
    if (b == bEnd || (a != aEnd && a->first < b->first)) {
      merged.push_back(*a++);
      continue;
    }
    if (a == aEnd || b->first < a->first) {
      merged.push_back({b->first, b->second * scale});
      ++b;
      continue;
    }
    Int sum = a->second + b->second * scale;
    if (sum != 0)
      merged.push_back({a->first, sum});
    ++a;
    ++b;
  }
  terms = std::move(merged);
}

void LinearForm::scale(const Int &factor) {
  if (factor == 0) {
    terms.clear();
    constant = Int(0);
    return;
  }
  for (auto &term : terms)
    term.second *= factor;
  constant *= factor;
}

Int LinearForm::getCoefficient(unsigned column) const {
  for (const auto &[candidate, coefficient] : terms)
    if (candidate == column)
      return coefficient;
  return Int(0);
}

bool LinearForm::mentions(unsigned column) const {
  return llvm::any_of(terms,
                      [&](const auto &term) { return term.first == column; });
}

LinearForm LinearForm::rename(function_ref<unsigned(unsigned)> map) const {
  LinearForm result = getConstant(constant);
  for (const auto &[column, coefficient] : terms)
    result.add(getColumn(map(column), coefficient));
  return result;
}

void Term::add(const Term &other, const Int &scale) {
  linear.add(other.linear, scale);
  if (scale == 0)
    return;
  for (const Product &product : other.products)
    products.push_back({product.factor, product.symbol, product.scale * scale});
}

bool Term::mentions(unsigned column) const {
  return linear.mentions(column) ||
         llvm::any_of(products, [&](const Product &product) {
           return product.symbol == column || product.factor->mentions(column);
         });
}

void Conjunction::append(const Conjunction &other) {
  llvm::append_range(equalities, other.equalities);
  llvm::append_range(inequalities, other.inequalities);
}

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

Int mlir::vx::detail::toInt(const APInt &value, bool isSigned) {
  if (isSigned)
    return Int(value);
  return Int(value.zext(value.getBitWidth() + 1));
}

static Int pow2(unsigned exponent) {
  Int result(1);
  while (exponent >= 32) {
    result *= Int(int64_t(1) << 32);
    exponent -= 32;
  }
  return result * Int(int64_t(1) << exponent);
}

/// The range of a `width`-bit reading.
static std::pair<Int, Int> getReadingRange(unsigned width, bool isSigned) {
  if (isSigned)
    return {-pow2(width - 1), pow2(width - 1) - Int(1)};
  return {Int(0), pow2(width) - Int(1)};
}

bool mlir::vx::detail::isModelledLoop(Operation *op) {
  return isa<scf::ForOp, scf::ParallelOp, scf::ForallOp, affine::AffineForOp,
             scf::WhileOp>(op);
}

/// lhs - rhs >= 0 and friends, as forms.
static LinearForm difference(const LinearForm &lhs, const LinearForm &rhs) {
  LinearForm form = lhs;
  form.add(rhs, Int(-1));
  return form;
}

static LinearForm shifted(LinearForm form, const Int &by) {
  form.constant += by;
  return form;
}

/// A DNF of one conjunction with one inequality.
static DNF inequality(LinearForm form) {
  Conjunction conjunction;
  conjunction.inequalities.push_back(std::move(form));
  return {conjunction};
}

static DNF equality(LinearForm form) {
  Conjunction conjunction;
  conjunction.equalities.push_back(std::move(form));
  return {conjunction};
}

static DNF alwaysTrue() { return {Conjunction()}; }

static DNF concat(DNF a, const DNF &b) {
  llvm::append_range(a, b);
  return a;
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

/// The terms of the results of `map` applied to `operands` (index values).
static SmallVector<Term> getAffineResults(
    IntegerModel &model, AffineMap map, ValueRange operands,
    function_ref<Term(AffineExpr, ArrayRef<Term>, ArrayRef<Term>)> build) {
  SmallVector<Term> dims, symbols;
  for (auto [position, operand] : llvm::enumerate(operands))
    (position < map.getNumDims() ? dims : symbols)
        .push_back(model.getBits(operand));
  SmallVector<Term> results;
  for (AffineExpr expr : map.getResults())
    results.push_back(
        model.wrap(build(expr, dims, symbols), 64, true, Value()));
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
    auto build = [&](AffineExpr expr, ArrayRef<Term> dims,
                     ArrayRef<Term> symbols) {
      return buildAffineExpr(expr, dims, symbols, Value());
    };
    for (const Term &bound :
         getAffineResults(*this, affineLoop.getUpperBoundMap(),
                          affineLoop.getUpperBoundOperands(), build))
      addBelow(bound);
    AffineMap lowerMap = affineLoop.getLowerBoundMap();
    if (lowerMap.getNumResults() != 1) {
      // The column is the induction variable itself, above every bound.
      for (const Term &bound : getAffineResults(
               *this, lowerMap, affineLoop.getLowerBoundOperands(), build)) {
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
        getAffineResults(
            *this, lowerMap, affineLoop.getLowerBoundOperands(),
            [&](AffineExpr expr, ArrayRef<Term> dims, ArrayRef<Term> symbols) {
              return buildAffineExpr(expr, dims, symbols, Value());
            })
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
  if (!lowerConstant || !upperConstant || !stepConstant || *stepConstant <= 0)
    return std::nullopt;
  if (isUnsignedLoop(loop) && (*lowerConstant < 0 || *upperConstant < 0))
    return std::nullopt;
  if (*upperConstant <= *lowerConstant)
    return Int(0);
  return Int(llvm::divideCeil(*upperConstant - *lowerConstant, *stepConstant));
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
    bits[value] = std::move(term);
  }
  return bits.lookup(root);
}

/// The term of `term` scaled by a constant.
static Term scaled(const Term &term, const Int &factor) {
  Term result;
  result.add(term, factor);
  return result;
}

Term IntegerModel::computeBits(Value value) {
  unsigned width = getIntegerWidth(value.getType());
  auto opaque = [&] {
    return Term::getColumn(addOpaque(
        value, width ? std::optional<unsigned>(width) : std::nullopt));
  };
  if (!width)
    return opaque();
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return Term::getConstant(toInt(constant, /*isSigned=*/true));

  bool inBody = spawn.isDefinedInBody(value);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (!inBody)
      return opaque();
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto whileOp = dyn_cast<scf::WhileOp>(owner))
      return buildWhileArgument(arg);
    std::optional<unsigned> dim;
    if (auto forOp = dyn_cast<scf::ForOp>(owner)) {
      if (arg == forOp.getInductionVar())
        dim = 0;
    } else if (auto parallel = dyn_cast<scf::ParallelOp>(owner)) {
      dim = arg.getArgNumber();
    } else if (auto forall = dyn_cast<scf::ForallOp>(owner)) {
      if (arg.getArgNumber() < forall.getRank())
        dim = arg.getArgNumber();
    } else if (auto affineLoop = dyn_cast<affine::AffineForOp>(owner)) {
      if (arg == affineLoop.getInductionVar())
        dim = 0;
    }
    if (!dim)
      return opaque();
    std::optional<Term> induction = getInductionTerm(owner, *dim);
    return induction ? *induction : opaque();
  }

  Operation *def = value.getDefiningOp();
  if (auto index = dyn_cast<GridIndexOp>(def)) {
    if (def->getParentOfType<SpawnOp>() != spawn)
      return opaque();
    return Term::getColumn(getGridColumn(index.getDim()));
  }
  if (auto gridDim = dyn_cast<GridDimOp>(def)) {
    if (def->getParentOfType<SpawnOp>() != spawn)
      return opaque();
    OpFoldResult size = spawn.getMixedGrid()[gridDim.getDim()];
    if (std::optional<int64_t> constantSize = getConstantIntValue(size))
      return Term::getConstant(Int(*constantSize));
    return getBits(cast<Value>(size));
  }
  if (isa<arith::AddIOp, arith::SubIOp>(def)) {
    Term term = getBits(def->getOperand(0));
    term.add(getBits(def->getOperand(1)),
             Int(isa<arith::AddIOp>(def) ? 1 : -1));
    return term;
  }
  if (isa<arith::MulIOp>(def)) {
    Term lhs = getBits(def->getOperand(0)), rhs = getBits(def->getOperand(1));
    if (rhs.isConstant())
      return scaled(lhs, rhs.linear.constant);
    if (lhs.isConstant())
      return scaled(rhs, lhs.linear.constant);
    // `index * symbol` in 64 bits, the symbol the same for every instance: a
    // symbolic stride.
    auto symbolColumn = [&](const Term &term) -> std::optional<unsigned> {
      if (!term.isAffine() || term.linear.constant != 0 ||
          term.linear.terms.size() != 1 || term.linear.terms[0].second != 1)
        return std::nullopt;
      const Column &column = columns[term.linear.terms[0].first];
      if ((column.kind != ColumnKind::Opaque &&
           column.kind != ColumnKind::Extent) ||
          !column.sources.isInvariant())
        return std::nullopt;
      return term.linear.terms[0].first;
    };
    // A symbol the body computes from captured values (`%n - 1`) is a
    // column of its own, the same in both instances.
    auto symbolOf = [&](const Term &term,
                        Value operand) -> std::optional<unsigned> {
      if (std::optional<unsigned> column = symbolColumn(term))
        return column;
      if (getSources(operand).isInvariant())
        return addOpaque(operand, width);
      return std::nullopt;
    };
    if (width == 64) {
      for (auto [factor, symbol, symbolValue] :
           {std::make_tuple(&lhs, &rhs, def->getOperand(1)),
            std::make_tuple(&rhs, &lhs, def->getOperand(0))}) {
        if (std::optional<unsigned> column = symbolOf(*symbol, symbolValue)) {
          Term term;
          term.products.push_back(
              {std::make_shared<const Term>(*factor), *column, Int(1)});
          return term;
        }
      }
    }
    return opaque();
  }
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp,
          arith::CeilDivUIOp, arith::CeilDivSIOp, arith::RemUIOp,
          arith::RemSIOp>(def))
    return buildDivision(def);
  if (isa<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp>(def)) {
    Term amount = getBits(def->getOperand(1));
    if (!amount.isConstant() || amount.linear.constant < 0 ||
        amount.linear.constant >= Int(width))
      return opaque();
    Int factor = pow2(unsigned(int64_t(amount.linear.constant)));
    if (isa<arith::ShLIOp>(def))
      return scaled(getBits(def->getOperand(0)), factor);
    Term operand = isa<arith::ShRUIOp>(def) ? getUnsigned(def->getOperand(0))
                                            : getSigned(def->getOperand(0));
    if (!operand.isAffine())
      return opaque();
    return getFloorDiv(operand, factor, value);
  }
  if (width == 1 && isa<arith::CmpIOp, arith::AndIOp, arith::OrIOp,
                        arith::XOrIOp, arith::SelectOp>(def)) {
    // A boolean used as a value: 1 where the condition holds, else 0. A
    // condition that falls back to the boolean's bits leaves them opaque.
    void *key = value.getAsOpaquePointer();
    booleansInProgress.insert(key);
    std::pair<DNF, Term> cases[] = {
        {getCondition(value, true), Term::getConstant(Int(1))},
        {getCondition(value, false), Term::getConstant(Int(0))}};
    booleansInProgress.erase(key);
    if (opaqueBooleans.contains(key))
      return opaque();
    return buildCases(value, cases);
  }
  if (auto andOp = dyn_cast<arith::AndIOp>(def)) {
    // x & (2^k - 1) is x mod 2^k.
    for (unsigned side : {0u, 1u}) {
      APInt mask;
      if (!matchPattern(def->getOperand(1 - side), m_ConstantInt(&mask)))
        continue;
      if (mask.isAllOnes())
        return getBits(def->getOperand(side));
      if (mask.isMask())
        return getModulo(getBits(def->getOperand(side)),
                         pow2(mask.countTrailingOnes()), value);
    }
    return opaque();
  }
  if (isa<arith::XOrIOp>(def)) {
    // x ^ -1 is -1 - x.
    for (unsigned side : {0u, 1u}) {
      APInt mask;
      if (matchPattern(def->getOperand(1 - side), m_ConstantInt(&mask)) &&
          mask.isAllOnes()) {
        Term term = Term::getConstant(Int(-1));
        term.add(getBits(def->getOperand(side)), Int(-1));
        return term;
      }
    }
    return opaque();
  }
  if (isa<arith::TruncIOp>(def))
    return getBits(def->getOperand(0));
  if (isa<arith::ExtUIOp>(def))
    return getUnsigned(def->getOperand(0));
  if (isa<arith::ExtSIOp>(def))
    return getSigned(def->getOperand(0));
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def)) {
    Value operand = def->getOperand(0);
    if (width <= getIntegerWidth(operand.getType()))
      return getBits(operand);
    return isa<arith::IndexCastOp>(def) ? getSigned(operand)
                                        : getUnsigned(operand);
  }
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    std::pair<DNF, Term> cases[] = {{getCondition(select.getCondition(), true),
                                     getBits(select.getTrueValue())},
                                    {getCondition(select.getCondition(), false),
                                     getBits(select.getFalseValue())}};
    return buildCases(value, cases);
  }
  if (isa<arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp, arith::MaxUIOp>(
          def)) {
    bool isSigned = isa<arith::MinSIOp, arith::MaxSIOp>(def);
    bool isMin = isa<arith::MinSIOp, arith::MinUIOp>(def);
    Value lhs = def->getOperand(0), rhs = def->getOperand(1);
    Term a = isSigned ? getSigned(lhs) : getUnsigned(lhs);
    Term b = isSigned ? getSigned(rhs) : getUnsigned(rhs);
    if (!a.isAffine() || !b.isAffine())
      return opaque();
    // min: a where a <= b, else b; max: a where a >= b, else b.
    LinearForm aFirst =
        isMin ? difference(b.linear, a.linear) : difference(a.linear, b.linear);
    LinearForm bFirst = shifted(aFirst, Int(1));
    bFirst.scale(Int(-1));
    std::pair<DNF, Term> cases[] = {{inequality(aFirst), getBits(lhs)},
                                    {inequality(bFirst), getBits(rhs)}};
    return buildCases(value, cases);
  }
  if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
    AffineMap map = apply.getAffineMap();
    SmallVector<Term> dims, symbols;
    for (auto [position, operand] : llvm::enumerate(apply.getMapOperands()))
      (position < map.getNumDims() ? dims : symbols)
          .push_back(getBits(operand));
    return buildAffineExpr(map.getResult(0), dims, symbols, value);
  }
  if (auto branch = dyn_cast<scf::IfOp>(def)) {
    unsigned position = cast<OpResult>(value).getResultNumber();
    std::pair<DNF, Term> cases[] = {
        {getCondition(branch.getCondition(), true),
         getBits(branch.thenYield().getOperand(position))},
        {getCondition(branch.getCondition(), false),
         getBits(branch.elseYield().getOperand(position))}};
    return buildCases(value, cases);
  }
  if (auto switchOp = dyn_cast<scf::IndexSwitchOp>(def)) {
    unsigned position = cast<OpResult>(value).getResultNumber();
    Term selector = getSigned(switchOp.getArg());
    if (!selector.isAffine())
      return opaque();
    std::vector<std::pair<DNF, Term>> cases;
    DNF otherwise = alwaysTrue();
    for (auto [caseValue, region] :
         llvm::zip_equal(switchOp.getCases(), switchOp.getCaseRegions())) {
      LinearForm differs = shifted(selector.linear, Int(-caseValue));
      cases.push_back(
          {equality(differs),
           getBits(region.front().getTerminator()->getOperand(position))});
      LinearForm below = differs;
      below.scale(Int(-1));
      otherwise =
          conjoin(otherwise, concat(inequality(shifted(differs, Int(-1))),
                                    inequality(shifted(below, Int(-1)))));
      if (otherwise.size() > budget.maxAlternatives)
        return opaque();
    }
    cases.push_back(
        {otherwise,
         getBits(switchOp.getDefaultBlock().getTerminator()->getOperand(
             position))});
    return buildCases(value, cases);
  }
  return opaque();
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
// Conditions
//===----------------------------------------------------------------------===//

DNF IntegerModel::conjoin(const DNF &a, const DNF &b) {
  DNF result;
  for (const Conjunction &left : a)
    for (const Conjunction &right : b) {
      Conjunction both = left;
      both.append(right);
      result.push_back(std::move(both));
    }
  return result;
}

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
    return concat(inequality(shifted(diff, Int(-1))),
                  inequality(shifted(negatedDiff, Int(-1))));
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
static DNF getAffineIfCondition(
    IntegerModel &model, affine::AffineIfOp op, bool thenRegion,
    function_ref<Term(AffineExpr, ArrayRef<Term>, ArrayRef<Term>)> build) {
  IntegerSet set = op.getIntegerSet();
  SmallVector<Term> dims, symbols;
  for (auto [position, operand] : llvm::enumerate(op.getOperands()))
    (position < set.getNumDims() ? dims : symbols)
        .push_back(model.getBits(operand));
  Conjunction all;
  DNF anyViolated;
  for (auto [expr, isEquality] :
       llvm::zip_equal(set.getConstraints(), set.getEqFlags())) {
    Term term = model.wrap(build(expr, dims, symbols), 64, true, Value());
    if (!term.isAffine())
      return alwaysTrue();
    LinearForm negated = term.linear;
    negated.scale(Int(-1));
    if (isEquality) {
      all.equalities.push_back(term.linear);
      llvm::append_range(anyViolated,
                         concat(inequality(shifted(term.linear, Int(-1))),
                                inequality(shifted(negated, Int(-1)))));
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
          LinearForm differs = shifted(selector.linear, Int(-caseValue));
          LinearForm below = differs;
          below.scale(Int(-1));
          addDNF(concat(inequality(shifted(differs, Int(-1))),
                        inequality(shifted(below, Int(-1)))));
        }
      } else {
        unsigned position = region->getRegionNumber() - 1;
        addDNF(equality(
            shifted(selector.linear, Int(-switchOp.getCases()[position]))));
      }
    } else if (auto affineIf = dyn_cast<affine::AffineIfOp>(parent)) {
      addDNF(getAffineIfCondition(
          *this, affineIf, region == &affineIf.getThenRegion(),
          [&](AffineExpr expr, ArrayRef<Term> dims, ArrayRef<Term> symbols) {
            return buildAffineExpr(expr, dims, symbols, Value());
          }));
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

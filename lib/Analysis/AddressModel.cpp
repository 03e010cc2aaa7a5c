//===- AddressModel.cpp - Addresses of two spawn instances ----------------===//

#include "Vx/Analysis/AddressModel.h"

#include "mlir/Analysis/Presburger/IntegerRelation.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::vx;

void LinearForm::add(const LinearForm &other, int64_t scale) {
  for (auto [column, coefficient] : other.coefficients) {
    int64_t &sum = coefficients[column];
    sum += scale * coefficient;
    if (sum == 0)
      coefficients.erase(column);
  }
  constant += scale * other.constant;
}

void IndexTerm::add(const IndexTerm &other, int64_t scale) {
  linear.add(other.linear, scale);
  for (const Product &product : other.products)
    products.push_back({product.factor, product.symbol, product.scale * scale});
}

bool IndexTerm::mentions(unsigned column) const {
  return linear.coefficients.count(column) ||
         llvm::any_of(products, [&](const Product &product) {
           return product.factor->mentions(column);
         });
}

static IndexTerm constantTerm(int64_t value) {
  IndexTerm term;
  term.linear.constant = value;
  return term;
}

static IndexTerm columnTerm(unsigned column) {
  IndexTerm term;
  term.linear.coefficients[column] = 1;
  return term;
}

/// The value a symbolic size stands for: through casts, and from a
/// `vx.grid_dim` of a dynamic dimension to the spawn's size operand.
static Value getCanonicalSymbol(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def)) {
      value = def->getOperand(0);
      continue;
    }
    if (auto gridDim = dyn_cast<GridDimOp>(def)) {
      auto spawn = def->getParentOfType<SpawnOp>();
      OpFoldResult size = spawn.getMixedGrid()[gridDim.getDim()];
      if (auto sizeValue = dyn_cast<Value>(size)) {
        value = sizeValue;
        continue;
      }
    }
    break;
  }
  return value;
}

namespace {

/// The integer system of one query: the columns of two instances (sides 0
/// and 1) and of the values shared by all instances, and the constraints
/// that the model knows hold.
class InstancePair {
public:
  explicit InstancePair(SpawnOp spawn) : spawn(spawn) {}

  unsigned getGridColumn(unsigned side, unsigned dim) {
    auto [it, inserted] = gridColumns.try_emplace({side, dim}, 0);
    if (!inserted)
      return it->second;
    unsigned column = it->second = addColumn();
    addLowerBound(column, 0);
    OpFoldResult size = spawn.getMixedGrid()[dim];
    if (std::optional<int64_t> extent = getConstantIntValue(size)) {
      addUpperBound(column, *extent - 1);
      columnExtents[column] = {Value(), *extent};
    } else {
      Value sizeValue = cast<Value>(size);
      IndexTerm extentTerm = build(sizeValue, side);
      addBelow(column, extentTerm);
      columnExtents[column] = {getCanonicalSymbol(sizeValue), 0};
    }
    return column;
  }

  /// The term of `value` in instance `side`.
  IndexTerm build(Value value, unsigned side) {
    bool shared = !spawn.getBody().isAncestor(value.getParentRegion());
    auto key = std::make_pair(value.getAsOpaquePointer(), shared ? 2u : side);
    if (auto it = terms.find(key); it != terms.end())
      return it->second;
    IndexTerm term = shared ? buildShared(value) : buildInBody(value, side);
    terms[key] = term;
    return term;
  }

  void addEquality(const LinearForm &form) { equalities.push_back(form); }
  void addInequality(const LinearForm &form) { inequalities.push_back(form); }

  /// Records why the model over-approximates; the first reason is kept.
  void markInexact(std::string why) {
    if (!inexactReason)
      inexactReason = std::move(why);
  }
  const std::optional<std::string> &getInexactReason() const {
    return inexactReason;
  }

  /// Adds `a == b` for two index terms. Symbolic strides are split digit
  /// by digit, mixed-radix style: `c * y + c * E * rest` with `y` a column of
  /// range [0, E) equals another such term exactly when the digits and the
  /// rests are equal (`(i * n + j) * 4 + k` with j < n and k < 4 is
  /// injective). Products that do not split are dropped as inexact.
  void addEqualTerms(IndexTerm a, IndexTerm b) {
    while (!a.products.empty() || !b.products.empty()) {
      if (a.linear.constant != b.linear.constant || !splitDigit(a, b)) {
        markInexact("an address with a symbolic stride that is not the "
                    "extent of the index it multiplies");
        return;
      }
    }
    LinearForm difference = a.linear;
    difference.add(b.linear, -1);
    addEquality(difference);
  }

  /// Solves the system plus `extraEqualities` and `extraInequalities`; the
  /// values of every column, or nothing when there is no integer solution.
  std::optional<SmallVector<int64_t>>
  solve(ArrayRef<LinearForm> extraEqualities,
        ArrayRef<LinearForm> extraInequalities) const {
    using namespace presburger;
    IntegerPolyhedron system(PresburgerSpace::getSetSpace(numColumns));
    auto toRow = [&](const LinearForm &form) {
      SmallVector<int64_t> row(numColumns + 1, 0);
      for (auto [column, coefficient] : form.coefficients)
        row[column] = coefficient;
      row[numColumns] = form.constant;
      return row;
    };
    for (const LinearForm &form : equalities)
      system.addEquality(toRow(form));
    for (const LinearForm &form : extraEqualities)
      system.addEquality(toRow(form));
    for (const LinearForm &form : inequalities)
      system.addInequality(toRow(form));
    for (const LinearForm &form : extraInequalities)
      system.addInequality(toRow(form));
    std::optional<SmallVector<DynamicAPInt, 8>> sample =
        system.findIntegerSample();
    if (!sample)
      return std::nullopt;
    return llvm::to_vector(llvm::map_range(
        *sample, [](const DynamicAPInt &v) { return int64_t(v); }));
  }

  unsigned addColumn() { return numColumns++; }

  /// 0 <= column: a fresh column for an element range [0, extent).
  unsigned addRangeColumn(std::optional<int64_t> extent) {
    unsigned column = addColumn();
    addLowerBound(column, 0);
    if (extent)
      addUpperBound(column, *extent - 1);
    return column;
  }

  /// column <= term - 1.
  void addBelow(unsigned column, const IndexTerm &term) {
    if (!term.products.empty()) {
      markInexact("a bound with a symbolic stride");
      return;
    }
    LinearForm bound = term.linear;
    bound.coefficients[column] -= 1;
    bound.constant -= 1;
    addInequality(bound);
  }

private:
  void addLowerBound(unsigned column, int64_t value) {
    LinearForm form;
    form.coefficients[column] = 1;
    form.constant = -value;
    addInequality(form);
  }
  void addUpperBound(unsigned column, int64_t value) {
    LinearForm form;
    form.coefficients[column] = -1;
    form.constant = value;
    addInequality(form);
  }

  /// The range [0, extent) of a column, by a constant or a shared value.
  struct ColumnExtent {
    Value symbol;
    int64_t constant = 0;
    bool operator==(const ColumnExtent &other) const {
      return symbol == other.symbol && constant == other.constant;
    }
  };

  /// Divides the term by `step` if every coefficient is a multiple of it.
  static bool divideExactly(IndexTerm &term, int64_t step) {
    for (auto &[column, coefficient] : term.linear.coefficients)
      if (coefficient % step)
        return false;
    for (IndexTerm::Product &product : term.products)
      if (product.scale % step)
        return false;
    for (auto &[column, coefficient] : term.linear.coefficients)
      coefficient /= step;
    for (IndexTerm::Product &product : term.products)
      product.scale /= step;
    return true;
  }

  /// Rewrites `scale * factor * symbol` as `scale * factor`, the term
  /// divided by `symbol`; fails on products of another symbol.
  static bool divideBySymbol(IndexTerm &term, Value symbol) {
    if (!term.linear.isConstant())
      return false;
    for (const IndexTerm::Product &product : term.products)
      if (product.symbol != symbol)
        return false;
    IndexTerm quotient;
    for (const IndexTerm::Product &product : term.products)
      quotient.add(*product.factor, product.scale);
    term = quotient;
    return true;
  }

  /// Splits the lowest digit off `a` and `b` (whose constants are equal):
  /// a column of each with the same coefficient and extent, whose removal
  /// leaves a multiple of coefficient * extent. Adds the digits' equality and
  /// leaves the quotients in `a` and `b`.
  bool splitDigit(IndexTerm &a, IndexTerm &b) {
    for (auto [columnA, coefficient] : a.linear.coefficients) {
      auto extentA = columnExtents.find(columnA);
      if (extentA == columnExtents.end())
        continue;
      std::optional<unsigned> columnB;
      for (auto [candidate, candidateCoefficient] : b.linear.coefficients) {
        auto extentB = columnExtents.find(candidate);
        if (candidateCoefficient == coefficient &&
            extentB != columnExtents.end() && extentB->second == extentA->second)
          columnB = candidate;
      }
      if (!columnB)
        continue;
      IndexTerm restA = a, restB = b;
      for (auto [rest, column] : {std::make_pair(&restA, columnA),
                                  std::make_pair(&restB, *columnB)}) {
        rest->linear.coefficients.erase(column);
        rest->linear.constant = 0;
      }
      if (restA.mentions(columnA) || restB.mentions(*columnB))
        continue;
      const ColumnExtent &extent = extentA->second;
      bool divided =
          extent.symbol
              ? divideExactly(restA, coefficient) &&
                    divideExactly(restB, coefficient) &&
                    divideBySymbol(restA, extent.symbol) &&
                    divideBySymbol(restB, extent.symbol)
              : divideExactly(restA, coefficient * extent.constant) &&
                    divideExactly(restB, coefficient * extent.constant);
      if (!divided)
        continue;
      LinearForm digits;
      digits.coefficients[columnA] = 1;
      digits.coefficients[*columnB] = -1;
      addEquality(digits);
      a = restA;
      b = restB;
      return true;
    }
    return false;
  }

  IndexTerm buildShared(Value value) {
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return constantTerm(constant.getSExtValue());
    return columnTerm(addColumn());
  }

  IndexTerm opaque(Operation *op, StringRef what) {
    markInexact(("the address uses " + what + " '" +
                 (op ? op->getName().getStringRef() : StringRef("?")) + "'")
                    .str());
    return columnTerm(addColumn());
  }

  IndexTerm buildInBody(Value value, unsigned side) {
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return constantTerm(constant.getSExtValue());
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (loop && arg == loop.getInductionVar())
        return buildInductionVariable(loop, side);
      return opaque(arg.getOwner()->getParentOp(), "a region argument of");
    }
    Operation *def = value.getDefiningOp();
    if (auto index = dyn_cast<GridIndexOp>(def))
      return columnTerm(getGridColumn(side, index.getDim()));
    if (auto gridDim = dyn_cast<GridDimOp>(def)) {
      OpFoldResult size = spawn.getMixedGrid()[gridDim.getDim()];
      if (std::optional<int64_t> extent = getConstantIntValue(size))
        return constantTerm(*extent);
      return build(cast<Value>(size), side);
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp, arith::TruncIOp>(def))
      return build(def->getOperand(0), side);
    if (isa<arith::AddIOp, arith::SubIOp>(def)) {
      IndexTerm term = build(def->getOperand(0), side);
      term.add(build(def->getOperand(1), side),
               isa<arith::AddIOp>(def) ? 1 : -1);
      return term;
    }
    if (isa<arith::MulIOp>(def))
      return buildProduct(def, side);
    if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp,
            arith::CeilDivUIOp, arith::CeilDivSIOp, arith::RemUIOp,
            arith::RemSIOp>(def)) {
      APInt divisor;
      if (!matchPattern(def->getOperand(1), m_ConstantInt(&divisor)) ||
          !divisor.isStrictlyPositive())
        return opaque(def, "a division by a non-constant in");
      IndexTerm dividend = build(def->getOperand(0), side);
      bool ceil = isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(def);
      bool remainder = isa<arith::RemUIOp, arith::RemSIOp>(def);
      return buildDivision(dividend, divisor.getSExtValue(), ceil, remainder);
    }
    if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
      SmallVector<IndexTerm> operands;
      for (Value operand : apply.getMapOperands())
        operands.push_back(build(operand, side));
      unsigned numDims = apply.getAffineMap().getNumDims();
      return buildAffine(apply.getAffineMap().getResult(0), operands, numDims,
                         def);
    }
    return opaque(def, "the result of");
  }

  IndexTerm buildProduct(Operation *mul, unsigned side) {
    IndexTerm lhs = build(mul->getOperand(0), side);
    IndexTerm rhs = build(mul->getOperand(1), side);
    for (auto [factor, other] : {std::make_pair(&lhs, &rhs),
                                 std::make_pair(&rhs, &lhs)}) {
      if (!other->isConstant())
        continue;
      IndexTerm scaled;
      scaled.add(*factor, other->linear.constant);
      return scaled;
    }
    // `index * symbol`, with the symbol the same in every instance.
    for (auto [factor, symbolValue] :
         {std::make_pair(&lhs, mul->getOperand(1)),
          std::make_pair(&rhs, mul->getOperand(0))}) {
      if (spawn.getBody().isAncestor(
              getCanonicalSymbol(symbolValue).getParentRegion()))
        continue;
      IndexTerm term;
      term.products.push_back(
          {std::make_shared<const IndexTerm>(*factor),
           getCanonicalSymbol(symbolValue), 1});
      return term;
    }
    return opaque(mul, "a product of two varying values in");
  }

  /// floor(dividend / divisor) (or ceil, or the remainder) through a fresh
  /// quotient column q: divisor * q <= dividend <= divisor * q + divisor - 1.
  IndexTerm buildDivision(const IndexTerm &dividend, int64_t divisor,
                          bool ceil, bool remainder) {
    if (!dividend.products.empty()) {
      markInexact("a division of an address with a symbolic stride");
      return columnTerm(addColumn());
    }
    unsigned quotient = addColumn();
    LinearForm lower = dividend.linear; // dividend - divisor * q (+ adj) >= 0
    lower.coefficients[quotient] -= divisor;
    LinearForm upper; // divisor * q + divisor - 1 - dividend (- adj) >= 0
    upper.add(dividend.linear, -1);
    upper.coefficients[quotient] += divisor;
    if (ceil) {
      lower.constant += divisor - 1;
      upper.constant -= divisor - 1;
    }
    upper.constant += divisor - 1;
    addInequality(lower);
    addInequality(upper);
    if (!remainder)
      return columnTerm(quotient);
    IndexTerm rest = dividend;
    rest.linear.coefficients[quotient] -= divisor;
    return rest;
  }

  IndexTerm buildAffine(AffineExpr expr, ArrayRef<IndexTerm> operands,
                        unsigned numDims, Operation *op) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      return operands[dim.getPosition()];
    if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
      return operands[numDims + symbol.getPosition()];
    if (auto constant = dyn_cast<AffineConstantExpr>(expr))
      return constantTerm(constant.getValue());
    auto binary = cast<AffineBinaryOpExpr>(expr);
    IndexTerm lhs = buildAffine(binary.getLHS(), operands, numDims, op);
    IndexTerm rhs = buildAffine(binary.getRHS(), operands, numDims, op);
    switch (expr.getKind()) {
    case AffineExprKind::Add:
      lhs.add(rhs);
      return lhs;
    case AffineExprKind::Mul: {
      if (!rhs.isConstant())
        std::swap(lhs, rhs);
      if (!rhs.isConstant())
        return opaque(op, "a non-affine product in");
      IndexTerm scaled;
      scaled.add(lhs, rhs.linear.constant);
      return scaled;
    }
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
    case AffineExprKind::Mod:
      if (!rhs.isConstant() || rhs.linear.constant <= 0)
        return opaque(op, "a division by a non-constant in");
      return buildDivision(lhs, rhs.linear.constant,
                           expr.getKind() == AffineExprKind::CeilDiv,
                           expr.getKind() == AffineExprKind::Mod);
    default:
      return opaque(op, "an expression of");
    }
  }

  IndexTerm buildInductionVariable(scf::ForOp loop, unsigned side) {
    unsigned column = addColumn();
    IndexTerm lower = build(loop.getLowerBound(), side);
    IndexTerm upper = build(loop.getUpperBound(), side);
    if (lower.products.empty()) {
      LinearForm aboveLower; // iv - lb >= 0
      aboveLower.coefficients[column] = 1;
      aboveLower.add(lower.linear, -1);
      addInequality(aboveLower);
    } else {
      markInexact("a loop bound with a symbolic stride");
    }
    addBelow(column, upper);
    APInt step;
    if (!matchPattern(loop.getStep(), m_ConstantInt(&step))) {
      markInexact("a loop with a non-constant step");
    } else if (step.getSExtValue() > 1 && lower.products.empty()) {
      // iv = lb + step * k for some k >= 0.
      unsigned k = addRangeColumn(std::nullopt);
      LinearForm onGrid;
      onGrid.coefficients[column] = 1;
      onGrid.add(lower.linear, -1);
      onGrid.coefficients[k] -= step.getSExtValue();
      addEquality(onGrid);
    }
    if (lower.isConstant() && lower.linear.constant == 0 &&
        matchPattern(loop.getStep(), m_One())) {
      if (upper.isConstant())
        columnExtents[column] = {Value(), upper.linear.constant};
      else if (!spawn.getBody().isAncestor(
                   getCanonicalSymbol(loop.getUpperBound()).getParentRegion()))
        columnExtents[column] = {getCanonicalSymbol(loop.getUpperBound()), 0};
    }
    return columnTerm(column);
  }

  SpawnOp spawn;
  unsigned numColumns = 0;
  std::map<std::pair<unsigned, unsigned>, unsigned> gridColumns;
  std::map<std::pair<void *, unsigned>, IndexTerm> terms;
  /// Columns whose range is exactly [0, extent).
  DenseMap<unsigned, ColumnExtent> columnExtents;
  SmallVector<LinearForm> equalities, inequalities;
  std::optional<std::string> inexactReason;
};

} // namespace

/// The indices of `access`'s root buffer in instance `side`, through the
/// views between the access and the root; nothing where a view is not
/// modelled.
/// Adds the conditions of the `scf.if`s around `op` in instance `side`:
/// integer comparisons as (in)equalities; anything else that may differ
/// between instances makes the model inexact.
static void addGuards(InstancePair &pair, Operation *op, unsigned side,
                      SpawnOp spawn) {
  for (Operation *parent = op->getParentOp(); parent && parent != spawn;
       op = parent, parent = parent->getParentOp()) {
    auto branch = dyn_cast<scf::IfOp>(parent);
    if (!branch)
      continue;
    bool inThen = branch.getThenRegion().isAncestor(op->getParentRegion());
    auto compare = branch.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!compare) {
      if (spawn.getBody().isAncestor(branch.getCondition().getParentRegion()))
        pair.markInexact("a write under a condition the analysis does not "
                         "model");
      continue;
    }
    arith::CmpIPredicate predicate = compare.getPredicate();
    if (!inThen)
      predicate = arith::invertPredicate(predicate);
    IndexTerm lhs = pair.build(compare.getLhs(), side);
    IndexTerm rhs = pair.build(compare.getRhs(), side);
    if (!lhs.products.empty() || !rhs.products.empty()) {
      pair.markInexact("a condition with a symbolic stride");
      continue;
    }
    LinearForm difference = lhs.linear; // lhs - rhs
    difference.add(rhs.linear, -1);
    LinearForm negated;
    negated.add(difference, -1);
    using P = arith::CmpIPredicate;
    switch (predicate) {
    case P::eq:
      pair.addEquality(difference);
      break;
    case P::sge:
    case P::uge:
      pair.addInequality(difference);
      break;
    case P::sgt:
    case P::ugt:
      difference.constant -= 1;
      pair.addInequality(difference);
      break;
    case P::sle:
    case P::ule:
      pair.addInequality(negated);
      break;
    case P::slt:
    case P::ult:
      negated.constant -= 1;
      pair.addInequality(negated);
      break;
    case P::ne:
      if (!difference.isConstant())
        pair.markInexact("a write under a '!=' condition");
      break;
    }
  }
}

static std::optional<SmallVector<IndexTerm>>
getRootIndices(InstancePair &pair, const Access &access, unsigned side) {
  auto type = dyn_cast<MemRefType>(access.buffer.getType());
  // Unranked buffers and vectors of a higher rank than the memref are not
  // modelled.
  if (!type || (!access.wholeBuffer &&
                access.vectorShape.size() > access.indices.size()))
    return std::nullopt;
  SmallVector<IndexTerm> indices;
  if (access.wholeBuffer) {
    for (int64_t size : type.getShape()) {
      if (ShapedType::isDynamic(size))
        pair.markInexact("a whole-buffer access of dynamic size");
      std::optional<int64_t> extent;
      if (!ShapedType::isDynamic(size))
        extent = size;
      indices.push_back(columnTerm(pair.addRangeColumn(extent)));
    }
  } else {
    for (Value index : access.indices)
      indices.push_back(pair.build(index, side));
    // A vector covers a box along the trailing dimensions.
    unsigned first = indices.size() - access.vectorShape.size();
    for (auto [offset, size] : llvm::enumerate(access.vectorShape))
      indices[first + offset].add(columnTerm(pair.addRangeColumn(size)));
  }
  Value buffer = access.buffer;
  while (buffer != access.root) {
    Operation *view = buffer.getDefiningOp();
    if (isa<memref::CastOp, memref::MemorySpaceCastOp>(view)) {
      buffer = view->getOperand(0);
      continue;
    }
    auto subview = dyn_cast<memref::SubViewOp>(view);
    if (!subview)
      return std::nullopt;
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    SmallVector<IndexTerm> sourceIndices;
    unsigned resultDim = 0;
    for (auto [dim, offset, stride] :
         llvm::enumerate(subview.getMixedOffsets(), subview.getMixedStrides())) {
      IndexTerm index;
      if (std::optional<int64_t> constant = getConstantIntValue(offset))
        index = constantTerm(*constant);
      else
        index = pair.build(cast<Value>(offset), side);
      if (!dropped.test(dim)) {
        std::optional<int64_t> staticStride = getConstantIntValue(stride);
        if (!staticStride)
          return std::nullopt;
        index.add(indices[resultDim], *staticStride);
        ++resultDim;
      }
      sourceIndices.push_back(index);
    }
    indices = std::move(sourceIndices);
    buffer = subview.getSource();
  }
  return indices;
}

CollisionResult vx::findCollision(SpawnOp spawn, const Access &a,
                                  const Access &b, InstanceRelation relation) {
  CollisionResult result{CollisionResult::Unknown, {}, {}, ""};
  for (const Access *access : {&a, &b})
    if (access->unmodelled) {
      result.reason = *access->unmodelled;
      return result;
    }
  InstancePair pair(spawn);
  unsigned rank = spawn.getRank();
  // Create the grid columns first so that a witness reads them in order.
  for (unsigned side : {0u, 1u})
    for (unsigned dim = 0; dim < rank; ++dim)
      pair.getGridColumn(side, dim);
  addGuards(pair, a.op, 0, spawn);
  addGuards(pair, b.op, relation.sameInstancePoint ? 0 : 1, spawn);
  std::optional<SmallVector<IndexTerm>> indicesA = getRootIndices(pair, a, 0);
  std::optional<SmallVector<IndexTerm>> indicesB =
      getRootIndices(pair, b, relation.sameInstancePoint ? 0 : 1);
  if (!indicesA || !indicesB) {
    result.reason = "the access goes through a view the analysis does not "
                    "model";
    return result;
  }
  for (auto [indexA, indexB] : llvm::zip_equal(*indicesA, *indicesB))
    pair.addEqualTerms(indexA, indexB);

  auto difference = [&](unsigned dim, int64_t sign) {
    LinearForm form; // sign * (x0 - x1) - 1 >= 0
    form.coefficients[pair.getGridColumn(0, dim)] = sign;
    form.coefficients[pair.getGridColumn(1, dim)] = -sign;
    form.constant = -1;
    return form;
  };
  auto equal = [&](unsigned dim) {
    LinearForm form;
    form.coefficients[pair.getGridColumn(0, dim)] = 1;
    form.coefficients[pair.getGridColumn(1, dim)] = -1;
    return form;
  };
  // Disjuncts of "the instances differ": the first differing dimension of
  // those considered, in either direction (one direction suffices when both
  // accesses are the same op, by symmetry).
  SmallVector<std::pair<SmallVector<LinearForm>, SmallVector<LinearForm>>>
      disjuncts;
  SmallVector<int64_t> signs = {1};
  if (&a != &b)
    signs.push_back(-1);
  if (relation.sameInstancePoint) {
    disjuncts.push_back({});
  } else if (relation.dim) {
    SmallVector<LinearForm> equalities;
    if (relation.sameParallelPoint)
      for (unsigned dim = 0; dim < rank; ++dim)
        if (spawn.getDimSemantics(dim) == DimensionSemantics::parallel)
          equalities.push_back(equal(dim));
    for (int64_t sign : signs)
      disjuncts.push_back({equalities, {difference(*relation.dim, sign)}});
  } else {
    SmallVector<LinearForm> earlier;
    for (unsigned dim = 0; dim < rank; ++dim) {
      if (spawn.getDimSemantics(dim) != DimensionSemantics::parallel)
        continue;
      for (int64_t sign : signs)
        disjuncts.push_back({earlier, {difference(dim, sign)}});
      earlier.push_back(equal(dim));
    }
  }
  for (auto &[equalities, differs] : disjuncts) {
    std::optional<SmallVector<int64_t>> sample =
        pair.solve(equalities, differs);
    if (!sample)
      continue;
    if (pair.getInexactReason()) {
      result.reason = *pair.getInexactReason();
      return result;
    }
    result.kind = CollisionResult::Collision;
    for (unsigned dim = 0; dim < rank; ++dim) {
      result.instance0.push_back((*sample)[pair.getGridColumn(0, dim)]);
      result.instance1.push_back((*sample)[pair.getGridColumn(1, dim)]);
    }
    return result;
  }
  result.kind = CollisionResult::Disjoint;
  return result;
}

/// The allocation or captured value under the views of `buffer`.
static Value getRoot(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

SmallVector<Access> vx::collectAccesses(SpawnOp spawn) {
  SmallVector<Access> accesses;
  auto add = [&](Operation *op, Value buffer, ValueRange indices, bool isWrite,
                 ArrayRef<int64_t> vectorShape = {}) {
    Access access{op, buffer, llvm::to_vector(indices), false,
                  llvm::to_vector(vectorShape), isWrite, getRoot(buffer), {}};
    accesses.push_back(std::move(access));
  };
  auto addWhole = [&](Operation *op, Value buffer, bool isWrite) {
    Access access{op, buffer, {}, true, {}, isWrite, getRoot(buffer), {}};
    accesses.push_back(std::move(access));
  };
  spawn.getBody().walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return add(op, load.getMemRef(), load.getIndices(), false);
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return add(op, store.getMemRef(), store.getIndices(), true);
    if (auto load = dyn_cast<vector::LoadOp>(op))
      return add(op, load.getBase(), load.getIndices(), false,
                 load.getVectorType().getShape());
    if (auto store = dyn_cast<vector::StoreOp>(op))
      return add(op, store.getBase(), store.getIndices(), true,
                 store.getVectorType().getShape());
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      addWhole(op, copy.getSource(), false);
      return addWhole(op, copy.getTarget(), true);
    }
    if (auto transfer = dyn_cast<TransferAsyncOp>(op)) {
      addWhole(op, transfer.getSrc(), false);
      return addWhole(op, transfer.getDst(), true);
    }
    if (isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(op))
      return; // Atomic read-modify-writes do not race.
    if (isa<AwaitOp>(op))
      return; // Ordering only; its copy is the transfer's.
    auto unmodelled = [&](Value buffer, bool isWrite) {
      Access access{op, buffer, {}, true, {}, isWrite, getRoot(buffer), {}};
      access.unmodelled = ("the addresses of '" +
                           op->getName().getStringRef() + "' are not modelled")
                              .str();
      accesses.push_back(std::move(access));
    };
    if (isa<CallOpInterface>(op)) {
      // The callee may read and write every memref it is passed.
      for (Value operand : op->getOperands())
        if (isa<MemRefType>(operand.getType())) {
          unmodelled(operand, false);
          unmodelled(operand, true);
        }
      return;
    }
    // Any other op that reads or writes a memref: its addresses are unknown.
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      Value buffer = effect.getValue();
      if (!buffer || !isa<MemRefType>(buffer.getType()))
        continue;
      bool isWrite = isa<MemoryEffects::Write>(effect.getEffect());
      if (isWrite || isa<MemoryEffects::Read>(effect.getEffect()))
        unmodelled(buffer, isWrite);
    }
  });
  return accesses;
}

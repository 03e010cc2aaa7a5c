//===- CombinedSystem.cpp - Building the integer system of one query ------===//
//
// Copies both accesses' systems into one column numbering (sharing the
// columns that have one value on both sides), equates their addresses and
// adds the relation between the two executions: grid, loops and threads.
//
//===----------------------------------------------------------------------===//

#include "CombinedSystem.h"

using namespace mlir;
using namespace mlir::vx;
using namespace mlir::vx::detail;

bool mlir::vx::detail::visitForms(
    const DNF &alternatives, function_ref<bool(const LinearForm &)> visit) {
  for (const Conjunction &conjunction : alternatives)
    for (const auto *forms :
         {&conjunction.equalities, &conjunction.inequalities})
      for (const LinearForm &form : *forms)
        if (visit(form))
          return true;
  return false;
}

void mlir::vx::detail::visitTerms(
    const DNF &alternatives, function_ref<void(unsigned, const Int &)> visit) {
  visitForms(alternatives, [&](const LinearForm &form) {
    for (const auto &[column, coefficient] : form.terms)
      visit(column, coefficient);
    return false;
  });
}

/// The loops of the model around `op` within `spawn`, outermost first.
static SmallVector<Operation *> getEnclosingLoops(Operation *op,
                                                  SpawnOp spawn) {
  SmallVector<Operation *> loops;
  for (Operation *parent = op->getParentOp(); parent && parent != spawn;
       parent = parent->getParentOp())
    if (isModelledLoop(parent))
      loops.push_back(parent);
  std::reverse(loops.begin(), loops.end());
  return loops;
}

static std::optional<PairRelation::Loop>
getLoopOrder(const PairRelation &relation, Operation *loop) {
  for (auto [candidate, order] : relation.loops)
    if (candidate == loop)
      return order;
  return std::nullopt;
}

CombinedSystem::CombinedSystem(IntegerModel &model,
                               const AnalysisBudget &budget,
                               unsigned &samplesLeft, SampleCache &cache,
                               const AccessSystem &first,
                               const AccessSystem &second,
                               const PairRelation &relation, bool symmetric)
    : model(model), budget(budget), samplesLeft(samplesLeft), cache(cache),
      spawn(model.getSpawn()), first(first), second(second), relation(relation),
      symmetric(symmetric) {
  equateGridAndLoops();
  // Both instances' grid coordinates exist, whatever the accesses read.
  for (unsigned side : {0u, 1u}) {
    SmallVector<unsigned> gridColumns, gridConstraints;
    for (unsigned dim = 0; dim < spawn.getRank(); ++dim)
      gridColumns.push_back(model.getGridColumn(dim));
    model.close(gridColumns, gridConstraints);
    instantiateColumns(gridColumns, side);
  }
  instantiate(first, 0);
  instantiate(second, 1);
  addGridRelation();
  addLoopRelations();
  addThreadRelation();

  for (unsigned side : {0u, 1u}) {
    const AccessSystem &current = system(side);
    if (current.approximation)
      approximate(*current.approximation);
  }
  addAddressEquality();
}

/// The grid dimensions and loops whose coordinates the relation makes equal
/// on both sides: their columns are shared.
void CombinedSystem::equateGridAndLoops() {
  unsigned rank = spawn.getRank();
  equatedDims.resize(rank);
  using G = PairRelation::Grid;
  for (unsigned dim = 0; dim < rank; ++dim) {
    bool parallel = spawn.getDimSemantics(dim) == DimensionSemantics::parallel;
    switch (relation.grid) {
    case G::DifferentParallelPoints:
      break;
    case G::FirstDifferenceAt:
      if (parallel && dim < relation.dim)
        equatedDims.set(dim);
      break;
    case G::AlongDimension:
      if (relation.sameParallelPoint && parallel && dim != relation.dim)
        equatedDims.set(dim);
      break;
    case G::SameInstance:
      equatedDims.set(dim);
      break;
    case G::SameParallelPoint:
    case G::LaterArbitraryStep:
      if (parallel)
        equatedDims.set(dim);
      break;
    }
  }
  sameInstance = relation.grid == G::SameInstance;
  if (!sameInstance)
    return;
  // Loops around both accesses run the same iteration unless the relation
  // says otherwise (and then so do none inside them).
  for (Operation *loop : getEnclosingLoops(first.op, spawn)) {
    if (!loop->isProperAncestor(second.op))
      break;
    std::optional<PairRelation::Loop> order = getLoopOrder(relation, loop);
    bool different =
        (order && *order != PairRelation::Loop::Same) ||
        (relation.threads == PairRelation::Threads::DifferentIterations &&
         loop ==
             const_cast<scf::ParallelOp &>(relation.threadLoop).getOperation());
    if (different)
      break;
    equatedLoops.insert(loop);
  }
}

/// The two addresses are equal, dimension by dimension; a summarized
/// constant becomes a column over its range.
void CombinedSystem::addAddressEquality() {
  if (first.unmodelled || second.unmodelled) {
    approximate(first.unmodelled ? *first.unmodelled : *second.unmodelled);
    return;
  }
  if (first.address.size() != second.address.size()) {
    approximate("two views of one buffer the analysis cannot compare");
    return;
  }
  for (auto [dim, pair] :
       llvm::enumerate(llvm::zip_equal(first.address, second.address))) {
    auto [a, b] = pair;
    Term renamed[2] = {rename(a, 0), rename(b, 1)};
    for (unsigned side : {0u, 1u}) {
      const AccessSystem &current = system(side);
      if (current.constantRanges.empty() || !current.constantRanges[dim])
        continue;
      auto [lower, upper] = *current.constantRanges[dim];
      renamed[side].linear.constant = Int(0);
      renamed[side].linear.add(
          LinearForm::getColumn(addOwnColumn(lower, upper)));
    }
    addressOfFirst.push_back(renamed[0]);
    addEqualTerms(renamed[0], renamed[1]);
  }
}

unsigned CombinedSystem::addOwnColumn(std::optional<Int> lower,
                                      std::optional<Int> upper) {
  columns.push_back({-1, 2});
  unsigned id = columns.size() - 1;
  Conjunction range;
  if (lower)
    range.inequalities.push_back([&] {
      LinearForm f = LinearForm::getColumn(id);
      f.constant = -*lower;
      return f;
    }());
  if (upper)
    range.inequalities.push_back([&] {
      LinearForm f = LinearForm::getColumn(id, Int(-1));
      f.constant = *upper;
      return f;
    }());
  add({range}, id, /*definitional=*/false);
  return id;
}

bool CombinedSystem::allLoopsEquated(Operation *scope) {
  for (Operation *op = scope; op && op != spawn; op = op->getParentOp())
    if ((isModelledLoop(op) || op->hasTrait<OpTrait::IsIsolatedFromAbove>()) &&
        !equatedLoops.contains(op))
      return false;
  return true;
}

bool CombinedSystem::isShared(unsigned master) {
  if (auto it = shared.find(master); it != shared.end())
    return it->second;
  const Column &column = model.getColumn(master);
  bool result = false;
  switch (column.kind) {
  case ColumnKind::Grid:
    result = equatedDims.test(column.dim);
    break;
  case ColumnKind::Extent:
    result = true;
    break;
  case ColumnKind::Iteration:
    result = equatedLoops.contains(column.scope);
    break;
  case ColumnKind::Opaque: {
    const Sources &sources = column.sources;
    llvm::SmallBitVector outside = sources.gridDims;
    if (outside.size() < equatedDims.size())
      outside.resize(equatedDims.size());
    outside.reset(equatedDims);
    result = sources.isInvariant() ||
             (sameInstance && column.value && allLoopsEquated(column.scope)) ||
             (!sources.varies && outside.none());
    break;
  }
  case ColumnKind::Derived: {
    // A function of shared columns is shared.
    result = true;
    for (unsigned constraint : column.constraints)
      visitTerms(model.getConstraint(constraint).alternatives,
                 [&](unsigned input, const Int &) {
                   if (input < master && !isShared(input))
                     result = false;
                 });
    break;
  }
  case ColumnKind::Element:
    result = false;
    break;
  }
  shared[master] = result;
  return result;
}

unsigned CombinedSystem::getColumn(unsigned master, unsigned side) {
  int key = isShared(master) ? -1 : int(side);
  auto [it, inserted] = columnIds.try_emplace({master, key}, 0);
  if (!inserted)
    return it->second;
  columns.push_back({int(master), key});
  it->second = columns.size() - 1;
  return it->second;
}

LinearForm CombinedSystem::rename(const LinearForm &form, unsigned side) {
  return form.rename([&](unsigned column) { return getColumn(column, side); });
}

Term CombinedSystem::rename(const Term &term, unsigned side) {
  Term result{rename(term.linear, side), {}};
  for (const Product &product : term.products)
    result.products.push_back(
        {std::make_shared<const Term>(rename(*product.factor, side)),
         getColumn(product.symbol, side), product.scale});
  return result;
}

void CombinedSystem::add(DNF alternatives, int owner, bool definitional,
                         bool isContext) {
  // A conjunction that belongs to no column is one constraint per form:
  // the usual 2-D edge guard (`r0 + i < H && q0 + j < W`) then joins no
  // columns of one dimension to those of the other, and each dimension is
  // decided as a component of its own (exact: every form must hold).
  if (owner < 0 && alternatives.size() == 1) {
    Conjunction &conjunction = alternatives.front();
    if (conjunction.equalities.size() + conjunction.inequalities.size() > 1) {
      for (LinearForm &form : conjunction.equalities)
        constraints.push_back({{Conjunction{{std::move(form)}, {}}},
                               owner,
                               definitional,
                               isContext});
      for (LinearForm &form : conjunction.inequalities)
        constraints.push_back({{Conjunction{{}, {std::move(form)}}},
                               owner,
                               definitional,
                               isContext});
      return;
    }
  }
  constraints.push_back(
      {std::move(alternatives), owner, definitional, isContext});
}

DNF CombinedSystem::renameAlternatives(const DNF &alternatives, unsigned side) {
  DNF renamed;
  for (const Conjunction &conjunction : alternatives) {
    Conjunction copy;
    for (const LinearForm &form : conjunction.equalities)
      copy.equalities.push_back(rename(form, side));
    for (const LinearForm &form : conjunction.inequalities)
      copy.inequalities.push_back(rename(form, side));
    renamed.push_back(std::move(copy));
  }
  return renamed;
}

void CombinedSystem::instantiateColumns(ArrayRef<unsigned> masters,
                                        unsigned side) {
  SmallVector<unsigned> sorted(masters);
  llvm::sort(sorted);
  for (unsigned master : sorted) {
    unsigned id = getColumn(master, side);
    for (unsigned constraint : model.getColumn(master).constraints) {
      int key = columns[id].side == -1 ? -1 : int(side);
      if (!instantiatedConstraints.insert({constraint, key}).second)
        continue;
      const Constraint &source = model.getConstraint(constraint);
      add(renameAlternatives(source.alternatives, side), int(id),
          source.definitional);
    }
  }
}

void CombinedSystem::instantiate(const AccessSystem &current, unsigned side) {
  instantiateColumns(current.columns, side);
  for (unsigned constraint : current.constraints) {
    const Constraint &source = model.getConstraint(constraint);
    if (source.owner)
      continue; // Copied with its column.
    if (!instantiatedConstraints.insert({constraint, int(side)}).second)
      continue;
    add(renameAlternatives(source.alternatives, side), -1, source.definitional,
        /*isContext=*/true);
  }
}

void CombinedSystem::addEqualTerms(Term a, Term b) {
  while (!a.products.empty() || !b.products.empty()) {
    if (a.linear.constant != b.linear.constant || !splitDigit(a, b)) {
      approximate("an address with a symbolic stride that is not the extent "
                  "of the index it multiplies");
      return;
    }
  }
  LinearForm difference = a.linear;
  difference.add(b.linear, Int(-1));
  addEquality(std::move(difference));
}

/// Divides every coefficient of `term` by `divisor` if all are multiples.
static bool divideExactly(Term &term, const Int &divisor) {
  for (const auto &[column, coefficient] : term.linear.terms)
    if (coefficient % divisor != 0)
      return false;
  for (const Product &product : term.products)
    if (product.scale % divisor != 0)
      return false;
  for (auto &[column, coefficient] : term.linear.terms)
    coefficient /= divisor;
  for (Product &product : term.products)
    product.scale /= divisor;
  return true;
}

/// Rewrites `sum scale * factor * symbol` as `sum scale * factor`; fails on
/// other terms.
static bool divideBySymbol(Term &term, unsigned symbol) {
  if (!term.linear.isConstant())
    return false;
  Term quotient;
  for (const Product &product : term.products) {
    if (product.symbol != symbol)
      return false;
    quotient.add(*product.factor, product.scale);
  }
  term = quotient;
  return true;
}

bool CombinedSystem::splitDigit(Term &a, Term &b) {
  auto extentOf = [&](unsigned column)
      -> std::optional<std::pair<std::optional<Int>, std::optional<unsigned>>> {
    if (columns[column].master < 0)
      return std::nullopt;
    const Column &info = model.getColumn(columns[column].master);
    if (info.constantExtent)
      return std::make_pair(info.constantExtent, std::optional<unsigned>());
    if (info.symbolExtent)
      return std::make_pair(
          std::optional<Int>(),
          std::optional<unsigned>(getColumn(
              *info.symbolExtent, columns[column].side == 1 ? 1 : 0)));
    return std::nullopt;
  };
  for (const auto &[columnA, coefficient] : a.linear.terms) {
    auto extentA = extentOf(columnA);
    if (!extentA)
      continue;
    for (const auto &[columnB, coefficientB] : b.linear.terms) {
      if (coefficientB != coefficient || extentOf(columnB) != extentA)
        continue;
      Term restA = a, restB = b;
      restA.linear.constant = Int(0);
      restB.linear.constant = Int(0);
      restA.linear.add(LinearForm::getColumn(columnA, coefficient), Int(-1));
      restB.linear.add(LinearForm::getColumn(columnB, coefficient), Int(-1));
      if (restA.mentions(columnA) || restB.mentions(columnB))
        continue;
      bool divided =
          extentA->second
              ? divideExactly(restA, coefficient) &&
                    divideExactly(restB, coefficient) &&
                    divideBySymbol(restA, *extentA->second) &&
                    divideBySymbol(restB, *extentA->second)
              : divideExactly(restA, coefficient * *extentA->first) &&
                    divideExactly(restB, coefficient * *extentA->first);
      if (!divided)
        continue;
      LinearForm digits = LinearForm::getColumn(columnA);
      digits.add(LinearForm::getColumn(columnB), Int(-1));
      addEquality(std::move(digits));
      a = std::move(restA);
      b = std::move(restB);
      return true;
    }
  }
  return false;
}

void CombinedSystem::addGridRelation() {
  unsigned rank = spawn.getRank();
  auto grid = [&](unsigned dim, unsigned side) {
    return getColumn(model.getGridColumn(dim), side);
  };
  auto equal = [&](unsigned dim) {
    LinearForm form = LinearForm::getColumn(grid(dim, 0));
    form.add(LinearForm::getColumn(grid(dim, 1)), Int(-1));
    return form;
  };
  // sign * (x0 - x1) - 1 >= 0.
  auto differs = [&](unsigned dim, int64_t sign) {
    LinearForm form = LinearForm::getColumn(grid(dim, 0), Int(sign));
    form.add(LinearForm::getColumn(grid(dim, 1), Int(-sign)));
    form.constant = Int(-1);
    return form;
  };
  SmallVector<int64_t, 2> signs = {1};
  if (!symmetric)
    signs.push_back(-1);
  using G = PairRelation::Grid;
  DNF alternatives;
  switch (relation.grid) {
  case G::DifferentParallelPoints: {
    // The first parallel dimension in which they differ, either way.
    SmallVector<LinearForm, 2> earlier;
    for (unsigned dim = 0; dim < rank; ++dim) {
      if (spawn.getDimSemantics(dim) != DimensionSemantics::parallel)
        continue;
      for (int64_t sign : signs)
        alternatives.push_back(Conjunction{earlier, {differs(dim, sign)}});
      earlier.push_back(equal(dim));
    }
    break;
  }
  case G::AlongDimension:
  case G::FirstDifferenceAt:
    for (int64_t sign : signs)
      alternatives.push_back(Conjunction{{}, {differs(relation.dim, sign)}});
    break;
  case G::SameInstance:
  case G::SameParallelPoint:
    return;
  case G::LaterArbitraryStep: {
    SmallVector<LinearForm, 2> earlier;
    for (unsigned dim = 0; dim < rank; ++dim) {
      if (spawn.getDimSemantics(dim) != DimensionSemantics::arbitrary)
        continue;
      alternatives.push_back(Conjunction{earlier, {differs(dim, -1)}});
      earlier.push_back(equal(dim));
    }
    if (relation.allowEqual)
      alternatives.push_back(Conjunction{earlier, {}});
    break;
  }
  }
  add(std::move(alternatives));
}

void CombinedSystem::instantiateColumnsOf(ArrayRef<const Term *> terms,
                                          unsigned side) {
  SmallVector<unsigned> masters, masterConstraints;
  for (const Term *term : terms)
    collectColumns(*term, masters);
  model.close(masters, masterConstraints);
  instantiateColumns(masters, side);
}

std::optional<Term> CombinedSystem::getInductionOnSide(Operation *loop,
                                                       unsigned dim,
                                                       unsigned side) {
  std::optional<Term> induction = model.getInductionTerm(loop, dim);
  if (!induction || !induction->isAffine())
    return std::nullopt;
  instantiateColumnsOf({&*induction}, side);
  return rename(*induction, side);
}

void CombinedSystem::addLoopRelations() {
  using L = PairRelation::Loop;
  for (auto [loop, order] : relation.loops) {
    switch (order) {
    case L::Same:
    case L::Any:
      break;
    case L::Empty:
      addEmptyLoop(loop);
      break;
    case L::First:
      addEquality(
          LinearForm::getColumn(getColumn(model.getIterationColumn(loop), 1)));
      break;
    case L::Later: {
      LinearForm later =
          LinearForm::getColumn(getColumn(model.getIterationColumn(loop), 1));
      later.add(
          LinearForm::getColumn(getColumn(model.getIterationColumn(loop), 0)),
          Int(-1));
      later.constant = Int(-1);
      addInequality(std::move(later));
      break;
    }
    case L::Successor:
    case L::Last:
      addInductionRelation(dyn_cast<scf::ForOp>(loop), order);
      break;
    }
  }
}

/// The loop runs no iteration: upper - lower <= 0 on the first side.
void CombinedSystem::addEmptyLoop(Operation *loop) {
  auto forLoop = dyn_cast<scf::ForOp>(loop);
  if (!forLoop) {
    approximate("a loop relation on a loop other than 'scf.for'");
    return;
  }
  bool isSigned = !forLoop.getUnsignedCmp();
  Term lower = isSigned ? model.getSigned(forLoop.getLowerBound())
                        : model.getUnsigned(forLoop.getLowerBound());
  Term upper = isSigned ? model.getSigned(forLoop.getUpperBound())
                        : model.getUnsigned(forLoop.getUpperBound());
  if (!lower.isAffine() || !upper.isAffine()) {
    approximate("a loop whose bounds the analysis cannot follow");
    return;
  }
  instantiateColumnsOf({&lower, &upper}, 0);
  LinearForm empty = rename(lower.linear, 0);
  empty.add(rename(upper.linear, 0), Int(-1));
  addInequality(std::move(empty));
}

/// Successor: the second side's induction variable is the first's plus the
/// step. Last: the first side runs the last iteration (iv + step >= upper).
void CombinedSystem::addInductionRelation(scf::ForOp loop,
                                          PairRelation::Loop order) {
  std::optional<int64_t> step =
      loop ? getConstantIntValue(loop.getStep()) : std::nullopt;
  if (!loop || !step) {
    approximate("a loop relation on a loop without a constant step");
    return;
  }
  std::optional<Term> firstIv = getInductionOnSide(loop, 0, 0);
  if (!firstIv) {
    approximate("a loop whose bounds the analysis cannot follow");
    return;
  }
  if (order == PairRelation::Loop::Successor) {
    std::optional<Term> secondIv = getInductionOnSide(loop, 0, 1);
    if (!secondIv) {
      approximate("a loop whose bounds the analysis cannot follow");
      return;
    }
    LinearForm next = secondIv->linear;
    next.add(firstIv->linear, Int(-1));
    next.constant -= Int(*step);
    addEquality(std::move(next));
    return;
  }
  Term upper = loop.getUnsignedCmp() ? model.getUnsigned(loop.getUpperBound())
                                     : model.getSigned(loop.getUpperBound());
  if (!upper.isAffine()) {
    approximate("a loop whose bounds the analysis cannot follow");
    return;
  }
  instantiateColumnsOf({&upper}, 0);
  LinearForm last = firstIv->linear;
  last.add(rename(upper.linear, 0), Int(-1));
  last.constant += Int(*step);
  addInequality(std::move(last));
}

std::optional<LinearForm> CombinedSystem::getLinearIteration(unsigned side) {
  scf::ParallelOp loop = system(side).threadLoop;
  if (!loop)
    return std::nullopt;
  LinearForm linear;
  for (unsigned dim = 0; dim < loop.getNumLoops(); ++dim) {
    if (dim != 0) {
      std::optional<Int> trips = model.getConstantTripCount(loop, dim);
      if (!trips)
        return std::nullopt;
      linear.scale(*trips);
    }
    linear.add(LinearForm::getColumn(
        getColumn(model.getIterationColumn(loop, dim), side)));
  }
  return linear;
}

void CombinedSystem::addThreadRelation() {
  using T = PairRelation::Threads;
  if (relation.threads == T::Any)
    return;
  if (relation.threads == T::DifferentIterations) {
    scf::ParallelOp loop = relation.threadLoop;
    DNF alternatives;
    for (unsigned dim = 0; dim < loop.getNumLoops(); ++dim) {
      unsigned column = model.getIterationColumn(loop, dim);
      for (int64_t sign : {1, -1}) {
        LinearForm form =
            LinearForm::getColumn(getColumn(column, 0), Int(sign));
        form.add(LinearForm::getColumn(getColumn(column, 1)), Int(-sign));
        form.constant = Int(-1);
        alternatives.push_back(Conjunction{{}, {form}});
      }
    }
    add(std::move(alternatives));
    return;
  }
  std::optional<LinearForm> linear[2];
  for (unsigned side : {0u, 1u}) {
    if (!system(side).threadLoop)
      continue;
    linear[side] = getLinearIteration(side);
    if (!linear[side]) {
      approximate("a thread loop with dynamic bounds");
      return;
    }
  }
  auto differ = [&](const LinearForm &a, const LinearForm &b) {
    DNF alternatives;
    for (int64_t sign : {1, -1}) {
      LinearForm form = a;
      form.add(b, Int(-1));
      form.scale(Int(sign));
      form.constant -= Int(1);
      alternatives.push_back(Conjunction{{}, {form}});
    }
    add(std::move(alternatives));
  };
  if (relation.threads == T::DifferentLinearIterations) {
    if (linear[0] && linear[1])
      differ(*linear[0], *linear[1]);
    return;
  }
  // The thread of each side: its iteration mod N, or for code outside
  // thread loops any thread (thread 0 where it runs there alone).
  Int threads(relation.numThreads);
  LinearForm thread[2];
  for (unsigned side : {0u, 1u}) {
    if (!linear[side]) {
      thread[side] =
          relation.onThreadZero[side]
              ? LinearForm::getConstant(Int(0))
              : LinearForm::getColumn(addOwnColumn(Int(0), threads - Int(1)));
      continue;
    }
    unsigned quotient = addOwnColumn(std::nullopt, std::nullopt);
    LinearForm scaled = LinearForm::getColumn(quotient, threads);
    LinearForm low = *linear[side];
    low.add(scaled, Int(-1));
    LinearForm high = scaled;
    high.add(*linear[side], Int(-1));
    high.constant += threads - Int(1);
    add(DNF{Conjunction{{}, {low, high}}}, quotient, /*definitional=*/true);
    thread[side] = *linear[side];
    thread[side].add(scaled, Int(-1));
  }
  threadOf[0] = thread[0];
  threadOf[1] = thread[1];
  differ(thread[0], thread[1]);
}

bool CombinedSystem::isUniversal(unsigned column) const {
  if (columns[column].master < 0)
    return false;
  const Column &info = model.getColumn(columns[column].master);
  return info.kind == ColumnKind::Opaque && !info.approximate &&
         info.sources.isInvariant();
}

bool CombinedSystem::isApproximate(unsigned column) const {
  if (columns[column].master < 0)
    return false;
  const Column &info = model.getColumn(columns[column].master);
  return info.approximate ||
         (info.kind == ColumnKind::Opaque && !info.sources.isInvariant());
}

static void printForm(llvm::raw_ostream &os, const LinearForm &form) {
  for (auto [position, term] : llvm::enumerate(form.terms)) {
    const auto &[column, coefficient] = term;
    bool negative = coefficient < 0;
    if (position != 0)
      os << (negative ? " - " : " + ");
    else if (negative)
      os << "-";
    Int magnitude = abs(coefficient);
    if (magnitude != 1)
      os << magnitude << "*";
    os << "c" << column;
  }
  if (form.terms.empty())
    os << form.constant;
  else if (form.constant != 0)
    os << (form.constant < 0 ? " - " : " + ") << abs(form.constant);
}

void CombinedSystem::print(llvm::raw_ostream &os) const {
  os << "columns:";
  for (auto [id, column] : llvm::enumerate(columns)) {
    os << " c" << id << "=";
    if (column.master < 0)
      os << "own";
    else
      os << "m" << column.master << "/"
         << (column.side < 0 ? "shared"
             : column.side   ? "1"
                             : "0");
  }
  os << "\n";
  for (const QueryConstraint &constraint : constraints) {
    os << "  ";
    if (constraint.alternatives.empty())
      os << "false";
    llvm::interleave(
        constraint.alternatives, os,
        [&](const Conjunction &conjunction) {
          os << "(";
          llvm::interleave(
              conjunction.equalities, os,
              [&](const LinearForm &form) {
                printForm(os, form);
                os << " == 0";
              },
              ", ");
          if (!conjunction.equalities.empty() &&
              !conjunction.inequalities.empty())
            os << ", ";
          llvm::interleave(
              conjunction.inequalities, os,
              [&](const LinearForm &form) {
                printForm(os, form);
                os << " >= 0";
              },
              ", ");
          os << ")";
        },
        " or ");
    if (constraint.owner >= 0)
      os << " [of c" << constraint.owner << "]";
    if (constraint.definitional)
      os << " [definitional]";
    if (constraint.isContext)
      os << " [context]";
    os << "\n";
  }
  if (approximation)
    os << "approximate: " << *approximation << "\n";
}

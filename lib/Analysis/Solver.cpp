//===- Solver.cpp - Deciding the integer system of one query --------------===//
//
// A query's system is decided component by component (columns joined by
// constraints): each component's disjunctions are searched depth-first,
// pruned by rational emptiness (Simplex), and every leaf is decided over
// the integers by sampling after eliminating unit equalities. A collision
// over captured scalars is then checked to hold for every value of them.
// A witness is kept as found; one that a message prints is minimized later
// (minimizeWitness), on a budget of its own.
//
//===----------------------------------------------------------------------===//

#include "CombinedSystem.h"

#include "mlir/Analysis/Presburger/IntegerRelation.h"
#include "mlir/Analysis/Presburger/Simplex.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "vx-analysis-query"

using namespace mlir;
using namespace mlir::vx;
using namespace mlir::vx::detail;
using namespace mlir::presburger;

//===----------------------------------------------------------------------===//
// Integer samples
//===----------------------------------------------------------------------===//

using Point = SmallVector<DynamicAPInt, 8>;

/// An integer point of `reduced`. Small points first: the sampler is fast
/// within a small box and slow over ranges of 2^63; without a point in the
/// box, the whole set.
static std::optional<Point> sampleReduced(const IntegerRelation &reduced) {
  unsigned n = reduced.getNumVars();
  int64_t box = int64_t(1) << 16;
  // A set within the box is sampled once (its empty sets are the costly
  // ones).
  Simplex simplex(reduced);
  if (simplex.isEmpty())
    return std::nullopt;
  bool withinBox = true;
  for (unsigned column = 0; column < n && withinBox; ++column) {
    SmallVector<DynamicAPInt, 8> direction(n + 1, DynamicAPInt(0));
    direction[column] = DynamicAPInt(1);
    for (auto side : {Simplex::Direction::Down, Simplex::Direction::Up}) {
      MaybeOptimum<Fraction> bound = simplex.computeOptimum(side, direction);
      if (!bound.isBounded() || *bound >= Fraction(box, 1) ||
          *bound <= Fraction(-box, 1)) {
        withinBox = false;
        break;
      }
    }
  }
  if (withinBox)
    return reduced.findIntegerSample();
  IntegerRelation boxed = reduced;
  for (unsigned column = 0; column < n; ++column) {
    SmallVector<DynamicAPInt, 8> bound(n + 1, DynamicAPInt(0));
    bound[column] = DynamicAPInt(1);
    bound[n] = DynamicAPInt(box);
    boxed.addInequality(bound);
    bound[column] = DynamicAPInt(-1);
    boxed.addInequality(bound);
  }
  if (std::optional<Point> sample = boxed.findIntegerSample())
    return sample;
  return reduced.findIntegerSample();
}

/// An integer point of `relation` (a set of n columns), sampled after
/// eliminating the columns that an equality gives with a unit coefficient:
/// the sampler's cost grows quickly with the dimension, and the systems of
/// two accesses are full of such equalities (shared coordinates, address
/// equalities, fixed wrap counts).
/// `takeSample` is asked, with the number of columns left and whether a
/// coefficient exceeds 2^32, whether the budget admits the sample; if not,
/// `refused` is set and nothing returned. The spawn's queries repeat systems
/// (an access against itself and its copies, symmetric pairs): `cache` keeps
/// the samples of reduced systems.
static std::optional<Point>
sampleByElimination(const IntegerRelation &relation,
                    function_ref<bool(unsigned, bool)> takeSample,
                    SampleCache &cache, bool &refused) {
  refused = false;
  unsigned n = relation.getNumVars();
  using Row = SmallVector<DynamicAPInt, 8>;
  std::vector<Row> equalities, inequalities;
  for (unsigned row = 0; row < relation.getNumEqualities(); ++row)
    equalities.push_back(llvm::to_vector<8>(relation.getEquality(row)));
  for (unsigned row = 0; row < relation.getNumInequalities(); ++row)
    inequalities.push_back(llvm::to_vector<8>(relation.getInequality(row)));
  // column = expression (a row over the columns, the column's own entry 0).
  SmallVector<std::pair<unsigned, Row>> eliminated;
  SmallVector<bool> alive(n, true);
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t index = 0; index < equalities.size(); ++index) {
      Row &equality = equalities[index];
      std::optional<unsigned> pivot;
      for (unsigned column = 0; column < n; ++column)
        if (alive[column] && abs(equality[column]) == DynamicAPInt(1)) {
          pivot = column;
          break;
        }
      if (!pivot)
        continue;
      // column = -(rest) / coefficient, the coefficient being +-1.
      DynamicAPInt sign = equality[*pivot];
      Row expression(n + 1, DynamicAPInt(0));
      for (unsigned column = 0; column <= n; ++column)
        if (column != *pivot)
          expression[column] = -equality[column] * sign;
      auto substitute = [&](Row &row) {
        DynamicAPInt factor = row[*pivot];
        if (factor == 0)
          return;
        row[*pivot] = DynamicAPInt(0);
        for (unsigned column = 0; column <= n; ++column)
          row[column] += factor * expression[column];
      };
      equalities.erase(equalities.begin() + index);
      for (Row &row : equalities)
        substitute(row);
      for (Row &row : inequalities)
        substitute(row);
      for (auto &[column, earlier] : eliminated)
        substitute(earlier);
      eliminated.push_back({*pivot, std::move(expression)});
      alive[*pivot] = false;
      progress = true;
      break;
    }
  }
  SmallVector<unsigned> kept;
  for (unsigned column = 0; column < n; ++column)
    if (alive[column])
      kept.push_back(column);
  IntegerRelation reduced(PresburgerSpace::getSetSpace(kept.size()));
  auto project = [&](const Row &row) {
    Row projected;
    for (unsigned column : kept)
      projected.push_back(row[column]);
    projected.push_back(row[n]);
    return projected;
  };
  for (const Row &row : equalities)
    reduced.addEquality(project(row));
  for (const Row &row : inequalities)
    reduced.addInequality(project(row));
  std::string key;
  {
    llvm::raw_string_ostream os(key);
    // The row counts: without columns left, the constants alone would not
    // tell an equality from an inequality.
    os << kept.size() << ':' << equalities.size() << ':' << inequalities.size();
    for (const auto *rows : {&equalities, &inequalities}) {
      os << '|';
      for (const Row &row : *rows)
        for (unsigned column : kept)
          os << row[column] << ',';
    }
    for (const auto *rows : {&equalities, &inequalities})
      for (const Row &row : *rows)
        os << row[n] << ';';
  }
  auto [cached, inserted] = cache.try_emplace(key);
  if (inserted) {
    bool wide = false;
    for (const auto *rows : {&equalities, &inequalities})
      for (const Row &row : *rows)
        for (const DynamicAPInt &coefficient : row)
          wide |= abs(coefficient) > DynamicAPInt(int64_t(1) << 32);
    if (!takeSample(kept.size(), wide)) {
      cache.erase(cached);
      refused = true;
      return std::nullopt;
    }
    cached->second = sampleReduced(reduced);
  }
  const std::optional<Point> &sample = cached->second;
  if (!sample)
    return std::nullopt;
  SmallVector<DynamicAPInt, 8> full(n, DynamicAPInt(0));
  for (auto [position, column] : llvm::enumerate(kept))
    full[column] = (*sample)[position];
  // The expressions only read kept columns (earlier ones were substituted).
  for (auto &[column, expression] : eliminated) {
    DynamicAPInt value = expression[n];
    for (unsigned other : kept)
      value += expression[other] * full[other];
    full[column] = value;
  }
  return full;
}

//===----------------------------------------------------------------------===//
// Witnesses
//===----------------------------------------------------------------------===//

namespace mlir {
namespace vx {
namespace detail {
/// How the fields of a Collision are read from a witness, a value per query
/// column (0 where a column has none). Built from the decided system, it
/// outlives it, so that a witness minimized after the query is read the same
/// way.
struct WitnessReadout {
  /// A column a result reports: a size or captured scalar the witness
  /// assumes, or a signed wrap count (nonzero: the witness wraps around).
  struct Reading {
    int master;
    Value value;
    bool assumed;
    bool signedWrapCount;
  };

  CollisionResult read(const DenseMap<unsigned, Int> &values) const;

  bool provenForAllValues = false;
  /// Per side: the columns of the grid coordinates, the thread loop's
  /// induction variables and the thread.
  SmallVector<unsigned> grid[2];
  SmallVector<LinearForm> iterations[2];
  std::optional<LinearForm> threads[2];
  /// The element's address; empty where it is not affine.
  SmallVector<LinearForm> element;
  DenseMap<unsigned, Reading> readings;
};

/// What minimizeWitness needs: the witness, how to read it, and the
/// components whose sizes or scalars it could make smaller, each with the
/// leaf of the case search that its values come from.
struct WitnessSearch {
  struct Component {
    SmallVector<unsigned> columns;
    /// The positions in `columns` of the sizes and captured scalars.
    SmallVector<unsigned> named;
    IntegerRelation leaf;
  };
  WitnessReadout readout;
  DenseMap<unsigned, Int> values;
  SmallVector<Component, 1> components;
};

//===----------------------------------------------------------------------===//
// The solver
//===----------------------------------------------------------------------===//

/// Decides a CombinedSystem in named steps: components, exactness, budget,
/// then for each component the case search and the for-all proof, and last
/// the result's assembly.
class SystemSolver {
public:
  /// The columns of one connected component and the constraints that join
  /// them.
  struct Component {
    SmallVector<unsigned> columns;
    SmallVector<unsigned> constraints;
  };

  /// The search of one component, in its own column numbering.
  struct ComponentSearch {
    explicit ComponentSearch(const Component &component)
        : component(component), n(component.columns.size()), simplex(n) {
      for (auto [position, column] : llvm::enumerate(component.columns))
        index[column] = position;
    }

    /// Whether the search has found all it looks for: a point, and every
    /// leaf with a point where universal columns need them.
    bool isDone() const { return overBudget || (sample && universals.empty()); }

    const Component &component;
    unsigned n;
    /// The position of each query column in the component.
    DenseMap<unsigned, unsigned> index;
    /// Constraints of one alternative, and case splits (several).
    SmallVector<const QueryConstraint *> base, cases;
    /// The cases over wrap counts (`cases` points to them), and the columns
    /// they split.
    std::vector<QueryConstraint> wrapCases;
    DenseSet<unsigned> splitColumns;
    /// Universal columns read by constraints that are not their own.
    SmallVector<unsigned> universals;
    /// The base constraints and the alternatives chosen on the current path.
    Simplex simplex;
    SmallVector<unsigned> choice;
    /// The first integer point found, and its leaf.
    std::optional<Point> sample;
    std::optional<IntegerRelation> firstLeaf;
    /// Every leaf with a point (only where there are universal columns).
    std::vector<IntegerRelation> feasibleLeaves;
    bool overBudget = false;
  };

  explicit SystemSolver(CombinedSystem &system)
      : system(system), model(system.model), budget(system.budget),
        leavesLeft(budget.maxAlternatives) {}

  CollisionResult solve();

private:
  /// Whether a column-free constraint fails.
  bool partitionComponents();
  /// The components whose constraints are not all definitional.
  void selectRelevant();
  void checkExactness();
  std::string describeApproximateColumn(unsigned column, bool isContext);
  bool exceedsBudget() const;
  bool isTooWide(const ComponentSearch &search) const;
  /// Whether the system without its constraints of wrap-around
  /// coefficients is empty (then so is the system).
  bool isRelaxationDisjoint();
  /// The result of the query if `component` decides it (Disjoint, or
  /// Unknown beyond the budget).
  std::optional<CollisionResult> decideComponent(const Component &component);
  /// Whether a constraint has no alternative (then the query is Disjoint).
  bool classifyConstraints(ComponentSearch &search);
  void addWrapCases(ComponentSearch &search);
  void findUniversals(ComponentSearch &search);
  void exploreCases(ComponentSearch &search, unsigned depth);
  void decideLeaf(ComponentSearch &search);
  bool isNamed(unsigned column) const;
  std::optional<Point> sampleWith(const ComponentSearch &search,
                                  const IntegerRelation &leaf,
                                  ArrayRef<std::pair<unsigned, Int>> fixed);
  /// Keeps what a later minimization of the witness needs, where it has a
  /// size or scalar beyond 8.
  void keepForMinimization(ComponentSearch &search);
  void proveForAll(ComponentSearch &search);
  bool collidesFor(const ComponentSearch &search,
                   ArrayRef<std::pair<unsigned, Int>> fixed);
  bool isRefutedBySuspects(const ComponentSearch &search);
  bool holdsOnWholeDomain(const ComponentSearch &search);
  WitnessReadout getReadout();
  CollisionResult assembleResult();
  /// `result`, logging the step that decided it.
  CollisionResult decide(StringRef step, CollisionResult result);

  bool takeSample(unsigned columns, bool wide) {
    return system.takeSample(columns, wide);
  }

  CombinedSystem &system;
  IntegerModel &model;
  const AnalysisBudget &budget;
  DenseMap<unsigned, Component> components;
  SmallVector<const Component *> relevant;
  bool exact = true;
  /// Leaves of the case search left to the query.
  unsigned leavesLeft;
  /// The witness: a value of every column of the decided components.
  DenseMap<unsigned, Int> values;
  /// The values of the universal columns the witness reads.
  SmallVector<Value> universalValues;
  bool forAll = true;
  /// The components whose witness may be minimized later.
  SmallVector<WitnessSearch::Component, 1> minimizable;
};
} // namespace detail
} // namespace vx
} // namespace mlir

using Component = SystemSolver::Component;
using ComponentSearch = SystemSolver::ComponentSearch;

static SmallVector<DynamicAPInt>
toRow(const LinearForm &form, const DenseMap<unsigned, unsigned> &index,
      unsigned numColumns) {
  SmallVector<DynamicAPInt> row(numColumns + 1, DynamicAPInt(0));
  for (const auto &[column, coefficient] : form.terms)
    row[index.lookup(column)] = coefficient;
  row[numColumns] = form.constant;
  return row;
}

/// Whether a column-free alternative holds.
static bool holdsTrivially(const Conjunction &conjunction) {
  return llvm::all_of(
             conjunction.equalities,
             [](const LinearForm &form) { return form.constant == 0; }) &&
         llvm::all_of(conjunction.inequalities, [](const LinearForm &form) {
           return form.constant >= 0;
         });
}

static APInt toAPInt(const Int &value, unsigned width) {
  int64_t small = int64_t(value);
  return APInt(std::max(width, 1u), small, /*isSigned=*/true,
               /*implicitTrunc=*/true);
}

/// Adds the forms of `conjunction` (over the component's columns) to
/// `target`, a Simplex or an IntegerRelation.
template <typename Target>
static void addConjunction(Target &target, const Conjunction &conjunction,
                           const ComponentSearch &search) {
  for (const LinearForm &form : conjunction.equalities)
    target.addEquality(toRow(form, search.index, search.n));
  for (const LinearForm &form : conjunction.inequalities)
    target.addInequality(toRow(form, search.index, search.n));
}

static CollisionResult getResult(CollisionResult::Kind kind,
                                 StringRef reason = {}) {
  CollisionResult result;
  result.kind = kind;
  result.reason = reason.str();
  return result;
}

CollisionResult CombinedSystem::solve() { return SystemSolver(*this).solve(); }

CollisionResult SystemSolver::solve() {
  if (partitionComponents())
    return decide("a constraint without columns",
                  getResult(CollisionResult::Disjoint));
  selectRelevant();
  checkExactness();
  if (exceedsBudget())
    return decide("the budget",
                  getResult(CollisionResult::Unknown,
                            "the system is too large to decide within the "
                            "budget"));
  // One empty component decides the query even where another one ran over
  // the budget: the budget's verdict is kept for the end.
  std::optional<CollisionResult> overBudget;
  for (const Component *component : relevant) {
    std::optional<CollisionResult> decided = decideComponent(*component);
    if (!decided)
      continue;
    if (decided->kind != CollisionResult::Unknown)
      return *decided;
    if (!overBudget)
      overBudget = std::move(decided);
  }
  if (overBudget)
    return *overBudget;
  if (!exact)
    return decide("exactness",
                  getResult(CollisionResult::Unknown,
                            system.approximation ? *system.approximation
                                                 : "the model is not exact"));
  return decide("the case search", assembleResult());
}

CollisionResult SystemSolver::decide(StringRef step, CollisionResult result) {
  LLVM_DEBUG({
    llvm::raw_ostream &os = llvm::dbgs();
    os << "[vx-analysis-query] decided by " << step << ": ";
    auto printPair = [&](StringRef what, ArrayRef<int64_t> first,
                         ArrayRef<int64_t> second) {
      if (first.empty() && second.empty())
        return;
      os << ", " << what << " (";
      llvm::interleaveComma(first, os);
      os << ") and (";
      llvm::interleaveComma(second, os);
      os << ")";
    };
    switch (result.kind) {
    case CollisionResult::Disjoint:
      os << "disjoint";
      break;
    case CollisionResult::Unknown:
      os << "unknown (" << result.reason << ")";
      break;
    case CollisionResult::Collision:
      os << "collision" << (result.provenForAllValues ? " for all values" : "");
      printPair("instances", result.instance0, result.instance1);
      printPair("iterations", result.iteration0, result.iteration1);
      if (result.thread0 && result.thread1)
        os << ", threads " << *result.thread0 << " and " << *result.thread1;
      for (auto [value, assumed] : result.assumptions) {
        os << ", ";
        value.printAsOperand(os, OpPrintingFlags());
        os << " = " << assumed;
      }
      break;
    }
    os << "\n";
  });
  return result;
}

//===----------------------------------------------------------------------===//
// Components, exactness and budget
//===----------------------------------------------------------------------===//

bool SystemSolver::partitionComponents() {
  unsigned numColumns = system.columns.size();
  // Components of the columns, joined by constraints.
  llvm::EquivalenceClasses<unsigned> classes;
  for (unsigned column = 0; column < numColumns; ++column)
    classes.insert(column);
  for (const QueryConstraint &constraint : system.constraints) {
    std::optional<unsigned> anchor;
    bool anyColumn = false;
    visitTerms(constraint.alternatives, [&](unsigned column, const Int &) {
      anyColumn = true;
      if (anchor)
        classes.unionSets(*anchor, column);
      else
        anchor = column;
    });
    if (constraint.owner >= 0) {
      if (anchor)
        classes.unionSets(*anchor, constraint.owner);
      anyColumn = true;
    }
    if (!anyColumn && llvm::none_of(constraint.alternatives, holdsTrivially))
      return true;
  }
  for (auto [id, constraint] : llvm::enumerate(system.constraints)) {
    std::optional<unsigned> column;
    if (constraint.owner >= 0)
      column = constraint.owner;
    else
      visitForms(constraint.alternatives, [&](const LinearForm &form) {
        if (!form.terms.empty())
          column = form.terms.front().first;
        return column.has_value();
      });
    if (!column)
      continue;
    components[classes.getLeaderValue(*column)].constraints.push_back(id);
  }
  for (unsigned column = 0; column < numColumns; ++column) {
    auto it = components.find(classes.getLeaderValue(column));
    if (it != components.end())
      it->second.columns.push_back(column);
  }
  return false;
}

void SystemSolver::selectRelevant() {
  for (auto &[leader, component] : components) {
    // Satisfiable for every value of its columns.
    if (llvm::all_of(component.constraints, [&](unsigned id) {
          return system.constraints[id].definitional;
        }))
      continue;
    relevant.push_back(&component);
  }
  // The components with the fewest cases first: they share the budget of
  // leaves, and an empty one decides the query.
  auto countCases = [&](const Component *component) {
    return llvm::count_if(component->constraints, [&](unsigned id) {
      return system.constraints[id].alternatives.size() > 1;
    });
  };
  llvm::stable_sort(relevant, [&](const Component *a, const Component *b) {
    return std::make_pair(countCases(a), a->constraints.size()) <
           std::make_pair(countCases(b), b->constraints.size());
  });
}

// Exactness: an approximate column decides nothing unless a constraint that
// is not its own reads it. The message prefers a condition.
void SystemSolver::checkExactness() {
  exact = !system.approximation;
  std::optional<std::string> addressReason, contextReason;
  for (const Component *component : relevant) {
    for (unsigned id : component->constraints) {
      const QueryConstraint &constraint = system.constraints[id];
      visitTerms(constraint.alternatives, [&](unsigned column, const Int &) {
        if (int(column) == constraint.owner || !system.isApproximate(column))
          return;
        std::optional<std::string> &reason =
            constraint.isContext ? contextReason : addressReason;
        if (!reason)
          reason = describeApproximateColumn(column, constraint.isContext);
      });
    }
  }
  if (exact && (contextReason || addressReason)) {
    exact = false;
    system.approximate(contextReason ? *contextReason : *addressReason);
  }
}

std::string SystemSolver::describeApproximateColumn(unsigned column,
                                                    bool isContext) {
  const Column &info = model.getColumn(system.columns[column].master);
  Operation *def = info.value ? info.value.getDefiningOp() : nullptr;
  std::string text;
  llvm::raw_string_ostream os(text);
  if (def && isContext)
    os << "an access under a condition the analysis does not model (it uses "
          "the result of '"
       << def->getName() << "')";
  else if (isa_and_nonnull<arith::MulIOp>(def) &&
           !model.getSources(def->getOperand(0)).isInvariant() &&
           !model.getSources(def->getOperand(1)).isInvariant())
    os << "the address uses a product of two varying values in '"
       << def->getName() << "'";
  else if (def)
    os << "the address uses the result of '" << def->getName() << "'";
  else if (info.kind == ColumnKind::Iteration)
    os << "a loop whose iterations the analysis over-approximates";
  else
    os << "a value the analysis does not model";
  return text;
}

/// Whether a form of `constraint` has a coefficient of wrap-around (beyond
/// 2^32) on `column`, or on any column without one.
static bool hasWideCoefficient(const QueryConstraint &constraint,
                               std::optional<unsigned> column = std::nullopt) {
  Int wide(int64_t(1) << 32);
  return visitForms(constraint.alternatives, [&](const LinearForm &form) {
    if (column)
      return abs(form.getCoefficient(*column)) > wide;
    return llvm::any_of(
        form.terms, [&](const auto &term) { return abs(term.second) > wide; });
  });
}

bool SystemSolver::exceedsBudget() const {
  unsigned totalColumns = 0;
  for (const Component *component : relevant)
    totalColumns += component->columns.size();
  return totalColumns > budget.maxColumns;
}

// Integer sampling (generalized basis reduction) slows down sharply with
// wrap-around coefficients (2^64) in many dimensions: such components are
// left undecided. What counts is what the leaves keep: a wrap count split
// into cases is a constant there (its equality eliminates it), so only
// wrap-around coefficients of columns that are not split make a component
// too wide.
bool SystemSolver::isTooWide(const ComponentSearch &search) const {
  if (search.component.columns.size() <= budget.maxWideColumns)
    return false;
  Int wide(int64_t(1) << 32);
  return llvm::any_of(search.component.constraints, [&](unsigned id) {
    const QueryConstraint &constraint = system.constraints[id];
    return visitForms(constraint.alternatives, [&](const LinearForm &form) {
      return llvm::any_of(form.terms, [&](const auto &term) {
        return abs(term.second) > wide &&
               !search.splitColumns.contains(term.first);
      });
    });
  });
}

// Over the budget, a system is often decided without the constraints that
// put it there: the wrap counts of a tile's edge guards (`r0 + i < H`, with
// r0 = 32 * %bi read as a 64-bit index) join every column of a thread
// loop's two iterations into one component with wrap-around coefficients,
// while the tile's address alone tells the iterations apart. Dropping
// constraints only adds points, so an empty relaxation is a proof; it is
// decided within the budgets of the query and the spawn (its samples are
// charged like any other), and without wrap-around coefficients it is
// never too wide.
bool SystemSolver::isRelaxationDisjoint() {
  CombinedSystem relaxed = system;
  llvm::erase_if(relaxed.constraints, [](const QueryConstraint &constraint) {
    return hasWideCoefficient(constraint);
  });
  if (relaxed.constraints.size() == system.constraints.size())
    return false;
  return SystemSolver(relaxed).solve().kind == CollisionResult::Disjoint;
}

//===----------------------------------------------------------------------===//
// One component: cases, witness, for-all proof
//===----------------------------------------------------------------------===//

std::optional<CollisionResult>
SystemSolver::decideComponent(const Component &component) {
  ComponentSearch search(component);
  if (classifyConstraints(search))
    return decide("a constraint without alternatives",
                  getResult(CollisionResult::Disjoint));
  for (const QueryConstraint *constraint : search.base)
    addConjunction(search.simplex, constraint->alternatives.front(), search);
  if (search.simplex.isEmpty())
    return decide("the constraints without cases (rationally empty)",
                  getResult(CollisionResult::Disjoint));
  addWrapCases(search);
  if (isTooWide(search)) {
    if (isRelaxationDisjoint())
      return decide("a relaxation without wrap-around",
                    getResult(CollisionResult::Disjoint));
    return decide("the budget",
                  getResult(CollisionResult::Unknown,
                            "the system is too large to decide within the "
                            "budget"));
  }
  findUniversals(search);
  search.choice.assign(search.cases.size(), 0);
  exploreCases(search, 0);
  if (search.overBudget)
    return decide("the case search",
                  getResult(CollisionResult::Unknown,
                            "too many cases to decide within the budget"));
  if (!search.sample)
    return decide("the case search", getResult(CollisionResult::Disjoint));
  keepForMinimization(search);
  for (auto [position, column] : llvm::enumerate(component.columns))
    values[column] = (*search.sample)[position];
  if (search.universals.empty())
    return std::nullopt;
  for (unsigned column : search.universals)
    universalValues.push_back(
        model.getColumn(system.columns[column].master).value);
  proveForAll(search);
  return std::nullopt;
}

bool SystemSolver::classifyConstraints(ComponentSearch &search) {
  for (unsigned id : search.component.constraints) {
    const QueryConstraint &constraint = system.constraints[id];
    if (constraint.alternatives.empty())
      return true;
    (constraint.alternatives.size() == 1 ? search.base : search.cases)
        .push_back(&constraint);
  }
  return false;
}

// Wrap counts (coefficients of 2^w) over a few values: one case per value,
// decided first, which keeps the integer sampler away from huge
// coefficients. Their ranges are those that the component's constraints
// without cases allow (rationally): a tile's offset `32 * %bi + %i` with
// %bi below ceildiv(%H, 32) never wraps, whatever bound the grid column has
// alone. The value 0 comes first: a witness that needs no wrap-around is
// found before one that does.
void SystemSolver::addWrapCases(ComponentSearch &search) {
  for (unsigned column : search.component.columns) {
    if (system.columns[column].master < 0)
      continue;
    const Column &info = model.getColumn(system.columns[column].master);
    if (info.kind != ColumnKind::Derived)
      continue;
    if (llvm::none_of(search.component.constraints, [&](unsigned id) {
          return hasWideCoefficient(system.constraints[id], column);
        }))
      continue;
    std::optional<Int> lower = info.lower, upper = info.upper;
    SmallVector<DynamicAPInt, 8> direction(search.n + 1, DynamicAPInt(0));
    direction[search.index.lookup(column)] = DynamicAPInt(1);
    MaybeOptimum<Fraction> least =
        search.simplex.computeOptimum(Simplex::Direction::Down, direction);
    MaybeOptimum<Fraction> most =
        search.simplex.computeOptimum(Simplex::Direction::Up, direction);
    if (least.isBounded() && (!lower || ceil(*least) > *lower))
      lower = ceil(*least);
    if (most.isBounded() && (!upper || floor(*most) < *upper))
      upper = floor(*most);
    if (!lower || !upper || *upper - *lower > Int(3))
      continue;
    SmallVector<Int, 4> values;
    if (*lower <= Int(0) && Int(0) <= *upper)
      values.push_back(Int(0));
    for (Int value = *lower; value <= *upper; value += Int(1))
      if (value != Int(0))
        values.push_back(value);
    QueryConstraint split;
    for (const Int &value : values) {
      LinearForm form = LinearForm::getColumn(column);
      form.constant = -value;
      split.alternatives.push_back(Conjunction{{form}, {}});
    }
    search.wrapCases.push_back(std::move(split));
    search.splitColumns.insert(column);
  }
  SmallVector<const QueryConstraint *> wrapCases;
  for (const QueryConstraint &split : search.wrapCases)
    wrapCases.push_back(&split);
  search.cases.insert(search.cases.begin(), wrapCases.begin(), wrapCases.end());
}

// Universal columns read by constraints that are not their own: the
// collision must exist for every value of them.
void SystemSolver::findUniversals(ComponentSearch &search) {
  for (unsigned column : search.component.columns) {
    if (!system.isUniversal(column))
      continue;
    if (llvm::any_of(search.component.constraints, [&](unsigned id) {
          const QueryConstraint &constraint = system.constraints[id];
          return constraint.owner != int(column) &&
                 visitForms(constraint.alternatives,
                            [&](const LinearForm &form) {
                              return form.mentions(column);
                            });
        }))
      search.universals.push_back(column);
  }
}

// Depth-first over the cases, pruned by rational emptiness; the leaves are
// decided over the integers.
void SystemSolver::exploreCases(ComponentSearch &search, unsigned depth) {
  if (search.isDone())
    return;
  if (depth == search.cases.size()) {
    decideLeaf(search);
    return;
  }
  const DNF &alternatives = search.cases[depth]->alternatives;
  for (unsigned alternative = 0; alternative < alternatives.size();
       ++alternative) {
    unsigned snapshot = search.simplex.getSnapshot();
    addConjunction(search.simplex, alternatives[alternative], search);
    if (!search.simplex.isEmpty()) {
      search.choice[depth] = alternative;
      exploreCases(search, depth + 1);
    }
    search.simplex.rollback(snapshot);
    if (search.isDone())
      return;
  }
}

void SystemSolver::decideLeaf(ComponentSearch &search) {
  if (leavesLeft-- == 0) {
    search.overBudget = true;
    return;
  }
  IntegerRelation leaf(PresburgerSpace::getSetSpace(search.n));
  for (const QueryConstraint *constraint : search.base)
    addConjunction(leaf, constraint->alternatives.front(), search);
  for (auto [position, constraint] : llvm::enumerate(search.cases))
    addConjunction(leaf, constraint->alternatives[search.choice[position]],
                   search);
  bool refused;
  std::optional<Point> leafSample = sampleByElimination(
      leaf,
      [&](unsigned columns, bool wide) { return takeSample(columns, wide); },
      system.cache, refused);
  if (refused) {
    search.overBudget = true;
    return;
  }
  if (!leafSample)
    return;
  if (!search.sample) {
    search.sample = leafSample;
    search.firstLeaf = leaf;
  }
  if (!search.universals.empty())
    search.feasibleLeaves.push_back(std::move(leaf));
}

/// A point of `leaf` with the columns of `fixed` at their values.
std::optional<Point>
SystemSolver::sampleWith(const ComponentSearch &search,
                         const IntegerRelation &leaf,
                         ArrayRef<std::pair<unsigned, Int>> fixed) {
  unsigned n = search.n;
  IntegerRelation relation = leaf;
  for (auto [column, value] : fixed) {
    SmallVector<DynamicAPInt> row(n + 1, DynamicAPInt(0));
    row[search.index.lookup(column)] = DynamicAPInt(1);
    row[n] = -value;
    relation.addEquality(row);
  }
  bool refused;
  return sampleByElimination(
      relation,
      [&](unsigned columns, bool wide) { return takeSample(columns, wide); },
      system.cache, refused);
}

/// The columns a person reads in a witness: sizes and captured scalars.
bool SystemSolver::isNamed(unsigned column) const {
  return system.columns[column].master >= 0 &&
         (system.isUniversal(column) ||
          model.getColumn(system.columns[column].master).kind ==
              ColumnKind::Extent);
}

// The sizes and scalars a witness assumes are read by people, but most
// witnesses are never printed: the search for smaller ones waits until a
// message needs it (minimizeWitness), and takes nothing from the samples
// that decide the queries.
void SystemSolver::keepForMinimization(ComponentSearch &search) {
  if (search.n > 16)
    return;
  SmallVector<unsigned> named;
  bool large = false;
  for (auto [position, column] : llvm::enumerate(search.component.columns)) {
    if (!isNamed(column))
      continue;
    named.push_back(position);
    large |= abs((*search.sample)[position]) > DynamicAPInt(8);
  }
  if (large)
    minimizable.push_back({search.component.columns, std::move(named),
                           std::move(*search.firstLeaf)});
}

void SystemSolver::proveForAll(ComponentSearch &search) {
  if (!exact || !forAll)
    return;
  forAll = search.universals.size() <= budget.maxUniversalColumns &&
           !isRefutedBySuspects(search) && holdsOnWholeDomain(search);
}

/// Whether some leaf has a point with the universal columns at `fixed`.
bool SystemSolver::collidesFor(const ComponentSearch &search,
                               ArrayRef<std::pair<unsigned, Int>> fixed) {
  return llvm::any_of(search.feasibleLeaves, [&](const IntegerRelation &leaf) {
    return sampleWith(search, leaf, fixed).has_value();
  });
}

// A value of the universal columns for which no leaf collides refutes "for
// every value": try the usual suspects first.
bool SystemSolver::isRefutedBySuspects(const ComponentSearch &search) {
  for (unsigned column : search.universals) {
    const Column &info = model.getColumn(system.columns[column].master);
    SmallVector<Int> suspects = {Int(0), Int(1), Int(-1),
                                 values[column] + Int(1),
                                 values[column] - Int(1)};
    if (info.lower)
      suspects.push_back(*info.lower);
    if (info.upper)
      suspects.push_back(*info.upper);
    for (const Int &suspect : suspects) {
      if ((info.lower && suspect < *info.lower) ||
          (info.upper && suspect > *info.upper))
        continue;
      SmallVector<std::pair<unsigned, Int>> fixed;
      for (unsigned other : search.universals)
        fixed.push_back({other, other == column ? suspect : values[other]});
      if (!collidesFor(search, fixed))
        return true;
    }
  }
  return false;
}

// Exact over a small domain: every value of the universal columns. (A
// projection of the leaves onto the universal columns would decide any
// domain, but the Presburger library's cost for it has no bound: its
// lexicographic minimum ran for minutes on five columns with i16
// wrap-around.) Otherwise not proven.
bool SystemSolver::holdsOnWholeDomain(const ComponentSearch &search) {
  SmallVector<Int> lowers, uppers;
  Int points(1);
  for (unsigned column : search.universals) {
    const Column &info = model.getColumn(system.columns[column].master);
    if (!info.lower || !info.upper)
      return false;
    lowers.push_back(*info.lower);
    uppers.push_back(*info.upper);
    points *= *info.upper - *info.lower + Int(1);
  }
  if (points > Int(budget.maxForAllPoints))
    return false;
  SmallVector<Int> point(lowers);
  for (;;) {
    SmallVector<std::pair<unsigned, Int>> fixed;
    for (auto [position, column] : llvm::enumerate(search.universals))
      fixed.push_back({column, point[position]});
    if (!collidesFor(search, fixed))
      return false;
    // The next point, the first column fastest.
    size_t position = 0;
    while (position < point.size() && point[position] == uppers[position])
      point[position] = lowers[position], ++position;
    if (position == point.size())
      return true;
    point[position] += Int(1);
  }
}

//===----------------------------------------------------------------------===//
// The result
//===----------------------------------------------------------------------===//

WitnessReadout SystemSolver::getReadout() {
  WitnessReadout readout;
  readout.provenForAllValues = forAll;
  for (unsigned dim = 0; dim < system.spawn.getRank(); ++dim) {
    unsigned master = model.getGridColumn(dim);
    for (unsigned side : {0u, 1u})
      readout.grid[side].push_back(system.getColumn(master, side));
  }
  for (unsigned side : {0u, 1u}) {
    if (system.threadOf[side])
      readout.threads[side] = system.threadOf[side];
    scf::ParallelOp loop = system.system(side).threadLoop;
    if (!loop)
      continue;
    for (unsigned dim = 0; dim < loop.getNumLoops(); ++dim) {
      std::optional<Term> induction = model.getInductionTerm(loop, dim);
      if (!induction || !induction->isAffine())
        break;
      readout.iterations[side].push_back(
          system.rename(induction->linear, side));
    }
  }
  // The element, where its address is affine.
  if (llvm::all_of(system.addressOfFirst,
                   [](const Term &address) { return address.isAffine(); }))
    for (const Term &address : system.addressOfFirst)
      readout.element.push_back(address.linear);
  // The values the witness needs: dynamic grid sizes, and the captured
  // scalars unless the collision holds for all of them; and the wrap counts
  // of signed readings.
  for (auto [column, value] : values) {
    int master = system.columns[column].master;
    if (master < 0)
      continue;
    const Column &info = model.getColumn(master);
    bool assumed = info.kind == ColumnKind::Extent ||
                   (!forAll && llvm::is_contained(universalValues, info.value));
    if (assumed || info.isSignedWrapCount)
      readout.readings[column] = {master, info.value, assumed,
                                  info.isSignedWrapCount};
  }
  return readout;
}

CollisionResult
WitnessReadout::read(const DenseMap<unsigned, Int> &values) const {
  CollisionResult result;
  result.kind = CollisionResult::Collision;
  result.provenForAllValues = provenForAllValues;
  auto valueOf = [&](unsigned column) -> int64_t {
    auto it = values.find(column);
    return it == values.end() ? 0 : int64_t(it->second);
  };
  auto evaluate = [&](const LinearForm &form) {
    Int value = form.constant;
    for (const auto &[column, coefficient] : form.terms)
      value += coefficient * Int(valueOf(column));
    return int64_t(value);
  };
  for (unsigned side : {0u, 1u}) {
    for (unsigned column : grid[side])
      (side ? result.instance1 : result.instance0).push_back(valueOf(column));
    for (const LinearForm &induction : iterations[side])
      (side ? result.iteration1 : result.iteration0)
          .push_back(evaluate(induction));
    if (threads[side])
      (side ? result.thread1 : result.thread0) = evaluate(*threads[side]);
  }
  for (const LinearForm &address : element)
    result.element.push_back(evaluate(address));
  // The assumptions in the order of their master columns, which is the same
  // from run to run; likewise the ops whose wrap counts are nonzero.
  llvm::SmallPtrSet<void *, 4> reported;
  SmallVector<std::pair<int, std::pair<Value, APInt>>> assumed;
  SmallVector<std::pair<int, Operation *>> wrapping;
  for (auto [column, value] : values) {
    auto reading = readings.find(column);
    if (reading == readings.end())
      continue;
    const Reading &info = reading->second;
    if (info.assumed && info.value &&
        reported.insert(info.value.getAsOpaquePointer()).second)
      assumed.push_back(
          {info.master,
           {info.value,
            toAPInt(value, getIntegerWidth(info.value.getType()))}});
    if (!info.signedWrapCount || value == 0)
      continue;
    result.wrapsAround = true;
    if (Operation *def = info.value ? info.value.getDefiningOp() : nullptr)
      wrapping.push_back({info.master, def});
  }
  llvm::sort(assumed, llvm::less_first());
  for (auto &[master, assumption] : assumed)
    result.assumptions.push_back(std::move(assumption));
  llvm::sort(wrapping, llvm::less_first());
  for (auto [master, op] : wrapping)
    if (!llvm::is_contained(result.wrappingOps, op))
      result.wrappingOps.push_back(op);
  return result;
}

CollisionResult SystemSolver::assembleResult() {
  WitnessReadout readout = getReadout();
  CollisionResult result = readout.read(values);
  if (!minimizable.empty())
    result.witnessSearch = std::make_shared<WitnessSearch>(
        WitnessSearch{std::move(readout), values, std::move(minimizable)});
  return result;
}

//===----------------------------------------------------------------------===//
// Minimizing a printed witness
//===----------------------------------------------------------------------===//

void mlir::vx::detail::minimizeWitness(
    CollisionResult &result, function_ref<bool(unsigned, bool)> takeSample,
    SampleCache &cache) {
  std::shared_ptr<const WitnessSearch> search = std::move(result.witnessSearch);
  if (!search)
    return;
  DenseMap<unsigned, Int> values = search->values;
  for (const WitnessSearch::Component &component : search->components) {
    unsigned n = component.columns.size();
    bool refused = false;
    // A point of the leaf with the sizes and scalars within `bound`.
    auto sampleWithin = [&](int64_t bound) -> std::optional<Point> {
      if (refused)
        return std::nullopt;
      IntegerRelation bounded = component.leaf;
      for (unsigned position : component.named) {
        SmallVector<DynamicAPInt> row(n + 1, DynamicAPInt(0));
        row[position] = DynamicAPInt(1);
        row[n] = DynamicAPInt(bound);
        bounded.addInequality(row);
        row[position] = DynamicAPInt(-1);
        bounded.addInequality(row);
      }
      return sampleByElimination(bounded, takeSample, cache, refused);
    };
    // The first of 2, 8, 2^16 and 2^40 that has a point. 2^40 is tried
    // right after 2: a witness that needs sizes near 2^63 (wrap-around)
    // has none, and then costs two samples, not four.
    std::optional<Point> smaller = sampleWithin(2);
    if (!smaller) {
      smaller = sampleWithin(int64_t(1) << 40);
      if (!smaller)
        continue;
      for (int64_t bound : {int64_t(8), int64_t(1) << 16})
        if (std::optional<Point> tighter = sampleWithin(bound)) {
          smaller = std::move(tighter);
          break;
        }
    }
    for (auto [position, column] : llvm::enumerate(component.columns))
      values[column] = (*smaller)[position];
  }
  result = search->readout.read(values);
}

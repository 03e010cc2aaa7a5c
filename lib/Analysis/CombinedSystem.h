//===- CombinedSystem.h - The integer system of one query -------*- C++ -*-===//
//
// A combined system holds both sides of a query in one column numbering:
// the columns of each access (shared where both sides provably have one
// value), their constraints, and the relation between the two executions.
// CombinedSystem.cpp builds it; Solver.cpp decides it.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_ANALYSIS_COMBINEDSYSTEM_H
#define VX_LIB_ANALYSIS_COMBINEDSYSTEM_H

#include "Query.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace vx {
namespace detail {

/// Calls `visit` on every form of `alternatives`, equalities and
/// inequalities alike, until it returns true; returns whether it did.
bool visitForms(const DNF &alternatives,
                function_ref<bool(const LinearForm &)> visit);

/// Calls `visit` on every (column, coefficient) term of every form of
/// `alternatives`.
void visitTerms(const DNF &alternatives,
                function_ref<void(unsigned, const Int &)> visit);

/// A column of a query: a master column on one side (0 or 1), shared by
/// both (-1), or the query's own (master -1).
struct QueryColumn {
  int master;
  int side;
};

struct QueryConstraint {
  DNF alternatives;
  /// The column the constraint belongs to, if any.
  int owner = -1;
  bool definitional = false;
  /// The context of an access (a condition it runs under), as opposed to
  /// addresses, definitions and the relation.
  bool isContext = false;
};

class SystemSolver;

/// SpawnAnalysis::minimizeWitness: `takeSample` is asked, like the queries'
/// budget, whether a sample is admitted; `cache` keeps the samples.
void minimizeWitness(CollisionResult &result,
                     function_ref<bool(unsigned, bool)> takeSample,
                     SampleCache &cache);

class CombinedSystem {
public:
  CombinedSystem(IntegerModel &model, const AnalysisBudget &budget,
                 unsigned &samplesLeft, SampleCache &cache,
                 const AccessSystem &first, const AccessSystem &second,
                 const PairRelation &relation, bool symmetric);

  /// Decides the system (Solver.cpp).
  CollisionResult solve();

  /// Prints the columns and constraints, for debugging.
  void print(llvm::raw_ostream &os) const;

private:
  friend class SystemSolver;

  unsigned getColumn(unsigned master, unsigned side);
  unsigned addOwnColumn(std::optional<Int> lower, std::optional<Int> upper);
  bool isShared(unsigned master);
  bool allLoopsEquated(Operation *scope);
  LinearForm rename(const LinearForm &form, unsigned side);
  /// `alternatives` over the columns of `side`.
  DNF renameAlternatives(const DNF &alternatives, unsigned side);
  Term rename(const Term &term, unsigned side);
  void equateGridAndLoops();
  void instantiate(const AccessSystem &system, unsigned side);
  void instantiateColumns(ArrayRef<unsigned> masters, unsigned side);
  /// Instantiates on `side` the columns that `terms` read.
  void instantiateColumnsOf(ArrayRef<const Term *> terms, unsigned side);
  void add(DNF alternatives, int owner = -1, bool definitional = false,
           bool isContext = false);
  void addEquality(LinearForm form) { add(DNF{Conjunction{{form}, {}}}); }
  void addInequality(LinearForm form) { add(DNF{Conjunction{{}, {form}}}); }
  void addAddressEquality();
  void addEqualTerms(Term a, Term b);
  bool splitDigit(Term &a, Term &b);
  void approximate(std::string why) {
    if (!approximation)
      approximation = std::move(why);
  }
  void addGridRelation();
  void addLoopRelations();
  void addEmptyLoop(Operation *loop);
  void addInductionRelation(scf::ForOp loop, PairRelation::Loop order);
  void addThreadRelation();
  std::optional<LinearForm> getLinearIteration(unsigned side);
  std::optional<Term> getInductionOnSide(Operation *loop, unsigned dim,
                                         unsigned side);
  const AccessSystem &system(unsigned side) const {
    return side ? second : first;
  }
  bool isApproximate(unsigned column) const;
  bool isUniversal(unsigned column) const;

  /// Charges the spawn's budget for one integer sample over `columns`
  /// columns (after elimination), if enough is left (getSampleCost); a
  /// refused sample spends what is left.
  bool takeSample(unsigned columns, bool wide) {
    std::optional<unsigned> cost = getSampleCost(budget, columns, wide);
    if (!cost || samplesLeft < *cost) {
      samplesLeft = 0;
      return false;
    }
    samplesLeft -= *cost;
    return true;
  }

  IntegerModel &model;
  AnalysisBudget budget;
  unsigned &samplesLeft;
  SampleCache &cache;
  SpawnOp spawn;
  const AccessSystem &first, &second;
  const PairRelation &relation;
  bool symmetric;

  llvm::SmallBitVector equatedDims;
  llvm::SmallPtrSet<Operation *, 4> equatedLoops;
  bool sameInstance = false;
  DenseMap<unsigned, bool> shared;
  std::vector<QueryColumn> columns;
  DenseMap<std::pair<unsigned, int>, unsigned> columnIds;
  std::vector<QueryConstraint> constraints;
  llvm::DenseSet<std::pair<unsigned, int>> instantiatedConstraints;
  std::optional<std::string> approximation;
  /// The thread of each side, where the relation compares threads.
  std::optional<LinearForm> threadOf[2];
  /// The address of side 0 over the query's columns, for the witness.
  SmallVector<Term> addressOfFirst;
};

} // namespace detail
} // namespace vx
} // namespace mlir

#endif // VX_LIB_ANALYSIS_COMBINEDSYSTEM_H

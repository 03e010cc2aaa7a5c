//===- Query.h - Systems of two accesses and their solutions ----*- C++ -*-===//
//
// A query copies the systems of two accesses (their address within one
// root, the context they run in, and every column these read) into one
// integer system, shares the columns that provably have one value on both
// sides, adds the relation between the two executions, and decides it
// component by component, case by case.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_ANALYSIS_QUERY_H
#define VX_LIB_ANALYSIS_QUERY_H

#include "IntegerModel.h"

#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace vx {
namespace detail {

/// Integer samples of the reduced systems of a spawn's queries (none where
/// a system is empty), by the text of the system.
using SampleCache =
    llvm::StringMap<std::optional<SmallVector<llvm::DynamicAPInt, 8>>>;

/// Every column `term` reads, products included.
void collectColumns(const Term &term, SmallVectorImpl<unsigned> &out);

/// The units of `budget` that one integer sample over `columns` columns
/// (after elimination) costs, or nothing where none is taken. With
/// coefficients of wrap-around (`wide`), the sampler's cost grows about
/// twofold with each column beyond a few: such a sample costs
/// 2^(columns - 6) units from 7 columns on, and none is taken over more
/// than `maxSampleColumns`.
std::optional<unsigned> getSampleCost(const AnalysisBudget &budget,
                                      unsigned columns, bool wide);

/// One access on one of its roots, built once.
struct AccessSystem {
  /// The access (null for an op's context alone), the op and its thread
  /// loop.
  const Access *access = nullptr;
  unsigned candidate = 0;
  Operation *op = nullptr;
  scf::ParallelOp threadLoop;
  /// The address within the root: one term (linear addressing, for roots
  /// with static strides) or one per root dimension.
  SmallVector<Term> address;
  /// A summary of accesses that differ only in the constants of their
  /// addresses: the range of each constant.
  SmallVector<std::optional<std::pair<Int, Int>>> constantRanges;
  /// The master columns and constraints of the address and the context.
  SmallVector<unsigned> columns, constraints;
  /// Why a collision of this access is not exact, if it is not.
  std::optional<std::string> approximation;
  /// Why the address is not modelled at all.
  std::optional<std::string> unmodelled;
};

class QueryBuilder {
public:
  QueryBuilder(IntegerModel &model, const AnalysisBudget &budget)
      : model(model), budget(budget), samplesLeft(budget.maxSamples) {}

  const AccessSystem &getSystem(const Access &access, unsigned candidate);
  /// The system of `access` run in `context`, a block around its own
  /// (not cached).
  AccessSystem getSystemIn(const Access &access, unsigned candidate,
                           Block *context);
  void limitSamples(unsigned samples) {
    samplesLeft = std::min(samplesLeft, samples);
  }
  void resetSamples() { samplesLeft = budget.maxSamples; }
  unsigned getSamplesLeft() const { return samplesLeft; }
  void setSamplesLeft(unsigned samples) { samplesLeft = samples; }
  /// SpawnAnalysis::minimizeWitness, on the witness budget.
  void minimizeWitness(CollisionResult &result);

  /// The context of `op` alone (no address).
  const AccessSystem &getOpSystem(Operation *op);
  /// The context of `block` with extra constraints (not cached).
  AccessSystem getBlockSystem(Block *block, ArrayRef<unsigned> constraints);

  /// Decides whether `first` (side 0) and `second` (side 1) touch one
  /// element, for executions related by `relation`. `symmetric`: the two
  /// are one access and the relation is symmetric.
  CollisionResult query(const AccessSystem &first, const AccessSystem &second,
                        const PairRelation &relation, bool symmetric);

  /// A key equal for accesses whose systems differ only in the constants of
  /// their addresses.
  std::string getShapeKey(const AccessSystem &system) const;

  /// The summary of `members` (same shape key): their address constants
  /// become ranges.
  AccessSystem summarize(ArrayRef<const AccessSystem *> members) const;

private:
  IntegerModel &model;
  AnalysisBudget budget;
  /// Integer samples left to the spawn's queries.
  unsigned samplesLeft;
  SampleCache samples;
  /// The samples of minimized witnesses, kept apart: they must not change
  /// what the queries find cached.
  SampleCache witnessSamples;
  DenseMap<std::pair<const Access *, unsigned>, std::unique_ptr<AccessSystem>>
      systems;
  DenseMap<Operation *, std::unique_ptr<AccessSystem>> opSystems;
};

} // namespace detail
} // namespace vx
} // namespace mlir

#endif // VX_LIB_ANALYSIS_QUERY_H

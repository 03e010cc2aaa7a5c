//===- Query.cpp - Systems of two accesses and their solutions ------------===//

#include "Query.h"

#include "mlir/Analysis/Presburger/IntegerRelation.h"
#include "mlir/Analysis/Presburger/Simplex.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/EquivalenceClasses.h"

using namespace mlir;
using namespace mlir::vx;
using namespace mlir::vx::detail;
using namespace mlir::presburger;

//===----------------------------------------------------------------------===//
// Per-access systems
//===----------------------------------------------------------------------===//

/// Every column `term` reads, products included.
static void collectColumns(const Term &term, SmallVectorImpl<unsigned> &out) {
  SmallVector<const Term *> stack{&term};
  while (!stack.empty()) {
    const Term *current = stack.pop_back_val();
    for (const auto &[column, coefficient] : current->linear.terms)
      out.push_back(column);
    for (const Product &product : current->products) {
      out.push_back(product.symbol);
      stack.push_back(product.factor.get());
    }
  }
}

/// The term of a size (or offset, stride) of a view: a constant or a value.
static Term getFoldTerm(IntegerModel &model, OpFoldResult value) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return Term::getConstant(Int(*constant));
  return model.getSigned(cast<Value>(value));
}

/// The size of dimension `dim` of `memref` as a term, where the model can
/// follow it.
static std::optional<Term> getSizeTerm(IntegerModel &model, Value memref,
                                       unsigned dim, SpawnOp spawn) {
  for (unsigned steps = 0; steps < 16; ++steps) {
    auto type = dyn_cast<MemRefType>(memref.getType());
    if (!type)
      return std::nullopt;
    if (!type.isDynamicDim(dim))
      return Term::getConstant(Int(type.getDimSize(dim)));
    Operation *def = memref.getDefiningOp();
    if (auto subview = dyn_cast_or_null<memref::SubViewOp>(def)) {
      llvm::SmallBitVector dropped = subview.getDroppedDims();
      unsigned resultDim = 0;
      for (auto [sourceDim, size] : llvm::enumerate(subview.getMixedSizes())) {
        if (dropped.test(sourceDim))
          continue;
        if (resultDim++ == dim)
          return getFoldTerm(model, size);
      }
      return std::nullopt;
    }
    if (isa_and_nonnull<memref::CastOp, memref::MemorySpaceCastOp>(def)) {
      memref = def->getOperand(0);
      continue;
    }
    if (!spawn.isDefinedInBody(memref))
      return Term::getColumn(model.getDimensionColumn(memref, dim));
    return std::nullopt;
  }
  return std::nullopt;
}

const AccessSystem &QueryBuilder::getSystem(const Access &access,
                                            unsigned candidateIndex) {
  auto key = std::make_pair(&access, candidateIndex);
  if (auto it = systems.find(key); it != systems.end())
    return *it->second;
  auto system = std::make_unique<AccessSystem>();
  system->access = &access;
  system->candidate = candidateIndex;
  system->op = access.op;
  system->threadLoop = access.threadLoop;
  const Access::Candidate &candidate = access.candidates[candidateIndex];
  SpawnOp spawn = model.getSpawn();
  auto unmodelled = [&](std::string why) {
    if (!system->unmodelled)
      system->unmodelled = std::move(why);
  };
  auto approximate = [&](std::string why) {
    if (!system->approximation)
      system->approximation = std::move(why);
  };
  if (access.unmodelled)
    unmodelled(*access.unmodelled);
  if (candidate.unmodelled)
    unmodelled(*candidate.unmodelled);

  const Context &context = model.getContext(access.op->getBlock());
  llvm::append_range(system->columns, context.columns);
  llvm::append_range(system->constraints, context.constraints);
  if (context.approximation)
    approximate(*context.approximation);
  for (auto [condition, truth] : candidate.conditions)
    system->constraints.push_back(model.addConstraint(
        model.getCondition(condition, truth), /*definitional=*/false));

  auto rootType = candidate.base
                      ? dyn_cast<MemRefType>(candidate.base.getType())
                      : MemRefType();
  auto viewType = access.buffer ? dyn_cast<MemRefType>(access.buffer.getType())
                                : MemRefType();
  if (!system->unmodelled && (!rootType || !viewType))
    unmodelled("an unranked memref");
  if (!system->unmodelled &&
      access.vectorShape.size() >
          (access.wholeBuffer ? 0 : access.indices.size()) &&
      !access.map)
    unmodelled("a vector of a higher rank than the memref");

  SmallVector<Term> indices;
  if (!system->unmodelled) {
    // The indices of the accessed view.
    if (access.wholeBuffer) {
      for (unsigned dim = 0; dim < viewType.getRank(); ++dim) {
        std::optional<Term> size =
            getSizeTerm(model, access.buffer, dim, spawn);
        std::optional<Int> extent;
        if (size && size->isConstant())
          extent = size->linear.constant;
        unsigned element = model.addElementColumn(extent, access.buffer);
        if (!extent) {
          if (size && size->isAffine()) {
            // element <= size - 1.
            LinearForm bound = size->linear;
            bound.add(LinearForm::getColumn(element), Int(-1));
            bound.constant -= Int(1);
            model.attach(element,
                         model.addConstraint({Conjunction{{}, {bound}}},
                                             /*definitional=*/false));
          } else {
            approximate("a whole-buffer access of a size the analysis "
                        "cannot follow");
          }
        }
        indices.push_back(Term::getColumn(element));
      }
    } else if (access.map) {
      AffineMap map = access.map;
      SmallVector<Term> dims, symbols;
      for (auto [position, operand] : llvm::enumerate(access.indices))
        (position < map.getNumDims() ? dims : symbols)
            .push_back(model.getBits(operand));
      for (AffineExpr expr : map.getResults()) {
        Term result = model.getAffineTerm(expr, dims, symbols);
        indices.push_back(model.wrap(result, 64, true, Value()));
      }
    } else {
      for (Value index : access.indices)
        indices.push_back(model.getSigned(index));
    }
    // A vector covers a box along the trailing dimensions; its innermost
    // lanes are contiguous in memory.
    if (!access.vectorShape.empty() && !access.wholeBuffer) {
      unsigned first = indices.size() - access.vectorShape.size();
      for (auto [offset, size] : llvm::enumerate(access.vectorShape))
        indices[first + offset].add(
            Term::getColumn(model.addElementColumn(Int(size), access.buffer)));
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(viewType.getStridesAndOffset(strides, offset)) ||
          strides.back() != 1)
        approximate("a vector access of a memref whose innermost stride is "
                    "not 1");
    }
  }

  // Down the views to the root.
  bool absolute = false;
  for (Operation *view : candidate.views) {
    if (system->unmodelled || absolute)
      break;
    if (isa<memref::CastOp, memref::MemorySpaceCastOp>(view))
      continue;
    if (auto subview = dyn_cast<memref::SubViewOp>(view)) {
      llvm::SmallBitVector dropped = subview.getDroppedDims();
      SmallVector<Term> source;
      unsigned resultDim = 0;
      for (auto [dim, offset, stride] : llvm::enumerate(
               subview.getMixedOffsets(), subview.getMixedStrides())) {
        Term index = getFoldTerm(model, offset);
        if (!dropped.test(dim)) {
          if (std::optional<int64_t> constant = getConstantIntValue(stride)) {
            index.add(indices[resultDim], Int(*constant));
          } else {
            Term strideTerm = getFoldTerm(model, stride);
            const auto &terms = strideTerm.linear.terms;
            if (!strideTerm.isAffine() || strideTerm.linear.constant != 0 ||
                terms.size() != 1 || terms[0].second != 1 ||
                !model.getColumn(terms[0].first).sources.isInvariant()) {
              unmodelled("a subview with a stride the analysis cannot "
                         "follow");
              break;
            }
            Term product;
            product.products.push_back(
                {std::make_shared<const Term>(indices[resultDim]),
                 terms[0].first, Int(1)});
            index.add(product);
          }
          ++resultDim;
        }
        source.push_back(std::move(index));
      }
      indices = std::move(source);
      continue;
    }
    if (auto transpose = dyn_cast<memref::TransposeOp>(view)) {
      AffineMap permutation = transpose.getPermutation();
      SmallVector<Term> source(indices.size());
      for (auto [resultDim, expr] : llvm::enumerate(permutation.getResults()))
        source[cast<AffineDimExpr>(expr).getPosition()] = indices[resultDim];
      indices = std::move(source);
      continue;
    }
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(view)) {
      ArrayRef<int64_t> shape = expand.getResultType().getShape();
      SmallVector<Term> source;
      for (ReassociationIndices group : expand.getReassociationIndices()) {
        Term linear;
        for (int64_t dim : group) {
          if (dim != group.front() && ShapedType::isDynamic(shape[dim])) {
            unmodelled("an expand_shape of dynamic size");
            break;
          }
          linear = [&] {
            Term scaledTerm;
            scaledTerm.add(linear, Int(dim == group.front() ? 1 : shape[dim]));
            return scaledTerm;
          }();
          linear.add(indices[dim]);
        }
        source.push_back(std::move(linear));
      }
      indices = std::move(source);
      continue;
    }
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(view)) {
      ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
      SmallVector<Term> source;
      for (auto [resultDim, group] :
           llvm::enumerate(collapse.getReassociationIndices())) {
        // Delinearize, innermost fastest.
        SmallVector<Term> digits;
        Term rest = indices[resultDim];
        for (int64_t dim : llvm::reverse(group)) {
          if (dim == group.front()) {
            digits.push_back(rest);
            break;
          }
          if (ShapedType::isDynamic(shape[dim]) || !rest.isAffine()) {
            unmodelled("a collapse_shape of dynamic size");
            break;
          }
          digits.push_back(model.getModulo(rest, Int(shape[dim]), Value()));
          rest = model.getFloorDiv(rest, Int(shape[dim]), Value());
        }
        llvm::append_range(source, llvm::reverse(digits));
      }
      indices = std::move(source);
      continue;
    }
    if (auto reinterpret = dyn_cast<memref::ReinterpretCastOp>(view)) {
      // An absolute offset within the allocation.
      Term address = getFoldTerm(model, reinterpret.getMixedOffsets()[0]);
      for (auto [index, stride] :
           llvm::zip_equal(indices, reinterpret.getMixedStrides())) {
        std::optional<int64_t> constant = getConstantIntValue(stride);
        if (!constant) {
          unmodelled("a reinterpret_cast with dynamic strides");
          break;
        }
        address.add(index, Int(*constant));
      }
      indices = {address};
      absolute = true;
      continue;
    }
    unmodelled(("a view the analysis does not model: '" +
                view->getName().getStringRef() + "'")
                   .str());
  }

  if (!system->unmodelled) {
    SmallVector<int64_t> strides;
    int64_t offset;
    bool staticStrides =
        succeeded(rootType.getStridesAndOffset(strides, offset)) &&
        llvm::none_of(strides, ShapedType::isDynamic);
    if (staticStrides) {
      // Linear addressing: the offset of the element in the allocation.
      if (absolute) {
        if (ShapedType::isDynamic(offset))
          unmodelled("a reinterpret_cast of a buffer with a dynamic offset");
        else
          system->address = std::move(indices);
      } else {
        Term address =
            Term::getConstant(Int(ShapedType::isDynamic(offset) ? 0 : offset));
        for (auto [index, stride] : llvm::zip_equal(indices, strides))
          address.add(index, Int(stride));
        system->address = {address};
      }
    } else if (absolute) {
      unmodelled("a reinterpret_cast of a buffer with dynamic strides");
    } else {
      // One index per dimension: equal elements have equal indices as long
      // as they are in bounds (out-of-bounds accesses are undefined).
      system->address = std::move(indices);
      if (!access.vectorShape.empty()) {
        const Term &inner = system->address.back();
        auto [lower, upper] = model.getInterval(inner.linear);
        if (!inner.isAffine() || !upper ||
            rootType.isDynamicDim(rootType.getRank() - 1) ||
            *upper >= Int(rootType.getDimSize(rootType.getRank() - 1)))
          approximate("a vector access that may run past the end of a row");
      }
    }
  }

  for (const Term &term : system->address)
    collectColumns(term, system->columns);
  model.close(system->columns, system->constraints);
  const AccessSystem &result = *system;
  systems[key] = std::move(system);
  return result;
}

const AccessSystem &QueryBuilder::getOpSystem(Operation *op) {
  if (auto it = opSystems.find(op); it != opSystems.end())
    return *it->second;
  auto system = std::make_unique<AccessSystem>();
  system->op = op;
  system->threadLoop = SpawnAnalysis::getThreadLoop(op, model.getSpawn());
  const Context &context = model.getContext(op->getBlock());
  llvm::append_range(system->columns, context.columns);
  llvm::append_range(system->constraints, context.constraints);
  system->approximation = context.approximation;
  model.close(system->columns, system->constraints);
  const AccessSystem &result = *system;
  opSystems[op] = std::move(system);
  return result;
}

AccessSystem QueryBuilder::getBlockSystem(Block *block,
                                          ArrayRef<unsigned> constraints) {
  AccessSystem system;
  system.op = block->getParentOp();
  const Context &context = model.getContext(block);
  llvm::append_range(system.columns, context.columns);
  llvm::append_range(system.constraints, context.constraints);
  llvm::append_range(system.constraints, constraints);
  system.approximation = context.approximation;
  model.close(system.columns, system.constraints);
  return system;
}

//===----------------------------------------------------------------------===//
// Shapes and summaries
//===----------------------------------------------------------------------===//

static void printForm(llvm::raw_ostream &os, const LinearForm &form,
                      bool withConstant) {
  for (const auto &[column, coefficient] : form.terms)
    os << coefficient << "*c" << column << "+";
  if (withConstant)
    os << form.constant;
}

static void printTerm(llvm::raw_ostream &os, const Term &term,
                      bool withConstant) {
  printForm(os, term.linear, withConstant);
  for (const Product &product : term.products) {
    os << "+" << product.scale << "*s" << product.symbol << "*(";
    printTerm(os, *product.factor, true);
    os << ")";
  }
}

std::string QueryBuilder::getShapeKey(const AccessSystem &system) const {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << system.op->getBlock() << "|" << static_cast<int>(system.access->kind)
     << "|" << (system.approximation ? *system.approximation : "") << "|"
     << (system.unmodelled ? *system.unmodelled : "") << "|";
  SmallVector<unsigned> constraints(system.constraints);
  llvm::sort(constraints);
  for (unsigned constraint : constraints)
    os << constraint << ",";
  os << "|";
  for (const Term &term : system.address) {
    printTerm(os, term, /*withConstant=*/false);
    os << ";";
  }
  return key;
}

AccessSystem
QueryBuilder::summarize(ArrayRef<const AccessSystem *> members) const {
  AccessSystem summary = *members.front();
  summary.constantRanges.assign(summary.address.size(), std::nullopt);
  for (auto [dim, term] : llvm::enumerate(summary.address)) {
    Int lower = term.linear.constant, upper = term.linear.constant;
    for (const AccessSystem *member : members) {
      const Int &constant = member->address[dim].linear.constant;
      lower = std::min(lower, constant);
      upper = std::max(upper, constant);
    }
    if (lower != upper)
      summary.constantRanges[dim] = std::make_pair(lower, upper);
  }
  return summary;
}

//===----------------------------------------------------------------------===//
// The combined system of one query
//===----------------------------------------------------------------------===//

namespace {

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

class CombinedSystem {
public:
  CombinedSystem(IntegerModel &model, const AnalysisBudget &budget,
                 unsigned &samplesLeft, SampleCache &cache,
                 const AccessSystem &first, const AccessSystem &second,
                 const PairRelation &relation, bool symmetric);

  CollisionResult solve();

private:
  unsigned getColumn(unsigned master, unsigned side);
  unsigned addOwnColumn(std::optional<Int> lower, std::optional<Int> upper);
  bool isShared(unsigned master);
  bool allLoopsEquated(Operation *scope);
  LinearForm rename(const LinearForm &form, unsigned side);
  /// `alternatives` over the columns of `side`.
  DNF renameAlternatives(const DNF &alternatives, unsigned side);
  Term rename(const Term &term, unsigned side);
  void instantiate(const AccessSystem &system, unsigned side);
  void instantiateColumns(ArrayRef<unsigned> masters, unsigned side);
  void add(DNF alternatives, int owner = -1, bool definitional = false,
           bool isContext = false);
  void addEquality(LinearForm form) { add(DNF{Conjunction{{form}, {}}}); }
  void addInequality(LinearForm form) { add(DNF{Conjunction{{}, {form}}}); }
  void addEqualTerms(Term a, Term b);
  bool splitDigit(Term &a, Term &b);
  void approximate(std::string why) {
    if (!approximation)
      approximation = std::move(why);
  }
  void addGridRelation();
  void addLoopRelations();
  void addThreadRelation();
  std::optional<LinearForm> getLinearIteration(unsigned side);
  std::optional<Term> getInductionOnSide(Operation *loop, unsigned dim,
                                         unsigned side);
  const AccessSystem &system(unsigned side) { return side ? second : first; }
  bool isApproximate(unsigned column) const;
  bool isUniversal(unsigned column) const;

  /// Charges the spawn's budget for one integer sample over `columns`
  /// columns (after elimination), if enough is left. With coefficients of
  /// wrap-around (`wide`), the sampler's cost grows about twofold with each
  /// column beyond a few: such a sample costs 2^(columns - 6) units from 7
  /// columns on, and none is taken over more than `maxSampleColumns`.
  bool takeSample(unsigned columns, bool wide) {
    unsigned cost = !wide || columns <= 6 ? 1 : 1u << (columns - 6);
    if ((wide && columns > budget.maxSampleColumns) || samplesLeft < cost) {
      samplesLeft = 0;
      return false;
    }
    samplesLeft -= cost;
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
  std::vector<std::optional<std::pair<Int, Int>>> ownBounds;
  DenseMap<std::pair<unsigned, int>, unsigned> columnIds;
  std::vector<QueryConstraint> constraints;
  llvm::DenseSet<std::pair<unsigned, int>> instantiatedConstraints;
  std::optional<std::string> approximation;
  /// The thread of each side, where the relation compares threads.
  std::optional<LinearForm> threadOf[2];
};

} // namespace

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
  if (sameInstance) {
    // Loops around both accesses run the same iteration unless the
    // relation says otherwise (and then so do none inside them).
    Operation *secondOp = second.op;
    for (Operation *loop : getEnclosingLoops(first.op, spawn)) {
      if (!loop->isProperAncestor(secondOp))
        break;
      std::optional<PairRelation::Loop> order = getLoopOrder(relation, loop);
      bool different =
          (order && *order != PairRelation::Loop::Same) ||
          (relation.threads == PairRelation::Threads::DifferentIterations &&
           loop == const_cast<scf::ParallelOp &>(relation.threadLoop)
                       .getOperation());
      if (different)
        break;
      equatedLoops.insert(loop);
    }
  }

  // Both instances' grid coordinates exist, whatever the accesses read.
  for (unsigned side : {0u, 1u}) {
    SmallVector<unsigned> gridColumns, gridConstraints;
    for (unsigned dim = 0; dim < rank; ++dim)
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
    addEqualTerms(renamed[0], renamed[1]);
  }
}

unsigned CombinedSystem::addOwnColumn(std::optional<Int> lower,
                                      std::optional<Int> upper) {
  columns.push_back({-1, 2});
  ownBounds.push_back(std::nullopt);
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
      for (const Conjunction &conjunction :
           model.getConstraint(constraint).alternatives)
        for (const auto *forms :
             {&conjunction.equalities, &conjunction.inequalities})
          for (const LinearForm &form : *forms)
            for (const auto &[input, coefficient] : form.terms)
              if (input != master && input < master && !isShared(input))
                result = false;
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
  ownBounds.push_back(std::nullopt);
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

std::optional<Term> CombinedSystem::getInductionOnSide(Operation *loop,
                                                       unsigned dim,
                                                       unsigned side) {
  std::optional<Term> induction = model.getInductionTerm(loop, dim);
  if (!induction || !induction->isAffine())
    return std::nullopt;
  SmallVector<unsigned> masters, masterConstraints;
  collectColumns(*induction, masters);
  model.close(masters, masterConstraints);
  instantiateColumns(masters, side);
  return rename(*induction, side);
}

void CombinedSystem::addLoopRelations() {
  using L = PairRelation::Loop;
  for (auto [loop, order] : relation.loops) {
    if (order == L::Same || order == L::Any)
      continue;
    auto forOp = dyn_cast<scf::ForOp>(loop);
    std::optional<int64_t> step =
        forOp ? getConstantIntValue(forOp.getStep()) : std::nullopt;
    if (order == L::Empty) {
      // upper - lower <= 0 on the first side.
      auto forLoop = dyn_cast<scf::ForOp>(loop);
      if (!forLoop) {
        approximate("a loop relation on a loop other than 'scf.for'");
        continue;
      }
      bool isSigned = !forLoop.getUnsignedCmp();
      Term lower = isSigned ? model.getSigned(forLoop.getLowerBound())
                            : model.getUnsigned(forLoop.getLowerBound());
      Term upper = isSigned ? model.getSigned(forLoop.getUpperBound())
                            : model.getUnsigned(forLoop.getUpperBound());
      if (!lower.isAffine() || !upper.isAffine()) {
        approximate("a loop whose bounds the analysis cannot follow");
        continue;
      }
      SmallVector<unsigned> masters, masterConstraints;
      collectColumns(lower, masters);
      collectColumns(upper, masters);
      model.close(masters, masterConstraints);
      instantiateColumns(masters, 0);
      LinearForm empty = rename(lower.linear, 0);
      empty.add(rename(upper.linear, 0), Int(-1));
      addInequality(std::move(empty));
      continue;
    }
    if (order == L::First) {
      addEquality(
          LinearForm::getColumn(getColumn(model.getIterationColumn(loop), 1)));
      continue;
    }
    if (order == L::Later) {
      LinearForm later =
          LinearForm::getColumn(getColumn(model.getIterationColumn(loop), 1));
      later.add(
          LinearForm::getColumn(getColumn(model.getIterationColumn(loop), 0)),
          Int(-1));
      later.constant = Int(-1);
      addInequality(std::move(later));
      continue;
    }
    if (!forOp || !step) {
      approximate("a loop relation on a loop without a constant step");
      continue;
    }
    std::optional<Term> firstIv = getInductionOnSide(loop, 0, 0);
    if (!firstIv) {
      approximate("a loop whose bounds the analysis cannot follow");
      continue;
    }
    if (order == L::Successor) {
      std::optional<Term> secondIv = getInductionOnSide(loop, 0, 1);
      if (!secondIv) {
        approximate("a loop whose bounds the analysis cannot follow");
        continue;
      }
      LinearForm next = secondIv->linear;
      next.add(firstIv->linear, Int(-1));
      next.constant -= Int(*step);
      addEquality(std::move(next));
      continue;
    }
    // Last: iv + step >= upper.
    Term upper = forOp.getUnsignedCmp()
                     ? model.getUnsigned(forOp.getUpperBound())
                     : model.getSigned(forOp.getUpperBound());
    if (!upper.isAffine()) {
      approximate("a loop whose bounds the analysis cannot follow");
      continue;
    }
    SmallVector<unsigned> masters, masterConstraints;
    collectColumns(upper, masters);
    model.close(masters, masterConstraints);
    instantiateColumns(masters, 0);
    LinearForm last = firstIv->linear;
    last.add(rename(upper.linear, 0), Int(-1));
    last.constant += Int(*step);
    addInequality(std::move(last));
  }
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
  // The thread of each side: its iteration mod N, or any thread for code
  // outside thread loops.
  Int threads(relation.numThreads);
  LinearForm thread[2];
  for (unsigned side : {0u, 1u}) {
    if (!linear[side]) {
      thread[side] =
          LinearForm::getColumn(addOwnColumn(Int(0), threads - Int(1)));
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

//===----------------------------------------------------------------------===//
// Solving
//===----------------------------------------------------------------------===//

namespace {
/// The constraints of one connected component, in its own column numbering.
struct Component {
  SmallVector<unsigned> columns;
  SmallVector<unsigned> constraints;
};
} // namespace

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

/// An integer point of `reduced`. Small points first: the sampler is fast
/// within a small box and slow over ranges of 2^63; without a point in the
/// box, the whole set.
static std::optional<SmallVector<DynamicAPInt, 8>>
sampleReduced(const IntegerRelation &reduced) {
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
  if (std::optional<SmallVector<DynamicAPInt, 8>> sample =
          boxed.findIntegerSample())
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
static std::optional<SmallVector<DynamicAPInt, 8>>
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
  const std::optional<SmallVector<DynamicAPInt, 8>> &sample = cached->second;
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

CollisionResult CombinedSystem::solve() {
  CollisionResult result;
  unsigned numColumns = columns.size();
  // Components of the columns, joined by constraints.
  llvm::EquivalenceClasses<unsigned> classes;
  for (unsigned column = 0; column < numColumns; ++column)
    classes.insert(column);
  for (const QueryConstraint &constraint : constraints) {
    std::optional<unsigned> anchor;
    bool anyColumn = false;
    for (const Conjunction &conjunction : constraint.alternatives)
      for (const auto *forms :
           {&conjunction.equalities, &conjunction.inequalities})
        for (const LinearForm &form : *forms)
          for (const auto &[column, coefficient] : form.terms) {
            anyColumn = true;
            if (anchor)
              classes.unionSets(*anchor, column);
            else
              anchor = column;
          }
    if (constraint.owner >= 0) {
      if (anchor)
        classes.unionSets(*anchor, constraint.owner);
      anyColumn = true;
    }
    if (!anyColumn && llvm::none_of(constraint.alternatives, holdsTrivially)) {
      result.kind = CollisionResult::Disjoint;
      return result;
    }
  }
  DenseMap<unsigned, Component> components;
  for (auto [id, constraint] : llvm::enumerate(constraints)) {
    std::optional<unsigned> column;
    if (constraint.owner >= 0)
      column = constraint.owner;
    for (const Conjunction &conjunction : constraint.alternatives)
      for (const auto *forms :
           {&conjunction.equalities, &conjunction.inequalities})
        for (const LinearForm &form : *forms)
          if (!form.terms.empty() && !column)
            column = form.terms.front().first;
    if (!column)
      continue;
    components[classes.getLeaderValue(*column)].constraints.push_back(id);
  }
  for (unsigned column = 0; column < numColumns; ++column) {
    auto it = components.find(classes.getLeaderValue(column));
    if (it != components.end())
      it->second.columns.push_back(column);
  }

  // Exactness: an approximate column decides nothing unless a constraint
  // that is not its own reads it. The message prefers a condition.
  bool exact = !approximation;
  std::optional<std::string> addressReason, contextReason;
  SmallVector<std::pair<unsigned, const Component *>> relevant;
  for (auto &[leader, component] : components) {
    if (llvm::all_of(component.constraints,
                     [&](unsigned id) { return constraints[id].definitional; }))
      continue; // Satisfiable for every value of its columns.
    relevant.push_back({leader, &component});
    for (unsigned id : component.constraints) {
      const QueryConstraint &constraint = constraints[id];
      for (const Conjunction &conjunction : constraint.alternatives)
        for (const auto *forms :
             {&conjunction.equalities, &conjunction.inequalities})
          for (const LinearForm &form : *forms)
            for (const auto &[column, coefficient] : form.terms) {
              if (int(column) == constraint.owner || !isApproximate(column))
                continue;
              std::optional<std::string> &reason =
                  constraint.isContext ? contextReason : addressReason;
              if (reason)
                continue;
              const Column &info = model.getColumn(columns[column].master);
              Operation *def =
                  info.value ? info.value.getDefiningOp() : nullptr;
              std::string text;
              llvm::raw_string_ostream os(text);
              if (def && constraint.isContext)
                os << "an access under a condition the analysis does not "
                      "model (it uses the result of '"
                   << def->getName() << "')";
              else if (isa_and_nonnull<arith::MulIOp>(def) &&
                       !model.getSources(def->getOperand(0)).isInvariant() &&
                       !model.getSources(def->getOperand(1)).isInvariant())
                os << "the address uses a product of two varying values in '"
                   << def->getName() << "'";
              else if (def)
                os << "the address uses the result of '" << def->getName()
                   << "'";
              else if (info.kind == ColumnKind::Iteration)
                os << "a loop whose iterations the analysis over-"
                      "approximates";
              else
                os << "a value the analysis does not model";
              reason = text;
            }
    }
  }
  if (exact && (contextReason || addressReason)) {
    exact = false;
    approximate(contextReason ? *contextReason : *addressReason);
  }

  unsigned totalColumns = 0;
  for (auto [leader, component] : relevant)
    totalColumns += component->columns.size();
  if (totalColumns > budget.maxColumns) {
    result.reason = "the system is too large to decide within the budget";
    return result;
  }
  // Integer sampling (generalized basis reduction) slows down sharply with
  // wrap-around coefficients (2^64) in many dimensions: such components are
  // left undecided.
  for (auto [leader, component] : relevant) {
    if (component->columns.size() <= budget.maxWideColumns)
      continue;
    Int wide(int64_t(1) << 32);
    bool hasWide = llvm::any_of(component->constraints, [&](unsigned id) {
      return llvm::any_of(
          constraints[id].alternatives, [&](const Conjunction &conjunction) {
            for (const auto *forms :
                 {&conjunction.equalities, &conjunction.inequalities})
              for (const LinearForm &form : *forms)
                for (const auto &[column, coefficient] : form.terms)
                  if (abs(coefficient) > wide)
                    return true;
            return false;
          });
    });
    if (hasWide) {
      result.reason = "the system is too large to decide within the budget";
      return result;
    }
  }

  DenseMap<unsigned, Int> values;
  SmallVector<Value> universalValues;
  bool forAll = true;
  unsigned leavesLeft = budget.maxAlternatives;
  for (auto [leader, component] : relevant) {
    DenseMap<unsigned, unsigned> index;
    for (auto [position, column] : llvm::enumerate(component->columns))
      index[column] = position;
    unsigned n = component->columns.size();
    SmallVector<const QueryConstraint *> base, cases;
    for (unsigned id : component->constraints) {
      const QueryConstraint &constraint = constraints[id];
      if (constraint.alternatives.empty()) {
        result.kind = CollisionResult::Disjoint;
        return result;
      }
      (constraint.alternatives.size() == 1 ? base : cases)
          .push_back(&constraint);
    }
    // Wrap counts (coefficients of 2^w) over a few values: one case per
    // value, decided first, which keeps the integer sampler away from huge
    // coefficients.
    std::vector<QueryConstraint> wrapCases;
    wrapCases.reserve(component->columns.size());
    SmallVector<const QueryConstraint *> wrapCasePointers;
    Int wide(int64_t(1) << 32);
    for (unsigned column : component->columns) {
      if (columns[column].master < 0)
        continue;
      const Column &info = model.getColumn(columns[column].master);
      if (info.kind != ColumnKind::Derived || !info.lower || !info.upper ||
          *info.upper - *info.lower > Int(3))
        continue;
      bool isWide = llvm::any_of(component->constraints, [&](unsigned id) {
        return llvm::any_of(
            constraints[id].alternatives, [&](const Conjunction &conjunction) {
              for (const auto *forms :
                   {&conjunction.equalities, &conjunction.inequalities})
                for (const LinearForm &form : *forms)
                  if (abs(form.getCoefficient(column)) > wide)
                    return true;
              return false;
            });
      });
      if (!isWide)
        continue;
      QueryConstraint split;
      for (Int value = *info.lower; value <= *info.upper; value += Int(1))
        split.alternatives.push_back(
            Conjunction{{[&] {
                          LinearForm form = LinearForm::getColumn(column);
                          form.constant = -value;
                          return form;
                        }()},
                        {}});
      wrapCases.push_back(std::move(split));
      wrapCasePointers.push_back(&wrapCases.back());
    }
    cases.insert(cases.begin(), wrapCasePointers.begin(),
                 wrapCasePointers.end());
    // Universal columns read by constraints that are not their own: the
    // collision must exist for every value of them.
    SmallVector<unsigned> universals;
    for (unsigned column : component->columns)
      if (isUniversal(column))
        for (unsigned id : component->constraints)
          if (constraints[id].owner != int(column) &&
              llvm::any_of(constraints[id].alternatives,
                           [&](const Conjunction &conjunction) {
                             for (const auto *forms :
                                  {&conjunction.equalities,
                                   &conjunction.inequalities})
                               for (const LinearForm &form : *forms)
                                 if (form.mentions(column))
                                   return true;
                             return false;
                           })) {
            universals.push_back(column);
            break;
          }

    Simplex simplex(n);
    auto addConjunction = [&](const Conjunction &conjunction,
                              IntegerRelation *relation) {
      for (const LinearForm &form : conjunction.equalities) {
        SmallVector<DynamicAPInt> row = toRow(form, index, n);
        if (relation)
          relation->addEquality(row);
        else
          simplex.addEquality(row);
      }
      for (const LinearForm &form : conjunction.inequalities) {
        SmallVector<DynamicAPInt> row = toRow(form, index, n);
        if (relation)
          relation->addInequality(row);
        else
          simplex.addInequality(row);
      }
    };
    for (const QueryConstraint *constraint : base)
      addConjunction(constraint->alternatives.front(), nullptr);
    if (simplex.isEmpty()) {
      result.kind = CollisionResult::Disjoint;
      return result;
    }
    // Depth-first over the cases, pruned by rational emptiness; the leaves
    // are decided over the integers.
    SmallVector<unsigned> choice(cases.size(), 0);
    std::optional<SmallVector<DynamicAPInt, 8>> sample;
    std::vector<IntegerRelation> feasibleLeaves;
    std::unique_ptr<IntegerRelation> firstLeaf;
    bool overBudget = false;
    auto leafRelation = [&]() {
      IntegerRelation relation(PresburgerSpace::getSetSpace(n));
      for (const QueryConstraint *constraint : base)
        addConjunction(constraint->alternatives.front(), &relation);
      for (auto [position, constraint] : llvm::enumerate(cases))
        addConjunction(constraint->alternatives[choice[position]], &relation);
      return relation;
    };
    auto charge = [&](unsigned columns, bool wide) {
      return takeSample(columns, wide);
    };
    std::function<void(unsigned)> explore = [&](unsigned depth) {
      if (overBudget || (sample && universals.empty()))
        return;
      if (depth == cases.size()) {
        if (leavesLeft-- == 0) {
          overBudget = true;
          return;
        }
        IntegerRelation relation = leafRelation();
        bool refused;
        std::optional<SmallVector<DynamicAPInt, 8>> leafSample =
            sampleByElimination(relation, charge, cache, refused);
        if (refused) {
          overBudget = true;
          return;
        }
        if (!leafSample)
          return;
        if (!sample) {
          sample = leafSample;
          firstLeaf = std::make_unique<IntegerRelation>(relation);
        }
        if (!universals.empty())
          feasibleLeaves.push_back(std::move(relation));
        return;
      }
      for (unsigned alternative = 0;
           alternative < cases[depth]->alternatives.size(); ++alternative) {
        unsigned snapshot = simplex.getSnapshot();
        addConjunction(cases[depth]->alternatives[alternative], nullptr);
        if (!simplex.isEmpty()) {
          choice[depth] = alternative;
          explore(depth + 1);
        }
        simplex.rollback(snapshot);
        if (overBudget || (sample && universals.empty()))
          return;
      }
    };
    explore(0);
    if (overBudget) {
      result.reason = "too many cases to decide within the budget";
      return result;
    }
    if (!sample) {
      result.kind = CollisionResult::Disjoint;
      return result;
    }
    // A witness with small values where there is one: the sizes and
    // scalars it assumes are read by people.
    SmallVector<unsigned> named;
    for (unsigned column : component->columns)
      if (columns[column].master >= 0 &&
          (isUniversal(column) ||
           model.getColumn(columns[column].master).kind == ColumnKind::Extent))
        named.push_back(column);
    auto bounded = [&](const IntegerRelation &leaf,
                       ArrayRef<std::pair<unsigned, Int>> fixed,
                       std::optional<Int> bound) {
      IntegerRelation relation = leaf;
      for (auto [column, value] : fixed) {
        SmallVector<DynamicAPInt> row(n + 1, DynamicAPInt(0));
        row[index[column]] = DynamicAPInt(1);
        row[n] = -value;
        relation.addEquality(row);
      }
      if (bound)
        for (unsigned column : named) {
          SmallVector<DynamicAPInt> row(n + 1, DynamicAPInt(0));
          row[index[column]] = DynamicAPInt(1);
          row[n] = *bound;
          relation.addInequality(row);
          row[index[column]] = DynamicAPInt(-1);
          relation.addInequality(row);
        }
      bool refused;
      return sampleByElimination(relation, charge, cache, refused);
    };
    bool large = llvm::any_of(named, [&](unsigned column) {
      return abs((*sample)[index[column]]) > DynamicAPInt(8);
    });
    if (large && n <= 16)
      for (int64_t bound :
           {int64_t(2), int64_t(8), int64_t(1) << 16, int64_t(1) << 40})
        if (auto smaller = bounded(*firstLeaf, {}, Int(bound))) {
          sample = smaller;
          break;
        }
    for (auto [position, column] : llvm::enumerate(component->columns))
      values[column] = (*sample)[position];
    if (universals.empty())
      continue;
    for (unsigned column : universals)
      universalValues.push_back(model.getColumn(columns[column].master).value);
    if (!exact || !forAll)
      continue;
    if (universals.size() > budget.maxUniversalColumns) {
      forAll = false;
      continue;
    }
    // A value of the universal columns for which no leaf collides refutes
    // "for every value": try the usual suspects first.
    auto collidesFor = [&](ArrayRef<std::pair<unsigned, Int>> fixed) {
      return llvm::any_of(feasibleLeaves, [&](const IntegerRelation &leaf) {
        return bounded(leaf, fixed, std::nullopt).has_value();
      });
    };
    bool refuted = false;
    for (unsigned column : universals) {
      const Column &info = model.getColumn(columns[column].master);
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
        for (unsigned other : universals)
          fixed.push_back({other, other == column ? suspect : values[other]});
        if (!collidesFor(fixed)) {
          refuted = true;
          for (auto [other, value] : fixed)
            values[other] = value;
          break;
        }
      }
      if (refuted)
        break;
    }
    if (refuted) {
      // Report the values of a collision, not of the refutation.
      for (auto [position, column] : llvm::enumerate(component->columns))
        values[column] = (*sample)[position];
      forAll = false;
      continue;
    }
    // Exact over a small domain: every value of the universal columns. (A
    // projection of the leaves onto the universal columns would decide any
    // domain, but the Presburger library's cost for it has no bound: its
    // lexicographic minimum ran for minutes on five columns with i16
    // wrap-around.) Otherwise not proven.
    SmallVector<Int> lowers, uppers;
    Int points(1);
    for (unsigned column : universals) {
      const Column &info = model.getColumn(columns[column].master);
      if (!info.lower || !info.upper)
        break;
      lowers.push_back(*info.lower);
      uppers.push_back(*info.upper);
      points *= *info.upper - *info.lower + Int(1);
    }
    if (lowers.size() < universals.size() ||
        points > Int(budget.maxForAllPoints)) {
      forAll = false;
      continue;
    }
    SmallVector<Int> point(lowers);
    for (;;) {
      SmallVector<std::pair<unsigned, Int>> fixed;
      for (auto [position, column] : llvm::enumerate(universals))
        fixed.push_back({column, point[position]});
      if (!collidesFor(fixed)) {
        forAll = false;
        break;
      }
      // The next point, the first column fastest.
      size_t position = 0;
      while (position < point.size() && point[position] == uppers[position])
        point[position] = lowers[position], ++position;
      if (position == point.size())
        break;
      point[position] += Int(1);
    }
  }

  if (!exact) {
    result.kind = CollisionResult::Unknown;
    result.reason = approximation ? *approximation : "the model is not exact";
    return result;
  }
  result.kind = CollisionResult::Collision;
  result.provenForAllValues = forAll;
  unsigned rank = spawn.getRank();
  auto valueOf = [&](unsigned column) -> int64_t {
    auto it = values.find(column);
    return it == values.end() ? 0 : int64_t(it->second);
  };
  for (unsigned dim = 0; dim < rank; ++dim) {
    unsigned master = model.getGridColumn(dim);
    result.instance0.push_back(valueOf(getColumn(master, 0)));
    result.instance1.push_back(valueOf(getColumn(master, 1)));
  }
  for (unsigned side : {0u, 1u}) {
    scf::ParallelOp loop = system(side).threadLoop;
    if (!loop)
      continue;
    SmallVector<int64_t> &iteration =
        side ? result.iteration1 : result.iteration0;
    for (unsigned dim = 0; dim < loop.getNumLoops(); ++dim) {
      std::optional<Term> induction = model.getInductionTerm(loop, dim);
      if (!induction || !induction->isAffine())
        break;
      Int value = induction->linear.constant;
      for (const auto &[column, coefficient] : induction->linear.terms)
        value += coefficient * Int(valueOf(getColumn(column, side)));
      iteration.push_back(int64_t(value));
    }
  }
  for (unsigned side : {0u, 1u}) {
    if (!threadOf[side])
      continue;
    Int thread = threadOf[side]->constant;
    for (const auto &[column, coefficient] : threadOf[side]->terms)
      thread += coefficient * Int(valueOf(column));
    (side ? result.thread1 : result.thread0) = int64_t(thread);
  }
  // The values the witness needs: dynamic grid sizes, and the captured
  // scalars unless the collision holds for all of them.
  llvm::SmallPtrSet<void *, 4> reported;
  for (auto [column, value] : values) {
    if (columns[column].master < 0)
      continue;
    const Column &info = model.getColumn(columns[column].master);
    bool report = info.kind == ColumnKind::Extent ||
                  (!forAll && llvm::is_contained(universalValues, info.value));
    if (!report || !info.value ||
        !reported.insert(info.value.getAsOpaquePointer()).second)
      continue;
    result.assumptions.push_back(
        {info.value, toAPInt(value, getIntegerWidth(info.value.getType()))});
  }
  llvm::sort(result.assumptions, [](const auto &a, const auto &b) {
    return a.first.getAsOpaquePointer() < b.first.getAsOpaquePointer();
  });
  return result;
}

CollisionResult QueryBuilder::query(const AccessSystem &first,
                                    const AccessSystem &second,
                                    const PairRelation &relation,
                                    bool symmetric) {
  if (relation.grid != PairRelation::Grid::DifferentParallelPoints) {
    CombinedSystem system(model, budget, samplesLeft, samples, first, second,
                          relation, symmetric);
    return system.solve();
  }
  // One system per first differing dimension: the dimensions before it are
  // then one column on both sides, and so is every value computed from
  // them alone.
  CollisionResult combined;
  combined.kind = CollisionResult::Disjoint;
  SpawnOp spawn = model.getSpawn();
  for (unsigned dim = 0; dim < spawn.getRank(); ++dim) {
    if (spawn.getDimSemantics(dim) != DimensionSemantics::parallel)
      continue;
    PairRelation split = relation;
    split.grid = PairRelation::Grid::FirstDifferenceAt;
    split.dim = dim;
    CombinedSystem system(model, budget, samplesLeft, samples, first, second,
                          split, symmetric);
    CollisionResult result = system.solve();
    if (result.kind == CollisionResult::Collision &&
        (result.provenForAllValues ||
         combined.kind != CollisionResult::Collision))
      combined = result;
    else if (result.kind == CollisionResult::Unknown &&
             combined.kind == CollisionResult::Disjoint)
      combined = result;
    if (combined.kind == CollisionResult::Collision &&
        combined.provenForAllValues)
      break;
  }
  return combined;
}

//===- Query.cpp - Systems of accesses and the queries on them ------------===//
//
// Builds the system of each access (its context, its indices down the views
// to the root, its address there) and answers queries on two of them
// through a CombinedSystem.
//
//===----------------------------------------------------------------------===//

#include "CombinedSystem.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "vx-analysis-query"

using namespace mlir;
using namespace mlir::vx;
using namespace mlir::vx::detail;

//===----------------------------------------------------------------------===//
// Per-access systems
//===----------------------------------------------------------------------===//

[[maybe_unused]] static void printOp(llvm::raw_ostream &os, Operation *op) {
  op->print(os, OpPrintingFlags().skipRegions());
}

void mlir::vx::detail::collectColumns(const Term &term,
                                      SmallVectorImpl<unsigned> &out) {
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

/// Copies the context `block` runs in (its columns, constraints and
/// approximation) into a fresh `system`.
static void addBlockContext(IntegerModel &model, Block *block,
                            AccessSystem &system) {
  const Context &context = model.getContext(block);
  llvm::append_range(system.columns, context.columns);
  llvm::append_range(system.constraints, context.constraints);
  if (!system.approximation)
    system.approximation = context.approximation;
}

namespace {
/// Builds the system of one access on one candidate root: the context it
/// runs in, the indices of the view it accesses, those indices carried down
/// the views to the root, and its address there.
class AccessSystemBuilder {
public:
  /// `context`: the block whose context the access runs in (its own by
  /// default).
  AccessSystemBuilder(IntegerModel &model, AccessSystem &system,
                      const Access &access, unsigned candidateIndex,
                      Block *context = nullptr)
      : model(model), spawn(model.getSpawn()), system(system), access(access),
        candidate(access.candidates[candidateIndex]),
        context(context ? context : access.op->getBlock()) {
    system.access = &access;
    system.candidate = candidateIndex;
    system.op = access.op;
    system.threadLoop = access.threadLoop;
  }

  void build();

private:
  void addContext();
  /// The indices of the accessed view, vector lanes included.
  SmallVector<Term> getViewIndices(MemRefType viewType);
  SmallVector<Term> getWholeBufferIndices(MemRefType viewType);
  /// Carries `indices` down the candidate's views to the root; returns
  /// whether they became an absolute offset (a reinterpret_cast).
  bool mapToRoot(SmallVector<Term> &indices);
  SmallVector<Term> mapSubView(memref::SubViewOp subview,
                               ArrayRef<Term> indices);
  SmallVector<Term> mapExpandShape(memref::ExpandShapeOp expand,
                                   ArrayRef<Term> indices);
  SmallVector<Term> mapCollapseShape(memref::CollapseShapeOp collapse,
                                     ArrayRef<Term> indices);
  Term mapReinterpretCast(memref::ReinterpretCastOp reinterpret,
                          ArrayRef<Term> indices);
  /// The address within the root from its indices.
  void setAddress(SmallVector<Term> indices, bool absolute,
                  MemRefType rootType);

  void unmodelled(std::string why) {
    if (!system.unmodelled)
      system.unmodelled = std::move(why);
  }
  void approximate(std::string why) {
    if (!system.approximation)
      system.approximation = std::move(why);
  }

  IntegerModel &model;
  SpawnOp spawn;
  AccessSystem &system;
  const Access &access;
  const Access::Candidate &candidate;
  Block *context;
};
} // namespace

void AccessSystemBuilder::build() {
  if (access.unmodelled)
    unmodelled(*access.unmodelled);
  if (candidate.unmodelled)
    unmodelled(*candidate.unmodelled);
  if (candidate.approximation)
    approximate(*candidate.approximation);
  addContext();

  auto rootType = candidate.base
                      ? dyn_cast<MemRefType>(candidate.base.getType())
                      : MemRefType();
  auto viewType = access.buffer ? dyn_cast<MemRefType>(access.buffer.getType())
                                : MemRefType();
  if (!system.unmodelled && (!rootType || !viewType))
    unmodelled("an unranked memref");
  if (!system.unmodelled &&
      access.vectorShape.size() >
          (access.wholeBuffer ? 0 : access.indices.size()) &&
      !access.map)
    unmodelled("a vector of a higher rank than the memref");

  SmallVector<Term> indices;
  if (!system.unmodelled)
    indices = getViewIndices(viewType);
  bool absolute = mapToRoot(indices);
  if (!system.unmodelled)
    setAddress(std::move(indices), absolute, rootType);

  for (const Term &term : system.address)
    collectColumns(term, system.columns);
  model.close(system.columns, system.constraints);
}

void AccessSystemBuilder::addContext() {
  addBlockContext(model, context, system);
  for (auto [condition, truth] : candidate.conditions)
    system.constraints.push_back(model.addConstraint(
        model.getCondition(condition, truth), /*definitional=*/false));
}

SmallVector<Term> AccessSystemBuilder::getViewIndices(MemRefType viewType) {
  SmallVector<Term> indices;
  if (access.wholeBuffer) {
    indices = getWholeBufferIndices(viewType);
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
  return indices;
}

SmallVector<Term>
AccessSystemBuilder::getWholeBufferIndices(MemRefType viewType) {
  SmallVector<Term> indices;
  for (unsigned dim = 0; dim < viewType.getRank(); ++dim) {
    std::optional<Term> size = getSizeTerm(model, access.buffer, dim, spawn);
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
        model.attach(element, model.addConstraint({Conjunction{{}, {bound}}},
                                                  /*definitional=*/false));
      } else {
        approximate("a whole-buffer access of a size the analysis "
                    "cannot follow");
      }
    }
    indices.push_back(Term::getColumn(element));
  }
  return indices;
}

bool AccessSystemBuilder::mapToRoot(SmallVector<Term> &indices) {
  bool absolute = false;
  for (Operation *view : candidate.views) {
    if (system.unmodelled || absolute)
      break;
    llvm::TypeSwitch<Operation *>(view)
        .Case<memref::CastOp, memref::MemorySpaceCastOp>([](Operation *) {})
        .Case([&](memref::SubViewOp subview) {
          indices = mapSubView(subview, indices);
        })
        .Case([&](memref::TransposeOp transpose) {
          SmallVector<Term> source(indices.size());
          for (auto [resultDim, expr] :
               llvm::enumerate(transpose.getPermutation().getResults()))
            source[cast<AffineDimExpr>(expr).getPosition()] =
                indices[resultDim];
          indices = std::move(source);
        })
        .Case([&](memref::ExpandShapeOp expand) {
          indices = mapExpandShape(expand, indices);
        })
        .Case([&](memref::CollapseShapeOp collapse) {
          indices = mapCollapseShape(collapse, indices);
        })
        .Case([&](memref::ReinterpretCastOp reinterpret) {
          indices = {mapReinterpretCast(reinterpret, indices)};
          absolute = true;
        })
        .Default([&](Operation *other) {
          unmodelled(("a view the analysis does not model: '" +
                      other->getName().getStringRef() + "'")
                         .str());
        });
  }
  return absolute;
}

SmallVector<Term> AccessSystemBuilder::mapSubView(memref::SubViewOp subview,
                                                  ArrayRef<Term> indices) {
  llvm::SmallBitVector dropped = subview.getDroppedDims();
  SmallVector<Term> source;
  unsigned resultDim = 0;
  for (auto [dim, offset, stride] :
       llvm::enumerate(subview.getMixedOffsets(), subview.getMixedStrides())) {
    Term index = getFoldTerm(model, offset);
    if (!dropped.test(dim)) {
      if (std::optional<int64_t> constant = getConstantIntValue(stride)) {
        index.add(indices[resultDim], Int(*constant));
      } else {
        // A symbolic stride: a product with an invariant column.
        Term strideTerm = getFoldTerm(model, stride);
        const auto &terms = strideTerm.linear.terms;
        if (!strideTerm.isAffine() || strideTerm.linear.constant != 0 ||
            terms.size() != 1 || terms[0].second != 1 ||
            !model.getColumn(terms[0].first).sources.isInvariant()) {
          unmodelled("a subview with a stride the analysis cannot follow");
          break;
        }
        Term product;
        product.products.push_back(
            {std::make_shared<const Term>(indices[resultDim]), terms[0].first,
             Int(1)});
        index.add(product);
      }
      ++resultDim;
    }
    source.push_back(std::move(index));
  }
  return source;
}

SmallVector<Term>
AccessSystemBuilder::mapExpandShape(memref::ExpandShapeOp expand,
                                    ArrayRef<Term> indices) {
  ArrayRef<int64_t> shape = expand.getResultType().getShape();
  SmallVector<Term> source;
  for (ReassociationIndices group : expand.getReassociationIndices()) {
    // Linearize, innermost fastest.
    Term linear;
    for (int64_t dim : group) {
      if (dim != group.front() && ShapedType::isDynamic(shape[dim])) {
        unmodelled("an expand_shape of dynamic size");
        break;
      }
      Term scaled;
      scaled.add(linear, Int(dim == group.front() ? 1 : shape[dim]));
      linear = std::move(scaled);
      linear.add(indices[dim]);
    }
    source.push_back(std::move(linear));
  }
  return source;
}

SmallVector<Term>
AccessSystemBuilder::mapCollapseShape(memref::CollapseShapeOp collapse,
                                      ArrayRef<Term> indices) {
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
  return source;
}

Term AccessSystemBuilder::mapReinterpretCast(
    memref::ReinterpretCastOp reinterpret, ArrayRef<Term> indices) {
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
  return address;
}

void AccessSystemBuilder::setAddress(SmallVector<Term> indices, bool absolute,
                                     MemRefType rootType) {
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
        system.address = std::move(indices);
      return;
    }
    Term address =
        Term::getConstant(Int(ShapedType::isDynamic(offset) ? 0 : offset));
    for (auto [index, stride] : llvm::zip_equal(indices, strides))
      address.add(index, Int(stride));
    system.address = {address};
    return;
  }
  if (absolute) {
    unmodelled("a reinterpret_cast of a buffer with dynamic strides");
    return;
  }
  // One index per dimension: equal elements have equal indices as long as
  // they are in bounds (out-of-bounds accesses are undefined).
  system.address = std::move(indices);
  if (access.vectorShape.empty())
    return;
  const Term &inner = system.address.back();
  auto [lower, upper] = model.getInterval(inner.linear);
  if (!inner.isAffine() || !upper ||
      rootType.isDynamicDim(rootType.getRank() - 1) ||
      *upper >= Int(rootType.getDimSize(rootType.getRank() - 1)))
    approximate("a vector access that may run past the end of a row");
}

const AccessSystem &QueryBuilder::getSystem(const Access &access,
                                            unsigned candidateIndex) {
  auto key = std::make_pair(&access, candidateIndex);
  if (auto it = systems.find(key); it != systems.end())
    return *it->second;
  auto system = std::make_unique<AccessSystem>();
  AccessSystemBuilder(model, *system, access, candidateIndex).build();
  LLVM_DEBUG({
    llvm::dbgs() << "[vx-analysis-query] system of ";
    printOp(llvm::dbgs(), access.op);
    llvm::dbgs() << " on candidate " << candidateIndex << ": "
                 << system->columns.size() << " columns, "
                 << system->constraints.size() << " constraints";
    if (system->unmodelled)
      llvm::dbgs() << ", unmodelled: " << *system->unmodelled;
    if (system->approximation)
      llvm::dbgs() << ", approximate: " << *system->approximation;
    llvm::dbgs() << "\n";
  });
  const AccessSystem &result = *system;
  systems[key] = std::move(system);
  return result;
}

AccessSystem QueryBuilder::getSystemIn(const Access &access,
                                       unsigned candidateIndex,
                                       Block *context) {
  AccessSystem system;
  AccessSystemBuilder(model, system, access, candidateIndex, context).build();
  return system;
}

const AccessSystem &QueryBuilder::getOpSystem(Operation *op) {
  if (auto it = opSystems.find(op); it != opSystems.end())
    return *it->second;
  auto system = std::make_unique<AccessSystem>();
  system->op = op;
  system->threadLoop = SpawnAnalysis::getThreadLoop(op, model.getSpawn());
  addBlockContext(model, op->getBlock(), *system);
  model.close(system->columns, system->constraints);
  const AccessSystem &result = *system;
  opSystems[op] = std::move(system);
  return result;
}

AccessSystem QueryBuilder::getBlockSystem(Block *block,
                                          ArrayRef<unsigned> constraints) {
  AccessSystem system;
  system.op = block->getParentOp();
  addBlockContext(model, block, system);
  llvm::append_range(system.constraints, constraints);
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
// Queries
//===----------------------------------------------------------------------===//

std::optional<unsigned>
mlir::vx::detail::getSampleCost(const AnalysisBudget &budget, unsigned columns,
                                bool wide) {
  if (wide && columns > budget.maxSampleColumns)
    return std::nullopt;
  return !wide || columns <= 6 ? 1 : 1u << (columns - 6);
}

// Each witness has the whole witness budget: whether one is minimized does
// not depend on how many others the spawn prints.
void QueryBuilder::minimizeWitness(CollisionResult &result) {
  unsigned samplesLeft = budget.maxWitnessSamples;
  detail::minimizeWitness(
      result,
      [&](unsigned columns, bool wide) {
        std::optional<unsigned> cost = getSampleCost(budget, columns, wide);
        if (!cost || samplesLeft < *cost)
          return false;
        samplesLeft -= *cost;
        return true;
      },
      witnessSamples);
}

[[maybe_unused]] static StringRef getGridName(PairRelation::Grid grid) {
  using G = PairRelation::Grid;
  switch (grid) {
  case G::DifferentParallelPoints:
    return "different parallel points";
  case G::FirstDifferenceAt:
    return "first difference at";
  case G::AlongDimension:
    return "along dimension";
  case G::SameInstance:
    return "same instance";
  case G::SameParallelPoint:
    return "same parallel point";
  case G::LaterArbitraryStep:
    return "later arbitrary step";
  }
  llvm_unreachable("unknown grid relation");
}

CollisionResult QueryBuilder::query(const AccessSystem &first,
                                    const AccessSystem &second,
                                    const PairRelation &relation,
                                    bool symmetric) {
  auto solve = [&](const PairRelation &current) {
    CombinedSystem system(model, budget, samplesLeft, samples, first, second,
                          current, symmetric);
    LLVM_DEBUG({
      llvm::dbgs() << "[vx-analysis-query] query of ";
      printOp(llvm::dbgs(), first.op);
      llvm::dbgs() << "\n  against ";
      printOp(llvm::dbgs(), second.op);
      llvm::dbgs() << "\n  grid relation: " << getGridName(current.grid)
                   << " (dim " << current.dim << "), " << current.loops.size()
                   << " loop relations, " << samplesLeft
                   << " sample units left\n";
      system.print(llvm::dbgs());
    });
    return system.solve();
  };
  if (relation.grid != PairRelation::Grid::DifferentParallelPoints)
    return solve(relation);
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
    CollisionResult result = solve(split);
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

//===- IntegerModel.h - Integer values of a spawn body as columns -*- C++ -*-=//
//
// The model behind vx's static checks: every integer value of a spawn body
// becomes a term over columns of one integer system, with the real
// semantics of the ops that compute it. A value of width w is the term
// modulo 2^w (its bit pattern); its signed and unsigned readings are exact
// terms of their own, through a wrap column where the interval of the term
// leaves the range of the reading. Divisions and remainders by constants
// are quotient columns (floor, truncation toward zero by sign cases, or the
// unsigned reading), conditions are disjunctive normal forms of
// (in)equalities, and the ops that control an access (scf.if,
// scf.index_switch, affine.if, loop bounds, scf.while conditions) are
// constraints of its context.
//
// Columns are created once per spawn (the master model); a query copies the
// columns of two accesses into one Presburger system, sharing a column
// between the two sides where it provably has one value in both.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_ANALYSIS_INTEGERMODEL_H
#define VX_LIB_ANALYSIS_INTEGERMODEL_H

#include "Term.h"
#include "Vx/Analysis/SpawnAnalysis.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace vx {
namespace detail {

/// A constraint of the master model: a conjunction, or a disjunction of them.
struct Constraint {
  DNF alternatives;
  /// A definition: satisfiable for every value of the columns it reads (the
  /// column it defines exists and is unique), so a component of only such
  /// constraints never decides a query.
  bool definitional = false;
  /// The column it belongs to (set by `attach`), if any.
  std::optional<unsigned> owner;
};

/// What a column stands for.
enum class ColumnKind {
  /// A grid coordinate of one instance.
  Grid,
  /// A dynamic grid size (a captured value): existentially quantified, the
  /// witness names the size it needs.
  Extent,
  /// The iteration count of a loop (or one dimension of one) of the body.
  Iteration,
  /// A value of the body or above it that the model does not compute
  /// (loaded, the result of an unmodelled op). With no sources it is the
  /// same for every instance and moment of the spawn (a captured scalar, a
  /// load of read-only memory at such an address): universally quantified.
  Opaque,
  /// Determined by other columns (quotients, wrap counts, case results).
  Derived,
  /// A fresh element of a range (vector lanes, whole-buffer accesses).
  Element,
};

/// What a value depends on, for deciding whether two sides share it.
struct Sources {
  llvm::SmallBitVector gridDims;
  /// Loop iterations, memory the spawn writes, or anything else that differs
  /// within one instance.
  bool varies = false;
  bool isInvariant() const { return !varies && gridDims.none(); }
  void merge(const Sources &other);
};

struct Column {
  explicit Column(ColumnKind kind) : kind(kind) {}
  ColumnKind kind;
  /// Grid: the dimension; Iteration: the dimension of a multi-dimensional
  /// loop.
  unsigned dim = 0;
  /// Opaque and Extent: the value; Derived: the value it helps compute.
  Value value;
  /// Iteration: the loop; others: the innermost loop-like op of the body
  /// around the definition (null at body level or above the spawn). An
  /// opaque column without a value has no known scope: it is shared by no
  /// two sides unless it is invariant.
  Operation *scope = nullptr;
  /// Bounds of the column's values, where known.
  std::optional<Int> lower, upper;
  /// The range is exactly [0, extent) with extent a constant or a column:
  /// the digit of a mixed-radix index.
  std::optional<Int> constantExtent;
  std::optional<unsigned> symbolExtent;
  /// The constraints that belong to the column (definition, domain, or
  /// loop bounds), copied with it into a query.
  SmallVector<unsigned, 2> constraints;
  /// The values the column can take are a superset of the real ones.
  bool approximate = false;
  /// Derived: the wrap count of a signed reading of `value` (or of an
  /// affine map's result, without a value): nonzero where the arithmetic
  /// that computes it overflows.
  bool isSignedWrapCount = false;
  /// Opaque: what it depends on.
  Sources sources;
};

/// The control context of a block: the constraints under which it runs and
/// the iteration columns of the loops around it.
struct Context {
  SmallVector<unsigned> constraints;
  SmallVector<unsigned> columns;
  /// Why the context over-approximates when the block runs, if it does.
  std::optional<std::string> approximation;
};

/// The master model of one spawn.
class IntegerModel {
public:
  IntegerModel(SpawnOp spawn, const AnalysisBudget &budget,
               std::function<bool(Operation *)> readsMutableMemory);

  SpawnOp getSpawn() const { return spawn; }
  ArrayRef<Column> getColumns() const { return columns; }
  const Column &getColumn(unsigned column) const { return columns[column]; }
  const Constraint &getConstraint(unsigned id) const { return constraints[id]; }

  unsigned getGridColumn(unsigned dim);
  /// The iteration column of `loop` (dimension `dim` of an scf.parallel).
  unsigned getIterationColumn(Operation *loop, unsigned dim = 0);
  /// The value of the induction variable `dim` of `loop`, or nothing where
  /// the loop's bounds are not affine.
  std::optional<Term> getInductionTerm(Operation *loop, unsigned dim = 0);
  /// The number of iterations of dimension `dim` of a loop, where constant.
  std::optional<Int> getConstantTripCount(Operation *loop, unsigned dim);

  /// The bit pattern of an integer or index value: the value is this term
  /// modulo 2^width.
  Term getBits(Value value);
  /// The value read as a signed (two's complement) or unsigned integer.
  Term getSigned(Value value);
  Term getUnsigned(Value value);
  /// `term` (a bit pattern of `width` bits) read as a signed or unsigned
  /// integer: the term itself where its interval fits, else through a wrap
  /// column.
  Term wrap(const Term &term, unsigned width, bool isSigned, Value origin);

  /// The term of an affine expression over terms (index arithmetic).
  Term getAffineTerm(AffineExpr expr, ArrayRef<Term> dims,
                     ArrayRef<Term> symbols) {
    return buildAffineExpr(expr, dims, symbols, Value());
  }

  /// The condition `value == truth` of an i1 value as a DNF.
  DNF getCondition(Value value, bool truth);

  /// The context of `block` (a block inside the spawn body, or the body).
  const Context &getContext(Block *block);

  /// What `value` depends on.
  const Sources &getSources(Value value);

  /// A fresh column of kind Element with range [0, extent).
  unsigned addElementColumn(std::optional<Int> extent, Value origin);
  /// A fresh column that stands for the value of `term` in [0, `modulus`):
  /// term mod modulus (floor semantics).
  Term getModulo(const Term &term, const Int &modulus, Value origin);
  /// floor(term / divisor) for a positive constant divisor.
  Term getFloorDiv(const Term &term, const Int &divisor, Value origin);

  /// The interval of an affine term from its columns' bounds.
  std::pair<std::optional<Int>, std::optional<Int>>
  getInterval(const LinearForm &form) const;

  /// An opaque column for `value`: what it depends on and where it is
  /// defined. Without a value it varies everywhere (see Column::scope).
  Column getOpaqueColumn(Value value);
  /// The column of a value the model does not compute.
  unsigned addOpaque(Value value, std::optional<unsigned> width);
  unsigned addConstraint(DNF alternatives, bool definitional);
  void attach(unsigned column, unsigned constraint) {
    columns[column].constraints.push_back(constraint);
    constraints[constraint].owner = column;
  }

  /// The columns and constraints reachable from `columns` through the
  /// constraints that belong to them (closed under both).
  void close(SmallVectorImpl<unsigned> &columns,
             SmallVectorImpl<unsigned> &constraints) const;

  /// A column for the size of dimension `dim` of a memref above the spawn
  /// (the same for every instance).
  unsigned getDimensionColumn(Value memref, unsigned dim);

private:
  unsigned addColumn(Column column);
  void setTypeBounds(unsigned column, Type type);
  /// The bits of `value` from the op that defines it, per op family; an
  /// opaque column where the model does not compute them.
  Term computeBits(Value value);
  Term getOpaqueBits(Value value);
  std::optional<Term> computeArgumentBits(BlockArgument arg);
  std::optional<Term> computeGridBits(GridIndexOp index);
  std::optional<Term> computeGridBits(GridDimOp gridDim);
  std::optional<Term> computeArithmeticBits(arith::AddIOp op);
  /// The result of an addi/subi/muli with `overflow<nsw>` or
  /// `overflow<nuw>`, where its term is affine: the exact result of the
  /// readings its flags name, within their range.
  std::optional<Term> computeNoWrapBits(Operation *op,
                                        arith::IntegerOverflowFlags flags);
  std::optional<Term> computeArithmeticBits(arith::SubIOp op);
  std::optional<Term> computeArithmeticBits(arith::MulIOp op);
  /// The column of `term` (of `operand`) as the symbol of a symbolic
  /// stride: one value for every instance.
  std::optional<unsigned> getSymbolColumn(const Term &term, Value operand);
  /// Shifts by constants, masks and complements.
  std::optional<Term> computeBitwiseBits(Operation *op);
  /// Truncations, extensions and index casts.
  std::optional<Term> computeCastBits(Operation *op);
  /// An i1 computed from conditions, as 1 or 0.
  Term computeBooleanBits(Value value);
  /// select, min and max: the operand whose condition holds.
  std::optional<Term> computeChoiceBits(Operation *op);
  std::optional<Term> computeRegionResultBits(scf::IfOp branch,
                                              OpResult result);
  std::optional<Term> computeRegionResultBits(scf::IndexSwitchOp switchOp,
                                              OpResult result);
  SmallVector<Value> getBitsDependences(Value value);
  Term buildAffineExpr(AffineExpr expr, ArrayRef<Term> dims,
                       ArrayRef<Term> symbols, Value origin);
  Term buildDivision(Operation *op);
  /// A column that is the term of the first case whose condition holds
  /// (the conditions are exhaustive and exclusive).
  Term buildCases(Value origin, ArrayRef<std::pair<DNF, Term>> cases);
  std::optional<DNF> compare(arith::CmpIPredicate predicate, Value lhs,
                             Value rhs);
  DNF getConditionImpl(Value value, bool truth, unsigned depth);
  void buildLoopContext(Operation *loop, Block *block, Context &context);
  void buildWhileContext(scf::WhileOp loop, Block *block, Context &context);
  Term buildWhileArgument(BlockArgument arg);

  SpawnOp spawn;
  AnalysisBudget budget;
  std::function<bool(Operation *)> readsMutableMemory;
  std::vector<Column> columns;
  std::vector<Constraint> constraints;
  DenseMap<unsigned, unsigned> gridColumns;
  DenseMap<std::pair<Operation *, unsigned>, unsigned> iterationColumns;
  DenseMap<Value, Term> bits;
  /// Booleans whose bits are being built from their condition, and those of
  /// them whose condition needed their bits (they stay opaque).
  llvm::SmallPtrSet<void *, 4> booleansInProgress, opaqueBooleans;
  DenseMap<std::pair<Value, unsigned>, Term> readings;
  DenseMap<Value, unsigned> opaqueColumns;
  DenseMap<Block *, Context> contexts;
  DenseMap<Value, Sources> sources;
  DenseMap<std::pair<Value, unsigned>, unsigned> dimensionColumns;
};

/// The width of an integer or index type (index is 64 bits).
unsigned getIntegerWidth(Type type);
/// Whether `op` is a loop of the model (its iteration columns exist).
bool isModelledLoop(Operation *op);
/// The terms of the dimension and symbol operands of an affine map or set.
std::pair<SmallVector<Term>, SmallVector<Term>>
getAffineOperands(IntegerModel &model, unsigned numDims, ValueRange operands);

} // namespace detail
} // namespace vx
} // namespace mlir

#endif // VX_LIB_ANALYSIS_INTEGERMODEL_H

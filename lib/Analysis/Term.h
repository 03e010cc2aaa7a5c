//===- Term.h - Integers over the columns of an integer system --*- C++ -*-===//
//
// The term algebra of the integer model: linear forms over column ids,
// terms (a linear form plus symbolic products), and conditions over them as
// disjunctive normal forms of equalities (== 0) and inequalities (>= 0). It
// knows nothing of IR: IntegerModel gives the columns their meaning.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_ANALYSIS_TERM_H
#define VX_LIB_ANALYSIS_TERM_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/DynamicAPInt.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <utility>

namespace mlir {
namespace vx {
namespace detail {

using Int = llvm::DynamicAPInt;

/// sum(coefficient * column) + constant, with columns in increasing order and
/// no zero coefficient.
class LinearForm {
public:
  LinearForm() = default;
  static LinearForm getConstant(Int value);
  static LinearForm getColumn(unsigned column, Int coefficient = Int(1));

  void add(const LinearForm &other, const Int &scale = Int(1));
  void scale(const Int &factor);
  Int getCoefficient(unsigned column) const;
  bool isConstant() const { return terms.empty(); }
  bool mentions(unsigned column) const;
  /// The same form over columns renamed by `map`.
  LinearForm rename(function_ref<unsigned(unsigned)> map) const;
  /// "2*c3 + -1*c5 + 7", for debug output.
  void print(raw_ostream &os) const;

  SmallVector<std::pair<unsigned, Int>, 4> terms;
  Int constant;
};

struct Term;

/// `scale * factor * symbol`: a symbolic stride, with `symbol` a column that
/// is the same for every instance.
struct Product {
  std::shared_ptr<const Term> factor;
  unsigned symbol;
  Int scale;
};

/// A mathematical integer: a linear form plus symbolic products.
struct Term {
  LinearForm linear;
  SmallVector<Product, 0> products;

  static Term getConstant(Int value) {
    return {LinearForm::getConstant(value), {}};
  }
  static Term getColumn(unsigned column) {
    return {LinearForm::getColumn(column), {}};
  }
  void add(const Term &other, const Int &scale = Int(1));
  bool isAffine() const { return products.empty(); }
  bool isConstant() const { return isAffine() && linear.isConstant(); }
  bool mentions(unsigned column) const;
  /// The linear form, then each product as "scale*c<symbol>*(factor)".
  void print(raw_ostream &os) const;
};

inline raw_ostream &operator<<(raw_ostream &os, const Term &term) {
  term.print(os);
  return os;
}

/// A conjunction of equalities (== 0) and inequalities (>= 0).
struct Conjunction {
  SmallVector<LinearForm, 2> equalities, inequalities;
  void append(const Conjunction &other);
};

/// A disjunction of conjunctions. Empty: false; one empty conjunction: true.
using DNF = SmallVector<Conjunction, 1>;

/// 2^exponent.
Int pow2(unsigned exponent);
/// The range of a `width`-bit reading.
std::pair<Int, Int> getReadingRange(unsigned width, bool isSigned);
/// `value` as a mathematical integer, read signed or unsigned.
Int toInt(const APInt &value, bool isSigned);

/// lhs - rhs.
LinearForm difference(const LinearForm &lhs, const LinearForm &rhs);
/// form + by.
LinearForm shifted(LinearForm form, const Int &by);
/// `term` times a constant.
Term scaled(const Term &term, const Int &factor);

/// `form >= 0` as a DNF.
DNF inequality(LinearForm form);
/// `form == 0` as a DNF.
DNF equality(LinearForm form);
/// `form != 0`: form >= 1 or form <= -1.
DNF nonZero(const LinearForm &form);
DNF alwaysTrue();
/// a or b.
DNF concat(DNF a, const DNF &b);
/// a and b (every pair of their conjunctions).
DNF conjoin(const DNF &a, const DNF &b);

} // namespace detail
} // namespace vx
} // namespace mlir

#endif // VX_LIB_ANALYSIS_TERM_H

//===- Term.cpp - Integers over the columns of an integer system ----------===//

#include "Term.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::vx::detail;

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

void LinearForm::print(raw_ostream &os) const {
  for (const auto &[column, coefficient] : terms)
    os << coefficient << "*c" << column << " + ";
  os << constant;
}

void Term::print(raw_ostream &os) const {
  linear.print(os);
  for (const Product &product : products) {
    os << " + " << product.scale << "*c" << product.symbol << "*(";
    product.factor->print(os);
    os << ")";
  }
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

Int mlir::vx::detail::pow2(unsigned exponent) {
  Int result(1);
  while (exponent >= 32) {
    result *= Int(int64_t(1) << 32);
    exponent -= 32;
  }
  return result * Int(int64_t(1) << exponent);
}

std::pair<Int, Int> mlir::vx::detail::getReadingRange(unsigned width,
                                                      bool isSigned) {
  if (isSigned)
    return {-pow2(width - 1), pow2(width - 1) - Int(1)};
  return {Int(0), pow2(width) - Int(1)};
}

Int mlir::vx::detail::toInt(const APInt &value, bool isSigned) {
  if (isSigned)
    return Int(value);
  return Int(value.zext(value.getBitWidth() + 1));
}

LinearForm mlir::vx::detail::difference(const LinearForm &lhs,
                                        const LinearForm &rhs) {
  LinearForm form = lhs;
  form.add(rhs, Int(-1));
  return form;
}

LinearForm mlir::vx::detail::shifted(LinearForm form, const Int &by) {
  form.constant += by;
  return form;
}

Term mlir::vx::detail::scaled(const Term &term, const Int &factor) {
  Term result;
  result.add(term, factor);
  return result;
}

DNF mlir::vx::detail::inequality(LinearForm form) {
  Conjunction conjunction;
  conjunction.inequalities.push_back(std::move(form));
  return {conjunction};
}

DNF mlir::vx::detail::equality(LinearForm form) {
  Conjunction conjunction;
  conjunction.equalities.push_back(std::move(form));
  return {conjunction};
}

DNF mlir::vx::detail::nonZero(const LinearForm &form) {
  LinearForm negated = form;
  negated.scale(Int(-1));
  return concat(inequality(shifted(form, Int(-1))),
                inequality(shifted(negated, Int(-1))));
}

DNF mlir::vx::detail::alwaysTrue() { return {Conjunction()}; }

DNF mlir::vx::detail::concat(DNF a, const DNF &b) {
  llvm::append_range(a, b);
  return a;
}

DNF mlir::vx::detail::conjoin(const DNF &a, const DNF &b) {
  DNF result;
  for (const Conjunction &left : a)
    for (const Conjunction &right : b) {
      Conjunction both = left;
      both.append(right);
      result.push_back(std::move(both));
    }
  return result;
}

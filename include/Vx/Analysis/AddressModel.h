//===- AddressModel.h - Addresses of two spawn instances --------*- C++ -*-===//
//
// vx-verify-semantics decides whether two instances of a spawn can touch the
// same element. Both instances' grid coordinates, loop induction variables
// and index arithmetic become columns of one integer system (MLIR's
// Presburger library); two accesses collide when the equalities of their
// root-buffer indices have an integer solution. Whatever the model cannot
// express exactly is dropped, which only adds solutions: an empty system is
// a proof of disjointness, and a solution is a proof of a collision only
// while the model stayed exact.
//
//===----------------------------------------------------------------------===//

#ifndef VX_ANALYSIS_ADDRESSMODEL_H
#define VX_ANALYSIS_ADDRESSMODEL_H

#include "Vx/VxOps.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
namespace vx {

/// sum(coefficient * column) + constant.
struct LinearForm {
  std::map<unsigned, int64_t> coefficients;
  int64_t constant = 0;

  void add(const LinearForm &other, int64_t scale = 1);
  bool isConstant() const { return coefficients.empty(); }
};

/// An index: a linear form plus products `scale * factor * symbol`, where
/// `symbol` is a value the same for every instance (a symbolic stride) and
/// `factor` an index again (nested strides of a linearized grid).
struct IndexTerm {
  struct Product {
    std::shared_ptr<const IndexTerm> factor;
    Value symbol;
    int64_t scale;
  };
  LinearForm linear;
  SmallVector<Product, 1> products;

  void add(const IndexTerm &other, int64_t scale = 1);
  bool isConstant() const { return linear.isConstant() && products.empty(); }
  /// Whether `column` occurs in the term, products included.
  bool mentions(unsigned column) const;
};

/// A memory access of a spawn body: `indices` of `buffer` (or every element
/// of it), widened by a vector shape along the trailing dimensions.
struct Access {
  Operation *op;
  Value buffer;
  SmallVector<Value> indices;
  bool wholeBuffer = false;
  SmallVector<int64_t> vectorShape;
  bool isWrite;
  /// The allocation or captured value under the views of `buffer`.
  Value root;
  /// Set where the access's addresses are not modelled at all.
  std::optional<std::string> unmodelled;
};

/// Which pairs of instances a query ranges over.
struct InstanceRelation {
  /// Instances that differ in some parallel dimension (a race).
  static InstanceRelation differentParallelPoints() { return {}; }
  /// Instances that differ in dimension `dim`; with `sameParallelPoint`, and
  /// agree in every parallel dimension.
  static InstanceRelation alongDimension(unsigned dim, bool sameParallelPoint) {
    return {dim, sameParallelPoint};
  }
  /// One instance at one point of its execution: both accesses share every
  /// grid coordinate and the induction variables of the loops around both.
  static InstanceRelation sameInstance() { return {std::nullopt, false, true}; }
  std::optional<unsigned> dim;
  bool sameParallelPoint = false;
  bool sameInstancePoint = false;
};

/// The answer to "can instance 0's access `a` and instance 1's access `b`
/// touch the same element?".
struct CollisionResult {
  enum Kind { Disjoint, Collision, Unknown } kind;
  /// For a collision: the grid coordinates of both instances (a dynamic or
  /// unconstrained coordinate as found by the solver).
  SmallVector<int64_t> instance0, instance1;
  /// Why a collision is not proven (Unknown).
  std::string reason;
};

CollisionResult findCollision(SpawnOp spawn, const Access &a, const Access &b,
                              InstanceRelation relation);

/// The memory accesses of `spawn`'s body; atomic read-modify-writes are left
/// out (they are not races).
SmallVector<Access> collectAccesses(SpawnOp spawn);

} // namespace vx
} // namespace mlir

#endif // VX_ANALYSIS_ADDRESSMODEL_H

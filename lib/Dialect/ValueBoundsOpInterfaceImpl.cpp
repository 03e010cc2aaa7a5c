//===- ValueBoundsOpInterfaceImpl.cpp - Bounds of the grid queries --------===//

#include "Vx/ValueBoundsOpInterfaceImpl.h"
#include "Vx/VxOps.h"

#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;
using namespace mlir::vx;

namespace {

/// The size of the grid dimension that `op` (a grid query) reads.
template <typename QueryOp> static OpFoldResult getQueriedSize(QueryOp op) {
  auto spawn = op->template getParentOfType<SpawnOp>();
  return spawn.getMixedGrid()[op.getDim()];
}

struct GridIndexOpInterface
    : public ValueBoundsOpInterface::ExternalModel<GridIndexOpInterface,
                                                   GridIndexOp> {
  void populateBoundsForIndexValue(Operation *op, Value value,
                                   ValueBoundsConstraintSet &cstr) const {
    auto index = cast<GridIndexOp>(op);
    cstr.bound(value) >= 0;
    cstr.bound(value) < getQueriedSize(index);
  }
};

struct GridDimOpInterface
    : public ValueBoundsOpInterface::ExternalModel<GridDimOpInterface,
                                                   GridDimOp> {
  void populateBoundsForIndexValue(Operation *op, Value value,
                                   ValueBoundsConstraintSet &cstr) const {
    cstr.bound(value) == getQueriedSize(cast<GridDimOp>(op));
  }
};

} // namespace

void vx::registerValueBoundsOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, VxDialect *) {
    GridIndexOp::attachInterface<GridIndexOpInterface>(*context);
    GridDimOp::attachInterface<GridDimOpInterface>(*context);
  });
}

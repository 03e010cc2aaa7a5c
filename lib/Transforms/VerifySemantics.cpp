//===- VerifySemantics.cpp - Check the dimension-semantics contract -------===//
//
// A parallel dimension promises that instances differing in it never write
// the same memory. A write to captured memory whose address does not depend
// on a parallel dimension of extent > 1 breaks that promise for certain: every
// instance along that dimension writes the same address.
//
//===----------------------------------------------------------------------===//

#include "Vx/Passes.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXVERIFYSEMANTICS
#include "Vx/VxPasses.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

namespace {

/// Computes which grid dimensions of `spawn` the values inside its body
/// depend on, through SSA operands and the bounds of enclosing loops.
class GridDependence {
public:
  explicit GridDependence(SpawnOp spawn) : spawn(spawn) {}

  /// Adds the grid dimensions `value` depends on to `dims`.
  void collect(Value value, llvm::SmallBitVector &dims) {
    SmallVector<Value> worklist{value};
    llvm::SmallPtrSet<void *, 16> visited;
    while (!worklist.empty()) {
      Value current = worklist.pop_back_val();
      if (!visited.insert(current.getAsOpaquePointer()).second)
        continue;
      if (!spawn.getBody().isAncestor(current.getParentRegion()))
        continue; // Defined above the spawn: the same for every instance.
      if (auto arg = dyn_cast<BlockArgument>(current)) {
        // A loop induction variable or iter_arg depends on the loop's
        // operands (bounds, steps, initial values).
        Operation *owner = arg.getOwner()->getParentOp();
        if (owner != spawn)
          llvm::append_range(worklist, owner->getOperands());
        continue;
      }
      Operation *def = current.getDefiningOp();
      if (auto index = dyn_cast<GridIndexOp>(def)) {
        dims.set(index.getDim());
        continue;
      }
      llvm::append_range(worklist, def->getOperands());
    }
  }

private:
  SpawnOp spawn;
};

/// A write into memory: the buffer written and the index operands that
/// select the address.
struct Write {
  Operation *op;
  Value buffer;
  SmallVector<Value> indices;
};

std::optional<Write> getWrite(Operation *op) {
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return Write{op, store.getMemRef(), llvm::to_vector(store.getIndices())};
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return Write{op, store.getBase(), llvm::to_vector(store.getIndices())};
  if (auto store = dyn_cast<vector::TransferWriteOp>(op))
    return Write{op, store.getBase(), llvm::to_vector(store.getIndices())};
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return Write{op, copy.getTarget(), {}};
  if (auto transfer = dyn_cast<TransferAsyncOp>(op))
    return Write{op, transfer.getDst(), {}};
  return std::nullopt;
}

struct VxVerifySemanticsPass
    : public vx::impl::VxVerifySemanticsBase<VxVerifySemanticsPass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](SpawnOp spawn) {
      if (checkSpawn(spawn).failed())
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }

  LogicalResult checkSpawn(SpawnOp spawn) {
    GridDependence dependence(spawn);
    LogicalResult result = success();
    spawn.getBody().walk([&](Operation *op) {
      std::optional<Write> write = getWrite(op);
      if (!write)
        return;
      llvm::SmallBitVector dims(spawn.getRank());
      for (Value index : write->indices)
        dependence.collect(index, dims);
      // Follow views back to the written allocation; their offsets and
      // sizes are part of the address.
      Value root = write->buffer;
      while (auto view = root.getDefiningOp<ViewLikeOpInterface>()) {
        for (Value operand : view->getOperands())
          if (operand != view.getViewSource())
            dependence.collect(operand, dims);
        root = view.getViewSource();
      }
      if (spawn.getBody().isAncestor(root.getParentRegion()))
        return; // Memory allocated per instance (scratch, alloca).
      for (unsigned dim = 0; dim < spawn.getRank(); ++dim) {
        if (spawn.getDimSemantics(dim) != DimensionSemantics::parallel ||
            dims.test(dim) || spawn.getStaticGrid()[dim] == 1)
          continue;
        InFlightDiagnostic diag =
            op->emitError("write to memory captured by the spawn does not "
                          "depend on parallel dimension ")
            << dim << ": every instance along it writes the same address";
        diag.attachNote(spawn.getLoc())
            << "mark dimension " << dim
            << " 'arbitrary' or index the write by 'vx.grid_index " << dim
            << "'";
        result = failure();
        return;
      }
    });
    return result;
  }
};

} // namespace

//===- VerifySemantics.cpp - Check the dimension-semantics contract -------===//
//
// A parallel dimension promises that instances differing in it neither write
// the same element nor read what another writes. This pass proves violations
// (errors), says where it cannot prove race freedom (warnings), checks that
// tokens are awaited exactly once on every path with their buffers left
// alone in between, and remarks on arbitrary dimensions that could be
// parallel and on device spawns that run on one CTA. See docs/design.md.
//
//===----------------------------------------------------------------------===//

#include "Vx/Analysis/AddressModel.h"

#include "Vx/Transforms/Passes.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXVERIFYSEMANTICS
#include "Vx/Transforms/Passes.h.inc"
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

std::string formatInstance(ArrayRef<int64_t> coordinates) {
  std::string text = "(";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(coordinates, os);
  os << ")";
  return text;
}

/// The checks of one spawn.
class SpawnChecker {
public:
  SpawnChecker(SpawnOp spawn, bool allowRaces)
      : spawn(spawn), allowRaces(allowRaces), dependence(spawn),
        accesses(collectAccesses(spawn)) {
    for (const Access &access : accesses)
      accessesByOp[access.op].push_back(&access);
  }

  LogicalResult check() {
    checkWritesIndependentOfParallelDims();
    checkWriteCollisions();
    checkReadsOfWrites();
    checkTokens();
    remarkOrderFreeDims();
    if (spawn.getTopology() != Topology::host &&
        llvm::none_of(spawn.getSemantics(), [](Attribute attr) {
          return cast<DimensionSemanticsAttr>(attr).getValue() ==
                 DimensionSemantics::parallel;
        }))
      spawn.emitRemark("device spawn has no parallel dimension: it runs on "
                       "a single CTA");
    return failure(failed);
  }

private:
  bool isCaptured(Value root) {
    return !spawn.getBody().isAncestor(root.getParentRegion());
  }

  /// A proven race: an error, or a warning under allow-races.
  InFlightDiagnostic reportRace(Operation *op) {
    raced.insert(op);
    if (allowRaces)
      return op->emitWarning();
    failed = true;
    return op->emitError();
  }

  /// Rule 1: a captured write whose address ignores a parallel dimension of
  /// extent > 1 is written by every instance along it.
  void checkWritesIndependentOfParallelDims() {
    for (const Access &access : accesses) {
      if (!access.isWrite || access.unmodelled || !isCaptured(access.root))
        continue;
      llvm::SmallBitVector dims(spawn.getRank());
      for (Value index : access.indices)
        dependence.collect(index, dims);
      // A condition on a dimension may leave one writer along it: rule 2
      // decides those.
      for (Operation *parent = access.op->getParentOp(); parent != spawn;
           parent = parent->getParentOp())
        if (auto branch = dyn_cast<scf::IfOp>(parent))
          dependence.collect(branch.getCondition(), dims);
      // The offsets and sizes of the views are part of the address.
      for (Value buffer = access.buffer; buffer != access.root;) {
        auto view = buffer.getDefiningOp<ViewLikeOpInterface>();
        for (Value operand : view->getOperands())
          if (operand != view.getViewSource())
            dependence.collect(operand, dims);
        buffer = view.getViewSource();
      }
      for (unsigned dim = 0; dim < spawn.getRank(); ++dim) {
        if (spawn.getDimSemantics(dim) != DimensionSemantics::parallel ||
            dims.test(dim) || spawn.getStaticGrid()[dim] == 1)
          continue;
        InFlightDiagnostic diag = reportRace(access.op);
        diag << "write to memory captured by the spawn does not depend on "
                "parallel dimension "
             << dim << ": every instance along it writes the same address";
        diag.attachNote(spawn.getLoc())
            << "mark dimension " << dim
            << " 'arbitrary' or index the write by 'vx.grid_index " << dim
            << "'";
        break;
      }
    }
  }

  void warnOnce(Operation *op, const Twine &message) {
    if (warned.insert(op).second)
      op->emitWarning(message);
  }

  /// Rule 2: two parallel instances writing one captured element.
  void checkWriteCollisions() {
    for (auto [position, first] : llvm::enumerate(accesses)) {
      if (!first.isWrite || !isCaptured(first.root))
        continue;
      for (const Access &second : ArrayRef(accesses).drop_front(position)) {
        if (!second.isWrite || second.root != first.root ||
            raced.contains(first.op) || raced.contains(second.op))
          continue;
        CollisionResult result = findCollision(
            spawn, first, second, InstanceRelation::differentParallelPoints());
        if (result.kind == CollisionResult::Unknown) {
          warnOnce(second.op,
                   "cannot prove that parallel instances write distinct "
                   "elements: " +
                       result.reason);
          continue;
        }
        if (result.kind != CollisionResult::Collision)
          continue;
        InFlightDiagnostic diag = reportRace(second.op);
        diag << "parallel instances " << formatInstance(result.instance0)
             << " and " << formatInstance(result.instance1)
             << " write the same element of memory captured by the spawn";
        if (&first != &second)
          diag.attachNote(first.op->getLoc()) << "the other write";
        diag.attachNote(spawn.getLoc())
            << "mark the dimensions the address does not tell apart "
               "'arbitrary', or index the write so that parallel instances "
               "write distinct elements";
      }
    }
  }

  /// Rule 3: a parallel instance reading what another writes.
  void checkReadsOfWrites() {
    for (const Access &read : accesses) {
      if (read.isWrite || !isCaptured(read.root) || raced.contains(read.op))
        continue;
      for (const Access &write : accesses) {
        if (!write.isWrite || write.root != read.root ||
            raced.contains(read.op))
          continue;
        CollisionResult result = findCollision(
            spawn, read, write, InstanceRelation::differentParallelPoints());
        if (result.kind == CollisionResult::Unknown) {
          warnOnce(read.op, "cannot prove that this read does not see "
                            "another parallel instance's write: " +
                                result.reason);
          continue;
        }
        if (result.kind != CollisionResult::Collision)
          continue;
        InFlightDiagnostic diag = reportRace(read.op);
        diag << "read of memory that the spawn writes: parallel instance "
             << formatInstance(result.instance0)
             << " reads the element that instance "
             << formatInstance(result.instance1) << " writes";
        diag.attachNote(write.op->getLoc()) << "written here";
        diag.attachNote(spawn.getLoc())
            << "parallel instances must not read what another writes; mark "
               "the dimension 'arbitrary' to order them";
      }
    }
  }

  /// Rule 6: an arbitrary dimension along which no two instances touch a
  /// common element (one a write) could be parallel.
  void remarkOrderFreeDims() {
    for (unsigned dim = 0; dim < spawn.getRank(); ++dim) {
      if (spawn.getDimSemantics(dim) != DimensionSemantics::arbitrary ||
          spawn.getStaticGrid()[dim] == 1)
        continue;
      if (isOrderFree(dim))
        spawn.emitRemark("arbitrary dimension ")
            << dim << " has no order dependence: it could be parallel";
    }
  }

  bool isOrderFree(unsigned dim) {
    for (const Access &write : accesses) {
      if (!write.isWrite)
        continue;
      bool scratch = write.root.getDefiningOp<ScratchOp>() != nullptr;
      if (!scratch && !isCaptured(write.root))
        continue; // Per-instance memory.
      for (const Access &other : accesses) {
        if (other.root != write.root)
          continue;
        CollisionResult result = findCollision(
            spawn, write, other,
            InstanceRelation::alongDimension(dim, /*sameParallelPoint=*/scratch));
        if (result.kind != CollisionResult::Disjoint)
          return false;
      }
    }
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Rule 4: tokens
  //===--------------------------------------------------------------------===//

  /// An outstanding token: the transfers it may stand for, whether it is the
  /// transfer's own result (not carried through a loop), and whether this
  /// region may consume it (tokens from outside a loop body may not).
  struct Outstanding {
    SmallVector<TransferAsyncOp, 1> transfers;
    bool direct;
    bool consumable;
  };
  using TokenState = llvm::MapVector<Value, Outstanding>;

  static bool isToken(Value value) { return isa<TokenType>(value.getType()); }

  void checkTokens() {
    TokenState state;
    checkBlock(spawn.getBody().front(), state);
    for (auto &[token, outstanding] : state)
      if (outstanding.consumable)
        reportNeverAwaited(token, "some path through the spawn body");
  }

  void reportNeverAwaited(Value token, StringRef where) {
    failed = true;
    Operation *at = token.getDefiningOp() ? token.getDefiningOp()
                                          : token.getParentBlock()->getParentOp();
    at->emitError("token is never awaited on ") << where;
  }

  void tokenError(Operation *op, const Twine &message) {
    failed = true;
    op->emitError(message);
  }

  /// Consumes `token` at `user` (an await, a yield, a loop's init operand).
  void consume(Value token, Operation *user, TokenState &state) {
    auto it = state.find(token);
    if (it == state.end()) {
      tokenError(user, "token is awaited more than once");
      return;
    }
    if (!it->second.consumable) {
      tokenError(user, "token from outside the loop is awaited in every "
                       "iteration of the loop; await it once, outside");
      return;
    }
    state.erase(it);
  }

  /// Checks the accesses of `op` (and of the ops nested in it) against the
  /// buffers of the outstanding transfers.
  void checkAccessesWhileOutstanding(Operation *op, const TokenState &state) {
    if (state.empty())
      return;
    op->walk([&](Operation *nested) {
      auto found = accessesByOp.find(nested);
      if (found == accessesByOp.end())
        return;
      for (const Access *access : found->second)
        for (auto &[token, outstanding] : state)
          for (TransferAsyncOp transfer : outstanding.transfers)
            checkAgainstTransfer(*access, transfer, outstanding.direct);
    });
  }

  void checkAgainstTransfer(const Access &access, TransferAsyncOp transfer,
                            bool direct) {
    if (access.op == transfer)
      return;
    const Access *dst = nullptr, *src = nullptr;
    for (const Access *own : accessesByOp[transfer])
      (own->isWrite ? dst : src) = own;
    auto overlaps = [&](const Access &buffer) {
      if (buffer.root != access.root)
        return false;
      if (!direct) // Carried from another iteration: only the same view.
        return buffer.buffer == access.buffer;
      return findCollision(spawn, buffer, access,
                           InstanceRelation::sameInstance())
                 .kind == CollisionResult::Collision;
    };
    std::string message;
    if (overlaps(*dst))
      message = (access.isWrite ? "writes" : "reads") +
                std::string(" the destination");
    else if (access.isWrite && overlaps(*src))
      message = "writes the source";
    else
      return;
    failed = true;
    InFlightDiagnostic diag = access.op->emitError()
                              << "'" << access.op->getName() << "' "
                              << message
                              << " of a 'vx.transfer_async' before its "
                                 "'vx.await'";
    diag.attachNote(transfer.getLoc()) << "the transfer starts here";
  }

  void checkBlock(Block &block, TokenState &state) {
    for (Operation &op : block) {
      if (auto await = dyn_cast<AwaitOp>(op)) {
        consume(await.getToken(), &op, state);
        continue;
      }
      if (op.getNumRegions() == 0)
        checkAccessesWhileOutstanding(&op, state);
      if (auto transfer = dyn_cast<TransferAsyncOp>(op)) {
        state.insert({transfer.getToken(), {{transfer}, true, true}});
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        checkLoop(loop, state);
        continue;
      }
      if (auto branch = dyn_cast<scf::IfOp>(op)) {
        checkIf(branch, state);
        continue;
      }
      if (isa<scf::YieldOp>(op))
        continue; // Handled by the parent.
      bool usesTokens = false;
      op.walk([&](Operation *nested) {
        usesTokens |= llvm::any_of(nested->getOperands(), isToken) ||
                      llvm::any_of(nested->getResults(), isToken);
      });
      if (usesTokens) {
        tokenError(&op, "tokens cannot be followed through '" +
                            op.getName().getStringRef() +
                            "'; await them with 'vx.await' or carry them "
                            "through 'scf.for' and 'scf.if'");
        // Reported here: not again as never awaited.
        op.walk([&](Operation *nested) {
          for (Value operand : nested->getOperands())
            state.remove_if(
                [&](const auto &entry) { return entry.first == operand; });
        });
        continue;
      }
      if (op.getNumRegions() != 0)
        checkAccessesWhileOutstanding(&op, state);
    }
  }

  /// The transfers that the loop's token iter_arg `position` may stand for.
  static SmallVector<TransferAsyncOp, 1>
  getCarriedTransfers(scf::ForOp loop, unsigned position,
                      const TokenState &state) {
    SmallVector<TransferAsyncOp, 1> transfers;
    if (auto it = state.find(loop.getInitArgs()[position]); it != state.end())
      llvm::append_range(transfers, it->second.transfers);
    Value yielded = loop.getBody()->getTerminator()->getOperand(position);
    if (auto transfer = yielded.getDefiningOp<TransferAsyncOp>())
      transfers.push_back(transfer);
    return transfers;
  }

  void checkLoop(scf::ForOp loop, TokenState &state) {
    TokenState body;
    for (auto &[token, outstanding] : state)
      body.insert({token, {outstanding.transfers, outstanding.direct, false}});
    SmallVector<SmallVector<TransferAsyncOp, 1>> carried;
    for (auto [position, init] : llvm::enumerate(loop.getInitArgs())) {
      carried.emplace_back();
      if (!isToken(init))
        continue;
      carried.back() = getCarriedTransfers(loop, position, state);
      body.insert({loop.getRegionIterArgs()[position],
                   {carried.back(), false, true}});
    }
    for (Value init : loop.getInitArgs())
      if (isToken(init)) {
        consume(init, loop, state);
        body.erase(init);
      }
    checkBlock(*loop.getBody(), body);
    for (Value yielded : loop.getBody()->getTerminator()->getOperands())
      if (isToken(yielded))
        consume(yielded, loop.getBody()->getTerminator(), body);
    for (auto &[token, outstanding] : body)
      if (outstanding.consumable)
        reportNeverAwaited(token, "the loop iteration that holds it (await "
                                  "it or carry it to the next iteration)");
    for (auto [position, result] : llvm::enumerate(loop.getResults()))
      if (isToken(result))
        state.insert({result, {carried[position], false, true}});
  }

  void checkIf(scf::IfOp branch, TokenState &state) {
    SmallVector<TokenState, 2> branches;
    for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()}) {
      TokenState &branchState = branches.emplace_back(state);
      if (region->empty())
        continue;
      Block &block = region->front();
      checkBlock(block, branchState);
      for (Value yielded : block.getTerminator()->getOperands())
        if (isToken(yielded))
          consume(yielded, block.getTerminator(), branchState);
      branchState.remove_if([&](const auto &entry) {
        if (state.contains(entry.first))
          return false;
        reportNeverAwaited(entry.first, "the 'scf.if' branch that starts it");
        return true;
      });
    }
    for (auto &[token, outstanding] : state) {
      if (!outstanding.consumable ||
          branches[0].contains(token) == branches[1].contains(token))
        continue;
      failed = true;
      InFlightDiagnostic diag = branch.emitError(
          "token is awaited in one branch of 'scf.if' but not the other");
      for (TransferAsyncOp transfer : outstanding.transfers)
        diag.attachNote(transfer.getLoc()) << "the transfer starts here";
      // Reported: do not report it again as never awaited.
      branches[0].erase(token);
      branches[1].erase(token);
    }
    state = branches[0];
    for (Value result : branch.getResults())
      if (isToken(result))
        state.insert({result, {{}, false, true}});
  }

  SpawnOp spawn;
  bool allowRaces;
  GridDependence dependence;
  SmallVector<Access> accesses;
  DenseMap<Operation *, SmallVector<const Access *>> accessesByOp;
  llvm::SmallPtrSet<Operation *, 8> raced, warned;
  bool failed = false;
};

struct VxVerifySemanticsPass
    : public vx::impl::VxVerifySemanticsBase<VxVerifySemanticsPass> {
  using VxVerifySemanticsBase::VxVerifySemanticsBase;

  void runOnOperation() override {
    bool anyFailed = false;
    getOperation()->walk([&](SpawnOp spawn) {
      if (failed(SpawnChecker(spawn, allowRaces).check()))
        anyFailed = true;
    });
    if (anyFailed)
      signalPassFailure();
  }
};

} // namespace

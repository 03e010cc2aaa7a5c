//===- MemoryRoots.cpp - The memory under the accesses of a spawn ---------===//
//
// Traces memrefs to the allocations or captured buffers they view, and
// collects every memory access of a spawn body with its kind. Only
// allocations made in the body are per instance; every other memref is
// followed to its roots, and one that cannot be followed may be any
// captured buffer.
//
//===----------------------------------------------------------------------===//

#include "Vx/Analysis/SpawnAnalysis.h"
#include "Vx/Location.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vx;

bool MemoryRoot::mayAlias(const MemoryRoot &other) const {
  if (*this == other)
    return true;
  // Distinct arguments, allocations and globals do not overlap (the
  // aliasing contract); a memref the model cannot trace may be any of them.
  return (kind == Kind::Unknown && other.isShared()) ||
         (other.kind == Kind::Unknown && isShared());
}

std::string MemoryRoot::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  switch (kind) {
  case Kind::Scratch:
  case Kind::Allocation: {
    os << (kind == Kind::Scratch ? "the scratch at " : "the allocation at ")
       << formatLocation(value.getLoc());
    break;
  }
  case Kind::Captured: {
    OpPrintingFlags flags;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto function =
          dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
      os << "argument " << arg.getArgNumber();
      if (function)
        os << " of @" << function.getName();
    } else {
      os << "the buffer at " << formatLocation(value.getLoc());
    }
    break;
  }
  case Kind::Global:
    os << "@" << global.getValue();
    break;
  case Kind::Unknown:
    os << "a buffer the analysis cannot trace";
    break;
  }
  return text;
}

bool Access::touches(const MemoryRoot &root) const {
  return llvm::any_of(candidates, [&](const Candidate &candidate) {
    return candidate.root.mayAlias(root);
  });
}

SmallVector<Access::Candidate, 1> vx::traceMemoryRoots(Value memref,
                                                       SpawnOp spawn) {
  SmallVector<Access::Candidate, 1> candidates;
  struct Item {
    Value value;
    Access::Candidate candidate;
  };
  SmallVector<Item> stack{{memref, {}}};
  llvm::SmallPtrSet<void *, 8> visited;
  Value current;
  auto finish = [&](Access::Candidate candidate, MemoryRoot root) {
    candidate.root = std::move(root);
    candidate.base = current;
    candidates.push_back(std::move(candidate));
  };
  auto unknown = [&](Access::Candidate candidate, StringRef why) {
    candidate.unmodelled = why.str();
    finish(std::move(candidate), {MemoryRoot::Kind::Unknown, {}, {}});
  };
  while (!stack.empty()) {
    Item item = stack.pop_back_val();
    Value value = item.value;
    current = value;
    Access::Candidate &candidate = item.candidate;
    if (!visited.insert(value.getAsOpaquePointer()).second ||
        visited.size() > 64) {
      // A memref carried around a loop back to itself: its roots are those
      // of the other paths.
      continue;
    }
    bool inBody = spawn.isDefinedInBody(value);
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<FunctionOpInterface>(owner) && arg.getOwner()->isEntryBlock()) {
        finish(std::move(candidate), {MemoryRoot::Kind::Captured, value, {}});
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(owner)) {
        if (OpOperand *init = loop.getTiedLoopInit(arg)) {
          // Any iteration may hold the initial value or a yielded one.
          candidate.unmodelled = "a memref carried through 'scf.for' "
                                 "iteration arguments";
          stack.push_back({init->get(), candidate});
          stack.push_back(
              {loop.getTiedLoopYieldedValue(arg)->get(), candidate});
          continue;
        }
      }
      unknown(std::move(candidate), "a memref block argument");
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (auto view = dyn_cast<ViewLikeOpInterface>(def);
        view && view.getViewDest() == value) {
      candidate.views.push_back(def);
      stack.push_back({view.getViewSource(), candidate});
      continue;
    }
    if (auto select = dyn_cast<arith::SelectOp>(def)) {
      for (bool truth : {true, false}) {
        Access::Candidate branch = candidate;
        branch.conditions.push_back({select.getCondition(), truth});
        stack.push_back(
            {truth ? select.getTrueValue() : select.getFalseValue(), branch});
      }
      continue;
    }
    if (auto branch = dyn_cast<scf::IfOp>(def)) {
      unsigned position = cast<OpResult>(value).getResultNumber();
      for (bool truth : {true, false}) {
        Access::Candidate taken = candidate;
        taken.conditions.push_back({branch.getCondition(), truth});
        stack.push_back({(truth ? branch.thenYield() : branch.elseYield())
                             .getOperand(position),
                         taken});
      }
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      unsigned position = cast<OpResult>(value).getResultNumber();
      candidate.unmodelled = "a memref carried through 'scf.for' iteration "
                             "arguments";
      stack.push_back({loop.getInitArgs()[position], candidate});
      stack.push_back({loop.getYieldedValues()[position], candidate});
      continue;
    }
    if (isa<ScratchOp>(def)) {
      finish(std::move(candidate), {MemoryRoot::Kind::Scratch, value, {}});
      continue;
    }
    if (isa<memref::AllocaOp, memref::AllocOp>(def)) {
      finish(std::move(candidate), {inBody ? MemoryRoot::Kind::Allocation
                                           : MemoryRoot::Kind::Captured,
                                    value,
                                    {}});
      continue;
    }
    if (auto global = dyn_cast<memref::GetGlobalOp>(def)) {
      finish(std::move(candidate),
             {MemoryRoot::Kind::Global, {}, global.getNameAttr().getAttr()});
      continue;
    }
    unknown(
        std::move(candidate),
        ("a memref produced by '" + def->getName().getStringRef() + "'").str());
  }
  return candidates;
}

/// The kind of a commutative update of `atomic`'s element, if it is one.
static std::optional<arith::AtomicRMWKind>
getCommutativeKind(arith::AtomicRMWKind kind) {
  using K = arith::AtomicRMWKind;
  switch (kind) {
  case K::addf:
  case K::addi:
  case K::maximumf:
  case K::maxs:
  case K::maxu:
  case K::minimumf:
  case K::mins:
  case K::minu:
  case K::mulf:
  case K::muli:
  case K::ori:
  case K::andi:
  case K::maxnumf:
  case K::minnumf:
  case K::xori:
    return kind;
  case K::assign:
    return std::nullopt;
  }
  return std::nullopt;
}

/// The commutative update a generic_atomic_rmw computes: its body combines
/// the current value once, by the yielded commutative op, with a value that
/// pure ops of the body (or code outside) compute without it.
static std::optional<arith::AtomicRMWKind>
getCommutativeKind(memref::GenericAtomicRMWOp atomic) {
  Block &body = atomic.getAtomicBody().front();
  Value current = body.getArgument(0);
  auto yield = cast<memref::AtomicYieldOp>(body.getTerminator());
  Operation *update = yield.getResult().getDefiningOp();
  if (!update || update->getBlock() != &body || update->getNumOperands() != 2 ||
      !current.hasOneUse() ||
      !llvm::is_contained(update->getOperands(), current))
    return std::nullopt;
  for (Operation &op : body.without_terminator())
    if (&op != update && !isPure(&op))
      return std::nullopt;
  using K = arith::AtomicRMWKind;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(update)
      .Case([](arith::AddFOp) { return K::addf; })
      .Case([](arith::AddIOp) { return K::addi; })
      .Case([](arith::MulFOp) { return K::mulf; })
      .Case([](arith::MulIOp) { return K::muli; })
      .Case([](arith::MaximumFOp) { return K::maximumf; })
      .Case([](arith::MinimumFOp) { return K::minimumf; })
      .Case([](arith::MaxNumFOp) { return K::maxnumf; })
      .Case([](arith::MinNumFOp) { return K::minnumf; })
      .Case([](arith::MaxSIOp) { return K::maxs; })
      .Case([](arith::MinSIOp) { return K::mins; })
      .Case([](arith::MaxUIOp) { return K::maxu; })
      .Case([](arith::MinUIOp) { return K::minu; })
      .Case([](arith::OrIOp) { return K::ori; })
      .Case([](arith::AndIOp) { return K::andi; })
      .Case([](arith::XOrIOp) { return K::xori; })
      .Default([](Operation *) { return std::nullopt; });
}

scf::ParallelOp SpawnAnalysis::getThreadLoop(Operation *op, SpawnOp spawn) {
  scf::ParallelOp outermost;
  for (Operation *parent = op; parent && parent != spawn;
       parent = parent->getParentOp())
    if (auto loop = dyn_cast<scf::ParallelOp>(parent))
      outermost = loop;
  return outermost;
}

void SpawnAnalysis::collectAccesses() {
  auto add = [&](Operation *op, Value buffer, AccessKind kind,
                 ValueRange indices = {}, ArrayRef<int64_t> vectorShape = {},
                 bool wholeBuffer = false) -> Access & {
    Access access;
    access.op = op;
    access.buffer = buffer;
    access.kind = kind;
    access.indices = llvm::to_vector(indices);
    access.vectorShape = llvm::to_vector(vectorShape);
    access.wholeBuffer = wholeBuffer;
    if (buffer)
      access.candidates = traceMemoryRoots(buffer, spawn);
    access.threadLoop = getThreadLoop(op, spawn);
    accesses.push_back(std::move(access));
    return accesses.back();
  };
  auto addUnknown = [&](Operation *op, Value buffer, AccessKind kind,
                        const Twine &why) {
    Access &access = buffer
                         ? add(op, buffer, kind, {}, {}, /*wholeBuffer=*/true)
                         : add(op, Value(), kind);
    if (!buffer) {
      Access::Candidate candidate;
      candidate.root = {MemoryRoot::Kind::Unknown, {}, {}};
      candidate.unmodelled = why.str();
      access.candidates = {candidate};
    }
    access.unmodelled = why.str();
  };
  spawn.getBody().walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      add(op, load.getMemRef(), AccessKind::Read, load.getIndices());
      return;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      add(op, store.getMemRef(), AccessKind::Write, store.getIndices());
      return;
    }
    if (auto load = dyn_cast<affine::AffineLoadOp>(op)) {
      add(op, load.getMemRef(), AccessKind::Read, load.getMapOperands()).map =
          load.getAffineMap();
      return;
    }
    if (auto store = dyn_cast<affine::AffineStoreOp>(op)) {
      add(op, store.getMemRef(), AccessKind::Write, store.getMapOperands())
          .map = store.getAffineMap();
      return;
    }
    if (auto load = dyn_cast<vector::LoadOp>(op)) {
      add(op, load.getBase(), AccessKind::Read, load.getIndices(),
          load.getVectorType().getShape());
      return;
    }
    if (auto store = dyn_cast<vector::StoreOp>(op)) {
      add(op, store.getBase(), AccessKind::Write, store.getIndices(),
          store.getVectorType().getShape());
      return;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      add(op, copy.getSource(), AccessKind::Read, {}, {}, true);
      add(op, copy.getTarget(), AccessKind::Write, {}, {}, true);
      return;
    }
    if (auto transfer = dyn_cast<TransferAsyncOp>(op)) {
      add(op, transfer.getSrc(), AccessKind::Read, {}, {}, true);
      add(op, transfer.getDst(), AccessKind::Write, {}, {}, true);
      return;
    }
    // An atomic update: a commutative one is an update of its kind, any
    // other a write; the old value it returns depends on the order of the
    // updates.
    auto addAtomic = [&](Value memref, ValueRange indices,
                         std::optional<arith::AtomicRMWKind> commutative,
                         Value result) {
      Access &update = add(
          op, memref,
          commutative ? AccessKind::AtomicUpdate : AccessKind::Write, indices);
      update.atomicKind = commutative;
      if (!commutative || !result.use_empty())
        add(op, memref, AccessKind::Read, indices);
    };
    if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op)) {
      addAtomic(atomic.getMemref(), atomic.getIndices(),
                getCommutativeKind(atomic.getKind()), atomic.getResult());
      return;
    }
    if (auto atomic = dyn_cast<memref::GenericAtomicRMWOp>(op)) {
      addAtomic(atomic.getMemref(), atomic.getIndices(),
                getCommutativeKind(atomic), atomic.getResult());
      return;
    }
    if (isa<AwaitOp, ScratchOp, memref::AllocaOp, memref::AllocOp,
            memref::DeallocOp>(op))
      return; // Ordering or allocation only.
    if (op->hasAttr(VxDialect::kTensorCoreAttrName))
      return; // Registers only.
    if (isa<CallOpInterface>(op)) {
      addUnknown(op, Value(), AccessKind::Write,
                 "a call, whose effects the analysis does not see");
      for (Value operand : op->getOperands())
        if (isa<BaseMemRefType>(operand.getType())) {
          addUnknown(op, operand, AccessKind::Read,
                     "the memref is passed to a call");
          addUnknown(op, operand, AccessKind::Write,
                     "the memref is passed to a call");
        }
      return;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects && op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return; // Its nested ops are visited.
    if (!effects) {
      if (!isMemoryEffectFree(op))
        addUnknown(op, Value(), AccessKind::Write,
                   "'" + op->getName().getStringRef() +
                       "' has effects the analysis does not know");
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      bool isWrite = isa<MemoryEffects::Write>(effect.getEffect());
      if (!isWrite && !isa<MemoryEffects::Read>(effect.getEffect()))
        continue;
      AccessKind kind = isWrite ? AccessKind::Write : AccessKind::Read;
      Value buffer = effect.getValue();
      std::string why = ("the addresses of '" + op->getName().getStringRef() +
                         "' are not modelled")
                            .str();
      if (buffer && isa<BaseMemRefType>(buffer.getType()))
        addUnknown(op, buffer, kind, why);
      else
        addUnknown(op, Value(), kind, why);
    }
  });
  for (const Access &access : accesses)
    accessesByOp[access.op].push_back(&access);
  spawn.getBody().walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
    threadLoops.push_back(loop);
    return WalkResult::skip();
  });
}

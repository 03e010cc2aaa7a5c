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
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
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

namespace {
/// One path of the search for a memref's roots: the value reached, the
/// candidate it builds, and the calls whose callees the path is inside.
struct RootPath {
  Value value;
  Access::Candidate candidate;
  SmallVector<CallOpInterface, 1> calls;
  /// The path went through a loop's or a callee's values: the conditions
  /// of choices made there are not those of the access's execution.
  bool carried = false;

  /// Paths that reach one value with the same conditions and calls have
  /// the same roots.
  bool isSameAs(const RootPath &other) const {
    return value == other.value &&
           candidate.conditions == other.candidate.conditions &&
           bool(candidate.approximation) ==
               bool(other.candidate.approximation) &&
           carried == other.carried && calls == other.calls;
  }
};
} // namespace

/// The callee of `call` that the path can follow: a function of the module
/// with a body.
static FunctionOpInterface getFollowedCallee(CallOpInterface call) {
  auto callee = dyn_cast_or_null<FunctionOpInterface>(call.resolveCallable());
  if (!callee || callee.isExternal())
    return {};
  return callee;
}

/// The values that may flow into `value`, a result or a region argument of
/// a region-branching op (its entry operands and the yields of its
/// regions); empty for values that no predecessor gives (an induction
/// variable).
static SmallVector<Value> getIncomingValues(RegionBranchOpInterface op,
                                            Value value) {
  SmallVector<RegionSuccessor> successors;
  op.getSuccessorRegions(RegionBranchPoint::parent(), successors);
  for (Region &region : op->getRegions())
    op.getSuccessorRegions(region, successors);
  SmallVector<Value> incoming;
  for (const RegionSuccessor &successor : successors) {
    ValueRange inputs = successor.getSuccessorInputs();
    auto position = llvm::find(inputs, value);
    if (position == inputs.end())
      continue;
    op.getPredecessorValues(successor, position - inputs.begin(), incoming);
    break;
  }
  return incoming;
}

/// The memref that `op` views, for an op without memory effects whose one
/// memref operand is the memory of its result (`memref.transpose`, which is
/// no ViewLikeOpInterface); the address model refuses such views.
static Value getUnmodelledViewSource(Operation *op) {
  if (op->getNumResults() != 1 || !isMemoryEffectFree(op) ||
      op->getNumRegions() != 0)
    return {};
  Value source;
  for (Value operand : op->getOperands()) {
    if (!isa<BaseMemRefType>(operand.getType()))
      continue;
    if (source)
      return {};
    source = operand;
  }
  return source;
}

namespace {
/// The search for a memref's roots: a stack of paths, each followed one
/// value at a time until it reaches a root.
class RootTracer {
public:
  explicit RootTracer(SpawnOp spawn) : spawn(spawn) {}

  SmallVector<Access::Candidate, 1> trace(Value memref);

private:
  // Paths beyond this many stop recording conditions, so that the search
  // ends after each value is reached at most once more.
  static constexpr unsigned kMaxConditionedPaths = 256;
  static constexpr unsigned kMaxCallDepth = 8;

  void finish(RootPath &path, MemoryRoot root);
  void unknown(RootPath &path, StringRef why);
  static void approximate(RootPath &path, const Twine &why);
  void follow(const RootPath &path, Value next,
              std::optional<std::pair<Value, bool>> condition);
  void followEach(RootPath path, ArrayRef<Value> incoming, const Twine &why);
  /// Whether `path` (or one with the same roots) was seen before.
  bool isVisited(RootPath &path);
  void stepFromArgument(RootPath &path, BlockArgument arg);
  void stepFromResult(RootPath &path, Operation *def);

  SpawnOp spawn;
  SmallVector<Access::Candidate, 1> candidates;
  SmallVector<RootPath> stack;
  SmallVector<RootPath> visited;
  bool viewedInCycle = false;
};
} // namespace

void RootTracer::finish(RootPath &path, MemoryRoot root) {
  path.candidate.root = std::move(root);
  path.candidate.base = path.value;
  candidates.push_back(std::move(path.candidate));
}

void RootTracer::unknown(RootPath &path, StringRef why) {
  path.candidate.unmodelled = why.str();
  // Memory the body or a callee makes may be per instance: an unknown
  // memref there is refused (verifyMemoryRootsTraceable), one computed
  // above the spawn can only be captured memory.
  path.candidate.untraceable =
      !path.calls.empty() || spawn.isDefinedInBody(path.value);
  finish(path, {MemoryRoot::Kind::Unknown, {}, {}});
}

void RootTracer::approximate(RootPath &path, const Twine &why) {
  if (!path.candidate.approximation)
    path.candidate.approximation = why.str();
}

// Follows `next` from `path`: through a choice made under `condition`.
void RootTracer::follow(const RootPath &path, Value next,
                        std::optional<std::pair<Value, bool>> condition) {
  RootPath step = path;
  step.value = next;
  if (condition && path.carried)
    approximate(step, "a memref chosen inside a loop or a callee");
  else if (condition && !step.candidate.approximation &&
           !llvm::is_contained(step.candidate.conditions, *condition))
    step.candidate.conditions.push_back(*condition);
  stack.push_back(std::move(step));
}

// Follows each of `incoming`, the values a loop's or a callee's values
// take, through `path`: where they differ, the choice among them is one the
// model does not see (`why`).
void RootTracer::followEach(RootPath path, ArrayRef<Value> incoming,
                            const Twine &why) {
  path.carried = true;
  if (llvm::any_of(incoming,
                   [&](Value next) { return next != incoming.front(); }))
    approximate(path, why);
  for (Value next : incoming)
    follow(path, next, std::nullopt);
}

bool RootTracer::isVisited(RootPath &path) {
  if (visited.size() >= kMaxConditionedPaths && !path.carried) {
    path.candidate.conditions.clear();
    path.carried = true;
    path.candidate.approximation = "too many ways to choose the memref";
  }
  const RootPath *seen = llvm::find_if(
      visited, [&](const RootPath &seen) { return seen.isSameAs(path); });
  if (seen == visited.end()) {
    visited.push_back(path);
    return false;
  }
  // Its roots are those of the path seen before, through the views of that
  // path: a memref viewed anew in each iteration of a loop is not.
  viewedInCycle |= seen->candidate.views != path.candidate.views;
  return true;
}

void RootTracer::stepFromArgument(RootPath &path, BlockArgument arg) {
  Operation *owner = arg.getOwner()->getParentOp();
  if (auto function = dyn_cast<FunctionOpInterface>(owner);
      function && arg.getOwner()->isEntryBlock()) {
    if (path.calls.empty())
      return finish(path, {MemoryRoot::Kind::Captured, arg, {}});
    // Back out of a callee: the argument its call passed.
    CallOpInterface call = path.calls.pop_back_val();
    return follow(path, call.getArgOperands()[arg.getArgNumber()],
                  std::nullopt);
  }
  if (auto branch = dyn_cast<RegionBranchOpInterface>(owner)) {
    SmallVector<Value> incoming = getIncomingValues(branch, arg);
    if (!incoming.empty())
      return followEach(path, incoming,
                        "a memref carried through '" +
                            owner->getName().getStringRef() + "'");
  }
  unknown(path, ("a memref block argument of '" +
                 owner->getName().getStringRef() + "'")
                    .str());
}

void RootTracer::stepFromResult(RootPath &path, Operation *def) {
  Value value = path.value;
  if (auto view = dyn_cast<ViewLikeOpInterface>(def);
      view && view.getViewDest() == value) {
    path.candidate.views.push_back(def);
    return follow(path, view.getViewSource(), std::nullopt);
  }
  if (Value source = getUnmodelledViewSource(def)) {
    path.candidate.views.push_back(def);
    return follow(path, source, std::nullopt);
  }
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    for (bool truth : {true, false})
      follow(path, truth ? select.getTrueValue() : select.getFalseValue(),
             std::make_pair(select.getCondition(), truth));
    return;
  }
  if (auto branch = dyn_cast<scf::IfOp>(def)) {
    unsigned position = cast<OpResult>(value).getResultNumber();
    for (bool truth : {true, false})
      follow(path,
             (truth ? branch.thenYield() : branch.elseYield())
                 .getOperand(position),
             std::make_pair(branch.getCondition(), truth));
    return;
  }
  if (auto branch = dyn_cast<RegionBranchOpInterface>(def)) {
    SmallVector<Value> incoming = getIncomingValues(branch, value);
    if (!incoming.empty())
      return followEach(path, incoming,
                        "a memref chosen by '" + def->getName().getStringRef() +
                            "'");
  }
  if (auto call = dyn_cast<CallOpInterface>(def)) {
    FunctionOpInterface callee = getFollowedCallee(call);
    if (callee && path.calls.size() < kMaxCallDepth) {
      unsigned position = cast<OpResult>(value).getResultNumber();
      SmallVector<Value> returned;
      for (Block &block : callee.getFunctionBody())
        if (block.mightHaveTerminator() &&
            block.getTerminator()->hasTrait<OpTrait::ReturnLike>())
          returned.push_back(block.getTerminator()->getOperand(position));
      RootPath inside = path;
      inside.calls.push_back(call);
      return followEach(inside, returned,
                        "a memref returned by @" + callee.getName());
    }
  }
  if (isa<ScratchOp>(def))
    return finish(path, {MemoryRoot::Kind::Scratch, value, {}});
  if (isa<memref::AllocaOp, memref::AllocOp>(def)) {
    // An allocation of a callee is made anew by each call: per instance for
    // calls from the body, but this model keeps it as captured.
    bool perInstance = path.calls.empty() && spawn.isDefinedInBody(value);
    return finish(path, {perInstance ? MemoryRoot::Kind::Allocation
                                     : MemoryRoot::Kind::Captured,
                         value,
                         {}});
  }
  if (auto global = dyn_cast<memref::GetGlobalOp>(def))
    return finish(
        path, {MemoryRoot::Kind::Global, {}, global.getNameAttr().getAttr()});
  unknown(path,
          isa<CallOpInterface>(def)
              ? "a memref returned by a call whose callee is not in "
                "the module"
              : ("a memref produced by '" + def->getName().getStringRef() + "'")
                    .str());
}

SmallVector<Access::Candidate, 1> RootTracer::trace(Value memref) {
  stack.push_back({memref, {}, {}});
  while (!stack.empty()) {
    RootPath path = stack.pop_back_val();
    if (isVisited(path))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(path.value))
      stepFromArgument(path, arg);
    else
      stepFromResult(path, path.value.getDefiningOp());
  }
  if (viewedInCycle)
    for (Access::Candidate &candidate : candidates)
      candidate.unmodelled = "a memref viewed anew in each iteration of a loop";
  // Every way of choosing reaches one root through the same views: the
  // memref is that view, whatever the conditions.
  if (candidates.empty())
    return candidates;
  const Access::Candidate &first = candidates.front();
  if (llvm::all_of(candidates, [&](const Access::Candidate &candidate) {
        return candidate.root == first.root && candidate.views == first.views &&
               candidate.root.kind != MemoryRoot::Kind::Unknown;
      })) {
    candidates.truncate(1);
    candidates.front().conditions.clear();
    candidates.front().approximation.reset();
  }
  return std::move(candidates);
}

SmallVector<Access::Candidate, 1> vx::traceMemoryRoots(Value memref,
                                                       SpawnOp spawn) {
  return RootTracer(spawn).trace(memref);
}

LogicalResult vx::verifyMemoryRootsTraceable(SpawnOp spawn) {
  llvm::SmallPtrSet<void *, 4> reported;
  WalkResult result = spawn.getBody().walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      if (!isa<BaseMemRefType>(operand.getType()) ||
          isa<ViewLikeOpInterface, arith::SelectOp>(op))
        continue;
      for (const Access::Candidate &candidate :
           traceMemoryRoots(operand, spawn)) {
        if (!candidate.untraceable ||
            !reported.insert(candidate.base.getAsOpaquePointer()).second)
          continue;
        InFlightDiagnostic diag =
            op->emitOpError("uses a memref that cannot be followed to the "
                            "memory it views (")
            << *candidate.unmodelled
            << "), so which threads and instances share it is unknown; "
               "choose among buffers of the spawn with 'arith.select', "
               "'scf.if' or calls of functions in the module instead";
        diag.attachNote(candidate.base.getLoc()) << "the memref comes from "
                                                    "here";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
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
    if (auto ldmatrix = dyn_cast<nvgpu::LdMatrixOp>(op)) {
      // Each lane gives the address of one row of an 8x8 matrix of 16-bit
      // elements, eight contiguous ones in memory with .trans or without:
      // the warp reads the union of its lanes' rows.
      add(op, ldmatrix.getSrcMemref(), AccessKind::Read, ldmatrix.getIndices(),
          {8});
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
    if (op->hasAttr(VxDialect::kTensorCoreAttrName)) {
      // The address of a tile that wgmma's descriptors read (all of it);
      // other tensor-core ops touch registers only.
      if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(op))
        add(op, metadata.getSource(), AccessKind::Read, {}, {}, true);
      return;
    }
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
      if ((!isWrite && !isa<MemoryEffects::Read>(effect.getEffect())) ||
          isRaceDetectorEffect(effect))
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

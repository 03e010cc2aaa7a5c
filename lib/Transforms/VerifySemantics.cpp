//===- VerifySemantics.cpp - Check the dimension-semantics contract -------===//
//
// A parallel dimension promises that instances differing in it neither write
// the same element nor read what another writes; a thread loop promises the
// same of its iterations, and private scratch used in thread loops stays
// with one thread. This pass proves violations (errors), says where it
// cannot prove their absence (warnings), checks that tokens are awaited
// exactly once on every path with the memory of their transfers left alone
// in between, checks the aliasing contract at call sites, and remarks on
// arbitrary dimensions that could be parallel and on device spawns that run
// on one CTA. See docs/design.md, "Static checking".
//
//===----------------------------------------------------------------------===//

#include "Vx/Analysis/InstanceMemory.h"
#include "Vx/Analysis/SpawnAnalysis.h"
#include "Vx/Conversion/VxToSCF/VxToSCF.h"
#include "Vx/Target/Limits.h"
#include "Vx/Transforms/PassOptions.h"
#include "Vx/Transforms/Passes.h"
#include "Vx/Transforms/TileOps.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXVERIFYSEMANTICS
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

namespace {

std::string formatTuple(ArrayRef<int64_t> values) {
  std::string text = "(";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(values, os);
  os << ")";
  return text;
}

/// " when %off = 1 and %n = 2", the values a witness assumes.
/// What a witness that needs wrap-around arithmetic relies on, and the
/// remedies: users read such a collision as a false error otherwise.
std::string describeWrapAround(const CollisionResult &result) {
  if (!result.wrapsAround)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << ", only with index arithmetic that wraps around (";
  if (result.wrappingOps.empty())
    os << "an affine map's result";
  llvm::interleaveComma(result.wrappingOps, os, [&](Operation *op) {
    os << "'" << op->getName() << "'";
    if (auto file = op->getLoc()->findInstanceOf<FileLineColLoc>())
      os << " at line " << file.getLine();
  });
  os << " overflows 64 bits); add `overflow<nsw>` or `overflow<nuw>` to the "
        "arithmetic (overflow is then poison) or bound the sizes";
  return text;
}

std::string formatAssumptions(const CollisionResult &result) {
  if (result.assumptions.empty())
    return describeWrapAround(result);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << (result.provenForAllValues ? " (with " : " when ");
  llvm::interleave(
      result.assumptions, os,
      [&](const std::pair<Value, APInt> &assumption) {
        assumption.first.printAsOperand(os, OpPrintingFlags());
        os << " = ";
        if (assumption.second.getBitWidth() == 1)
          os << (assumption.second.isOne() ? "true" : "false");
        else
          os << assumption.second.getSExtValue();
      },
      " and ");
  if (result.provenForAllValues)
    os << ")";
  os << describeWrapAround(result);
  return text;
}

/// The kind of the atomic update an access makes, for messages.
StringRef getAtomicName(const Access &access) {
  return arith::stringifyAtomicRMWKind(*access.atomicKind);
}

/// Integer samples the could-be-parallel remark may take.
constexpr unsigned kRemarkSamples = 60;

/// The checks of one spawn.
class SpawnChecker {
public:
  /// `threadsPerBlock`: the CTA size of spawns without a `threads` clause
  /// (0: the default CTA size).
  SpawnChecker(SpawnOp spawn, SpawnAnalysis &analysis, bool allowRaces,
               int64_t threadsPerBlock)
      : spawn(spawn), allowRaces(allowRaces), threadsPerBlock(threadsPerBlock),
        ctaSize(spawn.getCTASize(threadsPerBlock ? threadsPerBlock
                                                 : kDefaultCTASize)),
        analysis(analysis) {}

  LogicalResult check() {
    // The analysis may be cached: this check's answers must not depend on
    // what earlier clients sampled.
    analysis.resetSamples();
    collectRoots();
    checkWritesIndependentOfParallelDims();
    checkWriteCollisions();
    checkReadsOfWrites();
    checkThreadLoops();
    checkOwnership();
    // Instance allocas the mapping could not place, and writes outside
    // thread loops it could not give to one thread or to every thread
    // (InstanceMemory.h).
    failed |= !succeeded(checkInstanceAllocas(analysis));
    if (spawn.getTopology() != Topology::host &&
        !analysis.getThreadLoops().empty())
      failed |= !succeeded(checkOnceWriteRoots(analysis));
    checkTokens();
    remarkOrderFreeDims();
    if (spawn.getTopology() != Topology::host &&
        spawn.getParallelDims().empty())
      spawn.emitRemark("device spawn has no parallel dimension: it runs on "
                       "a single CTA");
    return failure(failed);
  }

private:
  /// The shared memory the spawn touches; the Unknown root last.
  void collectRoots() {
    for (const Access &access : analysis.getAccesses())
      for (const Access::Candidate &candidate : access.candidates)
        if (candidate.root.isShared() &&
            !llvm::is_contained(sharedRoots, candidate.root))
          sharedRoots.push_back(candidate.root);
    // The Unknown root last.
    auto unknown = llvm::find_if(sharedRoots, [](const MemoryRoot &root) {
      return root.kind == MemoryRoot::Kind::Unknown;
    });
    if (unknown != sharedRoots.end()) {
      MemoryRoot root = *unknown;
      sharedRoots.erase(unknown);
      sharedRoots.push_back(root);
    }
  }

  /// The accesses that may touch `root`; for the Unknown root, those that
  /// go through untraced memrefs only (others are compared with their own
  /// roots).
  SmallVector<const Access *>
  getAccessesOf(const MemoryRoot &root,
                function_ref<bool(const Access &)> filter) {
    SmallVector<const Access *> result;
    for (const Access &access : analysis.getAccesses()) {
      if (!filter(access))
        continue;
      bool touches = root.kind == MemoryRoot::Kind::Unknown
                         ? llvm::any_of(access.candidates,
                                        [](const Access::Candidate &candidate) {
                                          return candidate.root.kind ==
                                                 MemoryRoot::Kind::Unknown;
                                        })
                         : access.touches(root);
      if (touches)
        result.push_back(&access);
    }
    return result;
  }

  /// A proven race: an error (a warning under allow-races); a race for some
  /// values: a warning. The message prints `result`'s witness: minimized.
  InFlightDiagnostic reportRace(Operation *op, CollisionResult &result) {
    raced.insert(op);
    analysis.minimizeWitness(result);
    if (allowRaces || !result.provenForAllValues)
      return op->emitWarning();
    failed = true;
    return op->emitError();
  }

  void warnOnce(Operation *op, const Twine &message) {
    if (warned.insert(op).second && !raced.contains(op))
      op->emitWarning(message);
  }

  /// Rule 1: a captured write whose address and control ignore a parallel
  /// dimension of extent > 1 is written by every instance along it.
  void checkWritesIndependentOfParallelDims() {
    for (const Access &access : analysis.getAccesses()) {
      if (access.kind != AccessKind::Write || raced.contains(access.op))
        continue;
      auto [dims, varies] = analysis.getDependences(access);
      for (unsigned dim : spawn.getParallelDims()) {
        if (dims.test(dim) || spawn.getStaticGrid()[dim] == 1)
          continue;
        for (const MemoryRoot &root : sharedRoots) {
          if (root.kind == MemoryRoot::Kind::Unknown || !access.touches(root))
            continue;
          CollisionResult result = analysis.findCollision(
              access, access, root,
              PairRelation::alongDimension(dim, /*sameParallelPoint=*/true));
          if (result.kind != CollisionResult::Collision)
            continue;
          InFlightDiagnostic diag = reportRace(access.op, result);
          diag << "write to memory captured by the spawn does not depend on "
                  "parallel dimension "
               << dim
               << (result.provenForAllValues
                       ? ": every instance along it writes the same address"
                       : ": instances along it write the same address")
               << formatAssumptions(result);
          diag.attachNote(spawn.getLoc())
              << "mark dimension " << dim
              << " 'arbitrary' or index the write by 'vx.grid_index " << dim
              << "'";
          break;
        }
        if (raced.contains(access.op))
          break;
      }
    }
  }

  /// Rule 2: two parallel instances writing one element (atomic updates of
  /// one commutative kind excepted).
  void checkWriteCollisions() {
    for (const MemoryRoot &root : sharedRoots) {
      SmallVector<const Access *> writes = getAccessesOf(
          root, [](const Access &access) { return access.isWrite(); });
      DenseMap<const Access *, unsigned> order;
      for (auto [position, access] : llvm::enumerate(writes))
        order[access] = position;
      auto skip = [&](const Access *first, const Access *second) {
        return order.lookup(first) > order.lookup(second) ||
               raced.contains(first->op) || raced.contains(second->op) ||
               (first->kind == AccessKind::AtomicUpdate &&
                second->kind == AccessKind::AtomicUpdate &&
                first->atomicKind == second->atomicKind);
      };
      for (const SpawnAnalysis::PairCollision &found : analysis.findCollisions(
               writes, writes, root, PairRelation::differentParallelPoints(),
               skip,
               /*stopAtFirst=*/false))
        reportWriteCollision(*found.first, *found.second, found.result);
    }
  }

  void reportWriteCollision(const Access &first, const Access &second,
                            CollisionResult result) {
    if (raced.contains(second.op) || raced.contains(first.op))
      return;
    if (result.kind == CollisionResult::Unknown) {
      warnOnce(second.op, "cannot prove that parallel instances write distinct "
                          "elements: " +
                              result.reason);
      return;
    }
    InFlightDiagnostic diag = reportRace(second.op, result);
    std::string instances =
        formatTuple(result.instance0) + " and " + formatTuple(result.instance1);
    if (first.kind == AccessKind::AtomicUpdate &&
        second.kind == AccessKind::AtomicUpdate)
      diag << "parallel instances " << instances
           << " update the same element of memory captured by the spawn with "
              "atomic updates that do not commute ('"
           << getAtomicName(first) << "' and '" << getAtomicName(second)
           << "')";
    else if (first.kind == AccessKind::AtomicUpdate ||
             second.kind == AccessKind::AtomicUpdate)
      diag << "parallel instances " << instances
           << " write the same element of memory captured by the spawn, one "
              "with an atomic update and one with a plain write: the result "
              "depends on their order";
    else
      diag << "parallel instances " << instances
           << (result.provenForAllValues ? " write" : " may write")
           << " the same element of memory captured by the spawn";
    diag << formatAssumptions(result);
    if (first.op != second.op)
      diag.attachNote(first.op->getLoc()) << "the other write";
    diag.attachNote(spawn.getLoc())
        << "mark the dimensions the address does not tell apart "
           "'arbitrary', or index the write so that parallel instances "
           "write distinct elements";
  }

  /// Rule 3: a parallel instance reading what another writes (or updates
  /// atomically).
  void checkReadsOfWrites() {
    for (const MemoryRoot &root : sharedRoots) {
      SmallVector<const Access *> reads = getAccessesOf(
          root, [](const Access &access) { return !access.isWrite(); });
      SmallVector<const Access *> writes = getAccessesOf(
          root, [](const Access &access) { return access.isWrite(); });
      auto skip = [&](const Access *read, const Access *) {
        return raced.contains(read->op);
      };
      for (const SpawnAnalysis::PairCollision &found : analysis.findCollisions(
               reads, writes, root, PairRelation::differentParallelPoints(),
               skip, /*stopAtFirst=*/false))
        reportReadOfWrite(*found.first, *found.second, found.result);
    }
  }

  void reportReadOfWrite(const Access &read, const Access &write,
                         CollisionResult result) {
    if (raced.contains(read.op))
      return;
    if (result.kind == CollisionResult::Unknown) {
      warnOnce(read.op, "cannot prove that this read does not see another "
                        "parallel instance's write: " +
                            result.reason);
      return;
    }
    InFlightDiagnostic diag = reportRace(read.op, result);
    std::string reader = formatTuple(result.instance0);
    std::string writer = formatTuple(result.instance1);
    if (isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(read.op))
      diag << "'" << read.op->getName()
           << "' returns the old value of an element that other parallel "
              "instances update: instance "
           << reader << " reads what instance " << writer
           << " writes, so the value depends on their order";
    else if (write.kind == AccessKind::AtomicUpdate)
      diag << "read of memory that the spawn updates atomically: parallel "
              "instance "
           << reader << " reads the element that instance " << writer
           << " updates, so the value read depends on their order";
    else
      diag << "read of memory that the spawn writes: parallel instance "
           << reader << " reads the element that instance " << writer
           << " writes";
    diag << formatAssumptions(result);
    if (write.op != read.op)
      diag.attachNote(write.op->getLoc()) << "written here";
    diag.attachNote(spawn.getLoc())
        << "parallel instances must not read what another writes; mark "
           "the dimension 'arbitrary' to order them";
  }

  //===--------------------------------------------------------------------===//
  // Thread loops
  //===--------------------------------------------------------------------===//

  /// The roots of accesses in `loop` other than allocations inside it (one
  /// per iteration).
  SmallVector<MemoryRoot> getThreadLoopRoots(scf::ParallelOp loop) {
    SmallVector<MemoryRoot> roots;
    for (const Access &access : analysis.getAccesses()) {
      if (access.threadLoop != loop)
        continue;
      for (const Access::Candidate &candidate : access.candidates) {
        const MemoryRoot &root = candidate.root;
        if (root.kind == MemoryRoot::Kind::Allocation &&
            loop->isAncestor(root.value.getDefiningOp()))
          continue;
        if (!llvm::is_contained(roots, root))
          roots.push_back(root);
      }
    }
    return roots;
  }

  /// (a) The iterations of a thread loop are independent.
  void checkThreadLoops() {
    for (scf::ParallelOp loop : analysis.getThreadLoops()) {
      for (const MemoryRoot &root : getThreadLoopRoots(loop)) {
        SmallVector<const Access *> members =
            getAccessesOf(root, [&](const Access &access) {
              return access.threadLoop == loop;
            });
        SmallVector<const Access *> writes;
        for (const Access *access : members)
          if (access->isWrite())
            writes.push_back(access);
        PairRelation relation = PairRelation::sameInstance();
        relation.threads = PairRelation::Threads::DifferentIterations;
        relation.threadLoop = loop;
        auto skip = [&](const Access *first, const Access *second) {
          return raced.contains(first->op) ||
                 (first->kind == AccessKind::AtomicUpdate &&
                  second->kind == AccessKind::AtomicUpdate &&
                  first->atomicKind == second->atomicKind);
        };
        for (const SpawnAnalysis::PairCollision &found :
             analysis.findCollisions(members, writes, root, relation, skip,
                                     /*stopAtFirst=*/false))
          reportIterationConflict(loop, *found.first, *found.second,
                                  found.result);
      }
    }
  }

  void reportIterationConflict(scf::ParallelOp loop, const Access &first,
                               const Access &second, CollisionResult result) {
    if (raced.contains(first.op))
      return;
    if (result.kind == CollisionResult::Unknown) {
      warnOnce(first.op, "cannot prove that the iterations of the thread "
                         "loop touch distinct elements: " +
                             result.reason);
      return;
    }
    InFlightDiagnostic diag = reportRace(first.op, result);
    diag << "iterations " << formatTuple(result.iteration0) << " and "
         << formatTuple(result.iteration1) << " of a thread loop (instance "
         << formatTuple(result.instance0) << ") "
         << (first.isWrite() ? "write" : "read and write")
         << " the same element" << formatAssumptions(result);
    if (first.op != second.op)
      diag.attachNote(second.op->getLoc()) << "the other access";
    diag.attachNote(loop.getLoc())
        << "the iterations of a thread loop must be independent";
  }

  /// (b) Private scratch used in thread loops is owned by the threads of
  /// the CTA the spawn will have: an error otherwise.
  void checkOwnership() {
    if (analysis.getThreadLoops().empty())
      return;
    for (ScratchOp scratch : spawn.getBody().getOps<ScratchOp>()) {
      if (scratch.getPlacement() != Memory::private_)
        continue;
      MemoryRoot root{MemoryRoot::Kind::Scratch, scratch.getResult(), {}};
      bool inThreadLoop =
          llvm::any_of(analysis.getAccesses(), [&](const Access &access) {
            return access.threadLoop && access.touches(root);
          });
      if (!inThreadLoop)
        continue;
      // An unproved ownership is an error that stops every pipeline: each
      // scratch's proof gets the whole sample budget, whatever the race
      // checks before it took.
      analysis.resetSamples();
      OwnershipResult ownership = analysis.checkOwnership(scratch, ctaSize);
      switch (ownership.kind) {
      case OwnershipResult::OwnedForAnyThreadCount:
      case OwnershipResult::OwnedForSomeThreadCounts:
        break;
      case OwnershipResult::Unknown: {
        failed = true;
        InFlightDiagnostic diag =
            scratch.emitError("cannot prove that the ")
            << ctaSize << " threads of " << describeCTASize()
            << " own this private scratch: " << ownership.reason;
        noteOwningCounts(diag, scratch);
        break;
      }
      case OwnershipResult::NotOwned:
        reportNotOwned(scratch, ownership);
        break;
      }
    }
  }

  /// "the spawn's CTA (its `threads` clause)", where its size comes from.
  std::string describeCTASize() {
    if (spawn.getThreadsAttr())
      return "the spawn's CTA (its 'threads' clause)";
    if (threadsPerBlock)
      return "the spawn's CTA (threads-per-block)";
    return "the spawn's CTA (the default CTA size; give the spawn a "
           "'threads' clause to choose another)";
  }

  /// Notes the thread counts that own `scratch`, if some do.
  void noteOwningCounts(InFlightDiagnostic &diag, ScratchOp scratch) {
    OwnershipResult any = analysis.checkOwnership(scratch, std::nullopt);
    if (any.kind != OwnershipResult::OwnedForSomeThreadCounts)
      return;
    Diagnostic &note = diag.attachNote(spawn.getLoc());
    note << "it is owned by N threads only when N is one of ";
    llvm::interleaveComma(any.threadCounts, note);
  }

  /// The element of `witness` in `type`: its index along each dimension.
  static std::string formatElement(const CollisionResult &witness,
                                   MemRefType type) {
    SmallVector<int64_t> element(witness.element);
    if (element.size() == 1 && type.getRank() > 1 && type.hasStaticShape() &&
        type.getLayout().isIdentity())
      element =
          delinearize(element.front(), computeSuffixProduct(type.getShape()));
    return formatTuple(element);
  }

  void reportNotOwned(ScratchOp scratch, OwnershipResult ownership) {
    CollisionResult &witness = ownership.witness;
    analysis.minimizeWitness(witness);
    // Ownership must hold for every value (VX_SPEC 2.1, "an error
    // otherwise"): the mapping keeps only a thread's own part, so a witness
    // under some values is an error too.
    bool error = !allowRaces;
    failed |= error;
    InFlightDiagnostic diag =
        error ? scratch.emitError() : scratch.emitWarning();
    diag << "private scratch used in thread loops is not owned by the "
         << ctaSize << " threads of " << describeCTASize() << ": ";
    std::string element =
        witness.element.empty()
            ? std::string("one element")
            : "element " + formatElement(witness, scratch.getType());
    auto thread = [](std::optional<int64_t> thread) {
      return thread ? " on thread " + std::to_string(*thread) : std::string();
    };
    if (ownership.second->threadLoop)
      diag << element << " is touched by iteration "
           << formatTuple(witness.iteration0) << thread(witness.thread0)
           << " and iteration " << formatTuple(witness.iteration1)
           << thread(witness.thread1);
    else
      diag << element << " is written by iteration "
           << formatTuple(witness.iteration0) << thread(witness.thread0)
           << " and read by code outside thread loops, which runs on every "
              "thread";
    diag << " (instances " << formatTuple(witness.instance0) << " and "
         << formatTuple(witness.instance1) << ")" << formatAssumptions(witness);
    diag.attachNote(ownership.first->op->getLoc()) << "one access";
    diag.attachNote(ownership.second->op->getLoc()) << "the other access";
    noteOwningCounts(diag, scratch);
  }

  //===--------------------------------------------------------------------===//
  // Rule 6: remarks
  //===--------------------------------------------------------------------===//

  /// An arbitrary dimension along which no two instances touch a common
  /// element (one a write) could be parallel. Silent when unsure.
  void remarkOrderFreeDims() {
    // A remark is optional: it gets a small share of the budget, and is
    // left out when that runs out.
    analysis.limitSamples(kRemarkSamples);
    for (unsigned dim : spawn.getArbitraryDims()) {
      if (spawn.getStaticGrid()[dim] == 1)
        continue;
      if (isOrderFree(dim))
        spawn.emitRemark("arbitrary dimension ")
            << dim << " has no order dependence: it could be parallel";
    }
  }

  bool isOrderFree(unsigned dim) {
    SmallVector<MemoryRoot> roots;
    for (const Access &access : analysis.getAccesses())
      for (const Access::Candidate &candidate : access.candidates)
        if ((candidate.root.isShared() ||
             candidate.root.kind == MemoryRoot::Kind::Scratch) &&
            !llvm::is_contained(roots, candidate.root))
          roots.push_back(candidate.root);
    for (const MemoryRoot &root : roots) {
      SmallVector<const Access *> all =
          getAccessesOf(root, [](const Access &) { return true; });
      SmallVector<const Access *> writes;
      for (const Access *access : all)
        if (access->isWrite())
          writes.push_back(access);
      if (writes.empty())
        continue;
      auto skip = [](const Access *first, const Access *second) {
        return first->kind == AccessKind::AtomicUpdate &&
               second->kind == AccessKind::AtomicUpdate &&
               first->atomicKind == second->atomicKind;
      };
      bool scratch = root.kind == MemoryRoot::Kind::Scratch;
      if (!analysis
               .findCollisions(writes, all, root,
                               PairRelation::alongDimension(dim, scratch), skip,
                               /*stopAtFirst=*/true)
               .empty())
        return false;
    }
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Rule 4: tokens
  //===--------------------------------------------------------------------===//

  /// A transfer a token may stand for, and how its execution relates to the
  /// code that holds the token (the loops it was carried through).
  struct Pending {
    TransferAsyncOp transfer;
    SmallVector<std::pair<Operation *, PairRelation::Loop>, 1> loops;
  };
  /// An outstanding token: the transfers it may stand for, and whether this
  /// region may consume it (tokens from outside a loop body may not).
  struct Outstanding {
    SmallVector<Pending, 1> pendings;
    bool consumable;
    /// A token from outside a loop that the loop awaits in exactly one
    /// iteration (under a guard): its await in the body consumes it.
    bool awaitedOnceInLoop = false;
  };
  using TokenState = llvm::MapVector<Value, Outstanding>;

  /// Tokens produced by ops that tokens cannot be followed through (already
  /// reported).
  DenseSet<Value> untrackedTokens;

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
    Operation *at = token.getDefiningOp()
                        ? token.getDefiningOp()
                        : token.getParentBlock()->getParentOp();
    at->emitError("token is never awaited on ") << where;
  }

  void tokenError(Operation *op, const Twine &message) {
    failed = true;
    op->emitError(message);
  }

  /// Consumes `token` at `user` (an await, a yield, a loop's init operand).
  void consume(Value token, Operation *user, TokenState &state) {
    if (untrackedTokens.contains(token))
      return; // Its op has been reported.
    auto it = state.find(token);
    if (it == state.end()) {
      tokenError(user, "token is awaited more than once");
      return;
    }
    if (!it->second.consumable && !it->second.awaitedOnceInLoop) {
      tokenError(user, "token from outside the loop is awaited in every "
                       "iteration of the loop; await it once, outside");
      return;
    }
    state.erase(it);
  }

  /// Checks the accesses of `op` (and of the ops nested in it) against the
  /// memory of the outstanding transfers.
  void checkAccessesWhileOutstanding(Operation *op, const TokenState &state) {
    if (state.empty())
      return;
    op->walk([&](Operation *nested) {
      for (const Access *access : analysis.getAccesses(nested))
        for (auto &[token, outstanding] : state)
          checkAgainstTransfers(*access, outstanding.pendings);
    });
  }

  /// The block whose every execution runs one of `pendings` (two or more
  /// transfers into one destination, in the branches of `scf.if` ops of
  /// that block, related alike to the loops around them), if any. A token
  /// stands for exactly one of its transfers, so in that block the
  /// destination is written whichever branch runs.
  static Block *getCommonDestinationBlock(ArrayRef<Pending> pendings) {
    if (pendings.size() < 2)
      return nullptr;
    const Pending &front = pendings.front();
    auto getDestination = [](const Pending &pending) {
      TransferAsyncOp transfer = pending.transfer;
      return transfer.getDst();
    };
    Value destination = getDestination(front);
    Block *common = front.transfer->getBlock();
    for (const Pending &pending : pendings.drop_front()) {
      if (getDestination(pending) != destination ||
          pending.loops != front.loops)
        return nullptr;
      while (!common->findAncestorOpInBlock(*pending.transfer))
        common = common->getParentOp()->getBlock();
    }
    for (const Pending &pending : pendings)
      for (Operation *parent = pending.transfer->getParentOp();
           parent->getBlock() != common; parent = parent->getParentOp())
        if (!isa<scf::IfOp>(parent))
          return nullptr;
    return common;
  }

  void checkAgainstTransfers(const Access &access, ArrayRef<Pending> pendings) {
    Block *common = getCommonDestinationBlock(pendings);
    for (auto [position, pending] : llvm::enumerate(pendings)) {
      if (!common) {
        checkAgainstTransfer(access, pending);
        continue;
      }
      // The shared destination once, as written by whichever transfer runs;
      // the sources one by one.
      checkAgainstTransfer(access, pending,
                           position == 0 ? DestinationCheck::InBlock
                                         : DestinationCheck::None,
                           common, pendings);
    }
  }

  /// How the destination of a transfer is checked: as the transfer runs,
  /// as written in every execution of a block around it (one of several
  /// transfers into it runs there), or not (checked with another one).
  enum class DestinationCheck { Own, InBlock, None };

  void checkAgainstTransfer(
      const Access &access, const Pending &pending,
      DestinationCheck destinationCheck = DestinationCheck::Own,
      Block *block = nullptr, ArrayRef<Pending> alternatives = {}) {
    TransferAsyncOp transfer = pending.transfer;
    if (access.op == transfer || tokenReported.contains(access.op))
      return;
    PairRelation relation = PairRelation::sameInstance();
    relation.loops.assign(pending.loops.begin(), pending.loops.end());
    for (const Access *own : analysis.getAccesses(transfer)) {
      // The destination must not be touched, the source not written.
      if (!own->isWrite() && !access.isWrite())
        continue;
      if (own->isWrite() && destinationCheck == DestinationCheck::None)
        continue;
      Block *context =
          own->isWrite() && destinationCheck == DestinationCheck::InBlock
              ? block
              : nullptr;
      for (const Access::Candidate &candidate : own->candidates) {
        if (!access.touches(candidate.root))
          continue;
        CollisionResult result = analysis.findCollision(
            *own, access, candidate.root, relation, context);
        if (result.kind == CollisionResult::Disjoint)
          continue;
        tokenReported.insert(access.op);
        std::string what = own->isWrite()
                               ? (access.isWrite() ? "writes the destination"
                                                   : "reads the destination")
                               : "writes the source";
        auto addTransferNotes = [&](InFlightDiagnostic &diag) {
          if (!context) {
            diag.attachNote(transfer.getLoc()) << "the transfer starts here";
            return;
          }
          for (const Pending &alternative : alternatives)
            diag.attachNote(alternative.transfer->getLoc())
                << "the transfer starts here (one of them runs)";
        };
        if (result.kind == CollisionResult::Unknown) {
          InFlightDiagnostic diag = access.op->emitWarning()
                                    << "cannot prove that '"
                                    << access.op->getName() << "' "
                                    << "leaves the memory of a "
                                       "'vx.transfer_async' alone before its "
                                       "'vx.await': "
                                    << result.reason;
          addTransferNotes(diag);
          return;
        }
        analysis.minimizeWitness(result);
        InFlightDiagnostic diag = result.provenForAllValues
                                      ? access.op->emitError()
                                      : access.op->emitWarning();
        if (result.provenForAllValues)
          failed = true;
        diag << "'" << access.op->getName() << "' " << what
             << " of a 'vx.transfer_async' before its 'vx.await'"
             << formatAssumptions(result);
        addTransferNotes(diag);
        return;
      }
    }
  }

  /// The transfers a token yielded from `block` may stand for.
  static SmallVector<Pending, 1> getPendings(Value token,
                                             const TokenState &state) {
    if (auto it = state.find(token); it != state.end())
      return it->second.pendings;
    return {};
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
        state.insert({transfer.getToken(), {{{transfer, {}}}, true}});
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
      if (auto loop = dyn_cast<scf::ParallelOp>(op);
          loop && !crossesBoundary(loop)) {
        checkAccessesWhileOutstanding(&op, state);
        checkParallelIteration(loop);
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
        // Reported here: not again as never awaited, nor its results as
        // awaited more than once.
        op.walk([&](Operation *nested) {
          for (Value operand : nested->getOperands())
            state.remove_if(
                [&](const auto &entry) { return entry.first == operand; });
        });
        for (Value result : op.getResults())
          if (isToken(result))
            untrackedTokens.insert(result);
        continue;
      }
      if (op.getNumRegions() != 0)
        checkAccessesWhileOutstanding(&op, state);
    }
  }

  /// Whether a token crosses the boundary of `op`: one defined outside it
  /// is used inside, or one of its results is a token.
  static bool crossesBoundary(Operation *op) {
    if (llvm::any_of(op->getResults(), isToken))
      return true;
    return op
        ->walk([&](Operation *nested) {
          bool outer = llvm::any_of(nested->getOperands(), [&](Value operand) {
            return isToken(operand) &&
                   !op->isAncestor(operand.getParentBlock()->getParentOp());
          });
          return outer ? WalkResult::interrupt() : WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// Checks the tokens of one iteration of `loop`, whose tokens stay in
  /// their iteration: each iteration (in a CTA body, each thread for its
  /// iterations) awaits its own transfers.
  void checkParallelIteration(scf::ParallelOp loop) {
    TokenState state;
    checkBlock(*loop.getBody(), state);
    for (auto &[token, outstanding] : state)
      if (outstanding.consumable)
        reportNeverAwaited(token, "some path through an iteration of the "
                                  "'scf.parallel'");
  }

  /// The transfers that a value yielded by `loop`'s body may stand for,
  /// seen from the body's next iteration.
  static SmallVector<Pending, 1> withLoop(SmallVector<Pending, 1> pendings,
                                          Operation *loop,
                                          PairRelation::Loop order) {
    for (Pending &pending : pendings)
      pending.loops.push_back({loop, order});
    return pendings;
  }

  void checkLoop(scf::ForOp loop, TokenState &state) {
    using L = PairRelation::Loop;
    // What the body's yields stand for, found before checking the body so
    // that the carried tokens know their transfers.
    TokenState preview = state;
    SmallVector<SmallVector<Pending, 1>> initPendings, yieldedPendings;
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [position, init] : llvm::enumerate(loop.getInitArgs())) {
      initPendings.push_back(isToken(init) ? getPendings(init, state)
                                           : SmallVector<Pending, 1>());
      yieldedPendings.push_back(
          isToken(init) ? getStaticPendings(yield.getOperand(position), loop)
                        : SmallVector<Pending, 1>());
    }
    TokenState body;
    SmallVector<Value> awaitedOnce = getTokensAwaitedOnce(loop, state);
    for (auto &[token, outstanding] : state)
      body.insert({token,
                   {outstanding.pendings, false,
                    llvm::is_contained(awaitedOnce, token)}});
    for (auto [position, init] : llvm::enumerate(loop.getInitArgs())) {
      if (!isToken(init))
        continue;
      SmallVector<Pending, 1> carried =
          withLoop(initPendings[position], loop, L::First);
      llvm::append_range(
          carried, withLoop(yieldedPendings[position], loop, L::Successor));
      body.insert({loop.getRegionIterArgs()[position], {carried, true}});
    }
    for (Value init : loop.getInitArgs())
      if (isToken(init)) {
        consume(init, loop, state);
        body.erase(init);
      }
    for (Value token : awaitedOnce)
      state.erase(token);
    checkBlock(*loop.getBody(), body);
    for (Value yielded : yield.getOperands())
      if (isToken(yielded))
        consume(yielded, yield, body);
    for (auto &[token, outstanding] : body)
      if (outstanding.consumable)
        reportNeverAwaited(token, "the loop iteration that holds it (await "
                                  "it or carry it to the next iteration)");
    for (auto [position, result] : llvm::enumerate(loop.getResults())) {
      if (!isToken(result))
        continue;
      SmallVector<Pending, 1> after =
          withLoop(initPendings[position], loop, L::Empty);
      llvm::append_range(after,
                         withLoop(yieldedPendings[position], loop, L::Last));
      state.insert({result, {after, true}});
    }
  }

  /// The tokens from outside `loop` that its body awaits only under
  /// guards that hold in exactly one iteration: the first, in every
  /// instance, and the loop runs at least once (`if %k == 0 { vx.await }`).
  /// The tokens returned are consumed by the loop; what cannot be proven of
  /// them is reported.
  SmallVector<Value> getTokensAwaitedOnce(scf::ForOp loop,
                                          const TokenState &state) {
    SmallVector<Value> result;
    for (auto &[token, outstanding] : state) {
      if (!outstanding.consumable)
        continue;
      SmallVector<AwaitOp> awaits;
      for (Operation *user : token.getUsers())
        if (auto await = dyn_cast<AwaitOp>(user);
            await && loop->isProperAncestor(await))
          awaits.push_back(await);
      if (awaits.size() != 1)
        continue;
      AwaitOp await = awaits.front();
      // The scf.if guards between the loop body and the await.
      SmallVector<std::pair<Value, bool>> guards;
      bool onlyGuards = true;
      Operation *child = await;
      for (Operation *parent = await->getParentOp(); parent != loop;
           child = parent, parent = parent->getParentOp()) {
        auto branch = dyn_cast<scf::IfOp>(parent);
        if (!branch) {
          onlyGuards = false;
          break;
        }
        guards.push_back(
            {branch.getCondition(),
             branch.getThenRegion().isAncestor(child->getParentRegion())});
      }
      if (!onlyGuards || guards.empty())
        continue; // Awaited in every iteration: reported at the await.
      std::reverse(guards.begin(), guards.end());
      // Consumed by the loop either way; what cannot be proven is reported
      // here only.
      result.push_back(token);
      if (!isAwaitedExactlyOnce(loop, await, guards))
        continue;
      // Until the await, the transfer is outstanding in the first
      // iteration.
      checkBeforeGuardedAwait(loop, await, outstanding);
    }
    return result;
  }

  /// Whether the guarded `await` runs in the first iteration of `loop` and
  /// in no other, and the loop runs, in every instance; reports what fails.
  bool isAwaitedExactlyOnce(scf::ForOp loop, AwaitOp await,
                            ArrayRef<std::pair<Value, bool>> guards) {
    auto report = [&](CollisionResult result, StringRef what) {
      if (result.kind == CollisionResult::Collision &&
          result.provenForAllValues) {
        tokenError(await, what);
      } else {
        InFlightDiagnostic diag = await.emitWarning()
                                  << "cannot prove that the token is "
                                     "awaited exactly once: "
                                  << what;
        if (result.kind == CollisionResult::Unknown) {
          diag << " (" << result.reason << ")";
        } else {
          analysis.minimizeWitness(result);
          diag << formatAssumptions(result);
        }
      }
      return false;
    };
    Block *body = loop.getBody();
    // Two iterations reach the await.
    PairRelation later = PairRelation::sameInstance();
    later.withLoop(loop, PairRelation::Loop::Later);
    CollisionResult twice = analysis.findCoExecution(await, await, later);
    if (twice.kind != CollisionResult::Disjoint)
      return report(twice, "token is awaited more than once (in two "
                           "iterations of the loop)");
    // The first iteration misses it: some guard fails there.
    for (unsigned level = 0; level < guards.size(); ++level) {
      SmallVector<std::pair<Value, bool>> conditions(guards.begin(),
                                                     guards.begin() + level);
      conditions.push_back({guards[level].first, !guards[level].second});
      CollisionResult missed = analysis.findExecution(body, conditions, loop);
      if (missed.kind != CollisionResult::Disjoint)
        return report(missed, "token is never awaited on some path: the "
                              "first iteration of the loop does not reach "
                              "the await");
    }
    // The loop runs no iteration.
    CollisionResult empty =
        analysis.findExecution(loop->getBlock(), {}, nullptr, loop);
    if (empty.kind != CollisionResult::Disjoint)
      return report(empty, "token is never awaited on some path: the loop "
                           "may run no iteration");
    return true;
  }

  /// Checks the accesses of `loop`'s first iteration before `await` against
  /// the outstanding transfers.
  void checkBeforeGuardedAwait(scf::ForOp loop, AwaitOp await,
                               const Outstanding &outstanding) {
    SmallVector<Pending, 1> first =
        withLoop(outstanding.pendings, loop, PairRelation::Loop::First);
    TokenState window;
    window.insert({await.getToken(), {first, false}});
    // The ops before the await in its block and before each guard in theirs.
    for (Operation *marker = await;;) {
      Block *block = marker->getBlock();
      for (Operation &op : *block) {
        if (&op == marker)
          break;
        checkAccessesWhileOutstanding(&op, window);
      }
      if (block == loop.getBody())
        break;
      marker = block->getParentOp();
    }
  }

  /// The transfers a token value of `loop`'s body stands for, from its
  /// definition (transfers, and scf.if and scf.for results in the body).
  SmallVector<Pending, 1> getStaticPendings(Value token, scf::ForOp loop) {
    SmallVector<Pending, 1> result;
    SmallVector<std::pair<
        Value, SmallVector<std::pair<Operation *, PairRelation::Loop>, 1>>>
        stack{{token, {}}};
    unsigned steps = 0;
    while (!stack.empty() && ++steps < 64) {
      auto [value, loops] = stack.pop_back_val();
      Operation *def = value.getDefiningOp();
      if (auto transfer = dyn_cast_or_null<TransferAsyncOp>(def)) {
        result.push_back({transfer, loops});
        continue;
      }
      if (auto branch = dyn_cast_or_null<scf::IfOp>(def)) {
        unsigned position = cast<OpResult>(value).getResultNumber();
        stack.push_back({branch.thenYield().getOperand(position), loops});
        stack.push_back({branch.elseYield().getOperand(position), loops});
        continue;
      }
      if (auto inner = dyn_cast_or_null<scf::ForOp>(def)) {
        unsigned position = cast<OpResult>(value).getResultNumber();
        auto emptyLoops = loops;
        emptyLoops.push_back({inner, PairRelation::Loop::Empty});
        stack.push_back({inner.getInitArgs()[position], emptyLoops});
        auto lastLoops = loops;
        lastLoops.push_back({inner, PairRelation::Loop::Last});
        stack.push_back({inner.getBody()->getTerminator()->getOperand(position),
                         lastLoops});
        continue;
      }
      // The loop's own iteration argument carried unchanged: the transfers
      // of earlier iterations, at any distance.
      if (auto arg = dyn_cast<BlockArgument>(value);
          arg && arg.getOwner() == loop.getBody()) {
        OpOperand *init = loop.getTiedLoopInit(arg);
        if (init)
          if (auto transfer = init->get().getDefiningOp<TransferAsyncOp>())
            result.push_back({transfer, loops});
      }
    }
    return result;
  }

  void checkIf(scf::IfOp branch, TokenState &state) {
    SmallVector<TokenState, 2> branches;
    SmallVector<SmallVector<Pending, 1>> resultPendings(branch.getNumResults());
    for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()}) {
      TokenState &branchState = branches.emplace_back(state);
      if (region->empty())
        continue;
      Block &block = region->front();
      checkBlock(block, branchState);
      for (auto [position, yielded] :
           llvm::enumerate(block.getTerminator()->getOperands())) {
        if (!isToken(yielded))
          continue;
        llvm::append_range(resultPendings[position],
                           getPendings(yielded, branchState));
        consume(yielded, block.getTerminator(), branchState);
      }
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
      for (const Pending &pending : outstanding.pendings)
        diag.attachNote(pending.transfer->getLoc())
            << "the transfer starts here";
      // Reported: do not report it again as never awaited.
      branches[0].erase(token);
      branches[1].erase(token);
    }
    state = branches[0];
    for (auto [position, result] : llvm::enumerate(branch.getResults()))
      if (isToken(result))
        state.insert({result, {resultPendings[position], true}});
  }

  SpawnOp spawn;
  bool allowRaces;
  int64_t threadsPerBlock;
  /// The threads of the CTA that runs an instance.
  int64_t ctaSize;
  SpawnAnalysis &analysis;
  SmallVector<MemoryRoot> sharedRoots;
  llvm::SmallPtrSet<Operation *, 8> raced, warned, tokenReported;
  bool failed = false;
};

/// The aliasing contract at call sites: distinct memref arguments of a
/// function with spawns do not overlap. `mayBeWritten` tells whether a spawn
/// may write a root.
LogicalResult
checkCallSites(Operation *root, bool allowRaces,
               function_ref<bool(SpawnOp, const MemoryRoot &)> mayBeWritten) {
  bool failed = false;
  SymbolTableCollection symbols;
  root->walk([&](CallOpInterface call) {
    auto callee = dyn_cast_or_null<FunctionOpInterface>(
        call.resolveCallableInTable(&symbols));
    if (!callee || callee.isExternal())
      return;
    SmallVector<SpawnOp> spawns;
    callee->walk([&](SpawnOp spawn) { spawns.push_back(spawn); });
    if (spawns.empty())
      return;
    ValueRange operands = call.getArgOperands();
    // A memref root of each argument (its only one), as the caller sees it.
    SmallVector<std::optional<Access::Candidate>> roots;
    for (Value operand : operands) {
      roots.emplace_back();
      if (!isa<MemRefType>(operand.getType()))
        continue;
      SmallVector<Access::Candidate, 1> candidates =
          traceMemoryRoots(operand, spawns.front());
      if (candidates.size() == 1 &&
          candidates.front().root.kind != MemoryRoot::Kind::Unknown)
        roots.back() = candidates.front();
    }
    // Whether a spawn of the callee writes argument `position`.
    auto isWritten = [&](unsigned position) {
      Value argument = callee.getArgument(position);
      MemoryRoot root{MemoryRoot::Kind::Captured, argument, {}};
      return llvm::any_of(
          spawns, [&](SpawnOp spawn) { return mayBeWritten(spawn, root); });
    };
    for (unsigned first = 0; first < operands.size(); ++first) {
      for (unsigned second = first + 1; second < operands.size(); ++second) {
        if (!roots[first] || !roots[second] ||
            !(roots[first]->root == roots[second]->root))
          continue;
        if (!isWritten(first) && !isWritten(second))
          continue;
        bool identical = operands[first] == operands[second];
        bool error = identical && !allowRaces;
        failed |= error;
        InFlightDiagnostic diag =
            error ? call->emitError() : call->emitWarning();
        diag << (identical ? "passes one buffer" : "passes views of one buffer")
             << " as arguments " << first << " and " << second << " of @"
             << callee.getName()
             << ", whose spawns write one of them and assume distinct memref "
                "arguments do not overlap";
        diag.attachNote(spawns.front().getLoc()) << "the spawn";
      }
    }
  });
  return failure(failed);
}

struct VxVerifySemanticsPass
    : public vx::impl::VxVerifySemanticsBase<VxVerifySemanticsPass> {
  using VxVerifySemanticsBase::VxVerifySemanticsBase;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(checkPassOption(root, getArgument(),
                               checkThreadsPerBlockOption(threadsPerBlock))))
      return signalPassFailure();
    auto getSpawnAnalysis = [&](SpawnOp spawn) -> SpawnAnalysis & {
      return SpawnAnalyses::getFor(spawn, root, getAnalysisManager())
          .get(spawn);
    };
    FailureOr<TileOpsOptions> tileOps = parseTileOpsOptions(
        root, getArgument(), chip, threadsPerBlock, /*tf32=*/false);
    if (failed(tileOps))
      return signalPassFailure();
    bool anyFailed = false;
    // Collected first: checking a spawn with tile ops or affine.parallel
    // inserts (and erases) a copy of it.
    SmallVector<SpawnOp> spawns;
    root->walk([&](SpawnOp spawn) { spawns.push_back(spawn); });
    for (SpawnOp spawn : spawns)
      anyFailed |= failed(verifyMemoryRootsTraceable(spawn)) ||
                   failed(checkAsMapped(spawn, *tileOps, getSpawnAnalysis));
    auto mayBeWritten = [&](SpawnOp spawn, const MemoryRoot &memory) {
      // A callee outside this pass's op (a function pass) is not its to
      // cache.
      if (!root->isAncestor(spawn))
        return SpawnAnalysis(spawn).mayBeWritten(memory);
      return getSpawnAnalysis(spawn).mayBeWritten(memory);
    };
    if (failed(checkCallSites(root, allowRaces, mayBeWritten)))
      anyFailed = true;
    if (anyFailed)
      signalPassFailure();
    // Diagnostics only: the IR and the cached analyses stay as they are.
    markAllAnalysesPreserved();
  }

  /// Checks `spawn` as the GPU routes run it: its tile ops modelled element
  /// by element, as the thread loops that vx-distribute-tile-ops makes of
  /// them, and its affine.parallel ops as the scf.parallel thread loops that
  /// every route lowers them to, on a copy that is then erased (the
  /// rewrites keep the locations for the diagnostics).
  LogicalResult
  checkAsMapped(SpawnOp spawn, const TileOpsOptions &tileOps,
                llvm::function_ref<SpawnAnalysis &(SpawnOp)> getSpawnAnalysis) {
    bool hasTileOps = !getTileOps(spawn).empty();
    bool hasThreadLoopsToLower = hasAffineParallel(spawn);
    if (!hasTileOps && !hasThreadLoopsToLower)
      return SpawnChecker(spawn, getSpawnAnalysis(spawn), allowRaces,
                          threadsPerBlock)
          .check();
    OpBuilder builder(spawn);
    builder.setInsertionPointAfter(spawn);
    auto copy = cast<SpawnOp>(builder.clone(*spawn));
    IRRewriter rewriter(builder);
    LogicalResult result =
        hasTileOps ? distributeTileOps(rewriter, copy, tileOps) : success();
    if (succeeded(result) && hasThreadLoopsToLower)
      result = lowerAffineInSpawns(copy);
    if (succeeded(result)) {
      // The copy is short-lived: its analysis is not the cache's.
      SpawnAnalysis analysis(copy);
      result =
          SpawnChecker(copy, analysis, allowRaces, threadsPerBlock).check();
    }
    rewriter.eraseOp(copy);
    return result;
  }
};

} // namespace

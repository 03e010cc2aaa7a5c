//===- SpawnAnalysis.h - Which elements two executions touch ----*- C++ -*-===//
//
// The memory accesses of a spawn body and exact questions about them: can
// two instances (or two iterations of a thread loop, or two threads of one
// instance) touch one element? vx-verify-semantics asks them to prove the
// dimension-semantics contract; the CTA mapping asks them to place barriers
// and to keep private scratch per thread.
//
// Every integer value of the body is a term of one integer system (MLIR's
// Presburger library) with the real semantics of its ops: bit widths and
// wrap-around, signed and unsigned readings, division and remainder of
// possibly negative values, conditions of every control op around an
// access. What the model cannot compute is a column of its own: when such a
// column decides a query the answer is Unknown, never a guess. A collision
// found exactly is `provenForAllValues` when it exists for every value of
// the captured scalars the system reads (dynamic grid sizes are chosen by
// the witness); otherwise the witness names the values it assumes.
//
// Memory is described by roots: allocations made in the body (vx.scratch,
// memref.alloca, memref.alloc) are per instance; everything else (arguments,
// globals, buffers allocated above the spawn) is captured, and a memref the
// model cannot trace (a call result, a cast from another type) may be any
// captured buffer. Distinct memref arguments of the function around a spawn
// do not overlap (docs/design.md, "Aliasing").
//
//===----------------------------------------------------------------------===//

#ifndef VX_ANALYSIS_SPAWNANALYSIS_H
#define VX_ANALYSIS_SPAWNANALYSIS_H

#include "Vx/VxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Value.h"
#include "mlir/Pass/AnalysisManager.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
namespace vx {

/// The allocation or captured buffer under a memref.
struct MemoryRoot {
  enum class Kind {
    /// `vx.scratch` (private or smem): one per parallel point.
    Scratch,
    /// `memref.alloca` or `memref.alloc` in the body: one per execution.
    Allocation,
    /// A function argument or a buffer allocated above the spawn.
    Captured,
    /// A `memref.get_global` (in or above the body) of `global`.
    Global,
    /// A memref the model cannot trace: may be any captured buffer.
    Unknown,
  };
  Kind kind;
  /// The allocation or argument (null for Global and Unknown).
  Value value;
  /// Global: the symbol.
  StringAttr global;

  /// Memory that other instances can see.
  bool isShared() const {
    return kind == Kind::Captured || kind == Kind::Global ||
           kind == Kind::Unknown;
  }
  /// Whether the two roots can be the same memory.
  bool mayAlias(const MemoryRoot &other) const;
  bool operator==(const MemoryRoot &other) const {
    return kind == other.kind && value == other.value && global == other.global;
  }
  /// "%arg0", "@table", "scratch at <loc>" for messages.
  std::string describe() const;
};

/// How an access touches its elements.
enum class AccessKind {
  Read,
  Write,
  /// A commutative atomic update (`memref.atomic_rmw addf` and the like,
  /// whose result is unused, or a `generic_atomic_rmw` whose body is one
  /// such update): updates of one kind commute; they race with every other
  /// access of the element.
  AtomicUpdate,
};

/// One memory access of a spawn body: `indices` of `buffer`, widened by a
/// vector shape along the trailing dimensions, or every element of it.
struct Access {
  Operation *op;
  Value buffer;
  AccessKind kind;
  /// The atomic kind of an AtomicUpdate (updates of equal kinds commute).
  std::optional<arith::AtomicRMWKind> atomicKind;
  SmallVector<Value> indices;
  /// `indices` are those of an affine map applied to these operands
  /// (affine.load/store).
  AffineMap map;
  bool wholeBuffer = false;
  SmallVector<int64_t> vectorShape;
  /// The memory the access may touch, each with the conditions under which
  /// `buffer` is a view of it (select and scf.if operands).
  struct Candidate {
    MemoryRoot root;
    /// The chain of views from `buffer` down to `base`.
    SmallVector<Operation *, 2> views;
    /// The root's allocation, argument or `memref.get_global` result.
    Value base;
    /// (condition, truth) pairs that select this root.
    SmallVector<std::pair<Value, bool>, 1> conditions;
    /// Why the address within the root is not modelled.
    std::optional<std::string> unmodelled;
    /// Why the root is chosen under conditions the model does not see (a
    /// memref carried through a loop or returned by a callee): the access
    /// may touch the root, but need not.
    std::optional<std::string> approximation;
    /// An Unknown root reached from the body or a callee: memory that may
    /// be per instance or per thread (verifyMemoryRootsTraceable refuses
    /// it).
    bool untraceable = false;
  };
  SmallVector<Candidate, 1> candidates;
  /// Why the access is not modelled at all (unknown write effects).
  std::optional<std::string> unmodelled;
  /// The thread loop around the access, if any.
  scf::ParallelOp threadLoop;

  bool isWrite() const { return kind != AccessKind::Read; }
  bool touches(const MemoryRoot &root) const;
};

/// Limits on the work of one spawn's analysis; beyond them answers are
/// Unknown.
struct AnalysisBudget {
  /// Alternatives explored per query (case splits of conditions,
  /// divisions, instances that differ).
  unsigned maxAlternatives = 256;
  /// Columns of one query's system.
  unsigned maxColumns = 160;
  /// Columns of one connected part of a system with wrap-around
  /// coefficients (beyond 2^32).
  unsigned maxWideColumns = 12;
  /// Pairs of accesses decided one by one per spawn and rule.
  unsigned maxPairs = 20000;
  /// Captured scalars over which a collision is checked to hold for every
  /// value.
  unsigned maxUniversalColumns = 4;
  /// Values of those scalars tried one by one to prove that a collision
  /// holds for every value (beyond them it is reported as possible).
  unsigned maxForAllPoints = 64;
  /// Integer samples (the costly step) of all the queries of one spawn, in
  /// units: a sample with wrap-around coefficients (beyond 2^32) over c
  /// columns costs 2^(c - 6) from 7 columns on, any other one 1.
  unsigned maxSamples = 150;
  /// Columns of one sampled system with wrap-around coefficients (after
  /// unit equalities are eliminated).
  unsigned maxSampleColumns = 10;
  /// Integer samples, in the same units, of the search for small values in
  /// one witness that a message prints (SpawnAnalysis::minimizeWitness):
  /// a budget of its own, so that the verdicts do not depend on which
  /// witnesses are printed.
  unsigned maxWitnessSamples = 16;
};

/// How the two executions of a query are related.
struct PairRelation {
  enum class Grid {
    /// The instances differ in some parallel dimension (a race).
    DifferentParallelPoints,
    /// The instances agree in the parallel dimensions before `dim` and
    /// differ in `dim` (one case of DifferentParallelPoints).
    FirstDifferenceAt,
    /// The instances differ in `dim`; with `sameParallelPoint` they agree
    /// in every parallel dimension.
    AlongDimension,
    /// One instance.
    SameInstance,
    /// The same parallel point, any arbitrary coordinates.
    SameParallelPoint,
    /// The same parallel point; the arbitrary coordinates of the second
    /// are later in grid order, or equal when `allowEqual`.
    LaterArbitraryStep,
  };
  /// How a loop around the accesses relates their iterations; loops around
  /// both that are not listed run the same iteration in a SameInstance
  /// query and any iteration otherwise.
  enum class Loop {
    Same,
    /// The second access runs in the iteration after the first's.
    Successor,
    /// The first access runs in the last iteration (the loop encloses only
    /// the first).
    Last,
    /// The second access runs in the first iteration (the loop encloses
    /// only the second).
    First,
    /// The second access runs in a later iteration.
    Later,
    /// Any iterations (also for loops around both in SameInstance).
    Any,
    /// The loop (around neither access, before the second) runs no
    /// iteration.
    Empty,
  };
  /// Threads of one instance (the CTA mapping): iteration i of a thread loop
  /// runs on thread i mod N (row-major over its dimensions); code outside
  /// thread loops runs on every thread.
  enum class Threads {
    Any,
    /// Both accesses in `threadLoop`: different iterations of one
    /// execution of it.
    DifferentIterations,
    /// Different linear iterations of their thread loops (any N).
    DifferentLinearIterations,
    /// Different threads for `numThreads` threads.
    DifferentThreads,
  };

  Grid grid = Grid::DifferentParallelPoints;
  unsigned dim = 0;
  bool sameParallelPoint = false;
  bool allowEqual = false;
  SmallVector<std::pair<Operation *, Loop>, 2> loops;
  Threads threads = Threads::Any;
  scf::ParallelOp threadLoop;
  unsigned numThreads = 0;
  /// DifferentThreads: the side (0: first, 1: second) runs on thread 0
  /// alone where it is outside thread loops (a write of memory the threads
  /// share, which the CTA mapping guards on thread 0).
  std::array<bool, 2> onThreadZero = {false, false};

  static PairRelation differentParallelPoints() { return {}; }
  static PairRelation alongDimension(unsigned dim, bool sameParallelPoint) {
    PairRelation relation;
    relation.grid = Grid::AlongDimension;
    relation.dim = dim;
    relation.sameParallelPoint = sameParallelPoint;
    return relation;
  }
  static PairRelation sameInstance() {
    PairRelation relation;
    relation.grid = Grid::SameInstance;
    return relation;
  }
  PairRelation &withLoop(Operation *loop, Loop order) {
    loops.push_back({loop, order});
    return *this;
  }
};

namespace detail {
struct WitnessSearch;
} // namespace detail

/// The answer to "can the first access (side 0) and the second (side 1)
/// touch one element?".
struct CollisionResult {
  enum Kind { Disjoint, Collision, Unknown } kind = Unknown;
  /// Collision: it exists for every value of the captured scalars that the
  /// system reads; otherwise `assumptions` names the values of the witness.
  bool provenForAllValues = false;
  /// The grid coordinates of both sides.
  SmallVector<int64_t> instance0, instance1;
  /// The induction variables of the thread loops of both sides, if any.
  SmallVector<int64_t> iteration0, iteration1;
  /// The threads of both sides (Threads::DifferentThreads).
  std::optional<int64_t> thread0, thread1;
  /// The element both touch: its linear offset in the root (static
  /// strides) or its index along each dimension; empty when not affine.
  SmallVector<int64_t> element;
  /// Values of captured scalars and dynamic grid sizes the witness needs.
  SmallVector<std::pair<Value, APInt>> assumptions;
  /// Collision: the witness reads a value whose signed reading wraps around
  /// (its arithmetic overflows); `wrappingOps` names the ops that compute
  /// such values (none for an affine map's result).
  bool wrapsAround = false;
  SmallVector<Operation *, 1> wrappingOps;
  /// Unknown: why.
  std::string reason;
  /// Collision: where to look for a witness with smaller sizes and scalars
  /// (SpawnAnalysis::minimizeWitness); null where the witness's are small
  /// already, or once minimized.
  std::shared_ptr<const detail::WitnessSearch> witnessSearch;
};

/// Whether a private scratch used in thread loops is owned by threads.
struct OwnershipResult {
  enum Kind {
    /// Every element is touched by one linear iteration index only: owned
    /// for any number of threads.
    OwnedForAnyThreadCount,
    /// Owned exactly for the thread counts in `threadCounts` (1 to 1024).
    OwnedForSomeThreadCounts,
    /// Owned for no thread count above 1.
    NotOwned,
    Unknown,
  } kind = Unknown;
  SmallVector<unsigned> threadCounts;
  /// A witness of two iterations on different threads touching one element
  /// (for NotOwned, with threads for the smallest count that fails).
  const Access *first = nullptr, *second = nullptr;
  CollisionResult witness;
  std::string reason;
};

namespace detail {
class IntegerModel;
class QueryBuilder;
} // namespace detail

/// The accesses of one spawn and the queries over them. Per-access systems
/// are built once and cached; queries copy two of them.
class SpawnAnalysis {
public:
  explicit SpawnAnalysis(SpawnOp spawn, AnalysisBudget budget = {});
  ~SpawnAnalysis();
  SpawnAnalysis(SpawnAnalysis &&) noexcept;

  SpawnOp getSpawn() const { return spawn; }
  ArrayRef<Access> getAccesses() const { return accesses; }
  /// The accesses of `op` (one per memref operand it touches).
  ArrayRef<const Access *> getAccesses(Operation *op) const;
  /// The thread loops of the body: its scf.parallel ops not inside another
  /// scf.parallel of the body (VX_SPEC 2.1).
  ArrayRef<scf::ParallelOp> getThreadLoops() const { return threadLoops; }
  /// Whether any access of the body may write `root` (or memory that may
  /// alias it).
  bool mayBeWritten(const MemoryRoot &root) const;

  /// Can `first` (side 0) and `second` (side 1) touch one element of
  /// `root`, for executions related by `relation`? With `firstContext` (a
  /// block around `first`'s, with only `scf.if` ops between them), side 0
  /// is any execution of that block: the branch conditions are dropped, for
  /// an access that one of the branches makes whichever runs.
  CollisionResult findCollision(const Access &first, const Access &second,
                                const MemoryRoot &root,
                                const PairRelation &relation,
                                Block *firstContext = nullptr);

  /// The first collision between an access of `firsts` and one of
  /// `seconds` on `root` (pairs with `skip` true are left out), trying a
  /// summary of each group of accesses that differ only in constant
  /// offsets before the pairs. Unknown answers are reported through
  /// `onUnknown` and the search goes on.
  struct PairCollision {
    const Access *first, *second;
    CollisionResult result;
  };
  SmallVector<PairCollision, 0>
  findCollisions(ArrayRef<const Access *> firsts,
                 ArrayRef<const Access *> seconds, const MemoryRoot &root,
                 const PairRelation &relation,
                 function_ref<bool(const Access *, const Access *)> skip,
                 bool stopAtFirst);

  /// (a) Two iterations of one execution of `loop` touching one element
  /// (one of them writing): a violation of scf.parallel's contract.
  CollisionResult findIterationConflict(const Access &first,
                                        const Access &second,
                                        const MemoryRoot &root,
                                        scf::ParallelOp loop);

  /// (b) Whether `scratch` (private) is owned by threads: every element
  /// touched by thread-loop iterations that run on one thread, for
  /// `numThreads` (or every thread count 1-1024 when absent; with
  /// `numThreads`, OwnedForAnyThreadCount where every count owns it). Once-
  /// per-instance code runs on every thread: its writes keep every thread's
  /// copy whole; its reads of elements that thread loops write break
  /// ownership.
  OwnershipResult checkOwnership(ScratchOp scratch,
                                 std::optional<unsigned> numThreads);
  /// The same for `root`, a scratch buffer or an allocation of the body.
  OwnershipResult checkOwnership(const MemoryRoot &root,
                                 std::optional<unsigned> numThreads);

  /// (c) For barrier placement: can `earlier` and `later` (run after it in
  /// the same instance, or in a later arbitrary step when `acrossSteps`)
  /// touch one element of `root` from different threads, with
  /// `numThreads` threads (0: any)? `loops` relates their iterations of
  /// the loops around them (default: the same iteration). `onThreadZero`
  /// (earlier, later): the side runs on thread 0 alone outside thread loops.
  CollisionResult findCrossThreadDependence(
      const Access &earlier, const Access &later, const MemoryRoot &root,
      unsigned numThreads, bool acrossSteps,
      ArrayRef<std::pair<Operation *, PairRelation::Loop>> loops = {},
      std::array<bool, 2> onThreadZero = {false, false});

  /// Whether `first` and `second` can both run, for executions related by
  /// `relation` (their addresses aside).
  CollisionResult findCoExecution(Operation *first, Operation *second,
                                  const PairRelation &relation);

  /// Whether code in `block` can run where each of `conditions` (an i1 of
  /// the body and its truth) holds, with `firstIterationOf` (a loop around
  /// `block`, if any) in its first iteration and `emptyLoop` (an scf.for in
  /// `block`, if any) running no iteration. Collision: such an execution
  /// exists (for every value of the captured scalars when proven).
  CollisionResult findExecution(Block *block,
                                ArrayRef<std::pair<Value, bool>> conditions,
                                Operation *firstIterationOf = nullptr,
                                scf::ForOp emptyLoop = {});

  /// The grid dimensions that the address, the control and the memory
  /// reads of `access` depend on, and whether it depends on anything that
  /// differs within an instance.
  std::pair<llvm::SmallBitVector, bool> getDependences(const Access &access);

  /// Replaces the witness of a Collision by one whose dynamic sizes and
  /// captured scalars are small (each within 2, 8, 2^16 or 2^40 of zero,
  /// the first bound that has one), where the witness budget admits the
  /// search: for a witness that a message prints, whose values people read.
  /// The queries leave their witnesses as found, and their sample budget to
  /// the verdicts.
  void minimizeWitness(CollisionResult &result);

  /// Lowers the integer samples left to later queries to at most `samples`
  /// (optional work, such as remarks, gets a small share).
  void limitSamples(unsigned samples);
  /// Gives later queries the whole sample budget again: a new client of a
  /// cached analysis does not inherit what earlier clients spent (samples
  /// already taken stay cached and cost nothing).
  void resetSamples();

  /// The thread loop around `op` in `spawn`, if any.
  static scf::ParallelOp getThreadLoop(Operation *op, SpawnOp spawn);

private:
  void collectAccesses();

  SpawnOp spawn;
  AnalysisBudget budget;
  SmallVector<Access, 0> accesses;
  DenseMap<Operation *, SmallVector<const Access *, 2>> accessesByOp;
  SmallVector<scf::ParallelOp> threadLoops;
  std::unique_ptr<detail::IntegerModel> model;
  std::unique_ptr<detail::QueryBuilder> queries;
};

/// The SpawnAnalysis of each `vx.spawn` in an op (a function), built on
/// first use and kept while the IR is unchanged: an MLIR analysis, cached by
/// a pass's AnalysisManager and preserved by passes that do not change the
/// IR (vx-verify-semantics), so that later passes and repeated questions
/// (every call site of a function) do not rebuild it.
class SpawnAnalyses {
public:
  /// Analyses are built per spawn, on first use.
  explicit SpawnAnalyses(Operation *) {}

  /// The analysis of `spawn`, a spawn in the op (the key of the cache).
  SpawnAnalysis &get(SpawnOp spawn);

  /// The analyses of the function around `spawn` (of `root` itself where no
  /// function below `root` holds it), from `manager`, the analysis manager
  /// of a pass on `root`.
  static SpawnAnalyses &getFor(SpawnOp spawn, Operation *root,
                               AnalysisManager manager);

private:
  DenseMap<Operation *, std::unique_ptr<SpawnAnalysis>> analyses;
};

/// The memory roots of a memref value of `spawn`'s function, every
/// candidate that a choice can reach: through views and casts,
/// `arith.select` and `scf.if` results (with their conditions), the results
/// and region arguments of other region-branching ops (scf.for iter_args,
/// scf.while, scf.index_switch, ...) and calls of functions of the module.
/// The one model of "which memory" for the checker, detect-races, the CTA
/// mapping and the pipelining legality check.
SmallVector<Access::Candidate, 1> traceMemoryRoots(Value memref, SpawnOp spawn);

/// Emits an error at the first op of `spawn`'s body that uses a memref
/// whose roots cannot be followed where they may be memory of the body (a
/// memref loaded from memory, returned by an external call, made by an
/// unknown op), and fails then.
LogicalResult verifyMemoryRootsTraceable(SpawnOp spawn);

} // namespace vx
} // namespace mlir

#endif // VX_ANALYSIS_SPAWNANALYSIS_H

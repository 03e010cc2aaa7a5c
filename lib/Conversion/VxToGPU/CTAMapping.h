//===- CTAMapping.h - One grid instance on a whole CTA ----------*- C++ -*-===//
//
// The pieces of vx-map-cta that map a cooperative spawn body (one
// with thread loops, VX_SPEC 2.1) onto the threads of a CTA. They rewrite
// the body in place, before the spawn becomes a gpu.launch, into the code
// that every thread runs: `gpu.thread_id x` picks a thread's share of each
// thread loop, reductions combine across the CTA, side effects outside
// thread loops happen once, owned private scratch keeps each thread's part,
// and `gpu.barrier` separates accesses that cross threads.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_VXTOGPU_CTAMAPPING_H
#define LIB_CONVERSION_VXTOGPU_CTAMAPPING_H

#include "Vx/Analysis/InstanceMemory.h"
#include "Vx/Conversion/VxToSCF/VxToSCF.h"
#include "Vx/Target/Chip.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include <vector>

namespace mlir {
namespace vx {
class SpawnAnalysis;
struct MemoryRoot;

/// The thread loops of `spawn`: its scf.parallel ops that are not inside
/// another scf.parallel of the body, in program order.
SmallVector<scf::ParallelOp> getThreadLoops(SpawnOp spawn);

/// Rewrites the body of `spawn` (a device spawn with thread loops) into the
/// code each of its CTA's `numThreads` threads runs. Transfers that the
/// threads now copy together get `vx.copy_threads = numThreads`. Reports
/// what cannot be mapped (the pass then fails). The barriers are planned
/// for the transfers that vx-pipeline-transfers would pipeline on `chip`.
LogicalResult mapInstanceOntoCTA(SpawnOp spawn, int64_t numThreads,
                                 const Chip *chip);

/// Marks `transfer` as copied by the `numThreads` threads of its CTA
/// together (`vx.copy_threads`).
void setCopyThreads(Operation *transfer, int64_t numThreads);

//===----------------------------------------------------------------------===//
// Thread loops (ThreadLoops.cpp)
//===----------------------------------------------------------------------===//

/// The number of iterations of `loop`, when its bounds are constants.
std::optional<int64_t> getStaticIterationCount(scf::ParallelOp loop);

/// Whether the reductions of `loop` combine the warps' values through shared
/// memory, with a barrier between the writes and the reads (more than one
/// warp, or values that a warp shuffle cannot carry).
bool reducesThroughSharedMemory(scf::ParallelOp loop, int64_t numThreads);

/// Reports a reduction of `loop` that cannot be combined across
/// `numThreads` threads.
LogicalResult checkThreadLoopReductions(scf::ParallelOp loop,
                                        int64_t numThreads);

/// Replaces `loop` by the loops over this thread's share of its iterations
/// (nested scf.parallel ops stay sequential in the thread) and its
/// reductions by reductions across the CTA, whose shared-memory scratch is
/// added to `spawn`. Returns the round of the thread's iteration (its rank
/// among the thread's own iterations), which indexes owned scratch.
Value distributeThreadLoop(RewriterBase &rewriter, SpawnOp spawn,
                           scf::ParallelOp loop, ThreadShare share);

//===----------------------------------------------------------------------===//
// Barriers (Barriers.cpp)
//===----------------------------------------------------------------------===//

/// When a planned barrier holds: always, or only where vx-pipeline-transfers
/// does (or does not) take the transfers it was planned around.
enum class BarrierCondition { Always, IfPipelined, UnlessPipelined };

/// A `gpu.barrier` that the CTA mapping places, and why.
struct PlannedBarrier {
  /// The op of the body before which it runs (a block's terminator for its
  /// end).
  Operation *before;
  /// The dependence it orders, for its remark.
  std::string reason;
  BarrierCondition condition;
};

/// The barriers of `spawn`'s body: before each access that may touch an
/// element that another thread accessed since the last barrier, one of them
/// a write, also across the iterations of loops and arbitrary steps.
/// `onceEffects` are the ops outside thread loops that run on thread 0
/// alone. With `pipelinable` (the transfers that vx-pipeline-transfers
/// would take, in program order), the barriers where the plan for their
/// pipelined schedule differs from the plain one are conditional.
SmallVector<PlannedBarrier> planBarriers(SpawnOp spawn, SpawnAnalysis &analysis,
                                         int64_t numThreads,
                                         ArrayRef<Operation *> onceEffects,
                                         ArrayRef<TransferAsyncOp> pipelinable);

/// The remark category of the barriers' reasons
/// (`--remarks-filter=vx-barriers`).
inline constexpr StringLiteral kBarrierRemarkCategory = "vx-barriers";
/// On a `gpu.barrier` of the CTA mapping that holds only where the
/// pipelining takes (does not take) the marked transfers: its reason.
inline constexpr StringLiteral kIfPipelinedAttrName = "vx.if_pipelined";
inline constexpr StringLiteral kUnlessPipelinedAttrName = "vx.unless_pipelined";
/// On the transfers that the conditional barriers were planned around.
inline constexpr StringLiteral kPipelinableAttrName = "vx.pipelinable";

/// An analysis remark at `barrier` saying why it is there.
void remarkBarrier(gpu::BarrierOp barrier, const Twine &reason);

/// `'memref.store' (line 12)`: an op for a remark.
std::string describeOp(Operation *op);

/// After vx-pipeline-transfers on `spawn`: keeps the conditional barriers
/// that hold (`pipelined`: it pipelined transfers; `asPlanned`: exactly the
/// marked ones; where it pipelined others, both kinds stay), with their
/// remarks, and drops the marks.
void resolvePipelineBarriers(SpawnOp spawn, bool pipelined, bool asPlanned);

//===----------------------------------------------------------------------===//
// Owned private scratch (OwnedScratch.cpp)
//===----------------------------------------------------------------------===//

/// Reports each private scratch of `spawn` used in thread loops that its
/// `numThreads` threads are not proven to own (VX_SPEC 2.1): the mapping
/// would give other threads' elements to a thread that never wrote them.
LogicalResult checkOwnedScratch(SpawnOp spawn, SpawnAnalysis &analysis,
                                int64_t numThreads);

/// How the private scratch buffers of a cooperative body are split between
/// the threads that own their elements.
class OwnedScratchSplit {
public:
  /// Decides, for each private scratch used in thread loops (owned:
  /// checkOwnedScratch), how each thread keeps only its part; remarks on
  /// buffers that keep a whole copy per thread, and why.
  OwnedScratchSplit(SpawnOp spawn, SpawnAnalysis &analysis, int64_t numThreads);
  ~OwnedScratchSplit();

  /// Shrinks the split buffers to one thread's part and rewrites their
  /// accesses, once the thread loops are distributed: `rounds` maps each
  /// original thread loop to the round of its thread's iteration. Unrolls
  /// the small loops whose induction variables index the parts, so that
  /// they become registers.
  void apply(RewriterBase &rewriter,
             const DenseMap<Operation *, Value> &rounds);

  struct Plan;

private:
  std::vector<Plan> plans;
};

/// Remarks on each private scratch of `spawn` that a load or store indexes
/// with a value that is not a constant (a loop left rolled, a value known
/// at run time only): LLVM keeps it in local memory, not in registers.
void remarkScratchInLocalMemory(SpawnOp spawn);

} // namespace vx
} // namespace mlir

#endif // LIB_CONVERSION_VXTOGPU_CTAMAPPING_H

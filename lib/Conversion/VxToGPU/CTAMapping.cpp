//===- CTAMapping.cpp - One grid instance on a whole CTA ------------------===//
//
// vx-map-cta, the second step of the GPU mapping.
//
// A cooperative body (one with thread loops) runs on every thread of its
// CTA. Its code outside thread loops computes the same values on every
// thread (its control flow never depends on the thread), so that barriers
// may go anywhere in it, and its writes of memory that other threads see
// happen once, on thread 0. A copy outside thread loops into such memory
// is the whole CTA's: memref.copy becomes a thread loop, and transfers
// spread their chunks over the threads when they are lowered.
//
//===----------------------------------------------------------------------===//

#include "CTAMapping.h"
#include "LaunchPlan.h"
#include "PipelineTransfers.h"
#include "Vx/Analysis/InstanceMemory.h"
#include "Vx/Analysis/SpawnAnalysis.h"
#include "Vx/Conversion/VxToGPU/VxToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXMAPCTA
#include "Vx/Conversion/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

SmallVector<scf::ParallelOp> vx::getThreadLoops(SpawnOp spawn) {
  SmallVector<scf::ParallelOp> loops;
  spawn.getBody().walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
    loops.push_back(loop);
    return WalkResult::skip();
  });
  return loops;
}

/// Whether `memref`, in `spawn`, may be memory that other threads see.
static bool mayBeSharedByThreads(Value memref, SpawnOp spawn) {
  return llvm::any_of(traceMemoryRoots(memref, spawn),
                      [](const Access::Candidate &candidate) {
                        return isSharedByThreads(candidate.root);
                      });
}

/// Rewrites the memref.copy ops outside thread loops whose target other
/// threads see into thread loops, which spread the elements over the CTA.
static void rewriteSharedCopies(RewriterBase &rewriter, SpawnOp spawn) {
  SmallVector<memref::CopyOp> copies;
  spawn.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<scf::ParallelOp>(op))
      return WalkResult::skip();
    if (auto copy = dyn_cast<memref::CopyOp>(op);
        copy && mayBeSharedByThreads(copy.getTarget(), spawn))
      copies.push_back(copy);
    return WalkResult::advance();
  });
  for (memref::CopyOp copy : copies) {
    Location loc = copy.getLoc();
    rewriter.setInsertionPoint(copy);
    SmallVector<Value> sizes = getValueOrCreateConstantIndexOp(
        rewriter, loc, memref::getMixedSizes(rewriter, loc, copy.getSource()));
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs(sizes.size(), zero), steps(sizes.size(), one);
    scf::ParallelOp::create(
        rewriter, loc, lbs, sizes, steps,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange ivs) {
          Value element =
              memref::LoadOp::create(nested, nestedLoc, copy.getSource(), ivs);
          memref::StoreOp::create(nested, nestedLoc, element, copy.getTarget(),
                                  ivs);
        });
    rewriter.eraseOp(copy);
  }
}

/// The ops outside thread loops that write memory other threads see (they
/// run on thread 0 only), in program order; reports one whose result is
/// used, which only one thread would compute.
static LogicalResult collectOnceEffects(SpawnOp spawn, SpawnAnalysis &analysis,
                                        SmallVectorImpl<Operation *> &ops) {
  WalkResult result =
      spawn.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
        // Every thread starts the thread loops it shares in.
        if (isa<scf::ParallelOp, TransferAsyncOp, RaceThreadLoopOp>(op))
          return WalkResult::skip();
        // The detector records a once-per-instance access once.
        if (isa<RaceAccessOp>(op)) {
          ops.push_back(op);
          return WalkResult::skip();
        }
        bool writesShared =
            llvm::any_of(analysis.getAccesses(op), [](const Access *access) {
              return access->isWrite() &&
                     llvm::any_of(access->candidates,
                                  [](const Access::Candidate &candidate) {
                                    return isSharedByThreads(candidate.root);
                                  });
            });
        if (!writesShared)
          return WalkResult::advance();
        if (!op->use_empty()) {
          op->emitOpError("outside thread loops writes memory that other "
                          "threads see, so it runs on one thread of the CTA, "
                          "and its result would be that thread's only; move "
                          "it into a thread loop");
          return WalkResult::interrupt();
        }
        ops.push_back(op);
        return WalkResult::skip();
      });
  return failure(result.wasInterrupted());
}

/// Puts each run of consecutive `ops` (in program order) under one
/// `scf.if` on thread 0.
static void guardOnThreadZero(RewriterBase &rewriter, ArrayRef<Operation *> ops,
                              Value threadId) {
  for (size_t begin = 0; begin < ops.size();) {
    size_t end = begin + 1;
    while (end < ops.size() && ops[end - 1]->getNextNode() == ops[end])
      ++end;
    Location loc = ops[begin]->getLoc();
    rewriter.setInsertionPoint(ops[begin]);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value isFirst = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, threadId, zero);
    auto guard = scf::IfOp::create(rewriter, loc, isFirst);
    for (Operation *op : ArrayRef(ops).slice(begin, end - begin))
      rewriter.moveOpBefore(op, guard.thenBlock()->getTerminator());
    begin = end;
  }
}

void vx::setCopyThreads(Operation *transfer, int64_t numThreads) {
  Builder builder(transfer->getContext());
  transfer->setAttr(VxDialect::kCopyThreadsAttrName,
                    builder.getI64IntegerAttr(numThreads));
}

/// Places the instance allocas of `spawn` (instance memory that thread
/// loops write) as scratch at the top of its body, where
/// getInstanceAllocaPlacement says, after the checks that the checker makes
/// on the same allocas.
static LogicalResult placeInstanceAllocas(RewriterBase &rewriter,
                                          SpawnOp spawn) {
  SmallVector<std::pair<memref::AllocaOp, Memory>> placements;
  {
    SpawnAnalysis analysis(spawn);
    if (failed(checkInstanceAllocas(analysis)) ||
        failed(checkOnceWriteRoots(analysis)))
      return failure();
    for (memref::AllocaOp alloca : getInstanceAllocas(analysis))
      placements.push_back(
          {alloca, getInstanceAllocaPlacement(analysis, alloca)});
  }
  rewriter.setInsertionPointToStart(&spawn.getBody().front());
  for (auto [alloca, memory] : placements)
    rewriter.replaceOp(
        alloca, ScratchOp::create(
                    rewriter, alloca.getLoc(), alloca.getType(),
                    MemoryAttr::get(rewriter.getContext(), memory)));
  return success();
}

LogicalResult vx::mapInstanceOntoCTA(SpawnOp spawn, int64_t numThreads,
                                     const Chip *chip) {
  for (scf::ParallelOp loop : getThreadLoops(spawn))
    if (failed(checkThreadLoopReductions(loop, numThreads)))
      return failure();
  IRRewriter rewriter(spawn.getContext());
  if (failed(placeInstanceAllocas(rewriter, spawn)))
    return failure();
  rewriteSharedCopies(rewriter, spawn);

  // Everything is decided on the body as written.
  SpawnAnalysis analysis(spawn);
  SmallVector<Operation *> onceEffects;
  if (failed(checkOwnedScratch(spawn, analysis, numThreads)) ||
      failed(collectOnceEffects(spawn, analysis, onceEffects)))
    return failure();
  SmallVector<TransferAsyncOp> pipelinable =
      getPipelinableTransfers(spawn, chip);
  SmallVector<PlannedBarrier> barriers =
      planBarriers(spawn, analysis, numThreads, onceEffects, pipelinable);
  OwnedScratchSplit owned(spawn, analysis, numThreads);
  SmallVector<scf::ParallelOp> threadLoops = getThreadLoops(spawn);
  spawn.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<scf::ParallelOp>(op))
      return WalkResult::skip();
    if (auto transfer = dyn_cast<TransferAsyncOp>(op);
        transfer && mayBeSharedByThreads(transfer.getDst(), spawn))
      setCopyThreads(transfer, numThreads);
    return WalkResult::advance();
  });

  Block &body = spawn.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  auto threadId =
      gpu::ThreadIdOp::create(rewriter, spawn.getLoc(), gpu::Dimension::x);
  threadId.setUpperBoundAttr(rewriter.getIndexAttr(numThreads));
  for (PlannedBarrier &planned : barriers) {
    rewriter.setInsertionPoint(planned.before);
    auto barrier = gpu::BarrierOp::create(rewriter, planned.before->getLoc());
    switch (planned.condition) {
    case BarrierCondition::Always:
      remarkBarrier(barrier, planned.reason);
      break;
    case BarrierCondition::IfPipelined:
    case BarrierCondition::UnlessPipelined:
      barrier->setAttr(planned.condition == BarrierCondition::IfPipelined
                           ? kIfPipelinedAttrName
                           : kUnlessPipelinedAttrName,
                       rewriter.getStringAttr(planned.reason));
      break;
    }
  }
  for (TransferAsyncOp transfer : pipelinable)
    transfer->setAttr(kPipelinableAttrName, rewriter.getUnitAttr());
  guardOnThreadZero(rewriter, onceEffects, threadId);
  // The threads of the CTA share each thread-loop execution's id.
  spawn.getBody().walk([&](RaceThreadLoopOp start) {
    start.getThreadMutable().assign(threadId);
  });
  DenseMap<Operation *, Value> rounds;
  for (scf::ParallelOp loop : threadLoops)
    rounds[loop] = distributeThreadLoop(rewriter, spawn, loop,
                                        ThreadShare{threadId, numThreads});
  owned.apply(rewriter, rounds);
  return success();
}

LogicalResult vx::mapSpawnsOntoCTAs(ModuleOp module, const Chip *chip) {
  SmallVector<SpawnOp> spawns;
  bool valid = true;
  for (SpawnOp spawn : getDeviceSpawns(module)) {
    LaunchPlanAttr plan = LaunchPlanAttr::lookup(spawn);
    if (!plan) {
      spawn.emitOpError("has no launch plan: run vx-plan-launch first");
      valid = false;
    } else if (!plan.getMapped()) {
      spawns.push_back(spawn);
    }
  }
  if (!valid || failed(lowerAffineInSpawns(module)))
    return failure();
  for (SpawnOp spawn : spawns) {
    LaunchPlanAttr plan = LaunchPlanAttr::lookup(spawn);
    if (failed(verifyMemoryRootsTraceable(spawn))) {
      valid = false;
      continue;
    }
    if (plan.getCooperative() &&
        failed(mapInstanceOntoCTA(spawn, plan.getThreads(), chip))) {
      valid = false;
      continue;
    }
    valid &=
        succeeded(checkSharedMemory(spawn, chip, plan.getInstancesPerCTA()));
    spawn->setAttr(LaunchPlanAttr::kAttrName, plan.withMapped());
  }
  return success(valid);
}

namespace {
struct VxMapCTAPass : public vx::impl::VxMapCTABase<VxMapCTAPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<std::optional<Chip>> targetChip =
        parseChipOption(module, getArgument(), chip);
    if (failed(targetChip) ||
        failed(mapSpawnsOntoCTAs(module, getChip(*targetChip))))
      signalPassFailure();
  }
};
} // namespace

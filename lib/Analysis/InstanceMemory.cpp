//===- InstanceMemory.cpp - Allocas that a CTA's threads share ------------===//
//
// Which allocas of a cooperative body are instance memory (InstanceMemory.h).
//
//===----------------------------------------------------------------------===//

#include "Vx/Analysis/InstanceMemory.h"
#include "Vx/Analysis/SpawnAnalysis.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::vx;

SmallVector<memref::AllocaOp> vx::getInstanceAllocas(SpawnAnalysis &analysis) {
  SetVector<Operation *> found;
  for (const Access &access : analysis.getAccesses()) {
    if (!access.threadLoop || !access.isWrite())
      continue;
    for (const Access::Candidate &candidate : access.candidates) {
      if (candidate.root.kind != MemoryRoot::Kind::Allocation)
        continue;
      Operation *allocation = candidate.root.value.getDefiningOp();
      if (isa<memref::AllocaOp>(allocation) &&
          !SpawnAnalysis::getThreadLoop(allocation, analysis.getSpawn()))
        found.insert(allocation);
    }
  }
  SmallVector<memref::AllocaOp> allocas;
  analysis.getSpawn().getBody().walk([&](memref::AllocaOp alloca) {
    if (found.contains(alloca))
      allocas.push_back(alloca);
  });
  return allocas;
}

LogicalResult vx::checkInstanceAllocas(SpawnAnalysis &analysis) {
  bool valid = true;
  for (memref::AllocaOp alloca : getInstanceAllocas(analysis)) {
    MemRefType type = alloca.getType();
    if (type.hasStaticShape() && type.getLayout().isIdentity() &&
        !type.getMemorySpace())
      continue;
    alloca.emitOpError("outside thread loops allocates memory of the whole "
                       "instance, which a thread loop writes, so it is "
                       "placed as scratch, which needs a static shape and "
                       "no layout or memory space; got ")
        << type
        << " (allocate it inside the thread loop for memory of one "
           "iteration, or use 'vx.scratch')";
    valid = false;
  }
  return success(valid);
}

Memory vx::getInstanceAllocaPlacement(SpawnAnalysis &analysis,
                                      memref::AllocaOp alloca) {
  // Each placement's proof gets the whole sample budget, as in the mapping,
  // whatever the analysis's earlier clients took.
  analysis.resetSamples();
  MemoryRoot root{MemoryRoot::Kind::Allocation, alloca.getResult(), {}};
  return analysis.checkOwnership(root, std::nullopt).kind ==
                 OwnershipResult::OwnedForAnyThreadCount
             ? Memory::private_
             : Memory::smem;
}

bool vx::isSharedByThreads(const MemoryRoot &root) {
  if (root.isShared())
    return true;
  if (root.kind != MemoryRoot::Kind::Scratch)
    return false;
  return cast<ScratchOp>(root.value.getDefiningOp()).getPlacement() ==
         Memory::smem;
}

LogicalResult vx::checkOnceWriteRoots(SpawnAnalysis &analysis) {
  SpawnOp spawn = analysis.getSpawn();
  SmallVector<memref::AllocaOp> instanceAllocas = getInstanceAllocas(analysis);
  // Placements are decided on demand: only a memref with several candidate
  // roots needs them.
  DenseMap<Operation *, Memory> placements;
  auto isShared = [&](const MemoryRoot &root) {
    auto alloca = root.kind == MemoryRoot::Kind::Allocation
                      ? root.value.getDefiningOp<memref::AllocaOp>()
                      : memref::AllocaOp();
    if (!alloca || !llvm::is_contained(instanceAllocas, alloca))
      return isSharedByThreads(root);
    auto [it, inserted] = placements.try_emplace(alloca, Memory::private_);
    if (inserted)
      it->second = getInstanceAllocaPlacement(analysis, alloca);
    return it->second == Memory::smem;
  };
  WalkResult result =
      spawn.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
        // The checker sees affine.parallel thread loops that the mapping
        // has lowered to scf.parallel.
        if (isa<scf::ParallelOp, affine::AffineParallelOp>(op))
          return WalkResult::skip();
        auto effecting = dyn_cast<MemoryEffectOpInterface>(op);
        if (!effecting)
          return WalkResult::advance();
        SmallVector<MemoryEffects::EffectInstance> effects;
        effecting.getEffects(effects);
        for (const MemoryEffects::EffectInstance &effect : effects) {
          Value memref = effect.getValue();
          if (!isa<MemoryEffects::Write>(effect.getEffect()) || !memref ||
              !isa<BaseMemRefType>(memref.getType()))
            continue;
          auto candidates = traceMemoryRoots(memref, spawn);
          if (candidates.size() < 2)
            continue;
          std::optional<MemoryRoot> shared, perThread;
          for (const Access::Candidate &candidate : candidates)
            (isShared(candidate.root) ? shared : perThread) = candidate.root;
          if (!shared || !perThread)
            continue;
          InFlightDiagnostic diag =
              op->emitOpError(
                  "outside thread loops writes through a memref that may be "
                  "memory each thread has its own copy of (")
              << perThread->describe() << ") or memory the threads share ("
              << shared->describe()
              << "): neither one thread nor every thread can do it; write "
                 "each memory in its own op";
          diag.attachNote(memref.getLoc()) << "the memref is chosen here";
          for (const MemoryRoot &root : {*perThread, *shared}) {
            auto placed = placements.find(
                root.value ? root.value.getDefiningOp() : nullptr);
            if (placed == placements.end())
              continue;
            if (placed->second == Memory::smem)
              diag.attachNote(root.value.getLoc())
                  << "a thread loop writes this alloca and other iterations "
                     "or code outside thread loops touch the same elements, "
                     "so the threads share it (it is placed in smem)";
            else
              diag.attachNote(root.value.getLoc())
                  << "each element of this alloca is touched by one "
                     "thread-loop iteration, so each thread keeps its own "
                     "part (it is placed as private scratch)";
          }
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
  return failure(result.wasInterrupted());
}

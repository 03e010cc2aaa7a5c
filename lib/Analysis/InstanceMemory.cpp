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

bool vx::isSharedByThreads(const MemoryRoot &root) {
  if (root.isShared())
    return true;
  if (root.kind != MemoryRoot::Kind::Scratch)
    return false;
  return cast<ScratchOp>(root.value.getDefiningOp()).getPlacement() ==
         Memory::smem;
}

LogicalResult vx::checkOnceWriteRoots(SpawnOp spawn) {
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
          std::optional<MemoryRoot> shared, perThread;
          for (const Access::Candidate &candidate :
               traceMemoryRoots(memref, spawn))
            (isSharedByThreads(candidate.root) ? shared : perThread) =
                candidate.root;
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
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
  return failure(result.wasInterrupted());
}

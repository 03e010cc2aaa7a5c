//===- InstanceMemory.cpp - Allocas that a CTA's threads share ------------===//
//
// Which allocas of a cooperative body are instance memory (InstanceMemory.h).
//
//===----------------------------------------------------------------------===//

#include "Vx/Analysis/InstanceMemory.h"
#include "Vx/Analysis/SpawnAnalysis.h"

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

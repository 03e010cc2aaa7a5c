//===- TestRegisterHostMemory.cpp - Host buffers made device-visible ------===//
//
// The CPU integration tests allocate their buffers in host code and hand
// them to spawns; on a GPU (and on the PTX simulator, which checks every
// global access) a kernel may touch only registered or device memory.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "Vx/VxOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace vx {
namespace test {
#define GEN_PASS_DEF_TESTVXREGISTERHOSTMEMORY
#include "TestPasses.h.inc"
} // namespace test
} // namespace vx
} // namespace mlir

using namespace mlir;

namespace {
struct TestVxRegisterHostMemory
    : public vx::test::impl::TestVxRegisterHostMemoryBase<
          TestVxRegisterHostMemory> {
  void runOnOperation() override {
    SmallVector<Operation *> allocations;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::AllocaOp>(op) &&
          !op->getParentOfType<vx::SpawnOp>())
        allocations.push_back(op);
    });
    for (Operation *allocation : allocations) {
      Value buffer = allocation->getResult(0);
      auto type = cast<MemRefType>(buffer.getType());
      // Kernels take memrefs of scalars; gpu.host_register lowers only
      // those.
      if (!type.getElementType().isIntOrIndexOrFloat())
        continue;
      OpBuilder builder(allocation->getContext());
      builder.setInsertionPointAfter(allocation);
      Location loc = allocation->getLoc();
      Value unranked = memref::CastOp::create(
          builder, loc,
          UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace()),
          buffer);
      gpu::HostRegisterOp::create(builder, loc, unranked);
    }
  }
};
} // namespace

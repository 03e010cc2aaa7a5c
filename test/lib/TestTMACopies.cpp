//===- TestTMACopies.cpp - Copies into workgroup memory as TMA loads ------===//
//
// Drives the TMA building blocks (Vx/Conversion/VxTransferToNVGPU/TMA.h) on
// gpu.launch bodies: a copy that every thread runs becomes a load issued by
// one thread and awaited by all, which is what the copy means.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "Vx/Conversion/VxTransferToNVGPU/TMA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace vx {
namespace test {
#define GEN_PASS_DEF_TESTVXTMACOPIES
#include "TestPasses.h.inc"
} // namespace test
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

namespace {
struct TMACopy {
  memref::CopyOp copy;
  TMATile tile;
};
} // namespace

/// The copies of `launch` into workgroup memory that become TMA loads; a
/// remark at each of the others.
static SmallVector<TMACopy> findTMACopies(gpu::LaunchOp launch) {
  SmallVector<TMACopy> found;
  launch.getBody().walk([&](memref::CopyOp copy) {
    auto target = cast<MemRefType>(copy.getTarget().getType());
    if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(target))
      return;
    Operation *parent = copy->getParentOp();
    if (parent != launch &&
        (!isa<scf::ForOp>(parent) || parent->getParentOp() != launch)) {
      copy.emitRemark("stays a copy: the test lowers copies in the launch "
                      "body or in an scf.for directly in it");
      return;
    }
    std::string why;
    FailureOr<TMATile> tile =
        matchTMATile(copy.getSource(), target, launch.getBody(), why);
    if (failed(tile)) {
      copy.emitRemark("stays a copy: ") << why;
      return;
    }
    found.push_back({copy, *tile});
  });
  return found;
}

/// The parity of the barrier phase that the copy completes: 0 in the launch
/// body, the parity of the iteration in a loop.
static Value getPhaseParity(OpBuilder &builder, memref::CopyOp copy) {
  Location loc = copy.getLoc();
  auto loop = dyn_cast<scf::ForOp>(copy->getParentOp());
  if (!loop)
    return arith::ConstantIntOp::create(builder, loc, 0, 1);
  Value iteration = arith::DivUIOp::create(
      builder, loc,
      arith::SubIOp::create(builder, loc, loop.getInductionVar(),
                            loop.getLowerBound()),
      loop.getStep());
  return arith::IndexCastOp::create(builder, loc, builder.getI1Type(),
                                    iteration);
}

static void lowerToTMA(gpu::LaunchOp launch, ArrayRef<TMACopy> copies) {
  Location loc = launch.getLoc();
  OpBuilder builder(launch);
  SmallVector<Value> descriptors;
  for (const TMACopy &copy : copies)
    descriptors.push_back(createTMADescriptor(builder, loc, copy.tile));

  builder.setInsertionPointToStart(&launch.getBody().front());
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  gpu::KernelDim3 ids = launch.getThreadIds();
  Value elected;
  for (Value id : {ids.x, ids.y, ids.z}) {
    Value isZero =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, id, zero);
    elected =
        elected ? arith::AndIOp::create(builder, loc, elected, isZero) : isZero;
  }
  Value barriers = createTMABarriers(builder, loc, copies.size());
  // One arrival per phase: the elected thread's, with the tile's bytes.
  initTMABarriers(builder, loc, barriers, copies.size(), /*arrivals=*/1,
                  elected, descriptors);

  for (auto [index, found] : llvm::enumerate(copies)) {
    memref::CopyOp copy = found.copy;
    builder.setInsertionPoint(copy);
    Location copyLoc = copy.getLoc();
    Value barrier = arith::ConstantIndexOp::create(builder, copyLoc, index);
    // The copy may overwrite what the threads accessed before the barrier.
    fenceBeforeTMALoads(builder, copyLoc, elected);
    issueTMALoad(builder, copyLoc, found.tile, descriptors[index],
                 copy.getTarget(), barriers, barrier, elected);
    waitTMALoad(builder, copyLoc, barriers, barrier,
                getPhaseParity(builder, copy));
    copy.erase();
  }
}

namespace {
struct TestVxTMACopiesPass
    : public vx::test::impl::TestVxTMACopiesBase<TestVxTMACopiesPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::LaunchOp launch) {
      SmallVector<TMACopy> copies = findTMACopies(launch);
      if (!copies.empty())
        lowerToTMA(launch, copies);
    });
  }
};
} // namespace

//===- UnrollThreadLoops.cpp - Small loops of thread loops unrolled -------===//
//
// vx-unroll-thread-loops: the static loops that thread loops leave in a
// mapped cooperative body, small enough, are unrolled whole, so that their
// counters fold into constant offsets (vector shared-memory accesses, no
// loop overhead). After vx-map-cta, whose ownership proof and barrier
// placement then reason on the loops rather than on their copies.
//
//===----------------------------------------------------------------------===//

#include "CTAMapping.h"
#include "LaunchPlan.h"
#include "Vx/Conversion/VxToGPU/VxToGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXUNROLLTHREADLOOPS
#include "Vx/Conversion/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;

/// The operations that unrolling `loop` whole would leave, when its trip
/// count is a constant.
static std::optional<int64_t> getUnrolledOps(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || trips->getActiveBits() > 32)
    return std::nullopt;
  int64_t bodyOps = 0;
  loop.getBody()->walk([&](Operation *) { ++bodyOps; });
  return int64_t(trips->getZExtValue()) * bodyOps;
}

/// Unrolls the loops of the mapped body of `spawn` that leave at most
/// `maxOps` operations and hold no barrier.
static void unrollSmallLoops(SpawnOp spawn, int64_t maxOps) {
  // Post-order: the inner loops first, so an outer loop is priced with
  // its inner ones already unrolled.
  SmallVector<scf::ForOp> loops;
  spawn.getBody().walk<WalkOrder::PostOrder>(
      [&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops) {
    std::optional<int64_t> ops = getUnrolledOps(loop);
    bool synchronizes =
        loop->walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    if (ops && *ops <= maxOps && !synchronizes)
      (void)loopUnrollFull(loop);
  }
}

namespace {
struct VxUnrollThreadLoopsPass
    : public vx::impl::VxUnrollThreadLoopsBase<VxUnrollThreadLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (maxOps < 0 && failed(checkPassOption(
                          getOperation(), getArgument(),
                          "max-ops must be >= 0, got " +
                              std::to_string(static_cast<int64_t>(maxOps)))))
      return signalPassFailure();
    for (SpawnOp spawn : getDeviceSpawns(getOperation())) {
      LaunchPlanAttr plan = LaunchPlanAttr::lookup(spawn);
      if (plan && plan.getCooperative() && plan.getMapped())
        unrollSmallLoops(spawn, maxOps);
    }
  }
};
} // namespace

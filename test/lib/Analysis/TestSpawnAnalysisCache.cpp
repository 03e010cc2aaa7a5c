//===- TestSpawnAnalysisCache.cpp - Which spawn analyses are cached -------===//
//
// vx-verify-semantics preserves the spawn analyses it builds; a pass that
// changes the IR drops them. This pass shows which functions' analyses a
// pipeline leaves in the cache.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "Vx/Analysis/SpawnAnalysis.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace vx {
namespace test {
#define GEN_PASS_DEF_TESTVXSPAWNANALYSISCACHE
#include "TestPasses.h.inc"
} // namespace test
} // namespace vx
} // namespace mlir

using namespace mlir;

namespace {
struct TestVxSpawnAnalysisCache
    : public vx::test::impl::TestVxSpawnAnalysisCacheBase<
          TestVxSpawnAnalysisCache> {
  void runOnOperation() override {
    for (auto function : getOperation().getOps<FunctionOpInterface>()) {
      if (function.walk([](vx::SpawnOp) { return WalkResult::interrupt(); })
              .wasInterrupted())
        function.emitRemark()
            << (getCachedChildAnalysis<vx::SpawnAnalyses>(function)
                    ? "spawn analyses cached"
                    : "spawn analyses not cached");
    }
    markAllAnalysesPreserved();
  }
};
} // namespace

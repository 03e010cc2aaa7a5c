//===- TestThreadDependences.cpp - Print cross-thread dependences ---------===//
//
// The queries the CTA mapping places barriers with: for every pair of
// accesses of a spawn body in program order that lie in different phases
// (thread loops, or the code between them, which runs on every thread),
// remarks whether they can touch one element from different threads.
//
//===----------------------------------------------------------------------===//

#include "Vx/Analysis/SpawnAnalysis.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::vx;

namespace {

struct TestThreadDependencesPass
    : public PassWrapper<TestThreadDependencesPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestThreadDependencesPass)

  TestThreadDependencesPass() = default;
  TestThreadDependencesPass(const TestThreadDependencesPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "vx-test-thread-dependences"; }
  StringRef getDescription() const final {
    return "Remark the cross-thread dependences between the phases of each "
           "spawn body";
  }

  Option<unsigned> numThreads{*this, "threads",
                              llvm::cl::desc("Threads per instance (0: any)"),
                              llvm::cl::init(0)};
  Option<bool> acrossSteps{
      *this, "across-steps",
      llvm::cl::desc("Compare with later steps of the arbitrary dimensions "
                     "instead of the same instance"),
      llvm::cl::init(false)};

  void runOnOperation() override {
    getOperation()->walk([&](SpawnOp spawn) {
      SpawnAnalysis analysis(spawn);
      ArrayRef<Access> accesses = analysis.getAccesses();
      for (auto [position, earlier] : llvm::enumerate(accesses)) {
        for (const Access &later : accesses.drop_front(acrossSteps ? 0 : position + 1)) {
          if (!earlier.isWrite() && !later.isWrite())
            continue;
          if (!acrossSteps && earlier.threadLoop &&
              earlier.threadLoop == later.threadLoop)
            continue; // One thread loop: rule (a) of the checker.
          for (const Access::Candidate &candidate : earlier.candidates) {
            const MemoryRoot &root = candidate.root;
            bool sharedByThreads =
                root.isShared() ||
                (root.kind == MemoryRoot::Kind::Scratch &&
                 cast<ScratchOp>(root.value.getDefiningOp()).getPlacement() ==
                     Memory::smem);
            if (!sharedByThreads || !later.touches(root))
              continue;
            CollisionResult result = analysis.findCrossThreadDependence(
                earlier, later, root, numThreads, acrossSteps);
            report(analysis, earlier, later, result);
            break;
          }
        }
      }
    });
  }

  void report(SpawnAnalysis &analysis, const Access &earlier,
              const Access &later, CollisionResult result) {
    if (result.kind == CollisionResult::Disjoint)
      return;
    StringRef kind = earlier.isWrite() ? (later.isWrite() ? "WAW" : "RAW")
                                       : "WAR";
    unsigned line = 0;
    if (auto location = dyn_cast<FileLineColLoc>(earlier.op->getLoc()))
      line = location.getLine();
    InFlightDiagnostic diag = later.op->emitRemark();
    if (result.kind == CollisionResult::Unknown) {
      diag << kind << " dependence on line " << line
           << " not excluded: " << result.reason;
      return;
    }
    analysis.minimizeWitness(result);
    diag << kind << " dependence on line " << line << " across threads";
    if (result.thread0)
      diag << " " << *result.thread0 << " and " << *result.thread1;
    diag << " (instances (";
    llvm::interleaveComma(result.instance0, diag);
    diag << ") and (";
    llvm::interleaveComma(result.instance1, diag);
    diag << "))";
  }
};

} // namespace

namespace mlir {
namespace vx {
namespace test {
void registerTestThreadDependencesPass() {
  PassRegistration<TestThreadDependencesPass>();
}
} // namespace test
} // namespace vx
} // namespace mlir

//===- CheckLowered.cpp - Fail on ops a pipeline left unlowered -----------===//
//
// Partial conversions leave the ops they cannot convert in place and
// succeed; the next pass may then fail far from the cause, or the pipeline
// may finish with IR that no later tool takes. This check ends every Vx
// pipeline and names the first op outside the stage's dialects.
//
//===----------------------------------------------------------------------===//

#include "Vx/Transforms/Passes.h"
#include "Vx/VxDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXCHECKLOWERED
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

namespace {
struct VxCheckLoweredPass
    : public vx::impl::VxCheckLoweredBase<VxCheckLoweredPass> {
  using Base::Base;

  /// Whether `op` may remain in the output of the stage.
  bool isLowered(Operation *op) {
    if (isa<ModuleOp>(op))
      return true;
    if (isa<UnrealizedConversionCastOp>(op))
      return false;
    StringRef dialect = op->getName().getDialectNamespace();
    if (dialects.empty())
      return dialect != vx::VxDialect::getDialectNamespace();
    return llvm::is_contained(dialects, dialect) ||
           llvm::is_contained(dialects, op->getName().getStringRef());
  }

  void runOnOperation() override {
    // An unrealized cast is left by the conversion of the op that uses it:
    // name that op when there is one.
    Operation *first = nullptr;
    Operation *firstCast = nullptr;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isLowered(op))
        return WalkResult::advance();
      if (!isa<UnrealizedConversionCastOp>(op)) {
        first = op;
        return WalkResult::interrupt();
      }
      if (!firstCast)
        firstCast = op;
      return WalkResult::advance();
    });
    Operation *unlowered = first ? first : firstCast;
    if (!unlowered)
      return;
    InFlightDiagnostic error = unlowered->emitOpError("was left unlowered by ");
    error << (stage.empty() ? std::string("the pipeline") : "vx-to-" + stage);
    if (!dialects.empty())
      error << "; its output holds only " << llvm::join(dialects, ", ");
    signalPassFailure();
  }
};
} // namespace

//===- Report.cpp - Remarks on what the compiler did, per kernel ----------===//

#include "Vx/Target/KernelReport.h"
#include "Vx/Transforms/Passes.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXREPORT
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

namespace {
struct VxReportPass : public vx::impl::VxReportBase<VxReportPass> {
  void runOnOperation() override {
    std::string error;
    FailureOr<SmallVector<vx::KernelReport>> reports =
        vx::collectKernelReports(getOperation(), error);
    if (failed(reports)) {
      emitError(getOperation().getLoc(), "vx-report: ") << error;
      return signalPassFailure();
    }
    for (const vx::KernelReport &report : *reports) {
      std::string text;
      llvm::raw_string_ostream os(text);
      vx::printKernelReport(report, os);
      emitRemark(report.loc) << text;
    }
    markAllAnalysesPreserved();
  }
};
} // namespace

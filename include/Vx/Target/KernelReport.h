//===- KernelReport.h - What the compiler did, per kernel -------*- C++ -*-===//
//
// The report of `m.report()`, `python3 -m vx FILE --report` and the
// `vx-report` pass: per launched kernel, how the spawn maps onto the GPU
// (grid, block, grid instances per CTA, dynamic shared memory, pipeline
// stages) and what ptxas made of it (registers, spills, stack).
//
// convert-vx-to-gpu records what the launch alone does not say (instances
// per CTA, stages) in the metadata of a fused location on each gpu.launch:
// gpu-kernel-outlining gives gpu.launch_func the launch's location and drops
// its attributes.
//
//===----------------------------------------------------------------------===//

#ifndef VX_TARGET_KERNELREPORT_H
#define VX_TARGET_KERNELREPORT_H

#include "Vx/Target/CUDA.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"

#include <array>
#include <optional>
#include <string>

namespace mlir {
namespace vx {

/// `loc` carrying the launch facts of a device spawn.
Location getLaunchPlanLoc(Location loc, int64_t instancesPerCTA,
                          int64_t stages);

/// The report of one gpu.launch_func. Unknown values are empty: dynamic
/// launch dims, launches that convert-vx-to-gpu did not make, and the ptxas
/// fields without the kernel's PTX or a CUDA toolkit.
struct KernelReport {
  std::string kernel;
  std::array<std::optional<int64_t>, 3> grid, block;
  std::optional<int64_t> instancesPerCTA;
  std::optional<int64_t> sharedBytes;
  std::optional<int64_t> stages;
  std::optional<PtxasUsage> usage;
  /// The spawn's location.
  Location loc;
};

/// The report of every gpu.launch_func of `module`, in program order, with
/// ptxas's usage where the module holds the kernel's PTX (a gpu.binary of
/// format isa) and a CUDA toolkit is found. Fails with ptxas's log in
/// `error` when ptxas fails.
FailureOr<SmallVector<KernelReport>> collectKernelReports(ModuleOp module,
                                                          std::string &error);

/// One line, with the field names of vx.KernelReport: "kernel K:
/// grid=(16, 8, 1) block=(256, 1, 1) instances_per_cta=1 ...", `?` where
/// unknown; the ptxas fields only where known.
void printKernelReport(const KernelReport &report, raw_ostream &os);

} // namespace vx
} // namespace mlir

#endif // VX_TARGET_KERNELREPORT_H

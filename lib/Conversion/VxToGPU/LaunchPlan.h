//===- LaunchPlan.h - The steps of the GPU mapping --------------*- C++ -*-===//
//
// The GPU mapping is four passes that speak through the IR: vx-plan-launch
// records a `#vx.launch_plan` on each device spawn, vx-map-cta rewrites the
// bodies into what every thread runs, vx-pipeline-transfers multi-buffers
// their transfers, and convert-vx-to-gpu turns the spawns into launches. The
// steps below are what those passes run; convert-vx-to-gpu runs the ones
// whose result a spawn lacks, so that it works alone. Each step takes the
// spawns without its result and leaves its result on them.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_VXTOGPU_LAUNCHPLAN_H
#define LIB_CONVERSION_VXTOGPU_LAUNCHPLAN_H

#include "Vx/Target/Chip.h"
#include "Vx/Target/Limits.h"
#include "Vx/Transforms/PassOptions.h"
#include "Vx/VxOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace vx {

/// CUDA's limits on the launch grid.
inline constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
inline constexpr int64_t kMaxGridYZ = 65535;
/// Every slice of an smem buffer (one per instance of the CTA) starts at a
/// multiple of this many bytes: the widest shared-memory access (16-byte
/// vectors and cp.async chunks). The first slice of each buffer starts at a
/// multiple of kDynamicSharedMemoryAlignment, the base's alignment.
inline constexpr int64_t kSmemAlignment = 16;

/// The device spawns of `module`, in program order.
SmallVector<SpawnOp> getDeviceSpawns(ModuleOp module);

//===----------------------------------------------------------------------===//
// Options (each pass checks those it has, with its name in the message)
//===----------------------------------------------------------------------===//

/// The chip a pass's `chip` option names, parsed once (nothing when the
/// option is empty: any chip).
FailureOr<std::optional<Chip>> parseChipOption(ModuleOp module, StringRef pass,
                                               StringRef chip);

/// The chip a parsed `chip` option names, or null (any chip).
inline const Chip *getChip(const std::optional<Chip> &chip) {
  return chip ? &*chip : nullptr;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

/// Where the smem scratch of a device spawn lives in its CTA's dynamic
/// shared memory: with `instances` instances per CTA, instance t's buffer of
/// `scratch[k]` starts at byte `offsets[k] + t * sliceBytes[k]`.
struct SharedMemoryLayout {
  SmallVector<ScratchOp> scratch;
  SmallVector<int64_t> sliceBytes;
  SmallVector<int64_t> offsets;
  /// Every buffer starts at a multiple of this (a power of two).
  int64_t alignment = kSmemAlignment;
  /// The CTA's dynamic shared memory in bytes.
  int64_t totalBytes = 0;
};

/// The layout of the smem scratch of `spawn` (whose element types
/// vx-plan-launch has admitted), `instances` instances per CTA.
SharedMemoryLayout getSharedMemoryLayout(SpawnOp spawn, int64_t instances);

/// The dynamic shared memory a CTA may use on `chip` (the largest of any
/// chip, sm_90's, when null).
int64_t getSharedMemoryLimit(const Chip *chip);

/// Whether the smem scratch of `spawn`, `instances` instances per CTA, fits
/// the shared memory that `chip` (any chip, when null) gives a CTA.
LogicalResult checkSharedMemory(SpawnOp spawn, const Chip *chip,
                                int64_t instances);

/// The number of CTAs along each parallel dimension of `spawn` as far as
/// they are static: the instances per CTA divide the innermost one.
SmallVector<std::optional<int64_t>> getStaticExtents(SpawnOp spawn,
                                                     int64_t instances);

//===----------------------------------------------------------------------===//
// The steps
//===----------------------------------------------------------------------===//

/// vx-plan-launch: checks that the device spawns of `module` without a plan
/// can run on the device (on `chip`, when named) and records their plans.
/// `threadsPerBlock` 0 is the default CTA size, which leaves room for the
/// slots of `stages` stages (a spawn's `stages` clause says otherwise).
LogicalResult planLaunches(ModuleOp module, int64_t threadsPerBlock,
                           int64_t stages, const Chip *chip);

/// vx-pad-shared-tiles: pads the rows of the smem scratch tiles of the
/// planned, not yet mapped cooperative device spawns of `module` whose
/// thread-loop accesses have bank conflicts that padding removes or
/// lowers, with a remark on each conflicted tile.
void padSharedTiles(ModuleOp module, const Chip *chip);

/// vx-map-cta: lowers the affine ops of spawn bodies, then maps the planned
/// and not yet mapped device spawns onto their CTAs and checks their shared
/// memory against `chip`. Reports a device spawn without a plan.
LogicalResult mapSpawnsOntoCTAs(ModuleOp module, const Chip *chip);

/// vx-pipeline-transfers: pipelines the transfers of the mapped device
/// spawns whose stages are not decided yet, in `stages` stages unless their
/// `stages` clause says otherwise. Reports a device spawn not yet mapped.
LogicalResult pipelineSpawnTransfers(ModuleOp module, int64_t stages,
                                     const Chip *chip);

} // namespace vx
} // namespace mlir

#endif // LIB_CONVERSION_VXTOGPU_LAUNCHPLAN_H

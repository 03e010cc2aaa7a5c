//===- PipelineTransfers.h - Multi-buffered transfers -----------*- C++ -*-===//
//
// The `stages` of a device spawn (VX_SPEC 2.2): its transfers into smem
// scratch that move with the arbitrary dimensions get N slots each, and the
// transfers of the next N-1 steps are in flight while a step computes. A
// rewrite of the spawn body before the GPU mapping, so that the mapping
// lowers what it produces like any other body.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_VXTOGPU_PIPELINETRANSFERS_H
#define LIB_CONVERSION_VXTOGPU_PIPELINETRANSFERS_H

#include "Vx/Target/Chip.h"
#include "Vx/VxOps.h"

namespace mlir {
namespace vx {

/// What the GPU mapping tells the pipelining about a device spawn.
struct PipelineTarget {
  /// The chip the code is for (any chip with cp.async, no TMA, when null).
  const Chip *chip = nullptr;
  /// The stages of spawns without a `stages` clause.
  int64_t defaultStages = 1;
  /// The CTA's dynamic shared memory before pipelining (the spawn's
  /// scratch), and the bytes it has left beyond it.
  int64_t scratchBytes = 0;
  int64_t freeSharedBytes = 0;
  /// The grid instances that share a CTA, each with its own slots.
  int64_t instancesPerCTA = 1;
  /// Whether each CTA runs one parallel point (no grid-stride loop).
  bool onePointPerCTA = false;
  /// The threads of a CTA.
  int64_t threadsPerCTA = 1;
  /// Whether the threads of a CTA share the slots, so that a step must wait
  /// for every thread before its slot is refilled.
  bool sharedByThreads = false;
};

/// Pipelines the transfers of the device spawn `spawn` that can be
/// pipelined (after remarks on those that cannot, and on fewer stages than
/// requested): one slot per stage in a byte scratch, the first step issuing
/// the first N-1 steps, and each step waiting for its own transfers, then
/// issuing those of the step N-1 ahead (guarded at the end of the grid).
/// The new transfers' tokens are unused: the cp.async lowering leaves the
/// commits to the explicit groups of the schedule.
struct PipelinedSpawn {
  /// The transfers it created (none with TMA).
  SmallVector<Operation *> transfers;
  /// The stages chosen: 1 where nothing is pipelined.
  int64_t stages = 1;
  /// Whether it pipelined transfers (also TMA with one stage), and whether
  /// they are exactly those the CTA mapping planned its barriers for.
  bool pipelined = false;
  bool asPlanned = false;
};
PipelinedSpawn pipelineTransfers(SpawnOp spawn, const PipelineTarget &target);

/// The transfers of `spawn` that pipelineTransfers would pipeline on `chip`
/// (any chip with cp.async, when null), in program order. Quiet.
SmallVector<TransferAsyncOp> getPipelinableTransfers(SpawnOp spawn,
                                                     const Chip *chip);

/// The shared memory that the slots of pipelined transfers take beyond the
/// scratch they replace.
struct SlotCost {
  /// One slot of each pipelined transfer that moves with the steps, the
  /// one buffer of each that does not (TMA loads it once), and their
  /// scratch.
  int64_t slotBytes = 0;
  int64_t fixedBytes = 0;
  int64_t scratchBytes = 0;
  /// Whether TMA loads carry the transfers (with an mbarrier per slot).
  bool tma = false;

  /// The extra bytes of `stages` slots for each of `instancesPerCTA`.
  int64_t getExtraBytes(int64_t stages, int64_t instancesPerCTA) const;
};

/// A CTA whose transfers are pipelined, before its stages are chosen.
struct PipelinedCTA {
  /// Its threads and the grid instances they run.
  int64_t threads = 1;
  int64_t instances = 1;
  /// Its dynamic shared memory without the slots (the smem scratch).
  int64_t scratchBytes = 0;
};

/// What a CTA with `stages` stages of its slots gets on one SM.
struct StagesOccupancy {
  int64_t stages = 1;
  /// The CTA's threads and dynamic shared memory.
  int64_t threads = 1;
  int64_t sharedBytes = 0;
  /// The CTAs resident on an SM (limited by its shared memory, threads and
  /// CTAs) and their threads.
  int64_t ctasPerSM = 0;
  int64_t threadsPerSM = 0;
  /// The bytes of prefetched transfers in flight on the SM while its
  /// instances compute: (stages - 1) slots per instance.
  int64_t bytesInFlight = 0;

  /// Whether this is a better launch than `other` on `chip`: more bytes in
  /// flight up to the chip's need (what buffering buys), then more threads
  /// per SM up to 512 (what occupancy buys), then more stages, then more
  /// threads per SM, then larger CTAs.
  bool isBetterThan(const StagesOccupancy &other, const Chip &chip) const;
};

/// What `stages` stages of the slots of `cost` give `cta` on `chip`.
StagesOccupancy getStagesOccupancy(const SlotCost &cost,
                                   const PipelinedCTA &cta, int64_t stages,
                                   const Chip &chip);

/// The best of 1 to `maxStages` stages (all of which fit a CTA) for the
/// slots of `cost` in `cta` on `chip`.
StagesOccupancy chooseStages(const SlotCost &cost, const PipelinedCTA &cta,
                             int64_t maxStages, const Chip &chip);

/// What pipelining the transfers of the device spawn `spawn` with cp.async
/// on `chip` (any chip, when null) would cost, before or after its CTA
/// mapping: nothing where no transfer would be pipelined. Quiet.
SlotCost getAsyncCopySlotCost(SpawnOp spawn, const Chip *chip);

} // namespace vx
} // namespace mlir

#endif // LIB_CONVERSION_VXTOGPU_PIPELINETRANSFERS_H

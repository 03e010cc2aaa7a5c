//===- TMA.h - Tile transfers as TMA bulk tensor copies ---------*- C++ -*-===//
//
// The building blocks of a transfer that the Tensor Memory Accelerator of
// sm_90 and newer carries: a tile of a global tensor, described on the host
// by a tensor map (nvgpu.tma.create.descriptor), loaded into shared memory
// by one thread (nvgpu.tma.async.load) that announces the bytes on an
// mbarrier (nvgpu.mbarrier.arrive.expect_tx), and awaited by every thread on
// that mbarrier's phase (nvgpu.mbarrier.try_wait.parity), as upstream's
// test/Examples/NVGPU do. The caller owns the placement: the host builder
// before the launch, the kernel's entry for the barriers, the transfer's
// place for the load and the await's for the wait, and which barrier and
// phase each transfer uses.
//
//===----------------------------------------------------------------------===//

#ifndef VX_CONVERSION_VXTRANSFERTONVGPU_TMA_H
#define VX_CONVERSION_VXTRANSFERTONVGPU_TMA_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"

#include <string>

namespace mlir {
class Region;

namespace vx {

/// A tile of a global tensor that a TMA bulk tensor copy can load: a view of
/// `tensor` through memref.subview (unit strides, rank-reducing or not) and
/// memref.cast.
struct TMATile {
  /// The memref that the tensor map describes, defined outside the kernel
  /// (the map is encoded on the host).
  Value tensor;
  /// Per dimension of `tensor`, the terms whose sum is the tile's offset
  /// there (one per view on the way from the tile to `tensor`).
  SmallVector<SmallVector<OpFoldResult, 2>> offsets;
  /// The dimension of `tensor` that each tile dimension runs along.
  SmallVector<int64_t> tensorDims;
  /// The type of the tensor map: its `tensor` is the box, the tile's shape
  /// in the rank of `tensor` (1 where a view drops a dimension), or with
  /// `panels`, the shape of one panel.
  nvgpu::TensorMapDescriptorType descriptorType;
  /// The boxes that carry the tile: a swizzled tile whose rows are wider
  /// than the swizzle's is loaded in panels of the swizzle's width (a box
  /// each, the tile's columns side by side), stored one after the other.
  int64_t panels = 1;

  ArrayRef<int64_t> getBox() const {
    return descriptorType.getTensor().getShape();
  }
  /// The bytes one transfer of the tile brings (all its panels), which the
  /// mbarrier expects.
  int64_t getBytes() const;
};

/// Matches `source`, a transfer's source as the kernel sees it, to a tile
/// that TMA can load into shared memory of type `destinationType` (any
/// memory space: issueTMALoad takes the workgroup view), with `kernel` the
/// region of the device code. Needs: a destination of rank 2 or more,
/// static, contiguous and row-major, of the source's shape, whose static
/// offset keeps 128-byte alignment (the caller places its base at a
/// multiple of 128 bytes); an element type the tensor map encodes (f16,
/// bf16, f32, f64, i32, i64, ui8-ui64); a tensor from outside `kernel` in
/// global memory, of rank at most 5, whose innermost stride is 1, whose
/// other strides and offset are static multiples of 16 bytes (its base is
/// assumed 16-byte aligned, as cudaMalloc's is); boxes of 1 to 256 elements
/// per dimension and innermost rows of a multiple of 16 bytes. Otherwise
/// fails, with `why` saying why.
/// `swizzle` (0, 32, 64 or 128) is the width in bytes of the swizzled rows
/// that the destination must hold (kSwizzleAttrName): the tile's rows must
/// be a multiple of it, and a tile with wider rows is loaded in panels.
FailureOr<TMATile> matchTMATile(Value source, MemRefType destinationType,
                                Region &kernel, std::string &why,
                                int64_t swizzle = 0);

/// The discardable attribute (an i64: 32, 64 or 128) of an smem
/// `vx.scratch` that holds its tile in the swizzled layout of that row
/// width (PTX ISA, "Tensor swizzling modes"): the tensor cores' matrix
/// descriptors read it so (vx-distribute-tile-ops sets it on sm_90a), its
/// TMA transfers write it so, and the layout of shared memory aligns it to
/// its pattern (8 rows). A tile whose rows are k times that width is k
/// panels of it, each every row's next `swizzle` bytes, one after the
/// other.
constexpr StringLiteral kSwizzleAttrName = "vx.swizzle";

/// The attribute of a `wgmma.wait_group 0` (vx-distribute-tile-ops on
/// sm_90a) that may leave its group in flight into the next step: the
/// group's operands are smem tiles that only TMA transfers write, and its
/// accumulator is next accessed by the next step's wgmma (every other
/// access waits for all groups first). A pipeline of those transfers
/// (vx-pipeline-transfers) makes it `wait_group 1` and refills the slots
/// after it: the group it leaves pending reads the step's slots, and the
/// one it retires the slot that the refill overwrites.
constexpr StringLiteral kDeferrableWaitAttrName = "vx.deferrable_wait";

/// The alignment in bytes that `scratch`'s swizzle needs (its pattern of 8
/// rows), or 1 without one.
int64_t getSwizzleAlignment(Operation *scratch);

/// Encodes the tensor map of `tile` with the host builder `host` (before
/// the launch: the map, a device pointer at run time, becomes a kernel
/// argument).
Value createTMADescriptor(OpBuilder &host, Location loc, const TMATile &tile);

/// Creates a group of `count` mbarriers in shared memory (one per kernel and
/// op; every thread that runs it gets the same group), to initialize with
/// initTMABarriers before any use.
Value createTMABarriers(OpBuilder &builder, Location loc, int64_t count);

/// Initializes the `count` mbarriers of `barriers` for `arrivals` arrivals
/// per phase (one per load of a phase) from the thread where `elected`
/// holds, which then fences them and the tensor maps `descriptors` for its
/// loads (fenceBeforeTMALoads), followed by a barrier so that every thread
/// of the CTA (which all reach it) sees them initialized, which it returns.
gpu::BarrierOp initTMABarriers(OpBuilder &builder, Location loc, Value barriers,
                               int64_t count, int64_t arrivals, Value elected,
                               ValueRange descriptors);

/// Makes what the CTA did before, in the generic proxy, visible to the TMA
/// loads that the thread where `elected` holds issues next (they run in
/// the async proxy): `fence.proxy.async.shared::cta` orders the shared
/// memory accesses, the threads' before the last barrier included (mbarrier
/// initialization; the stores, cp.async copies and reads of a slot that a
/// load overwrites), and each tensor map of `descriptors`, written by the
/// host, is brought into the tensormap proxy (nvgpu.tma.prefetch.descriptor)
/// before the first load that reads it. Placed once after that barrier, not
/// per access.
void fenceBeforeTMALoads(OpBuilder &builder, Location loc, Value elected,
                         ValueRange descriptors = {});

/// Starts the load of `tile` (its tensor map `descriptor`) into
/// `destination`, shared memory of the type matchTMATile accepted, from the
/// thread where `elected` holds: it expects the tile's bytes on barrier
/// `barrierIndex` of `barriers` (announceTMABytes) and issues the copy (a
/// copy per panel), which completes them. Each load completes one phase of
/// its barrier.
void issueTMALoad(OpBuilder &builder, Location loc, const TMATile &tile,
                  Value descriptor, Value destination, Value barriers,
                  Value barrierIndex, Value elected);

/// The arrival of the thread where `elected` holds on barrier
/// `barrierIndex` of `barriers`, expecting `bytes` from the loads of its
/// phase (`mbarrier.arrive.expect_tx`): one announcement may cover several
/// loads (startTMALoad), which then complete one phase together.
void announceTMABytes(OpBuilder &builder, Location loc, Value bytes,
                      Value barriers, Value barrierIndex, Value elected);

/// issueTMALoad without the announcement of its bytes, which an earlier
/// announceTMABytes on the same barrier made.
void startTMALoad(OpBuilder &builder, Location loc, const TMATile &tile,
                  Value descriptor, Value destination, Value barriers,
                  Value barrierIndex, Value elected);

/// Waits, on the thread that runs it, until the phase of barrier
/// `barrierIndex` whose parity is `phaseParity` (i1) completes: the k-th
/// load on a barrier (from 0) completes the phase of parity k mod 2. After
/// it the loaded tile is visible to that thread.
void waitTMALoad(OpBuilder &builder, Location loc, Value barriers,
                 Value barrierIndex, Value phaseParity);

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_VXTRANSFERTONVGPU_TMA_H

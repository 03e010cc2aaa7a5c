//===- TileOps.h - CTA-collective tile ops ----------------------*- C++ -*-===//
//
// The tile ops of VX_SPEC section 2.3 as thread loops: shared by the
// vx-distribute-tile-ops pass and vx-verify-semantics, which checks the
// spawn the pass will produce.
//
//===----------------------------------------------------------------------===//

#ifndef VX_TRANSFORMS_TILEOPS_H
#define VX_TRANSFORMS_TILEOPS_H

#include "Vx/Target/Chip.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace mlir {
class RewriterBase;

namespace vx {

/// How `distributeTileOps` computes the tile ops of a spawn.
struct TileOpsOptions {
  /// Remark on each matmul that would suit the tensor cores how it is
  /// computed (the pass does; the checker's copy does not).
  bool remarkOnMatmuls = false;
  /// f32 matmuls may use TF32 tensor cores.
  bool tf32 = false;
  /// The chip whose tensor cores the matmuls use; none: FMA code only (the
  /// CPU routes, via-gpu included).
  std::optional<Chip> chip;
  /// The CTA size of spawns without a `threads` clause (0: the default).
  int64_t threadsPerBlock = 0;
};

/// The options of the pass `pass`, which rewrites or checks tile ops, from
/// its own: `chip` parsed (empty: none), or an error on `root`.
FailureOr<TileOpsOptions> parseTileOpsOptions(Operation *root, StringRef pass,
                                              StringRef chip,
                                              int64_t threadsPerBlock,
                                              bool tf32);

/// The tile ops of `spawn` (a device spawn): linalg ops in its
/// once-per-instance code (outside thread loops), and there the
/// memref.copy ops when the body has linalg ops or thread loops.
SmallVector<Operation *> getTileOps(SpawnOp spawn);

/// The private scratch tiles of `spawn` that `value`, if a memref, may
/// view.
SmallVector<Value> getPrivateTiles(Value value, SpawnOp spawn);

/// Rewrites each tile op of `spawn` into a thread loop: with a chip that
/// has them, the matmuls that fit (and the fills and copies of their
/// accumulators) on the tensor cores (`lowerMatmulsToWgmma` on sm_90a,
/// `lowerMatmulsToMmaSync` on the others), the other
/// ops over their parallel dimensions (in the order of their output's),
/// with their reduction dimensions sequential inside. Reports the ops it
/// cannot rewrite.
LogicalResult distributeTileOps(RewriterBase &rewriter, SpawnOp spawn,
                                const TileOpsOptions &options);

/// Computes the `linalg.matmul` tile ops of `spawn` whose types, shapes and
/// accumulator fit on the chip's `mma.sync.m16n8k16` (see docs/design.md,
/// "Tensor cores"), with the fills and copies of their accumulators, as
/// thread loops over the lanes of the MMA warps; the accumulator becomes
/// a private scratch in the MMA fragment layout. Remarks name the reason
/// for every other bf16/f16/f32 matmul, which stays for the FMA path.
/// Fails on a thread loop that a fragment group cannot run (an error).
LogicalResult lowerMatmulsToMmaSync(RewriterBase &rewriter, SpawnOp spawn,
                                    ArrayRef<Operation *> tileOps,
                                    const TileOpsOptions &options);

/// Computes the fragment groups of `spawn`'s tile ops on `mma.sync` (see
/// docs/design.md, "Tile ops in the fragment layout"): the private tiles
/// that row reductions, elementwise ops and row broadcasts connect to a
/// fitting matmul's accumulator, or that a matmul reads as its A operand,
/// all in the registers of the fragment layout, with the thread loops of the
/// user's over those tiles. The matmuls of a group that cannot take it get
/// their reason in `reasons` and stay; a thread loop over a group's tiles
/// that the layout cannot run is an error naming it and the tile ops (a
/// failure).
LogicalResult lowerFragmentGroups(RewriterBase &rewriter, SpawnOp spawn,
                                  ArrayRef<Operation *> tileOps,
                                  const TileOpsOptions &options,
                                  DenseMap<Operation *, std::string> &reasons);

/// Computes the `linalg.matmul` tile ops of `spawn` whose types, shapes,
/// operands and accumulator fit on sm_90a's `wgmma.mma_async` (see
/// docs/design.md, "Tensor cores") as thread loops over the lanes of the
/// CTA's warpgroups, with the fills and copies of their accumulators; the
/// accumulator becomes a private scratch in the wgmma fragment layout, and
/// the smem operand tiles get the swizzle (kSwizzleAttrName) that their TMA
/// transfers write and the matrix descriptors read. Remarks name the
/// reason for every other bf16/f16/f32 matmul, which stays for the FMA
/// path.
void lowerMatmulsToWgmma(RewriterBase &rewriter, SpawnOp spawn,
                         ArrayRef<Operation *> tileOps,
                         const TileOpsOptions &options);

// Tile ops writing the swizzled operand tiles of wgmma
// (SwizzledTileWriters.cpp).

/// Whether `op` is a tile op of `spawn` that computes all of `tile`
/// elementwise (parallel loops, an identity map of `tile`, its only output,
/// which it does not read): its thread loop can write the swizzled layout.
bool isSwizzledTileWriter(Operation *op, Value tile, SpawnOp spawn);

/// Makes `loop`, the thread loop over the rows and columns of a swizzled
/// writer of `tile` (isSwizzledTileWriter), compute at each position the
/// element that the swizzle of rows of `swizzle` bytes puts there, and
/// each of the CTA's `ctaSize` threads fence its writes for wgmma's async
/// proxy after it.
LogicalResult swizzleTileWriterLoop(RewriterBase &rewriter,
                                    scf::ParallelOp loop, Value tile,
                                    int64_t swizzle, int64_t ctaSize);

// Helpers of the tensor-core lowerings (MmaSyncTileOps.cpp).

/// The element types of `matmul`, named for the remarks, when they would
/// suit the tensor cores at all (VX_SPEC 2.3).
std::optional<StringRef> getTensorCoreKind(linalg::MatmulOp matmul, bool tf32);

/// Why `matmul` suits neither tensor-core lowering, whatever the chip: its
/// element types, dynamic shapes, maps that are not transpositions, a
/// transposed accumulator; or nothing.
std::optional<std::string>
getTensorCoreMatmulReason(linalg::MatmulOp matmul,
                          const TileOpsOptions &options);

/// The private scratch that `matmul`'s output is directly, if any.
ScratchOp getMatmulAccumulator(linalg::MatmulOp matmul);

/// Whether `op` copies `tile` converted to a narrower float type: an
/// elementwise linalg.map or linalg.generic (identity maps, parallel
/// loops) whose only input is `tile` and whose body is an arith.truncf of
/// it into its only output (the epilogue storing an f32 accumulator as
/// bf16).
bool isTruncatingCopy(Operation *op, Value tile);

/// Why the accumulator `scratch` cannot live in a fragment layout: a use
/// other than a fill of it, a matmul into it and a copy out of it (into
/// memory that is not private; also converted, isTruncatingCopy), all tile
/// ops. Collects the uses.
std::optional<std::string>
getAccumulatorReason(ScratchOp scratch, ArrayRef<Operation *> tileOps,
                     SpawnOp spawn, SmallVectorImpl<Operation *> &uses);

// Thread loops of the user's over private tiles of tile ops (VX_SPEC 2.3;
// FragmentTileOps.cpp).

/// Why the thread loop `loop` does not touch the private tiles that
/// `isTile` accepts elementwise (bounds from 0 in steps of 1 over a tile's
/// whole shape, no reductions, every access of a tile a memref.load or
/// memref.store at exactly the loop's induction variables: [r, c] of a
/// tile, [r] of a row vector), with the access at fault (null for the loop
/// itself); nothing where it does.
struct ThreadLoopMismatch {
  Operation *op;
  std::string reason;
};
std::optional<ThreadLoopMismatch>
getElementwiseLoopMismatch(scf::ParallelOp loop,
                           function_ref<bool(Value)> isTile);

/// The thread loops of `spawn` that access a private tile that `isTile`
/// accepts (directly, not through a view).
SmallVector<scf::ParallelOp>
getThreadLoopsOverTiles(SpawnOp spawn, function_ref<bool(Value)> isTile);

/// `terms` (value, factor) summed with `constant`, as index arithmetic.
Value buildSum(OpBuilder &b, Location loc,
               ArrayRef<std::pair<Value, int64_t>> terms, int64_t constant);

/// Builds `scf.for` loops from 0 to each of `counts` around `body`.
void buildLoops(OpBuilder &b, Location loc, ArrayRef<int64_t> counts,
                function_ref<void(OpBuilder &, ValueRange)> body);

} // namespace vx
} // namespace mlir

#endif // VX_TRANSFORMS_TILEOPS_H

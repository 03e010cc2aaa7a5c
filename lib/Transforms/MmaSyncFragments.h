//===- MmaSyncFragments.h - The mma.sync fragment layout --------*- C++ -*-===//
//
// Pieces of the mma.sync lowering (MmaSyncTileOps.cpp) that the tile ops in
// the fragment layout (FragmentTileOps.cpp) share: the warp tiling of a
// tile, the thread loop over the lanes, the MMA itself.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_TRANSFORMS_MMASYNCFRAGMENTS_H
#define VX_LIB_TRANSFORMS_MMASYNCFRAGMENTS_H

#include "Vx/Transforms/TileOps.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace vx {

/// The shape of one `mma.sync` (m16n8k16) and of a lane's share of it.
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;
constexpr int64_t kLanesPerRow = 4;
/// The warps of a warpgroup, which wgmma's m64 fragment splits in rows.
constexpr int64_t kWarpsPerWarpgroup = 4;
/// Accumulator values of one fragment per lane (two rows, two columns).
constexpr int64_t kValuesPerFragment = 4;

/// How the warps of the CTA cover an M x N tile: a warpsM x warpsN grid of
/// warps, each owning fragsM x fragsN fragments of 16x8.
struct MmaTiling {
  int64_t warpsM, warpsN, fragsM, fragsN;

  int64_t getWarpRows() const { return fragsM * kMmaM; }
  int64_t getWarpColumns() const { return fragsN * kMmaN; }
  int64_t getValuesPerLane() const {
    return fragsM * fragsN * kValuesPerFragment;
  }
};

/// A lane of the MMA thread loop: its warp's coordinates in the warp grid,
/// its row in a fragment (lane / 4) and its pair of columns (lane % 4).
struct Lane {
  Value warpM, warpN, group, pair;
};

/// The fragments of a private bf16/f16 tile in the fragment layout of
/// `tiling` (warpsN = 1) that a matmul reads as its A operand from
/// registers.
struct RegisterOperand {
  Value fragments;
  MmaTiling tiling;
};

/// Builds the thread loop over the lanes of the tiling's warps, ivs (warp
/// m, warp n, lane / 4, lane % 4): iteration i (row-major) is lane i mod 32
/// of warp i / 32.
void buildLaneLoop(OpBuilder &b, Location loc, const MmaTiling &tiling,
                   function_ref<void(OpBuilder &, Lane)> body);

/// Why `matmul` cannot be one on `mma.sync.m16n8k16` by itself (its types,
/// shape, operands and the chip), or nothing. With `allowPrivateA`, A may
/// be private scratch (the caller checks it).
std::optional<std::string> getMmaSyncMatmulReason(linalg::MatmulOp matmul,
                                                  SpawnOp spawn,
                                                  const TileOpsOptions &options,
                                                  bool allowPrivateA);

/// Why `ldmatrix` cannot read `operand`, A or B of a matmul, or nothing.
std::optional<std::string> getLdmatrixReason(OpOperand &operand);

/// One A or B register of `mma.sync` from its pair of 16-bit elements.
Value packRegister(OpBuilder &b, Location loc, Value pair);

/// Where element `element` of A's register `reg` (0-3) of a K step is in
/// the lane's values of a private tile of `fragsN` 8-column fragments: the
/// m16n8k16 A fragment (also wgmma's register A, per warp) of 16 rows fm
/// and K step k is the C-fragment values of the tile's N fragments 2k (a0:
/// row g, a1: row g + 8) and 2k + 1 (a2, a3), each pair of columns 2t,
/// 2t + 1 one register; the value is this plus fm fragsN 4 + k 8.
constexpr int64_t getRegisterAOffset(int64_t reg, int64_t element) {
  return (reg / 2) * kValuesPerFragment + (reg % 2) * 2 + element;
}

/// The body of `matmul`'s thread loop for `lane`, accumulating into
/// `fragments` (the layout of `tiling`); A from `registerA` when given,
/// else from memory (`ldmatrix` where `ldmatrix` says so, per operand).
void buildMmaSync(OpBuilder &b, Location loc, linalg::MatmulOp matmul,
                  const MmaTiling &tiling, std::array<bool, 2> ldmatrix,
                  Value fragments, const Lane &lane,
                  const std::optional<RegisterOperand> &registerA);

/// Pads the shared tiles that `matmuls` read directly to a conflict-free
/// row pitch for `ldmatrix` (see MmaSyncTileOps.cpp).
void chooseSharedLayouts(RewriterBase &rewriter,
                         ArrayRef<linalg::MatmulOp> matmuls,
                         const TileOpsOptions &options);

// The tile ops in the fragment layout (FragmentTileOps.cpp).

/// A group of private tiles that fitting matmuls write and row reductions,
/// elementwise ops and row broadcasts read, all in the fragment layout.
struct FragmentGroup {
  /// The warps split the rows only, so that each row lives in one warp:
  /// warpsM blocks of fragsM fragments of `getFragmentRows()` rows, each
  /// fragment split over `getWarpsN()` warps of 16 rows.
  int64_t warpsM, fragsM;
  /// Whether its matmuls are `wgmma.mma_async` (sm_90a): warpsM
  /// warpgroups, whose 4 warps split each 64-row fragment; else
  /// `mma.sync`, one warp per 16-row fragment.
  bool wgmma = false;
  /// The group's private tiles (M x N tiles and row vectors of M).
  SmallVector<ScratchOp> tiles;
  /// Its tile ops and the thread loops of the user's over its tiles, in
  /// program order.
  SmallVector<Operation *> ops;

  SmallVector<linalg::MatmulOp> getMatmuls() const;
  int64_t getWarpsN() const { return wgmma ? kWarpsPerWarpgroup : 1; }
  int64_t getFragmentRows() const { return getWarpsN() * kMmaM; }
  int64_t getRows() const { return warpsM * fragsM * getFragmentRows(); }
  /// The warp tiling of a tile of `columns` columns in the group's layout.
  MmaTiling getTiling(int64_t columns) const {
    return {warpsM, getWarpsN(), fragsM, columns / kMmaN};
  }
};

/// The fragment groups of `spawn`'s tile ops: each closed set of private
/// tiles reached from a fitting matmul's accumulator that other tile ops
/// than fills and copies out read, or from a matmul whose A is private.
/// Every matmul of a group that cannot take the layout gets its reason in
/// `reasons`. The groups take the thread loops of the user's over their
/// tiles; one that the layout cannot run is an error (a failure).
FailureOr<SmallVector<FragmentGroup>>
planFragmentGroups(SpawnOp spawn, ArrayRef<Operation *> tileOps,
                   const TileOpsOptions &options, int64_t ctaSize,
                   DenseMap<Operation *, std::string> &reasons);

/// Replaces the group's tiles by scratch in the fragment layout and its ops
/// by thread loops over the lanes.
void rewriteFragmentGroup(RewriterBase &rewriter, const FragmentGroup &group);

// The fragment groups on wgmma (WgmmaTileOps.cpp).

/// Makes `group` (planned for mma.sync) take `wgmma.mma_async` on the CTA's
/// `ctaSize` threads and its operand tiles the swizzle of their TMA
/// transfers, or says why it cannot (the group is left unchanged).
std::optional<std::string> planWgmmaGroup(FragmentGroup &group, SpawnOp spawn,
                                          int64_t ctaSize);

/// The body of the thread loop of `matmul`, a matmul of a group on wgmma,
/// for `lane` (warp m: the warpgroup, warp n: its warp): its fragments in
/// `fragments` (the layout of `tiling`), A from `registerA` when given,
/// else from shared memory through a descriptor, as B. With `overwrite`
/// (the accumulator was just filled with zeros) its values are not read:
/// the first K step does not add them (scale-d 0).
void buildGroupWgmma(OpBuilder &b, Location loc, linalg::MatmulOp matmul,
                     const MmaTiling &tiling, Value fragments, const Lane &lane,
                     const std::optional<RegisterOperand> &registerA,
                     bool overwrite);

} // namespace vx
} // namespace mlir

#endif // VX_LIB_TRANSFORMS_MMASYNCFRAGMENTS_H

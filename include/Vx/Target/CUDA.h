//===- CUDA.h - The CUDA toolkit --------------------------------*- C++ -*-===//
//
// What the GPU stages need to know about the CUDA toolkit: where it is
// (ptxas, libdevice), which chips its ptxas takes, what ptxas reports (the
// chips themselves are Vx/Target/Chip.h). vx-opt, the Python module and the
// lit configuration share this one discovery.
//
//===----------------------------------------------------------------------===//

#ifndef VX_TARGET_CUDA_H
#define VX_TARGET_CUDA_H

#include "Vx/Target/Chip.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
namespace vx {

/// Checks that the ptxas of the CUDA toolkit at `toolkit` assembles for
/// `chip` (the chips its `--help` lists, asked once per process and
/// toolkit). On failure `error` says why and lists the chips it takes.
LogicalResult checkPtxasChip(StringRef toolkit, StringRef chip,
                             std::string &error);

/// What ptxas reports (`-v`) about one kernel it compiled.
struct PtxasUsage {
  int64_t registers = 0;
  /// Spill stores plus spill loads.
  int64_t spillBytes = 0;
  int64_t stackBytes = 0;
};

/// Compiles `ptx` for `chip` with the ptxas of the CUDA toolkit at
/// `toolkit` and returns its report per entry function (kernel). On failure
/// `error` holds ptxas's own log.
FailureOr<llvm::StringMap<PtxasUsage>> queryPtxasUsage(StringRef toolkit,
                                                       StringRef chip,
                                                       StringRef ptx,
                                                       std::string &error);

/// The alignment, in bytes, of a kernel's dynamic shared memory (the
/// `.extern .shared` array that ptxas places after the static symbols): a
/// TMA destination's, so that slots at multiples of it need no alignment
/// at run time.
constexpr int64_t kDynamicSharedMemoryAlignment = 128;

/// The alignment of the dynamic shared memory on `chip`: on sm_90a the
/// pattern of the 128-byte swizzle (8 rows of 128 bytes), at whose
/// multiples the layout of shared memory puts the swizzled tiles that
/// wgmma reads (kSwizzleAttrName).
inline int64_t getDynamicSharedMemoryAlignment(const Chip &chip) {
  return chip.hasWgmma() ? 1024 : kDynamicSharedMemoryAlignment;
}

/// The bytes of one mbarrier object (PTX ISA, "Size and alignment of
/// mbarrier object").
constexpr int64_t kMBarrierBytes = 8;

/// The CUDA toolkit that gpu-module-to-binary takes ptxas and libdevice
/// from: CUDA_HOME when set, else the first of the toolkit of the ptxas on
/// PATH (through symlinks) and /usr/local/cuda that holds both
/// bin/ptxas and nvvm/libdevice/libdevice.10.bc. On failure `error` says
/// what was tried.
std::optional<std::string> findCUDAToolkit(std::string &error);

} // namespace vx
} // namespace mlir

#endif // VX_TARGET_CUDA_H

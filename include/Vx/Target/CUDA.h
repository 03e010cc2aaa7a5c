//===- CUDA.h - NVIDIA chips and the CUDA toolkit ---------------*- C++ -*-===//
//
// What the GPU stages need to know about the target: chip names, their PTX
// versions, and where the CUDA toolkit (ptxas, libdevice) is. vx-opt, the
// Python module and the lit configuration share this one discovery.
//
//===----------------------------------------------------------------------===//

#ifndef VX_TARGET_CUDA_H
#define VX_TARGET_CUDA_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
namespace vx {

/// The SM number of an NVIDIA chip name (sm_90, sm_90a, sm_100f, ...).
std::optional<unsigned> getSMNumber(StringRef chip);

/// Checks `chip` against the processors of LLVM 22's NVPTX target, and
/// `features` (comma-separated `+name` or `-name`; may be empty) against its
/// features and the lowest PTX version the chip takes. On failure `error`
/// says why and what is valid; nothing is printed.
LogicalResult checkNVPTXTarget(StringRef chip, StringRef features,
                               std::string &error);

/// The PTX ISA version, as an NVPTX feature (`+ptx80`), that Vx uses for
/// `chip` (checked by checkNVPTXTarget): the lowest that LLVM 22 accepts
/// for it, and at least 8.0.
std::string getDefaultPTXFeatures(StringRef chip);

/// Checks that the ptxas of the CUDA toolkit at `toolkit` assembles for
/// `chip` (the chips its `--help` lists, asked once per process and
/// toolkit). On failure `error` says why and lists the chips it takes.
LogicalResult checkPtxasChip(StringRef toolkit, StringRef chip,
                             std::string &error);

/// The most shared memory, in bytes, that one CTA may use on a chip of SM
/// number `smNumber` (the opt-in limit of dynamic shared memory: 227 KiB
/// on sm_90 and sm_100).
int64_t getMaxSharedMemoryPerBlock(unsigned smNumber);

/// The alignment, in bytes, of a kernel's dynamic shared memory (the
/// `.extern .shared` array that ptxas places after the static symbols): a
/// TMA destination's, so that slots at multiples of it need no alignment
/// at run time.
constexpr int64_t kDynamicSharedMemoryAlignment = 128;

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

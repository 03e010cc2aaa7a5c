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

/// The lowest PTX ISA version, as an NVPTX feature (`+ptx80`), that both
/// LLVM 22 and the CUDA toolkit accept for SM number `smNumber`.
StringRef getDefaultPTXFeatures(unsigned smNumber);

/// The CUDA toolkit that gpu-module-to-binary takes ptxas and libdevice
/// from: CUDA_HOME when set, else the first of the toolkit of the ptxas on
/// PATH (through symlinks) and /usr/local/cuda that holds both
/// bin/ptxas and nvvm/libdevice/libdevice.10.bc. On failure `error` says
/// what was tried.
std::optional<std::string> findCUDAToolkit(std::string &error);

} // namespace vx
} // namespace mlir

#endif // VX_TARGET_CUDA_H

//===- Limits.h - CUDA limits and Vx defaults, declared once ----*- C++ -*-===//
//
// The numbers that the verifier, the GPU mapping, the pipelines and the
// launch-to-loops lowering must agree on. Header-only, so that the dialect
// itself can use it without linking the target library.
//
//===----------------------------------------------------------------------===//

#ifndef VX_TARGET_LIMITS_H
#define VX_TARGET_LIMITS_H

#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace vx {

/// CUDA's limit on the threads of a CTA.
inline constexpr int64_t kMaxThreadsPerBlock = 1024;

/// The threads of a warp on every NVIDIA chip.
inline constexpr int64_t kWarpSize = 32;

/// The threads of a CTA when neither the spawn's `threads` clause nor the
/// `threads-per-block` option says (docs/design.md, "Block": chosen on the
/// benchmark kernels' PTX). The option's value 0 stands for it.
inline constexpr int64_t kDefaultCTASize = 256;

/// Why `threadsPerBlock` is not a valid `threads-per-block` option (0 is:
/// the default CTA size), or nothing. The pass and the pipelines share it.
inline std::optional<std::string>
checkThreadsPerBlockOption(int64_t threadsPerBlock) {
  if (threadsPerBlock >= 0 && threadsPerBlock <= kMaxThreadsPerBlock)
    return std::nullopt;
  return ("threads-per-block must be between 1 and " +
          llvm::Twine(kMaxThreadsPerBlock) +
          " (0: the default CTA size), got " + llvm::Twine(threadsPerBlock))
      .str();
}

/// Why `stages` is not a valid `stages` option, or nothing.
inline std::optional<std::string> checkStagesOption(int64_t stages) {
  if (stages >= 1)
    return std::nullopt;
  return ("stages must be at least 1, got " + llvm::Twine(stages)).str();
}

} // namespace vx
} // namespace mlir

#endif // VX_TARGET_LIMITS_H

//===- VxTransferToNVGPU.h - Transfers as cp.async --------------*- C++ -*-===//
//
// In device code, a transfer from global memory into shared-memory scratch
// becomes nvgpu.device_async_copy chunks and one cp.async group; its await
// waits for that group with nvgpu.device_async_wait.
//
//===----------------------------------------------------------------------===//

#ifndef VX_CONVERSION_VXTRANSFERTONVGPU_VXTRANSFERTONVGPU_H
#define VX_CONVERSION_VXTRANSFERTONVGPU_VXTRANSFERTONVGPU_H

#include "Vx/Conversion/VxToSCF/VxToSCF.h"

#include <string>

namespace mlir {
class Operation;
class RewritePatternSet;
class TypeConverter;

namespace vx {
class Chip;
class TransferAsyncOp;

/// The bytes of each cp.async copy that `transfer` (in a device spawn)
/// becomes on `chip` (any chip with cp.async when null), or failure with
/// `why` it stays a synchronous copy.
FailureOr<int64_t> getAsyncCopyChunkBytes(TransferAsyncOp transfer,
                                          const Chip *chip, std::string &why);

/// Decides, for the transfers of the device spawns under `root`, which become
/// cp.async copies (global memory into shared-memory scratch, in chunks of 4,
/// 8 or 16 bytes that the layouts keep aligned) and remarks on the others,
/// which stay synchronous loop copies, also every transfer when `chip` (if
/// not null) has no cp.async (before sm_80). Adds the patterns
/// that lower the chosen transfers and their awaits once they are inside a
/// gpu.launch; they take precedence over the synchronous patterns. Device
/// tokens become `!nvgpu.device.async.token`. A transfer for which
/// `getShare` returns a share has its chunks spread over the CTA's threads.
void populateVxTransferToNVGPUConversionPatterns(TypeConverter &typeConverter,
                                                 RewritePatternSet &patterns,
                                                 Operation *root,
                                                 const Chip *chip,
                                                 GetThreadShare getShare = {});

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_VXTRANSFERTONVGPU_VXTRANSFERTONVGPU_H

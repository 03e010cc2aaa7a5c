//===- MemRefSpan.h - The bytes a strided memref descriptor spans -*- C++
//-*-===//
//
// Both runtimes (libvx_cuda_runtime and the PTX simulator's) register the
// memory of a ranked memref descriptor for mgpuMemHostRegisterMemRef: the
// span from its first to its last element, so strided views work too.
//
//===----------------------------------------------------------------------===//

#ifndef VX_RUNTIME_MEMREFSPAN_H
#define VX_RUNTIME_MEMREFSPAN_H

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <cstdint>

namespace vx {

/// The first byte and byte count of the elements of a memref descriptor.
struct MemRefSpan {
  char *first;
  uint64_t sizeBytes;
};

/// The span of the memref of rank `rank` that `descriptor` describes, with
/// elements of `elementSizeBytes`; zero bytes when it has no element.
inline MemRefSpan getMemRefSpan(int64_t rank,
                                StridedMemRefType<char, 1> *descriptor,
                                int64_t elementSizeBytes) {
  char *first = descriptor->data + descriptor->offset * elementSizeBytes;
  int64_t *sizes = descriptor->sizes;
  int64_t *strides = sizes + rank;
  int64_t lastElement = 0;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (sizes[dim] == 0)
      return {first, 0};
    lastElement += (sizes[dim] - 1) * strides[dim];
  }
  return {first, static_cast<uint64_t>((lastElement + 1) * elementSizeBytes)};
}

} // namespace vx

#endif // VX_RUNTIME_MEMREFSPAN_H

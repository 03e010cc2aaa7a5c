//===- CudaRuntime.cpp - The mgpu* functions over the CUDA driver API -----===//
//
// gpu-to-llvm lowers host code to calls of mgpu* functions, and Debian ships
// no libmlir_cuda_runtime: this library implements the ones that Vx's host
// code and tests use, so that `--vx-to-ptx="format=bin"` output runs under
// mlir-runner on a machine with a GPU, and so do libraries from vx.compile.
//
// Errors: under mlir-runner a failing driver call is reported and ends the
// program (continuing would only produce wrong numbers). A caller that checks
// errors itself (vx.runtime) calls vxCudaReportErrors(): the first failure
// of a thread is then kept for vxCudaTakeError and every later mgpu* call of
// that thread does nothing until it is taken, so nothing launches on a failed
// setup and nothing exits the caller's process.
//
//===----------------------------------------------------------------------===//

#include "Vx/Runtime/CudaRuntime.h"
#include "Vx/Runtime/ErrorChannel.h"
#include "Vx/Runtime/MemRefSpan.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <cuda.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <tuple>

namespace {

/// Set by vxCudaSetStream: the stream the host code launches on instead of
/// creating its own, and whether its synchronization waits.
thread_local CUstream borrowedStream = nullptr;
thread_local bool borrowing = false;
thread_local bool synchronizeBorrowed = true;

/// Names of the errors a machine without a working GPU reports, for when
/// the driver cannot name them itself (the toolkit's stub library).
const char *getFallbackErrorName(CUresult result) {
  switch (result) {
  case CUDA_ERROR_STUB_LIBRARY:
    return "CUDA_ERROR_STUB_LIBRARY";
  case CUDA_ERROR_NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE";
  default:
    return nullptr;
  }
}

/// Reports an error: prints it and exits, or keeps it for vxCudaTakeError
/// (the first of the thread) when the caller checks errors itself.
void reportError(std::string message) {
  reportOrKeepError(std::move(message), "vx_cuda_runtime: ");
}

/// Reports a failing driver call; returns whether `result` is a failure.
bool check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return false;
  const char *name = nullptr;
  const char *description = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = getFallbackErrorName(result);
  if (cuGetErrorString(result, &description) != CUDA_SUCCESS)
    description = nullptr;
  // The function's name: the call's text up to its arguments.
  std::string function(call, std::strcspn(call, "("));
  std::string message = function + " failed with " +
                        (name ? name : "CUDA error " + std::to_string(result));
  if (description)
    message += std::string(" (") + description + ")";
  reportError(std::move(message));
  return true;
}

#define VX_CUDA_CHECK(call) check(call, #call)

int32_t defaultDevice = 0;

/// The primary context of device `ordinal`, retained on first use; null
/// (with the error reported) where there is no driver or device.
CUcontext getPrimaryContext(int32_t ordinal) {
  static std::mutex mutex;
  static std::map<int32_t, CUcontext> primaries;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = primaries.find(ordinal);
  if (found != primaries.end())
    return found->second;
  CUdevice device;
  CUcontext context;
  if (VX_CUDA_CHECK(cuInit(0)) ||
      VX_CUDA_CHECK(cuDeviceGet(&device, ordinal)) ||
      VX_CUDA_CHECK(cuDevicePrimaryCtxRetain(&context, device)))
    return nullptr;
  primaries.emplace(ordinal, context);
  return context;
}

/// Makes the primary context of the default device current while alive;
/// `active()` is false when an earlier error is pending or the context
/// cannot be made current, and the call it guards must then do nothing.
class ScopedContext {
public:
  ScopedContext() : device(defaultDevice) {
    if (failed())
      return;
    context = getPrimaryContext(device);
    pushed = context && !VX_CUDA_CHECK(cuCtxPushCurrent(context));
  }
  ~ScopedContext() {
    if (pushed)
      VX_CUDA_CHECK(cuCtxPopCurrent(nullptr));
  }
  bool active() const { return pushed; }
  CUcontext getContext() const { return context; }
  int32_t getDevice() const { return device; }

private:
  int32_t device;
  CUcontext context = nullptr;
  bool pushed = false;
};

/// The size of an element of a CUtensorMapDataType that
/// nvgpu.tma.create.descriptor's lowering passes (UINT8 to TFLOAT32_FTZ), 0
/// for the others.
int64_t getTensorMapElementBytes(int64_t dataType) {
  static const int64_t bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (dataType < 0 || dataType >= static_cast<int64_t>(std::size(bytes)))
    return 0;
  return bytes[dataType];
}

constexpr int64_t kMaxTensorMapRank = 5;

/// What a tensor map is made from: every input of cuTensorMapEncodeTiled
/// (the element strides are always 1), and the context and device it is
/// used in, in the driver's order (innermost dimension first). Equal keys
/// make equal maps, so the device copy of one serves the other.
struct TensorMapKey {
  CUcontext context = nullptr;
  int32_t device = 0;
  const void *address = nullptr;
  int64_t rank = 0, dataType = 0, interleave = 0, swizzle = 0, l2Promotion = 0,
          oobFill = 0;
  std::array<cuuint64_t, kMaxTensorMapRank> dims{};
  std::array<cuuint64_t, kMaxTensorMapRank - 1> strides{};
  std::array<cuuint32_t, kMaxTensorMapRank> box{};

  auto tie() const {
    return std::tie(context, device, address, rank, dataType, interleave,
                    swizzle, l2Promotion, oobFill, dims, strides, box);
  }
  bool operator<(const TensorMapKey &other) const {
    return tie() < other.tie();
  }
};

/// The key of the tensor map of a memref of rank `rank` (1 to 5, innermost
/// stride 1, checked by the caller) of `elementBytes`-byte elements, in
/// boxes of `boxDims` (outermost first, as the lowering passes them).
TensorMapKey makeTensorMapKey(int64_t rank,
                              const StridedMemRefType<char, 1> &descriptor,
                              int64_t elementBytes, int64_t dataType,
                              int64_t interleave, int64_t swizzle,
                              int64_t l2Promotion, int64_t oobFill,
                              const int64_t *boxDims) {
  const int64_t *sizes = descriptor.sizes;
  const int64_t *strides = sizes + rank;
  TensorMapKey key;
  key.address = descriptor.data + descriptor.offset * elementBytes;
  key.rank = rank;
  key.dataType = dataType;
  key.interleave = interleave;
  key.swizzle = swizzle;
  key.l2Promotion = l2Promotion;
  key.oobFill = oobFill;
  for (int64_t dim = 0; dim < rank; ++dim) {
    key.dims[dim] = sizes[rank - 1 - dim];
    key.box[dim] = boxDims[rank - 1 - dim];
  }
  // The strides in bytes of all but the innermost dimension.
  for (int64_t dim = 0; dim + 1 < rank; ++dim)
    key.strides[dim] = strides[rank - 2 - dim] * elementBytes;
  return key;
}

/// The device copies of the tensor maps, one per key, made on first use
/// and kept for the life of the process: kernels read a tensor map through
/// a pointer (the ABI of nvgpu.tma.create.descriptor's lowering), and each
/// copy is written once, at an address no other map ever has (so the
/// kernels need no acquire fence against an older map cached there). A
/// call with a known key is one lookup under a shared lock; the encoding
/// and copy of a new one run outside any lock.
class TensorMapCache {
public:
  /// The copy for `key`, made in the current context (`key.context`);
  /// null with the error reported.
  void *get(const TensorMapKey &key) {
    {
      std::shared_lock<std::shared_mutex> lock(mutex);
      auto found = copies.find(key);
      if (found != copies.end())
        return reinterpret_cast<void *>(found->second);
    }
    CUdeviceptr copy = encode(key);
    if (!copy)
      return nullptr;
    std::unique_lock<std::shared_mutex> lock(mutex);
    auto [entry, inserted] = copies.emplace(key, copy);
    // Another thread made the same map meanwhile: keep one.
    if (!inserted)
      cuMemFree(copy);
    return reinterpret_cast<void *>(entry->second);
  }

private:
  static CUdeviceptr encode(const TensorMapKey &key) {
    std::array<cuuint32_t, kMaxTensorMapRank> elementStrides;
    elementStrides.fill(1);
    CUtensorMap map;
    std::memset(&map, 0, sizeof(map));
    if (VX_CUDA_CHECK(cuTensorMapEncodeTiled(
            &map, static_cast<CUtensorMapDataType>(key.dataType),
            static_cast<cuuint32_t>(key.rank), const_cast<void *>(key.address),
            key.dims.data(), key.strides.data(), key.box.data(),
            elementStrides.data(),
            static_cast<CUtensorMapInterleave>(key.interleave),
            static_cast<CUtensorMapSwizzle>(key.swizzle),
            static_cast<CUtensorMapL2promotion>(key.l2Promotion),
            static_cast<CUtensorMapFloatOOBfill>(key.oobFill))))
      return 0;
    CUdeviceptr copy = 0;
    if (VX_CUDA_CHECK(cuMemAlloc(&copy, sizeof(map))))
      return 0;
    if (VX_CUDA_CHECK(cuMemcpyHtoD(copy, &map, sizeof(map)))) {
      cuMemFree(copy);
      return 0;
    }
    return copy;
  }

  std::shared_mutex mutex;
  std::map<TensorMapKey, CUdeviceptr> copies;
};

} // namespace

extern "C" {

void vxCudaReportErrors() { reportErrors = true; }

const char *vxCudaTakeError() { return takePendingError(); }

void vxCudaSetStream(void *stream, int32_t synchronize) {
  borrowing = true;
  borrowedStream = static_cast<CUstream>(stream);
  synchronizeBorrowed = synchronize != 0;
}

void vxCudaResetStream() {
  borrowing = false;
  borrowedStream = nullptr;
  synchronizeBorrowed = true;
}

int32_t vxCudaPointerDevice(void *pointer) {
  ScopedContext context;
  if (!context.active())
    return -2;
  int ordinal = -1;
  if (VX_CUDA_CHECK(
          cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                reinterpret_cast<CUdeviceptr>(pointer))))
    return -1;
  return ordinal;
}

int32_t vxCudaDefaultDevice() { return defaultDevice; }

void vxCudaStreamWaitStream(void *waiting, void *producer) {
  ScopedContext context;
  if (!context.active())
    return;
  CUevent event;
  if (VX_CUDA_CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING)))
    return;
  if (!VX_CUDA_CHECK(cuEventRecord(event, static_cast<CUstream>(producer))))
    VX_CUDA_CHECK(
        cuStreamWaitEvent(static_cast<CUstream>(waiting), event, /*Flags=*/0));
  VX_CUDA_CHECK(cuEventDestroy(event));
}

void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  ScopedContext context;
  CUmodule module = nullptr;
  if (context.active())
    VX_CUDA_CHECK(cuModuleLoadData(&module, data));
  return module;
}

CUmodule mgpuModuleLoadJIT(void *data, int optLevel, size_t /*size*/) {
  ScopedContext context;
  CUmodule module = nullptr;
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  if (context.active())
    VX_CUDA_CHECK(cuModuleLoadDataEx(&module, data, 1, options, values));
  return module;
}

void mgpuModuleUnload(CUmodule module) {
  // A module that failed to load is null; at exit there is nothing to do.
  if (!module)
    return;
  ScopedContext context;
  if (context.active())
    VX_CUDA_CHECK(cuModuleUnload(module));
}

CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  ScopedContext context;
  CUfunction function = nullptr;
  if (context.active())
    VX_CUDA_CHECK(cuModuleGetFunction(&function, module, name));
  return function;
}

// Sizes are intptr_t, MLIR's index, so the host code needs no casts.
void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  ScopedContext context;
  if (!context.active())
    return;
  // Above 48 KiB of dynamic shared memory a kernel must opt in (up to the
  // chip's limit, which the compiler has checked).
  constexpr int32_t defaultDynamicSharedBytes = 48 * 1024;
  if (smem > defaultDynamicSharedBytes &&
      VX_CUDA_CHECK(cuFuncSetAttribute(
          function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem)))
    return;
  VX_CUDA_CHECK(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                               blockZ, smem, stream, params, extra));
}

CUstream mgpuStreamCreate() {
  if (borrowing)
    return borrowedStream;
  ScopedContext context;
  CUstream stream = nullptr;
  if (context.active())
    VX_CUDA_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

void mgpuStreamDestroy(CUstream stream) {
  if (borrowing && stream == borrowedStream)
    return;
  ScopedContext context;
  if (context.active())
    VX_CUDA_CHECK(cuStreamDestroy(stream));
}

void mgpuStreamSynchronize(CUstream stream) {
  if (borrowing && stream == borrowedStream && !synchronizeBorrowed)
    return;
  ScopedContext context;
  if (context.active())
    VX_CUDA_CHECK(cuStreamSynchronize(stream));
}

void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/, bool isHostShared) {
  ScopedContext context;
  CUdeviceptr pointer = 0;
  if (sizeBytes == 0 || !context.active())
    return nullptr;
  if (isHostShared)
    VX_CUDA_CHECK(cuMemAllocManaged(&pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL));
  else
    VX_CUDA_CHECK(cuMemAlloc(&pointer, sizeBytes));
  return reinterpret_cast<void *>(pointer);
}

void mgpuMemFree(void *pointer, CUstream /*stream*/) {
  ScopedContext context;
  if (context.active())
    VX_CUDA_CHECK(cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)));
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, CUstream stream) {
  ScopedContext context;
  if (context.active())
    VX_CUDA_CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                                stream));
}

void mgpuMemset32(void *dst, unsigned int value, size_t count,
                  CUstream stream) {
  ScopedContext context;
  if (context.active())
    VX_CUDA_CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                   count, stream));
}

void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes) {
  ScopedContext context;
  if (context.active())
    VX_CUDA_CHECK(cuMemHostRegister(pointer, sizeBytes, /*Flags=*/0));
}

/// Registers the memory of a ranked memref descriptor of rank `rank`: the
/// span from its first to its last element, so strided views work too.
void mgpuMemHostRegisterMemRef(int64_t rank,
                               StridedMemRefType<char, 1> *descriptor,
                               int64_t elementSizeBytes) {
  vx::MemRefSpan span = vx::getMemRefSpan(rank, descriptor, elementSizeBytes);
  if (span.sizeBytes != 0)
    mgpuMemHostRegister(span.first, span.sizeBytes);
}

void mgpuMemHostUnregister(void *pointer) {
  ScopedContext context;
  if (context.active())
    VX_CUDA_CHECK(cuMemHostUnregister(pointer));
}

/// The tensor map of a tiled TMA copy from the memref of rank `rank` that
/// `descriptor` describes, in boxes of `boxDims` (outermost first), for
/// nvgpu.tma.create.descriptor, whose lowering calls it with these arguments
/// (the enums as int64_t) before each launch; returns a device pointer to
/// the map, encoded and copied on the first call with these arguments in
/// the current context (TensorMapCache), looked up on the others. Unlike
/// upstream's CudaRuntimeWrappers, the memref's offset counts, and an
/// innermost stride other than 1 is an error rather than ignored. The
/// driver checks the rest (alignment of the address and the strides, box
/// sizes).
void *mgpuTensorMapEncodeTiledMemref(int64_t rank,
                                     StridedMemRefType<char, 1> *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims) {
  if (failed())
    return nullptr;
  if (rank < 1 || rank > kMaxTensorMapRank) {
    reportError("mgpuTensorMapEncodeTiledMemref: a tensor map has rank 1 to " +
                std::to_string(kMaxTensorMapRank) + ", got " +
                std::to_string(rank));
    return nullptr;
  }
  int64_t elementBytes = getTensorMapElementBytes(dataType);
  if (!elementBytes) {
    reportError("mgpuTensorMapEncodeTiledMemref: unknown data type " +
                std::to_string(dataType));
    return nullptr;
  }
  int64_t innermostStride = descriptor->sizes[2 * rank - 1];
  if (innermostStride != 1) {
    reportError("mgpuTensorMapEncodeTiledMemref: the innermost stride must "
                "be 1, got " +
                std::to_string(innermostStride));
    return nullptr;
  }
  ScopedContext context;
  if (!context.active())
    return nullptr;
  TensorMapKey key =
      makeTensorMapKey(rank, *descriptor, elementBytes, dataType, interleave,
                       swizzle, l2Promotion, oobFill, boxDims);
  key.context = context.getContext();
  key.device = context.getDevice();
  static TensorMapCache cache;
  return cache.get(key);
}

void mgpuMemHostUnregisterMemRef(int64_t /*rank*/,
                                 StridedMemRefType<char, 1> *descriptor,
                                 int64_t elementSizeBytes) {
  mgpuMemHostUnregister(descriptor->data +
                        descriptor->offset * elementSizeBytes);
}

} // extern "C"

//===- CudaRuntime.cpp - The mgpu* functions over the CUDA driver API -----===//
//
// gpu-to-llvm lowers host code to calls of mgpu* functions, and Debian ships
// no libmlir_cuda_runtime: this library implements the ones that Vx's host
// code and tests use, so that `--vx-to-ptx="format=bin"` output runs under
// mlir-runner on a machine with a GPU. A failing driver call is reported and
// ends the program: continuing would only produce wrong numbers.
//
//===----------------------------------------------------------------------===//

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

void check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  cuGetErrorName(result, &name);
  std::fprintf(stderr, "vx_cuda_runtime: %s failed with %s\n", call,
               name ? name : "an unknown error");
  std::exit(1);
}

#define VX_CUDA_CHECK(call) check(call, #call)

int32_t defaultDevice = 0;

/// Makes the primary context of the default device current while alive.
class ScopedContext {
public:
  ScopedContext() {
    static CUcontext context = [] {
      VX_CUDA_CHECK(cuInit(/*flags=*/0));
      CUdevice device;
      VX_CUDA_CHECK(cuDeviceGet(&device, defaultDevice));
      CUcontext primary;
      VX_CUDA_CHECK(cuDevicePrimaryCtxRetain(&primary, device));
      return primary;
    }();
    VX_CUDA_CHECK(cuCtxPushCurrent(context));
  }
  ~ScopedContext() { VX_CUDA_CHECK(cuCtxPopCurrent(nullptr)); }
};

} // namespace

extern "C" {

void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  ScopedContext context;
  CUmodule module = nullptr;
  VX_CUDA_CHECK(cuModuleLoadData(&module, data));
  return module;
}

CUmodule mgpuModuleLoadJIT(void *data, int optLevel, size_t /*size*/) {
  ScopedContext context;
  CUmodule module = nullptr;
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  VX_CUDA_CHECK(cuModuleLoadDataEx(&module, data, 1, options, values));
  return module;
}

void mgpuModuleUnload(CUmodule module) {
  ScopedContext context;
  VX_CUDA_CHECK(cuModuleUnload(module));
}

CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  ScopedContext context;
  CUfunction function = nullptr;
  VX_CUDA_CHECK(cuModuleGetFunction(&function, module, name));
  return function;
}

// Sizes are intptr_t, MLIR's index, so the host code needs no casts.
void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  ScopedContext context;
  // Above 48 KiB of dynamic shared memory a kernel must opt in (up to the
  // chip's limit, which the compiler has checked).
  constexpr int32_t defaultDynamicSharedBytes = 48 * 1024;
  if (smem > defaultDynamicSharedBytes)
    VX_CUDA_CHECK(cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
  VX_CUDA_CHECK(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                               blockZ, smem, stream, params, extra));
}

CUstream mgpuStreamCreate() {
  ScopedContext context;
  CUstream stream = nullptr;
  VX_CUDA_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

void mgpuStreamDestroy(CUstream stream) {
  ScopedContext context;
  VX_CUDA_CHECK(cuStreamDestroy(stream));
}

void mgpuStreamSynchronize(CUstream stream) {
  ScopedContext context;
  VX_CUDA_CHECK(cuStreamSynchronize(stream));
}

void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                   bool isHostShared) {
  ScopedContext context;
  CUdeviceptr pointer = 0;
  if (sizeBytes == 0)
    return nullptr;
  if (isHostShared)
    VX_CUDA_CHECK(
        cuMemAllocManaged(&pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL));
  else
    VX_CUDA_CHECK(cuMemAlloc(&pointer, sizeBytes));
  return reinterpret_cast<void *>(pointer);
}

void mgpuMemFree(void *pointer, CUstream /*stream*/) {
  ScopedContext context;
  VX_CUDA_CHECK(cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)));
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, CUstream stream) {
  ScopedContext context;
  VX_CUDA_CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                              reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                              stream));
}

void mgpuMemset32(void *dst, unsigned int value, size_t count,
                  CUstream stream) {
  ScopedContext context;
  VX_CUDA_CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                 count, stream));
}

void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes) {
  ScopedContext context;
  VX_CUDA_CHECK(cuMemHostRegister(pointer, sizeBytes, /*Flags=*/0));
}

/// Registers the memory of a ranked memref descriptor of rank `rank`: the
/// span from its first to its last element, so strided views work too.
void mgpuMemHostRegisterMemRef(int64_t rank,
                               StridedMemRefType<char, 1> *descriptor,
                               int64_t elementSizeBytes) {
  int64_t *sizes = descriptor->sizes;
  int64_t *strides = sizes + rank;
  int64_t lastElement = 0;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (sizes[dim] == 0)
      return;
    lastElement += (sizes[dim] - 1) * strides[dim];
  }
  char *first = descriptor->data + descriptor->offset * elementSizeBytes;
  mgpuMemHostRegister(first, (lastElement + 1) * elementSizeBytes);
}

void mgpuMemHostUnregister(void *pointer) {
  ScopedContext context;
  VX_CUDA_CHECK(cuMemHostUnregister(pointer));
}

void mgpuMemHostUnregisterMemRef(int64_t /*rank*/,
                                 StridedMemRefType<char, 1> *descriptor,
                                 int64_t elementSizeBytes) {
  mgpuMemHostUnregister(descriptor->data +
                        descriptor->offset * elementSizeBytes);
}

} // extern "C"

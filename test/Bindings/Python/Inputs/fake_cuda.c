// A stand-in for the driver's libcuda.so.1, so that test_compile.py can run
// a CUDA library's host code end to end without a GPU: every call succeeds
// (nothing runs on a device) and the ones that matter are logged to
// $VX_FAKE_CUDA_LOG. Pointers at or above 2^40 count as device memory.
// $VX_FAKE_CUDA_FAIL_LAUNCH makes cuLaunchKernel fail,
// $VX_FAKE_CUDA_FAIL_TENSOR_MAP cuTensorMapEncodeTiled.

#include <cuda.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 1, 2))) static void logLine(const char *format, ...) {
  const char *path = getenv("VX_FAKE_CUDA_LOG");
  FILE *log = path ? fopen(path, "a") : NULL;
  if (!log)
    return;
  va_list arguments;
  va_start(arguments, format);
  vfprintf(log, format, arguments);
  va_end(arguments);
  fputc('\n', log);
  fclose(log);
}

// One primary context per device (ordinals below 4).
static char contexts[4], module;
static CUstream lastRecorded;
static CUdeviceptr nextAllocation = (CUdeviceptr)1 << 41;

CUresult cuInit(unsigned flags) { return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return CUDA_SUCCESS;
}
/// An sm_90 device (vx.kernel picks the chip from it).
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                              CUdevice device) {
  *value = attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *result, CUdevice device) {
  if (device < 0 || device >= (CUdevice)sizeof(contexts))
    return CUDA_ERROR_INVALID_DEVICE;
  *result = (CUcontext)&contexts[device];
  return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent(CUcontext c) { return CUDA_SUCCESS; }
CUresult cuCtxPopCurrent(CUcontext *c) { return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = error == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
          : error == CUDA_ERROR_LAUNCH_FAILED ? "CUDA_ERROR_LAUNCH_FAILED"
                                              : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = "from the fake driver";
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadData(CUmodule *result, const void *image) {
  const unsigned char *bytes = image;
  logLine("load %02x%02x%02x%02x", bytes[0], bytes[1], bytes[2], bytes[3]);
  *result = (CUmodule)&module;
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadDataEx(CUmodule *result, const void *image,
                            unsigned count, CUjit_option *options,
                            void **values) {
  return cuModuleLoadData(result, image);
}
CUresult cuModuleUnload(CUmodule m) { return CUDA_SUCCESS; }
CUresult cuModuleGetFunction(CUfunction *function, CUmodule m,
                             const char *name) {
  *function = (CUfunction)strdup(name);
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        CUstream stream, void **params, void **extra) {
  // A kernel's first parameters are its first memref's allocated and
  // aligned pointers and offset.
  logLine("launch %s grid=%u,%u,%u block=%u,%u,%u stream=%p memref0=%p,%p,%lld",
          (const char *)f, gx, gy, gz, bx, by, bz, (void *)stream,
          *(void **)params[0], *(void **)params[1],
          (long long)*(int64_t *)params[2]);
  return getenv("VX_FAKE_CUDA_FAIL_LAUNCH") ? CUDA_ERROR_LAUNCH_FAILED
                                            : CUDA_SUCCESS;
}
CUresult cuStreamCreate(CUstream *stream, unsigned flags) {
  *stream = (CUstream)0x5;
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream stream) { return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream stream) {
  logLine("synchronize %p", (void *)stream);
  return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *event, unsigned flags) {
  *event = (CUevent)0x9;
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent event, CUstream stream) {
  lastRecorded = stream;
  return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned flags) {
  logLine("wait %p after %p", (void *)stream, (void *)lastRecorded);
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent event) { return CUDA_SUCCESS; }
CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                               CUdeviceptr pointer) {
  if (pointer < ((CUdeviceptr)1 << 40))
    return CUDA_ERROR_INVALID_VALUE;
  *(int *)data = 0;
  return CUDA_SUCCESS;
}
CUresult cuMemAlloc(CUdeviceptr *pointer, size_t size) {
  *pointer = nextAllocation;
  nextAllocation += 256;
  logLine("alloc %zu at %p", size, (void *)*pointer);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n) {
  logLine("copy %zu bytes to %p", n, (void *)d);
  return CUDA_SUCCESS;
}
// Logs the arguments, innermost dimension first as the driver takes them;
// the map holds the address and the box, so that equal arguments give
// equal maps.
CUresult cuTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *address,
    const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
    const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill) {
  char line[512];
  int length = snprintf(line, sizeof(line), "tensormap type=%d address=%p dims=",
                        (int)type, address);
  for (cuuint32_t dim = 0; dim < rank; ++dim)
    length += snprintf(line + length, sizeof(line) - length, "%s%llu",
                       dim ? "," : "", (unsigned long long)dims[dim]);
  length += snprintf(line + length, sizeof(line) - length, " strides=");
  for (cuuint32_t dim = 0; dim + 1 < rank; ++dim)
    length += snprintf(line + length, sizeof(line) - length, "%s%llu",
                       dim ? "," : "", (unsigned long long)strides[dim]);
  length += snprintf(line + length, sizeof(line) - length, " box=");
  for (cuuint32_t dim = 0; dim < rank; ++dim)
    length += snprintf(line + length, sizeof(line) - length, "%s%u",
                       dim ? "," : "", box[dim]);
  length += snprintf(line + length, sizeof(line) - length, " element_strides=");
  for (cuuint32_t dim = 0; dim < rank; ++dim)
    length += snprintf(line + length, sizeof(line) - length, "%s%u",
                       dim ? "," : "", elementStrides[dim]);
  snprintf(line + length, sizeof(line) - length,
           " interleave=%d swizzle=%d l2=%d oob=%d", (int)interleave,
           (int)swizzle, (int)l2Promotion, (int)oobFill);
  logLine("%s", line);
  if (getenv("VX_FAKE_CUDA_FAIL_TENSOR_MAP"))
    return CUDA_ERROR_INVALID_VALUE;
  memset(map, 0, sizeof(*map));
  memcpy(map, &address, sizeof(address));
  memcpy((char *)map + sizeof(address), box, rank * sizeof(*box));
  return CUDA_SUCCESS;
}
CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t size, unsigned f) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemFree(CUdeviceptr pointer) { return CUDA_SUCCESS; }
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream s) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemHostRegister(void *p, size_t n, unsigned flags) {
  return CUDA_SUCCESS;
}
CUresult cuMemHostUnregister(void *p) { return CUDA_SUCCESS; }

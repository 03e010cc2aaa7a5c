/*===- CudaRuntime.h - Controls of libvx_cuda_runtime -------------*- C -*-===*\
|*                                                                            *|
|* libvx_cuda_runtime implements the mgpu* functions that host code lowered   *|
|* by gpu-to-llvm calls (the ABI of MLIR's CudaRuntimeWrappers). These are    *|
|* the functions a caller of a vx.compile CUDA library (vx.runtime) uses on   *|
|* top: error reporting instead of exit, the launch stream, pointer checks.   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef VX_RUNTIME_CUDARUNTIME_H
#define VX_RUNTIME_CUDARUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// From now on, a failing driver call no longer prints and exits: the first
/// failure of the calling thread is kept, and that thread's later mgpu*
/// calls do nothing until vxCudaTakeError. Call it before loading a library
/// whose constructors load modules.
void vxCudaReportErrors(void);

/// The pending error of the calling thread ("cuInit failed with
/// CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)"), cleared by
/// the call; null when there is none. Valid until the thread's next call.
const char *vxCudaTakeError(void);

/// Host code of the calling thread launches on `stream` (a CUstream; null is
/// the legacy default stream) instead of a stream of its own; with
/// `synchronize` 0 it does not wait for the kernels before returning.
void vxCudaSetStream(void *stream, int32_t synchronize);

/// Back to a new stream per call, waited for before the call returns.
void vxCudaResetStream(void);

/// The ordinal of the device that owns `pointer`; -1 with an error pending
/// where CUDA does not know it (host memory), -2 with an error pending where
/// the driver does not work (no context: no driver or device, a stub
/// library, an earlier error).
int32_t vxCudaPointerDevice(void *pointer);

/// The device whose primary context loads modules and launches kernels.
int32_t vxCudaDefaultDevice(void);

/// Work submitted to `waiting` after this call waits for the work submitted
/// to `producer` before it.
void vxCudaStreamWaitStream(void *waiting, void *producer);

#ifdef __cplusplus
}
#endif

#endif /* VX_RUNTIME_CUDARUNTIME_H */

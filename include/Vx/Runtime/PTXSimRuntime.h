/*===- PTXSimRuntime.h - Controls of libvx_ptx_sim ----------------*- C -*-===*\
|*                                                                            *|
|* libvx_ptx_sim exports the mgpu* functions and vxCuda* controls of          *|
|* libvx_cuda_runtime (include/Vx/Runtime/CudaRuntime.h), executing every     *|
|* launch's PTX on the CPU. These are its own additions.                      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef VX_RUNTIME_PTXSIMRUNTIME_H
#define VX_RUNTIME_PTXSIMRUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

/// The order in which runnable threads run between synchronization points:
/// "forward", "reverse", "shuffle" or "shuffle:SEED" (a seeded random
/// order). The default is the environment variable VX_SIM_ORDER, else
/// "forward". An unknown order is an error (reported like a failed launch).
void vxSimSetOrder(const char *order);

#ifdef __cplusplus
}
#endif

#endif /* VX_RUNTIME_PTXSIMRUNTIME_H */

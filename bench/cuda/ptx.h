// Inline-PTX building blocks of the expert tensor-core kernels of bench/cuda:
// the asynchronous copies and mbarriers, wgmma (sm_90a) and ldmatrix +
// mma.sync (sm_80), as CUTLASS's cute/arch wrappers spell them.
#ifndef VX_BENCH_CUDA_PTX_H
#define VX_BENCH_CUDA_PTX_H

#include <cstdint>
#include <cuda_bf16.h>

namespace ptx {

__device__ __forceinline__ uint32_t sharedAddress(const void *pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

// -- mbarriers and TMA (sm_90) ------------------------------------------------

__device__ __forceinline__ void barrierInit(uint32_t barrier, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrier),
               "r"(count));
}

/// Makes initialized mbarriers visible to the async proxy (TMA).
__device__ __forceinline__ void barrierInitFence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void barrierExpectBytes(uint32_t barrier,
                                                   int bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier),
      "r"(bytes)
      : "memory");
}

__device__ __forceinline__ void barrierArrive(uint32_t barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(barrier)
               : "memory");
}

/// Spins until the phase of `barrier` with parity `phase` has completed.
__device__ __forceinline__ void barrierWait(uint32_t barrier, int phase) {
  uint32_t done;
  do {
    asm volatile("{\n"
                 ".reg .pred complete;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], "
                 "%2;\n"
                 "selp.u32 %0, 1, 0, complete;\n"
                 "}"
                 : "=r"(done)
                 : "r"(barrier), "r"(phase)
                 : "memory");
  } while (!done);
}

/// Orders the tensor map at `map` (global memory, written by the host)
/// before the TMA loads that read it.
__device__ __forceinline__ void tensorMapFence(const void *map) {
  asm volatile(
      "fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(map)
      : "memory");
}

/// One TMA load of the box at (column x, row y) of `map` into `destination`,
/// completing its bytes of `barrier`'s transaction count.
__device__ __forceinline__ void tmaLoad(uint32_t destination, const void *map,
                                        uint32_t barrier, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
      "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(destination),
      "l"(map), "r"(barrier), "r"(x), "r"(y)
      : "memory");
}

// -- wgmma (sm_90a) -----------------------------------------------------------

/// The wgmma descriptor of a 128B-swizzled tile at shared address `address`
/// (its 1024-byte swizzle atoms: eight 128-byte rows): `leading` and
/// `stride` bytes are the PTX ISA's leading and stride byte offsets.
__device__ __forceinline__ uint64_t descriptor(uint32_t address,
                                               uint32_t leading,
                                               uint32_t stride) {
  constexpr uint64_t swizzle128 = 1;
  return static_cast<uint64_t>((address & 0x3ffff) >> 4) |
         static_cast<uint64_t>(leading >> 4) << 16 |
         static_cast<uint64_t>(stride >> 4) << 32 | swizzle128 << 62;
}

/// A K-major tile of 64-element (128-byte) rows: eight rows 1024 bytes
/// apart, the leading offset unused; the next 16 K are 32 bytes on.
__device__ __forceinline__ uint64_t kMajor(uint32_t address) {
  return descriptor(address, 16, 1024);
}

__device__ __forceinline__ void wgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

__device__ __forceinline__ void wgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

__device__ __forceinline__ void wgmmaWaitAll() {
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

// The accumulator operands %0 .. %N-1 of an m64nNk16 wgmma (N / 2 floats).
#define VX_WGMMA_D32                                                           \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11"                           \
  ", %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23"               \
  ", %24, %25, %26, %27, %28, %29, %30, %31"
#define VX_WGMMA_D64                                                           \
  VX_WGMMA_D32                                                                 \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43"               \
  ", %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55"               \
  ", %56, %57, %58, %59, %60, %61, %62, %63"
#define VX_WGMMA_D128                                                          \
  VX_WGMMA_D64                                                                 \
  ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73"                         \
  ", %74, %75, %76, %77, %78, %79, %80, %81, %82, %83"                         \
  ", %84, %85, %86, %87, %88, %89, %90, %91, %92, %93"                         \
  ", %94, %95, %96, %97, %98, %99, %100, %101, %102, %103"                     \
  ", %104, %105, %106, %107, %108, %109, %110, %111, %112, %113"               \
  ", %114, %115, %116, %117, %118, %119, %120, %121, %122, %123"               \
  ", %124, %125, %126, %127"

#define VX_WGMMA_ACC2(i) "+f"(d[i]), "+f"(d[i + 1])
#define VX_WGMMA_ACC8(i)                                                       \
  VX_WGMMA_ACC2(i), VX_WGMMA_ACC2(i + 2), VX_WGMMA_ACC2(i + 4),                \
      VX_WGMMA_ACC2(i + 6)
#define VX_WGMMA_ACC32(i)                                                      \
  VX_WGMMA_ACC8(i), VX_WGMMA_ACC8(i + 8), VX_WGMMA_ACC8(i + 16),               \
      VX_WGMMA_ACC8(i + 24)

/// d (64 x 256 fragment) += A (64 x 16) B (16 x 256), both K-major in
/// shared memory.
__device__ __forceinline__ void wgmma256(float (&d)[128], uint64_t a,
                                         uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
               "{" VX_WGMMA_D128 "}, %128, %129, 1, 1, 1, 0, 0;"
               : VX_WGMMA_ACC32(0), VX_WGMMA_ACC32(32), VX_WGMMA_ACC32(64),
                 VX_WGMMA_ACC32(96)
               : "l"(a), "l"(b)
               : "memory");
}

/// d (64 x 64) += A (64 x 16) B (16 x 64), both K-major in shared memory.
__device__ __forceinline__ void wgmma64(float (&d)[32], uint64_t a,
                                        uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
               "{" VX_WGMMA_D32 "}, %32, %33, 1, 1, 1, 0, 0;"
               : VX_WGMMA_ACC32(0)
               : "l"(a), "l"(b)
               : "memory");
}

/// d (64 x 64) += A (64 x 16, the registers `a` in mma.sync's A fragment
/// layout per warp) B (16 x 64, MN-major in shared memory: transposed).
__device__ __forceinline__ void
wgmma64RegisterA(float (&d)[32], const uint32_t (&a)[4], uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
               "{" VX_WGMMA_D32 "}, {%32, %33, %34, %35}, %36, 1, 1, 1, 1;"
               : VX_WGMMA_ACC32(0)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b)
               : "memory");
}

/// d (64 x 128) += A (64 x 16, registers) B (16 x 128, MN-major).
__device__ __forceinline__ void
wgmma128RegisterA(float (&d)[64], const uint32_t (&a)[4], uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
               "{" VX_WGMMA_D64 "}, {%64, %65, %66, %67}, %68, 1, 1, 1, 1;"
               : VX_WGMMA_ACC32(0), VX_WGMMA_ACC32(32)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b)
               : "memory");
}

#undef VX_WGMMA_ACC32
#undef VX_WGMMA_ACC8
#undef VX_WGMMA_ACC2
#undef VX_WGMMA_D128
#undef VX_WGMMA_D64
#undef VX_WGMMA_D32

// -- ldmatrix and mma.sync (sm_80) --------------------------------------------

__device__ __forceinline__ void ldmatrix4(uint32_t (&r)[4], uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, "
               "[%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

__device__ __forceinline__ void ldmatrix4Transposed(uint32_t (&r)[4],
                                                    uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, "
               "%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

/// d (16 x 8) += a (16 x 16, row-major fragment) b (16 x 8, col-major).
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4],
                                    uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// -- softmax in the accumulator layout ----------------------------------------

__device__ __forceinline__ float exp2Approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// The bf16x2 of (low, high): an A operand's two adjacent columns.
__device__ __forceinline__ uint32_t packBf16(float low, float high) {
  __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
  return *reinterpret_cast<uint32_t *>(&pair);
}

/// The maximum (or sum) of a row over the quad of threads that holds it in
/// an mma.sync or wgmma accumulator.
__device__ __forceinline__ float quadMax(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffff, x, 2));
}

__device__ __forceinline__ float quadSum(float x) {
  x += __shfl_xor_sync(0xffffffff, x, 1);
  return x + __shfl_xor_sync(0xffffffff, x, 2);
}

} // namespace ptx

#endif // VX_BENCH_CUDA_PTX_H

// A 64x64x64 bf16 GEMM on one warpgroup as MLIR 22's nvgpu ops write it:
// TMA loads of A (64x64, M x K) and B (64x64, K x N, or N x K without
// TRANSPOSE_B) with the 128-byte swizzle, descriptors generated from the
// same tensor maps, nvgpu.warpgroup.mma (four k16 wgmma.mma_async), the
// accumulator stored to OUT. test_ptx_sim_tensor_core.py replaces
// WAIT_GROUP and TRANSPOSE_B and lowers it with mlir-opt.
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!barrier = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!tile = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
!accumulator = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @tileA : memref<64x64xbf16, 3> = uninitialized {alignment = 1024 : i64}
    memref.global "private" @tileB : memref<64x64xbf16, 3> = uninitialized {alignment = 1024 : i64}
    // The maps come as pointers: gpu-to-nvvm cannot convert a kernel
    // argument of the tensor map type.
    gpu.func @gemm(%mapA: !llvm.ptr, %mapB: !llvm.ptr, %out: memref<64x64xf32>) kernel {
      %a_map = builtin.unrealized_conversion_cast %mapA : !llvm.ptr to !map
      %b_map = builtin.unrealized_conversion_cast %mapB : !llvm.ptr to !map
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %bytes = arith.constant 16384 : index
      %tid = gpu.thread_id x
      %a = memref.get_global @tileA : memref<64x64xbf16, 3>
      %b = memref.get_global @tileB : memref<64x64xbf16, 3>
      %barrier = nvgpu.mbarrier.create -> !barrier
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        nvgpu.mbarrier.init %barrier[%c0], %c1 : !barrier
        nvvm.fence.mbarrier.init
        nvgpu.tma.prefetch.descriptor %a_map : !map
        nvgpu.tma.prefetch.descriptor %b_map : !map
      }
      gpu.barrier
      scf.if %first {
        nvgpu.tma.async.load %a_map[%c0, %c0], %barrier[%c0] to %a : !map, !barrier -> memref<64x64xbf16, 3>
        nvgpu.tma.async.load %b_map[%c0, %c0], %barrier[%c0] to %b : !map, !barrier -> memref<64x64xbf16, 3>
        nvgpu.mbarrier.arrive.expect_tx %barrier[%c0], %bytes : !barrier
      }
      %phase = arith.constant false
      %ticks = arith.constant 10000000 : index
      nvgpu.mbarrier.try_wait.parity %barrier[%c0], %phase, %ticks : !barrier
      %da = nvgpu.warpgroup.generate.descriptor %a, %a_map : memref<64x64xbf16, 3>, !map -> !tile
      %db = nvgpu.warpgroup.generate.descriptor %b, %b_map : memref<64x64xbf16, 3>, !map -> !tile
      %zero = nvgpu.warpgroup.mma.init.accumulator -> !accumulator
      %d = nvgpu.warpgroup.mma %da, %db, %zero {WAIT_GROUP TRANSPOSE_B} : !tile, !tile, !accumulator -> !accumulator
      nvgpu.warpgroup.mma.store %d, %out : !accumulator to memref<64x64xf32>
      gpu.return
    }
  }
}

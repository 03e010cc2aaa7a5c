// Two threads complete phase 0 of an mbarrier, then wait for phase 1,
// which nothing completes (run by test/Integration/mbarrier.mlir).
#wg = #gpu.address_space<workgroup>
!barriers = !nvgpu.mbarrier.group<memorySpace = #wg>
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ticks = arith.constant 1000 : index
  %false = arith.constant false
  %true = arith.constant true
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1) {
    %first = arith.cmpi eq, %tx, %c0 : index
    %barriers = nvgpu.mbarrier.create -> !barriers
    nvgpu.mbarrier.init %barriers[%c0], %c2, predicate = %first : !barriers
    gpu.barrier
    %token = nvgpu.mbarrier.arrive %barriers[%c0] : !barriers -> !nvgpu.mbarrier.token
    nvgpu.mbarrier.try_wait.parity %barriers[%c0], %false, %ticks : !barriers
    // Phase 0 again: complete, so this returns.
    nvgpu.mbarrier.try_wait.parity %barriers[%c0], %false, %ticks : !barriers
    // Phase 1: no thread arrives.
    nvgpu.mbarrier.try_wait.parity %barriers[%c0], %true, %ticks : !barriers
    gpu.terminator
  }
  return
}

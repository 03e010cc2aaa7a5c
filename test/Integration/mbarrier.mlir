// mbarriers on the CPU (convert-gpu-launch-to-scf): arrivals counted per
// phase, tokens tested, parities waited for, in both thread orders; a wait
// for a phase that nothing completes stops the program with a message and
// status 1 (on a GPU the threads would wait forever).
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %S/Inputs/mbarrier-hang.mlir --vx-to-llvm="via-gpu=true" -o %t.mlir
// RUN: not %mlir_runner %t.mlir -e main 2>&1 | FileCheck %s --check-prefix=HANG
// HANG: vx: {{.*}}mbarrier-hang.mlir:23:5: nvgpu.mbarrier.try_wait.parity waits for a phase that no arrival or copy completes; on a GPU the threads would wait forever

#wg = #gpu.address_space<workgroup>
!barriers = !nvgpu.mbarrier.group<memorySpace = #wg, num_barriers = 2>
func.func private @printMemrefI32(memref<*xi32>)

// Four threads count arrivals on two mbarriers: barrier 0 expects 4 per
// phase, barrier 1 expects 5.
func.func @arrivals(%out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %ticks = arith.constant 1000 : index
  %false = arith.constant false
  %true = arith.constant true
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %first = arith.cmpi eq, %tx, %c0 : index
    %barriers = nvgpu.mbarrier.create -> !barriers
    nvgpu.mbarrier.init %barriers[%c0], %c4, predicate = %first : !barriers
    nvgpu.mbarrier.init %barriers[%c1], %c5, predicate = %first : !barriers
    gpu.barrier
    // Phase 0 of barrier 0 completes with the fourth arrival.
    %a0 = nvgpu.mbarrier.arrive %barriers[%c0] : !barriers -> !nvgpu.mbarrier.token
    nvgpu.mbarrier.try_wait.parity %barriers[%c0], %false, %ticks : !barriers
    %done_a0 = nvgpu.mbarrier.test.wait %barriers[%c0], %a0 : !barriers, !nvgpu.mbarrier.token
    // Barrier 1 needs a fifth arrival: not complete until thread 0 adds it.
    %b0 = nvgpu.mbarrier.arrive %barriers[%c1] : !barriers -> !nvgpu.mbarrier.token
    gpu.barrier
    %early = nvgpu.mbarrier.test.wait %barriers[%c1], %b0 : !barriers, !nvgpu.mbarrier.token
    gpu.barrier
    scf.if %first {
      %extra = nvgpu.mbarrier.arrive %barriers[%c1] : !barriers -> !nvgpu.mbarrier.token
    }
    nvgpu.mbarrier.try_wait.parity %barriers[%c1], %false, %ticks : !barriers
    %late = nvgpu.mbarrier.test.wait %barriers[%c1], %b0 : !barriers, !nvgpu.mbarrier.token
    // Phase 1 of barrier 0: its parity is 1.
    %a1 = nvgpu.mbarrier.arrive %barriers[%c0] : !barriers -> !nvgpu.mbarrier.token
    nvgpu.mbarrier.try_wait.parity %barriers[%c0], %true, %ticks : !barriers
    %done_a1 = nvgpu.mbarrier.test.wait %barriers[%c0], %a1 : !barriers, !nvgpu.mbarrier.token
    // out = done_a0 + 2 early + 4 late + 8 done_a1.
    %bits = arith.constant dense<[1, 2, 4, 8]> : vector<4xi32>
    %flags = vector.from_elements %done_a0, %early, %late, %done_a1 : vector<4xi1>
    %zeros = arith.constant dense<0> : vector<4xi32>
    %chosen = arith.select %flags, %bits, %zeros : vector<4xi1>, vector<4xi32>
    %sum = vector.reduction <add>, %chosen : vector<4xi32> into i32
    memref.store %sum, %out[%tx] : memref<4xi32>
    gpu.terminator
  }
  return
}

func.func @main() {
  %out = memref.alloc() : memref<4xi32>
  func.call @arrivals(%out) : (memref<4xi32>) -> ()
  // Phase 0 of barrier 0 complete (1), barrier 1 incomplete before the
  // fifth arrival (0) and complete after it (4), phase 1 of barrier 0
  // complete (8): 13 on every thread.
  // CHECK: [13,  13,  13,  13]
  %u = memref.cast %out : memref<4xi32> to memref<*xi32>
  func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

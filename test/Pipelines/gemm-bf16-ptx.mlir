// examples/gemm_bf16.mlir compiled for sm_90a: per K step of 64, four
// wgmma.mma_async.m64n256k16 (A and B both K-major: imm-trans-a and
// imm-trans-b 0) on each of the two warpgroups, between one fence and one
// commit + wait of their group; the tiles by TMA (a load each per step),
// 128B-swizzled. ptxas: no spills, no stack, and the registers of the
// expert kernel bench/cuda/wgmma_gemm.cu (154) within 10%; the checker
// proves the spawn without a warning. On sm_80 the matmul is mma.sync, in
// 3 stages (4 do not fit beside its shared memory).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %S/../../examples/gemm_bf16.mlir --vx-verify-semantics="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=CHECKER
// RUN: vx-opt %S/../../examples/gemm_bf16.mlir --vx-to-ptx="chip=sm_90a" -o %t/sm90a.mlir 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=warning
// RUN: %extract_ptx %t/sm90a.mlir %t/sm90a
// RUN: FileCheck %s --check-prefix=PTX < %t/sm90a/gemm_bf16_kernel.ptx
// RUN: FileCheck %s --check-prefix=FENCES --implicit-check-not=selp.f32 < %t/sm90a/gemm_bf16_kernel.ptx
// RUN: FileCheck %s --check-prefix=STEP < %t/sm90a/gemm_bf16_kernel.ptx
// RUN: vx-opt %S/../../examples/gemm_bf16.mlir --vx-to-gpu="chip=sm_90a" --remarks-filter=vx-barriers -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHY
// RUN: FileCheck %s --check-prefix=BARRIERS < %t/sm90a/gemm_bf16_kernel.ptx
// RUN: FileCheck %s --check-prefix=ARRIVALS < %t/sm90a/gemm_bf16_kernel.ptx
// RUN: FileCheck %s --check-prefix=PROXY < %t/sm90a/gemm_bf16_kernel.ptx
// RUN: FileCheck %s --check-prefix=STORES < %t/sm90a/gemm_bf16_kernel.ptx
// RUN: FileCheck %s --check-prefix=CVT < %t/sm90a/gemm_bf16_kernel.ptx
// RUN: %ptxas -arch=sm_90a -v %t/sm90a/gemm_bf16_kernel.ptx -o %t/sm90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: vx-opt %S/../../examples/gemm_bf16.mlir --vx-to-ptx="chip=sm_80" -o %t/sm80.mlir 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: %extract_ptx %t/sm80.mlir %t/sm80
// RUN: %ptxas -arch=sm_80 -v %t/sm80/gemm_bf16_kernel.ptx -o %t/sm80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS80
// CHECKER-NOT: {{warning|error}}
// REMARK: remark: computed on the tensor cores: wgmma.mma_async.m64n256k16 on 2 warpgroups, 64x256 of the accumulator per warpgroup; A and B in shared memory with the 128B and 128B swizzles of their TMA transfers
// PTX: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTX: .maxntid 256, 1, 1
// The fill at the first step stays in its branch (the wgmma.fence after
// it), not a select per accumulator on every step; LLVM orders the two
// blocks either way.
// FENCES-COUNT-2: wgmma.fence.sync.aligned;
// FENCES-NOT: wgmma.fence.sync.aligned;
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// PTX-NEXT: }
// PTX-NOT: wgmma.mma_async
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NEXT: wgmma.wait_group.sync.aligned 1;
// PTX-NOT: wgmma.mma_async
// A middle K step: the wait for its tiles' mbarrier, the fenced group of 4
// wgmma, which stays in flight (wait_group 1 retires the previous step's),
// the one barrier, after which thread 0 refills the slot that the retired
// group read: one expect_tx for both tiles, their 2 TMA loads, no proxy
// fence (only wgmma, in the async proxy like TMA, reads the slots). The
// copy of C waits for the last group.
// STEP: mbarrier.try_wait.parity
// STEP: wgmma.fence.sync.aligned;
// STEP-COUNT-4: wgmma.mma_async
// STEP: wgmma.commit_group.sync.aligned;
// STEP-NEXT: wgmma.wait_group.sync.aligned 1;
// STEP-NEXT: bar.sync 0;
// STEP-NOT: fence.proxy
// STEP: mbarrier.arrive.expect_tx.shared.b64 _, [%r{{[0-9]+}}], %r{{[0-9]+}};
// STEP-NOT: mbarrier.
// STEP-COUNT-2: cp.async.bulk.tensor.2d
// STEP-NOT: mbarrier.
// STEP: wgmma.wait_group.sync.aligned 0;
// STEP-NOT: mbarrier.
// STEP: cvt.rn.bf16x2.f32
// STEP: st.global.b32
// C as bf16, straight from the fragments: per thread 64 pairs of columns,
// each converted by one cvt and stored as one bf16x2 word.
// CVT-COUNT-64: cvt.rn.bf16x2.f32
// CVT-NOT: cvt.rn
// STORES-COUNT-64: st.global.b32
// STORES-NOT: st.global
// STORES-NOT: st.shared
// Barriers in the whole kernel: the one publishing the mbarriers, and the
// step's, each with the barrier planner's reason.
// WHY: remark: [Analysis] barrier | Category:vx-barriers | Remark="every thread waits on the mbarriers that thread 0 initialized in the first step"
// WHY: remark: [Analysis] barrier | Category:vx-barriers | Remark="the step refills the slot that the previous step's wgmma group read, which every warpgroup's wgmma.wait_group 1 has retired"
// WHY-NOT: Category:vx-barriers One expect_tx per step (the 3 of the prologue's steps and the
// refill), and the proxy fence only after mbarrier.init.
// BARRIERS-COUNT-2: bar.sync
// BARRIERS-NOT: bar.sync
// ARRIVALS-COUNT-4: mbarrier.arrive.expect_tx
// ARRIVALS-NOT: mbarrier.arrive
// PROXY: mbarrier.init
// PROXY: fence.proxy.async.shared::cta;
// PROXY-NOT: fence.proxy
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used {{1[45][0-9]|16[0-9]}} registers
// SM80: remark: computed on the tensor cores: mma.sync.m16n8k16 on 8 warps (2x4), 64x64 of the accumulator per warp
// SM80: remark: pipelines its transfers in 3 stages instead of 4
// PTXAS80: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

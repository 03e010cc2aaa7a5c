// examples/flash_attention.mlir (bf16, head dim 64) compiled for both
// chips: S = Q K^T (K-major B through the transposing map) and P V (P a
// bf16 smem tile written by a tile op) run on mma.sync.m16n8k16 on sm_80
// (32 per warp and matmul per KV step) and on wgmma.mma_async.m64n64k16 on
// sm_90a (4 per matmul and step, Q, K and V loaded by TMA, P written in
// the 128B swizzle and fenced for the async proxy). ptxas reports neither
// spills nor stack, and the checker proves the spawn without a warning.
// At head dim 128 (bench/kernels/flash_attention.mlir) the tiles' rows
// are 256 bytes, two 128B swizzle panels: sm_90a keeps wgmma (Q, K and V
// in panels, a TMA box each; P V as m64n128k16), sm_80 keeps mma.sync.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %S/../../examples/flash_attention.mlir --vx-to-ptx="chip=sm_80" -o %t/sm80.mlir 2>&1 | FileCheck %s --check-prefix=REMARK80 --implicit-check-not=warning
// RUN: %extract_ptx %t/sm80.mlir %t/sm80
// RUN: FileCheck %s --check-prefix=PTX80 --implicit-check-not=.local < %t/sm80/flash_attention_kernel.ptx
// RUN: %ptxas -arch=sm_80 -v %t/sm80/flash_attention_kernel.ptx -o %t/sm80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: vx-opt %S/../../examples/flash_attention.mlir --vx-to-ptx="chip=sm_90a" -o %t/sm90a.mlir 2>&1 | FileCheck %s --check-prefix=REMARK90 --implicit-check-not=warning
// RUN: %extract_ptx %t/sm90a.mlir %t/sm90a
// RUN: FileCheck %s --check-prefix=PTX90 --implicit-check-not=.local < %t/sm90a/flash_attention_kernel.ptx
// RUN: %ptxas -arch=sm_90a -v %t/sm90a/flash_attention_kernel.ptx -o %t/sm90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: vx-opt %S/../../bench/kernels/flash_attention.mlir --vx-to-gpu="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE90
// RUN: vx-opt %S/../../examples/flash_attention.mlir --vx-to-gpu="chip=sm_90a" 2>/dev/null | FileCheck %s --check-prefix=ONCE
// RUN: vx-opt %S/../../bench/kernels/flash_attention.mlir --vx-to-gpu="chip=sm_80" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE80

// REMARK80: flash_attention.mlir:79:5: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (2x2), 32x32 of the accumulator per warp
// REMARK80: flash_attention.mlir:133:5: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (2x2), 32x32 of the accumulator per warp
// PTX80-COUNT-64: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX80-NOT: mma.sync

// Q does not move along the KV dim: TMA loads it in the first KV step only
// (the step's one expect_tx adds Q's 8 KiB to K's and V's 16 KiB) into a
// buffer that stays; K and V are loaded in every step.
// ONCE: %[[FIRST:.*]] = arith.cmpi eq, %arg{{[0-9]+}}, %c0 : index
// ONCE: %[[BYTES:.*]] = arith.select %[[FIRST]], %c24576, %c16384 : index
// ONCE-NEXT: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %[[BYTES]]
// ONCE-NEXT: scf.if %[[FIRST]] {
// ONCE: nvgpu.tma.async.load %arg4
// ONCE-NEXT: }
// ONCE-NOT: nvgpu.tma.async.load %arg4
// ONCE: nvgpu.tma.async.load %arg5
// ONCE: nvgpu.tma.async.load %arg6
// ONCE-NOT: nvgpu.tma.async.load

// REMARK90: flash_attention.mlir:79:5: remark: computed on the tensor cores: wgmma.mma_async.m64n64k16 on 1 warpgroup
// REMARK90: flash_attention.mlir:133:5: remark: computed on the tensor cores: wgmma.mma_async.m64n64k16 on 1 warpgroup
// PTX90: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTX90-COUNT-3: cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes
// S = Q K^T: both operands K-major.
// PTX90-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// PTX90: wgmma.wait_group.sync.aligned 0;
// P's writes are fenced before P V reads them; V is MN-major.
// PTX90: fence.proxy.async.shared::cta;
// PTX90: bar.sync
// PTX90-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// PTX90-NOT: wgmma.mma_async

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// WIDE90: remark: computed on the tensor cores: wgmma.mma_async.m64n64k16
// WIDE90: remark: computed on the tensor cores: wgmma.mma_async.m64n64k16
// WIDE90: remark: computed on the tensor cores: wgmma.mma_async.m64n64k16 {{.*}}; A in 2 panels of 64 columns, a TMA box each; B in 2 panels of 64 columns, a TMA box each
// WIDE90: remark: computed on the tensor cores: wgmma.mma_async.m64n128k16 {{.*}}; B in 2 panels of 64 columns, a TMA box each
// WIDE80-COUNT-3: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (2x2)
// WIDE80: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (1x4), 64x32 of the accumulator per warp

// examples/flash_attention.mlir (bf16, head dim 64) compiled for both
// chips in the register form: S = Q K^T (K-major B through the
// transposing map) and P V on mma.sync.m16n8k16, 32 per warp and matmul
// per KV step, with the row max, exp2, the row sums, the rescaling and P
// in the registers of the fragment layout (four warps of 16 rows each):
// the row max is two butterfly shuffles per row and step, the row sums
// stay per lane across the steps and are summed over the quad once, after
// the last (as FlashAttention-2 does), P is the register A operand of P V, and neither S nor P touches shared
// memory (no ld.shared / st.shared: the tiles are read by ldmatrix only).
// On sm_90a the same group is on wgmma.mma_async, FlashAttention-3's way:
// S = Q K^T with Q and K through descriptors of their 128B-swizzled TMA
// tiles, the softmax in the accumulator layout (per warp the mma.sync
// one), P V with P's bf16 pairs as the register A operand and V MN-major
// (transposed B); no ldmatrix, no mma.sync, no shared memory but TMA's.
// examples/flash_attention_smem.mlir, the form with S and P staged in
// shared memory, keeps both matmuls on wgmma there too. ptxas reports
// neither spills nor stack, and the checker proves every spawn without a
// warning. bench/kernels/flash_attention.mlir (head dims 64 and 128) takes
// the register form on both chips as well.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %S/../../examples/flash_attention.mlir --vx-to-ptx="chip=sm_80" -o %t/sm80.mlir 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=warning
// RUN: %extract_ptx %t/sm80.mlir %t/sm80
// RUN: FileCheck %s --check-prefix=PTX --implicit-check-not=.local < %t/sm80/flash_attention_kernel.ptx
// RUN: %ptxas -arch=sm_80 -v %t/sm80/flash_attention_kernel.ptx -o %t/sm80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: vx-opt %S/../../examples/flash_attention.mlir --vx-to-ptx="chip=sm_90a" -o %t/sm90a.mlir 2>&1 | FileCheck %s --check-prefix=REMARK90 --implicit-check-not=warning
// RUN: %extract_ptx %t/sm90a.mlir %t/sm90a
// RUN: FileCheck %s --check-prefix=PTX90 --implicit-check-not=.local < %t/sm90a/flash_attention_kernel.ptx
// RUN: %ptxas -arch=sm_90a -v %t/sm90a/flash_attention_kernel.ptx -o %t/sm90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: vx-opt %S/../../examples/flash_attention_smem.mlir --vx-to-ptx="chip=sm_90a" -o %t/smem90a.mlir 2>&1 | FileCheck %s --check-prefix=SMEM90 --implicit-check-not=warning
// RUN: %extract_ptx %t/smem90a.mlir %t/smem90a
// RUN: FileCheck %s --check-prefix=PTXSMEM90 --implicit-check-not=.local < %t/smem90a/flash_attention_kernel.ptx
// RUN: %ptxas -arch=sm_90a -v %t/smem90a/flash_attention_kernel.ptx -o %t/smem90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: vx-opt %S/../../bench/kernels/flash_attention.mlir --vx-to-ptx="chip=sm_80" -o %t/bench80.mlir 2>&1 | FileCheck %s --check-prefix=WIDE --implicit-check-not=warning
// RUN: %extract_ptx %t/bench80.mlir %t/bench80
// RUN: %ptxas -arch=sm_80 -v %t/bench80/flash_attention64_kernel.ptx -o %t/bench80_64.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_80 -v %t/bench80/flash_attention128_kernel.ptx -o %t/bench80_128.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: vx-opt %S/../../bench/kernels/flash_attention.mlir --vx-to-ptx="chip=sm_90a" -o %t/bench90a.mlir 2>&1 | FileCheck %s --check-prefix=WIDE90 --implicit-check-not=warning
// RUN: %extract_ptx %t/bench90a.mlir %t/bench90a
// RUN: FileCheck %s --check-prefix=PTX90 --implicit-check-not=.local < %t/bench90a/flash_attention64_kernel.ptx
// RUN: FileCheck %s --check-prefix=PTX90-128 --implicit-check-not=.local < %t/bench90a/flash_attention128_kernel.ptx
// RUN: %ptxas -arch=sm_90a -v %t/bench90a/flash_attention64_kernel.ptx -o %t/bench90a_64.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/bench90a/flash_attention128_kernel.ptx -o %t/bench90a_128.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: vx-opt %S/../../examples/flash_attention_smem.mlir --vx-to-gpu="chip=sm_90a" 2>/dev/null | FileCheck %s --check-prefix=ONCE

// REMARK: flash_attention.mlir:78:5: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (4x1), 16x64 of the accumulator per warp, with the row and elementwise tile ops of its 8 private tiles in the fragment layout{{$}}
// REMARK: flash_attention.mlir:137:5: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (4x1), 16x64 of the accumulator per warp, with the row and elementwise tile ops of its 8 private tiles in the fragment layout; A from registers{{$}}
// The KV step: S = Q K^T (Q's 16x16 fragment and four pairs of K's 8-column
// fragments per K step), the row max by shuffles (two rows per lane, two
// shuffles each), exp2 of c s - c m (one fma per element of S), the row
// sums per lane (no shuffle), P V with V through
// ldmatrix.trans; no shared-memory access besides ldmatrix. After the last
// step 1 / l sums l over the quad (four shuffles in all, once) and takes
// one reciprocal per row of the lane (two), O is multiplied by it: no
// division per element.
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-COUNT-4: shfl.sync.bfly.b32
// PTX: ex2.approx
// PTX-COUNT-32: fma.rn.f32
// PTX-NOT: shfl
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-NOT: mma.sync
// PTX-COUNT-4: shfl.sync.bfly.b32
// PTX-NOT: mma.sync
// PTX-COUNT-2: rcp.rn.f32
// PTX-NOT: {{(ld|st)\.shared|shfl|div|rcp}}
// PTX-COUNT-32: mul.f32
// PTX-NOT: {{(ld|st)\.shared|shfl|div|rcp}}

// REMARK90: flash_attention.mlir:78:5: remark: computed on the tensor cores: wgmma.mma_async.m64n64k16 on 1 warpgroup, 64x64 of the accumulator per warpgroup, with the row and elementwise tile ops of its 8 private tiles in the fragment layout; A and B in shared memory through descriptors{{$}}
// REMARK90: flash_attention.mlir:137:5: remark: computed on the tensor cores: wgmma.mma_async.m64n64k16 on 1 warpgroup, 64x64 of the accumulator per warpgroup, with the row and elementwise tile ops of its 8 private tiles in the fragment layout; A from registers, B in shared memory through descriptors{{$}}
// The KV step on sm_90a: Q, K and V land 128B-swizzled by TMA (the
// descriptors' swizzle mode 1 in bits 62-63); S = Q K^T is 4 wgmma with
// both operands K-major, the first overwriting S (scale-d 0 for the
// zero fill before it), waited for before the row max reads S; two
// shuffles per row for the row max, one fma per element of S before its
// exp2, the row sums per lane (no shuffle);
// P's 16 bf16x2 registers are written before the fence, then P V is 4 wgmma
// with A from registers ({4 x b32}) and V transposed (imm-trans-b 1). After
// the last step 1 / l sums l over the quad (four shuffles, once), one
// reciprocal per row of the lane, and O is multiplied by it.
// PTX90: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTX90: cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX90: wgmma.fence.sync.aligned;
// PTX90: setp.ne.b32 p, 0, 0;
// PTX90-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1,  1, 0,  0;
// PTX90-NEXT: }
// PTX90: wgmma.commit_group.sync.aligned;
// PTX90-NEXT: wgmma.wait_group.sync.aligned 0;
// PTX90-COUNT-4: shfl.sync.bfly.b32
// PTX90: ex2.approx
// PTX90-COUNT-32: fma.rn.f32
// PTX90-NOT: shfl
// PTX90-COUNT-16: cvt.rn.bf16x2.f32
// PTX90: wgmma.fence.sync.aligned;
// PTX90-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, 1, 1, 1, 1;
// PTX90: wgmma.commit_group.sync.aligned;
// PTX90-NEXT: wgmma.wait_group.sync.aligned 0;
// PTX90-NOT: wgmma.mma_async
// PTX90-COUNT-4: shfl.sync.bfly.b32
// PTX90-NOT: wgmma.mma_async
// PTX90-COUNT-2: rcp.rn.f32
// PTX90-NOT: {{mma.sync|ldmatrix|ld.shared|st.shared|shfl|div|rcp}}
// PTX90-COUNT-32: mul.f32
// PTX90-NOT: {{mma.sync|ldmatrix|ld.shared|st.shared|shfl|div|rcp}}

// d = 128: S = Q K^T is 8 wgmma (K of 128 in two 128B panels), P V 4 of
// m64n128k16 with register A.
// PTX90-128-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  0;
// PTX90-128: wgmma.wait_group.sync.aligned 0;
// PTX90-128-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, 1, 1, 1, 1;
// PTX90-128: wgmma.wait_group.sync.aligned 0;
// PTX90-128-NOT: {{wgmma.mma_async|mma.sync|ldmatrix|ld.shared|st.shared}}
// PTX90-128-COUNT-2: rcp.rn.f32
// PTX90-128-NOT: {{wgmma.mma_async|mma.sync|ldmatrix|ld.shared|st.shared|div|rcp}}
// PTX90-128-COUNT-64: mul.f32
// PTX90-128-NOT: {{wgmma.mma_async|mma.sync|ldmatrix|ld.shared|st.shared|div|rcp}}

// The smem form on sm_90a: Q does not move along the KV dim, so TMA loads it
// in the first KV step only
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

// SMEM90: flash_attention_smem.mlir:82:5: remark: computed on the tensor cores: wgmma.mma_async.m64n64k16 on 1 warpgroup
// SMEM90: flash_attention_smem.mlir:136:5: remark: computed on the tensor cores: wgmma.mma_async.m64n64k16 on 1 warpgroup
// PTXSMEM90: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTXSMEM90-COUNT-3: cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes
// S = Q K^T: both operands K-major.
// PTXSMEM90-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// PTXSMEM90: wgmma.wait_group.sync.aligned 0;
// P's writes are fenced before P V reads them; V is MN-major.
// PTXSMEM90: fence.proxy.async.shared::cta;
// PTXSMEM90: bar.sync
// PTXSMEM90-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// PTXSMEM90-NOT: wgmma.mma_async

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// WIDE90-COUNT-3: remark: computed on the tensor cores: wgmma.mma_async.m64n64k16 on 1 warpgroup, 64x64 of the accumulator per warpgroup
// WIDE90: remark: computed on the tensor cores: wgmma.mma_async.m64n128k16 on 1 warpgroup, 64x128 of the accumulator per warpgroup, {{.*}}; A from registers, B in shared memory through descriptors

// WIDE-COUNT-3: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (4x1), 16x64 of the accumulator per warp
// WIDE: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (4x1), 16x128 of the accumulator per warp, {{.*}}; A from registers

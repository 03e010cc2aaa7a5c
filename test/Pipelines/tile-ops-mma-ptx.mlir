// examples/tile_matmul.mlir compiled for sm_80: its bf16 linalg.matmul runs
// on mma.sync.m16n8k16 (the accumulator in the fragment layout, in
// registers), the PTX assembles with ptxas, and the fill and copy are
// those of the fragments. The checker proves the spawn without a warning.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-ptx="chip=sm_80" -o %t/sm80.mlir 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=warning
// RUN: %extract_ptx %t/sm80.mlir %t/sm80
// RUN: grep -c ldmatrix.sync.aligned.m8n8.x4 %t/sm80/tile_matmul_kernel.ptx | FileCheck %s --check-prefix=LDMATRIX
// RUN: grep -c mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 %t/sm80/tile_matmul_kernel.ptx | FileCheck %s --check-prefix=MMA
// RUN: not grep ld.shared %t/sm80/tile_matmul_kernel.ptx
// RUN: %ptxas -arch=sm_80 -v %t/sm80/tile_matmul_kernel.ptx -o %t/sm80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %bank_conflicts %t/sm80/tile_matmul_kernel.ptx | FileCheck %s --check-prefix=BANKS
// REMARK: remark: ldmatrix reads this tile with rows padded from 64 to 80 bytes: bank-conflict-free
// REMARK: remark: ldmatrix reads this tile with rows padded from 128 to 144 bytes: bank-conflict-free
// REMARK: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (2x2), 32x32 of the accumulator per warp
// The A and B fragments come from ldmatrix, no element loads: per K step
// of 32 (three, straight-line) each warp loads its two 16x16 A fragments
// (.x4) and its four 8-column B fragments (.x4.trans, two a load) for each
// half of K: 8 ldmatrix for 16 mma.sync a step.
// LDMATRIX: {{^}}24{{$}}
// MMA: {{^}}48{{$}}
// The padded pitches spread each ldmatrix's 8x8 matrices over all banks:
// one wavefront per phase (matrix), for all 24 of them (warp 0).
// BANKS-COUNT-24: ldmatrix.sync.aligned.m8n8.x4{{(.trans)?}}.shared.b16 (16 bytes a lane): 4 wavefronts in 4 phases
// BANKS-NEXT: 'loads': 24, 'wide_loads': 24, 'stores': 0, 'conflicted': 0, 'unknown': 0
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

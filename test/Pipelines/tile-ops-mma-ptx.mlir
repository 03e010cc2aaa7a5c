// examples/tile_matmul.mlir compiled for sm_80: its bf16 linalg.matmul runs
// on mma.sync.m16n8k16 (the accumulator in the fragment layout, in
// registers), the PTX assembles with ptxas, and the fill and copy are
// those of the fragments. The checker proves the spawn without a warning.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-ptx="chip=sm_80" -o %t/sm80.mlir 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=warning
// RUN: %extract_ptx %t/sm80.mlir %t/sm80
// RUN: FileCheck %s --check-prefix=PTX < %t/sm80/tile_matmul_kernel.ptx
// RUN: %ptxas -arch=sm_80 -v %t/sm80/tile_matmul_kernel.ptx -o %t/sm80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// REMARK: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (2x2), 32x32 of the accumulator per warp
// PTX-COUNT-8: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

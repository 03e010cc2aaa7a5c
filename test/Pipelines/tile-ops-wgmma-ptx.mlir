// examples/tile_matmul.mlir compiled for sm_90a: its bf16 linalg.matmul runs
// on wgmma.mma_async.m64n64k16 (one warpgroup, the accumulator in the wgmma
// fragment layout, in registers), reading A and B from shared memory
// through matrix descriptors whose swizzles (64B for A's 64-byte rows,
// 128B for B's 128-byte rows) are those of the TMA tensor maps that load
// them; the dynamic shared memory is aligned to the 128B swizzle's
// pattern. The PTX assembles with ptxas without spills or stack, and the
// checker proves the spawn without a warning. Plain sm_90 keeps mma.sync.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-ptx="chip=sm_90a" -o %t/sm90a.mlir 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=warning
// RUN: %extract_ptx %t/sm90a.mlir %t/sm90a
// RUN: FileCheck %s --check-prefix=PTX < %t/sm90a/tile_matmul_kernel.ptx
// RUN: FileCheck %s --check-prefix=TMA < %t/sm90a/tile_matmul_kernel.ptx
// RUN: %ptxas -arch=sm_90a -v %t/sm90a/tile_matmul_kernel.ptx -o %t/sm90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-nvvm="chip=sm_90a" 2>/dev/null | FileCheck %s --check-prefix=MAPS
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-ptx="chip=sm_90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90
// REMARK: remark: computed on the tensor cores: wgmma.mma_async.m64n64k16 on 1 warpgroup, 64x64 of the accumulator per warpgroup; A and B in shared memory with the 64B and 128B swizzles of their TMA transfers
// PTX: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// TMA-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX: wgmma.fence.sync.aligned;
// B is K x N (MN-major): imm-trans-b 1; A is K-major: imm-trans-a 0.
// PTX-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// The group stays in flight into the next step (wait_group 1); the copy
// out waits for it.
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NEXT: wgmma.wait_group.sync.aligned 1;
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: st.global
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// The tensor maps' swizzle argument (CU_TENSOR_MAP_SWIZZLE_64B = 2 for A,
// _128B = 3 for B) is the fifth of mgpuTensorMapEncodeTiledMemref.
// MAPS-DAG: %[[SWIZZLE64:.*]] = llvm.mlir.constant(2 : i32) : i64
// MAPS-DAG: %[[SWIZZLE128:.*]] = llvm.mlir.constant(3 : i32) : i64
// MAPS: llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SWIZZLE64]],
// MAPS: llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SWIZZLE128]],
// SM90: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (2x2)

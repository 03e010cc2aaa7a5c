// Tile ops (VX_SPEC 2.3) become thread loops before the CTA mapping on the
// GPU routes (after the checker, before the race instrumentation with
// via-gpu); the plain CPU route leaves them to convert-linalg-to-loops.
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-gpu --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-ptx --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-llvm="via-gpu=true detect-races=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=VIA-GPU
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-llvm --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-gpu 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-gpu="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=MMA --implicit-check-not=warning

// The GPU routes check and distribute the tile ops for their chip (none
// named: vx-to-gpu has none, vx-to-ptx sm_90); via-gpu runs on the CPU.
// GPU: vx-verify-semantics{allow-races=false chip=[[CHIP:(sm_90)?]] threads-per-block=0},
// GPU-NEXT: vx-distribute-tile-ops{chip=[[CHIP]] tf32=false threads-per-block=0},
// GPU-NEXT: vx-plan-launch{
// VIA-GPU: vx-verify-semantics{allow-races=false chip= threads-per-block=0},
// VIA-GPU-NEXT: vx-distribute-tile-ops{chip= tf32=false threads-per-block=0},
// VIA-GPU-NEXT: vx-instrument-races,
// VIA-GPU-NEXT: vx-plan-launch{
// CPU-NOT: vx-distribute-tile-ops

// One grid instance per CTA of 128 threads, with three stages of the A and
// B tiles (3 x 8 KiB): the matmul is the CTA's, each thread's 32
// accumulators a private array of its own.
// KERNEL: remark: the bf16 operands would suit the tensor cores, but this route computes it with FMA code (the tensor cores need a GPU route's chip)
// KERNEL: gpu.launch_func @tile_matmul_kernel::@tile_matmul_kernel blocks in (%c2, %c2, %c1) threads in (%c128, %c1, %c1) dynamic_shared_memory_size %c24576_i32
// KERNEL: memref.alloca() {{.*}}: memref<32x1x1xf32>
// KERNEL: gpu.thread_id x upper_bound 128
// KERNEL-NOT: linalg.

// With a chip, the matmul runs on mma.sync: each thread's 32 accumulators
// (8 fragments of its warp's 32x32 part) are its own, in registers.
// MMA: remark: computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (2x2), 32x32 of the accumulator per warp
// MMA: gpu.launch_func @tile_matmul_kernel::@tile_matmul_kernel blocks in (%c2, %c2, %c1) threads in (%c128, %c1, %c1)
// MMA: memref.alloca() {{.*}}: memref<{{.*}}32xf32>
// MMA: nvvm.mma.sync
// MMA-NOT: linalg.

// Tile ops (VX_SPEC 2.3) become thread loops before the CTA mapping on the
// GPU routes (after the checker, before the race instrumentation with
// via-gpu); the plain CPU route leaves them to convert-linalg-to-loops.
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-gpu --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-ptx --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-llvm="via-gpu=true detect-races=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=VIA-GPU
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-llvm --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: vx-opt %S/../../examples/tile_matmul.mlir --vx-to-gpu 2>&1 | FileCheck %s --check-prefix=KERNEL

// GPU: vx-verify-semantics{allow-races=false threads-per-block=0},
// GPU-NEXT: vx-distribute-tile-ops{tf32=false},
// GPU-NEXT: vx-plan-launch{
// VIA-GPU: vx-verify-semantics{allow-races=false threads-per-block=0},
// VIA-GPU-NEXT: vx-distribute-tile-ops{tf32=false},
// VIA-GPU-NEXT: vx-instrument-races,
// VIA-GPU-NEXT: vx-plan-launch{
// CPU-NOT: vx-distribute-tile-ops

// One grid instance per CTA of 128 threads, with three stages of the A and
// B tiles (3 x 8 KiB): the matmul is the CTA's, each thread's 32
// accumulators a private array of its own.
// KERNEL: remark: the bf16 operands would suit the tensor cores, but tensor-core lowering is not available yet: computed with FMA code
// KERNEL: gpu.launch_func @tile_matmul_kernel::@tile_matmul_kernel blocks in (%c2, %c2, %c1) threads in (%c128, %c1, %c1) dynamic_shared_memory_size %c24576_i32
// KERNEL: memref.alloca() {{.*}}: memref<32x1x1xf32>
// KERNEL: gpu.thread_id x upper_bound 128
// KERNEL-NOT: linalg.

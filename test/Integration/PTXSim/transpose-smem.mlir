// transpose-smem.mlir on the PTX simulator (--vx-to-llvm="ptx-sim=true"),
// its tiles padded (33-float rows; 36 on sm_80 for the transferred tile, a
// TMA copy's dense rows on sm_90a), checked like the CPU and via-gpu runs;
// Inputs/gpu-memory.mlir registers the buffers. The PTX of the padded
// kernel has no bank-conflicted shared access (bench/bank_conflicts.py).
// REQUIRES: ptxas
// RUN: cat %S/../transpose-smem.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80" 2>/dev/null | %mlir_runner_sim -e main | FileCheck %S/../transpose-smem.mlir
// RUN: cat %S/../transpose-smem.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" 2>/dev/null | %mlir_runner_sim -e main | FileCheck %S/../transpose-smem.mlir
// RUN: cat %S/../transpose-smem.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=reverse" 2>/dev/null | %mlir_runner_sim -e main | FileCheck %S/../transpose-smem.mlir
// RUN: rm -rf %t && mkdir -p %t && cat %S/../transpose-smem.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="chip=sm_80 format=isa" -o %t/t.mlir 2>/dev/null && %python %vx_root/test/Inputs/extract_ptx.py %t/t.mlir %t && %python %vx_root/bench/bank_conflicts.py %t/transpose_kernel.ptx | FileCheck %s

// CHECK: {'loads': 4, 'wide_loads': 0, 'stores': 4, 'conflicted': 0, 'unknown': 0, 'worst': 1.0}

// barriers.mlir on the PTX simulator: its race check (a shared-memory write
// and another access from two threads with no barrier between them) in
// every thread order, on cp.async and TMA chips alike. The PTX has the
// barriers the dependences need: thread_zero_store one (between its thread
// loops: the second reads other threads' elements), moving_bounds one per
// iteration of its j loop, which LLVM unrolls (4; 8 before issue 30).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: cat %S/../barriers.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../barriers.mlir
// RUN: cat %S/../barriers.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../barriers.mlir
// RUN: cat %S/../barriers.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=shuffle:1" | %mlir_runner_sim -e main | FileCheck %S/../barriers.mlir
// RUN: cat %S/../barriers.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-ptx="chip=sm_80" -o %t/ptx.mlir
// RUN: %extract_ptx %t/ptx.mlir %t/ptx
// RUN: FileCheck %s --check-prefix=ZERO < %t/ptx/thread_zero_store_kernel.ptx
// RUN: FileCheck %s --check-prefix=MOVING < %t/ptx/moving_bounds_kernel.ptx

// ZERO-COUNT-1: bar.sync
// ZERO-NOT: bar.sync
// MOVING-COUNT-4: bar.sync
// MOVING-NOT: bar.sync

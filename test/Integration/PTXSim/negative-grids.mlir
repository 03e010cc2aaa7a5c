// negative-grids.mlir on the PTX simulator (--vx-to-llvm="ptx-sim=true"),
// checked like the CPU and via-gpu runs; Inputs/gpu-memory.mlir registers the
// buffers.
// REQUIRES: ptxas
// RUN: cat %S/../negative-grids.mlir %S/../Inputs/report.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../negative-grids.mlir
// RUN: cat %S/../negative-grids.mlir %S/../Inputs/report.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../negative-grids.mlir
// RUN: cat %S/../negative-grids.mlir %S/../Inputs/report.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../negative-grids.mlir
// RUN: cat %S/../negative-grids.mlir %S/../Inputs/report.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=shuffle:1" | %mlir_runner_sim -e main | FileCheck %S/../negative-grids.mlir
// RUN: cat %S/../negative-grids.mlir %S/../Inputs/report.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 threads-per-block=32" | %mlir_runner_sim -e main | FileCheck %S/../negative-grids.mlir
// RUN: cat %S/../negative-grids.mlir %S/../Inputs/report.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a threads-per-block=32" | %mlir_runner_sim -e main | FileCheck %S/../negative-grids.mlir

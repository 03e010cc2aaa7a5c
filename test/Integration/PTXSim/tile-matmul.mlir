// examples/tile_matmul.mlir on the PTX simulator, sm_80 (cp.async tiles,
// mma.sync) and sm_90a (swizzled TMA tiles, wgmma), checked like the CPU
// and via-gpu runs.
// REQUIRES: ptxas
// RUN: cat %S/../../../examples/tile_matmul.mlir %S/../tile-matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../tile-matmul.mlir
// RUN: cat %S/../../../examples/tile_matmul.mlir %S/../tile-matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../tile-matmul.mlir
// RUN: cat %S/../../../examples/tile_matmul.mlir %S/../tile-matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../tile-matmul.mlir
// RUN: cat %S/../../../examples/tile_matmul.mlir %S/../tile-matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=shuffle:1" | %mlir_runner_sim -e main | FileCheck %S/../tile-matmul.mlir
// Two stages instead of the spawn's three:
// RUN: sed 's/stages 3/stages 2/' %S/../../../examples/tile_matmul.mlir | cat - %S/../tile-matmul.mlir %S/../Inputs/gpu-memory.mlir | vx-opt --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../tile-matmul.mlir

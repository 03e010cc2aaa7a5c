// examples/tile_attention.mlir on the PTX simulator, sm_80 (cp.async tiles)
// and sm_90a (TMA tiles), checked like the CPU and via-gpu runs.
// REQUIRES: ptxas
// RUN: cat %S/../../../examples/tile_attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// RUN: cat %S/../../../examples/tile_attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=reverse stages=2" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// RUN: cat %S/../../../examples/tile_attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir
// RUN: cat %S/../../../examples/tile_attention.mlir %S/../attention.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a stages=2 sim-order=shuffle:1" | %mlir_runner_sim -e main | FileCheck %S/../attention.mlir

// pipeline-fixed-tiles.mlir on the PTX simulator for sm_80 (no TMA: the
// fixed tiles are cp.async loads issued once, with step 0's group), in
// the thread orders that expose a missing wait or barrier.
// REQUIRES: ptxas
// RUN: cat %S/../pipeline-fixed-tiles.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 stages=2" | %mlir_runner_sim -e main | FileCheck %S/../pipeline-fixed-tiles.mlir
// RUN: cat %S/../pipeline-fixed-tiles.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 stages=3 sim-order=reverse" | %mlir_runner_sim -e main | FileCheck %S/../pipeline-fixed-tiles.mlir
// RUN: cat %S/../pipeline-fixed-tiles.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 stages=4 threads-per-block=3 sim-order=shuffle:1" | %mlir_runner_sim -e main | FileCheck %S/../pipeline-fixed-tiles.mlir

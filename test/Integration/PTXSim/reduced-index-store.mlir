// test/Integration/reduced-index-store.mlir on the PTX simulator: the
// once-per-instance store at a reduced index, inside an scf.for, lowers with
// its barriers outside divergent control flow and runs to the same numbers
// in the real PTX, race-checked by the simulator.
// REQUIRES: ptxas
// RUN: vx-opt %S/../reduced-index-store.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" 2>/dev/null | %mlir_runner_sim -e main | FileCheck %S/../reduced-index-store.mlir
// RUN: vx-opt %S/../reduced-index-store.mlir --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=reverse" 2>/dev/null | %mlir_runner_sim -e main | FileCheck %S/../reduced-index-store.mlir

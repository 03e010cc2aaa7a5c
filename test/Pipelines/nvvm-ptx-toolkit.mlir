// The runs of nvvm-ptx.mlir that assemble PTX, which needs the CUDA
// toolkit; the checks are nvvm-ptx.mlir's.
// REQUIRES: ptxas
// RUN: vx-opt %S/../../examples/attention.mlir --vx-to-ptx | FileCheck %S/nvvm-ptx.mlir --check-prefix=PTX
// RUN: vx-opt %S/../../examples/attention.mlir --vx-to-ptx="chip=sm_100a" | FileCheck %S/nvvm-ptx.mlir --check-prefix=SM100

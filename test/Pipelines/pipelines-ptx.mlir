// The runs of pipelines.mlir that build the PTX stage, which needs the CUDA
// toolkit; the checks are pipelines.mlir's.
// REQUIRES: ptxas
// RUN: not vx-opt %S/pipelines.mlir --vx-to-ptx 2>&1 | FileCheck %S/pipelines.mlir --check-prefix=RACE
// RUN: vx-opt %S/../../examples/matmul.mlir --vx-to-ptx="stages=4" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %S/pipelines.mlir --check-prefix=STAGES4

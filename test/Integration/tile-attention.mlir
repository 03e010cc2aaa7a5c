// examples/tile_attention.mlir (flash attention written with tile ops: S =
// Q K^T through a transposing indexing map, the row max by linalg.reduce,
// exp2 by linalg.map and a row-broadcast linalg.generic, row sums, the
// rescaling by a row broadcast, P V) against attention.mlir's plain softmax
// attention, with its inputs and checks.
// RUN: cat %S/../../examples/tile_attention.mlir %S/attention.mlir | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %S/attention.mlir
// RUN: cat %S/../../examples/tile_attention.mlir %S/attention.mlir | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %S/attention.mlir
// RUN: cat %S/../../examples/tile_attention.mlir %S/attention.mlir | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %S/attention.mlir
// RUN: cat %S/../../examples/tile_attention.mlir %S/attention.mlir | vx-opt --vx-to-llvm="via-gpu=true stages=2 chip=sm_90a" | %mlir_runner -e main | FileCheck %S/attention.mlir
// RUN: cat %S/../../examples/tile_attention.mlir %S/attention.mlir | vx-opt --vx-to-llvm="via-gpu=true detect-races=true" | %mlir_runner -e main | FileCheck %S/attention.mlir

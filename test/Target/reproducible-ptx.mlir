// REQUIRES: ptxas
// The ptx stage is the same bytes on every run: gpu-module-to-binary's
// compile times are dropped (vx-drop-compile-times), for PTX and cubin.
// RUN: vx-opt %vx_root/examples/matmul.mlir --vx-to-ptx -o %t.1.mlir
// RUN: vx-opt %vx_root/examples/matmul.mlir --vx-to-ptx -o %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: vx-opt %vx_root/examples/matmul.mlir --vx-to-ptx="format=bin" -o %t.3.mlir
// RUN: vx-opt %vx_root/examples/matmul.mlir --vx-to-ptx="format=bin" -o %t.4.mlir
// RUN: cmp %t.3.mlir %t.4.mlir
// RUN: vx-opt %vx_root/examples/matmul.mlir --vx-to-ptx="format=fatbin" -o %t.5.mlir
// RUN: vx-opt %vx_root/examples/matmul.mlir --vx-to-ptx="format=fatbin" -o %t.6.mlir
// RUN: cmp %t.5.mlir %t.6.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir --check-prefix=ISA --implicit-check-not=TimeInMs
// RUN: FileCheck %s --input-file=%t.3.mlir --check-prefix=BIN --implicit-check-not=TimeInMs

// ISA: gpu.binary @matmul_kernel {{ *}}[#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, properties = {O = 2 : i32}, assembly = "
// BIN: gpu.binary @matmul_kernel {{ *}}[#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, bin = "


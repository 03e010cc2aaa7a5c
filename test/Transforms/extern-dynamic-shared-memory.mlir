// Dynamic shared memory (a zero-size global of the shared address space,
// without an initializer) becomes an external declaration, at least
// `alignment`-aligned; other globals stay as they are.
// RUN: vx-opt %s --vx-extern-dynamic-shared-memory | FileCheck %s
// RUN: vx-opt %s --vx-extern-dynamic-shared-memory="alignment=1024" | FileCheck %s --check-prefix=ALIGN
// RUN: not vx-opt %s --vx-extern-dynamic-shared-memory="alignment=48" 2>&1 | FileCheck %s --check-prefix=INVALID
// The whole way: the PTX declares an extern array, after the static symbols.
// RUN: vx-opt %S/../../examples/matmul.mlir --vx-to-nvvm | FileCheck %s --check-prefix=NVVM

// CHECK-LABEL: gpu.module @kernels
// CHECK-DAG: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<0 x i8>
// CHECK-DAG: llvm.mlir.global external @wide() {addr_space = 3 : i32, alignment = 256 : i64} : !llvm.array<0 x i32>
// The mbarriers: static shared memory.
// CHECK-DAG: llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>
// CHECK-DAG: llvm.mlir.global internal @global_empty() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-DAG: llvm.mlir.global internal @initialized(dense<> : tensor<0xi8>) {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// ALIGN-DAG: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64}
// ALIGN-DAG: llvm.mlir.global external @wide() {addr_space = 3 : i32, alignment = 1024 : i64}
// INVALID: error: vx-extern-dynamic-shared-memory: alignment must be a power of 2, got 48
// NVVM: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<0 x i8>
// NVVM: llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<1 x i64>
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @wide() {addr_space = 3 : i32, alignment = 256 : i64} : !llvm.array<0 x i32>
  llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>
  llvm.mlir.global internal @global_empty() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @initialized(dense<> : tensor<0xi8>) {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
}

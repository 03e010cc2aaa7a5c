// RUN: vx-opt %s --vx-noalias-kernel-arguments | FileCheck %s
// RUN: vx-opt %s --vx-noalias-kernel-arguments --convert-gpu-to-nvvm --vx-noalias-kernel-arguments | FileCheck %s --check-prefix=LOWERED

// On the gpu.func: the aligned pointers of its memref arguments in the
// lowered signature (memref<8xf32>: 5 arguments, memref<4x4xf32>: 7, index:
// 1), and those never written. The output is written through a subview.
// CHECK-LABEL: gpu.func @k
// CHECK-SAME: vx.lowered_argument_count = 18
// CHECK-SAME: vx.noalias_arguments = array<i64: 1, 6, 14>
// CHECK-SAME: vx.readonly_arguments = array<i64: 1, 14>

// On the llvm.func it becomes: the attributes on those arguments.
// LOWERED-LABEL: llvm.func @k(
// LOWERED-SAME: %arg0: !llvm.ptr, %arg1: !llvm.ptr {llvm.noalias, llvm.readonly},
// LOWERED-SAME: %arg5: !llvm.ptr, %arg6: !llvm.ptr {llvm.noalias}, %arg7
// LOWERED-SAME: %arg13: !llvm.ptr, %arg14: !llvm.ptr {llvm.noalias, llvm.readonly},
// LOWERED-NOT: vx.noalias_arguments
gpu.module @kernels {
  gpu.func @k(%in: memref<8xf32>, %out: memref<4x4xf32>, %n: index,
              %table: memref<8xf32>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %in[%c0] : memref<8xf32>
    %y = memref.load %table[%n] : memref<8xf32>
    %z = arith.addf %x, %y : f32
    %row = memref.subview %out[0, 0] [1, 4] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[1]>>
    memref.store %z, %row[%c0] : memref<4xf32, strided<[1]>>
    gpu.return
  }
}

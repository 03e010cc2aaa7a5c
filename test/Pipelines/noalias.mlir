// The aliasing contract on the device: kernel memref arguments are noalias,
// and an input the kernel only reads is loaded with ld.global.nc (as nvcc
// does for __restrict__ pointers).
// RUN: vx-opt %s --vx-to-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: vx-opt %s --vx-to-gpu | FileCheck %s --check-prefix=GPU

// NVVM: llvm.func @scale_kernel(%arg0: !llvm.ptr, %arg1: !llvm.ptr {llvm.noalias, llvm.readonly}, {{.*}}, %arg5: !llvm.ptr, %arg6: !llvm.ptr {llvm.noalias}, %arg7
// The vx-to-gpu stage is unchanged.
// GPU-NOT: vx.noalias_arguments

func.func @scale(%in: memref<64xf32>, %out: memref<64xf32>) {
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %in[%i] : memref<64xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %out[%i] : memref<64xf32>
  }
  return
}

// A kernel with 100 KiB of smem scratch per instance: more than static
// shared memory allows (48 KiB), as dynamic shared memory. Two instances per
// CTA still fit sm_90's 227 KiB; three are an error naming the sizes.
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=2" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | not vx-opt --vx-to-llvm="via-gpu=true threads-per-block=3" 2>&1 | FileCheck %s --check-prefix=BUDGET
// The GPU mapping refuses it on sm_75 (vx-to-nvvm: no toolkit needed).
// RUN: cat %s %S/Inputs/host-memory.mlir | not vx-opt --vx-to-nvvm="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=TURING
// (ptxas on this kernel: test/Pipelines/ptxas.mlir.)

// CHECK: max |big - reference| = 0
// BUDGET: error: 'vx.spawn' op needs 307200 bytes of shared memory per CTA (3 instances per CTA x 102400 bytes of smem scratch per instance), more than the 232320 bytes of dynamic shared memory that any chip gives a CTA
// BUDGET: note: smem scratch of 102400 bytes per instance
// TURING: error: 'vx.spawn' op needs 102400 bytes of shared memory per CTA (102400 bytes of smem scratch per instance), more than the 65408 bytes of dynamic shared memory that 'sm_75' gives a CTA

// 25600 f32 = 100 KiB of shared memory per instance: out[i] is the sum of
// the buffer after every element j got i + j.
func.func @big(%out: memref<5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 25600 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [5] semantics [parallel] {
    %i = vx.grid_index 0
    %buffer = vx.scratch smem : memref<25600xf32>
    scf.for %j = %c0 to %n step %c1 {
      %ij = arith.addi %i, %j : index
      %int = arith.index_cast %ij : index to i32
      %x = arith.sitofp %int : i32 to f32
      memref.store %x, %buffer[%j] : memref<25600xf32>
    }
    %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
      %x = memref.load %buffer[%j] : memref<25600xf32>
      %next = arith.addf %acc, %x : f32
      scf.yield %next : f32
    }
    memref.store %sum, %out[%i] : memref<5xf32>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %n = arith.constant 25600 : index
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<5xf32>
  %outu = memref.cast %out : memref<5xf32> to memref<*xf32>
  call @make_device_visible_f32(%outu) : (memref<*xf32>) -> ()
  call @big(%out) : (memref<5xf32>) -> ()
  %err2 = scf.for %i = %c0 to %c5 step %c1 iter_args(%e = %zero) -> f32 {
    %ref = scf.for %j = %c0 to %n step %c1 iter_args(%a = %zero) -> f32 {
      %ij = arith.addi %i, %j : index
      %int = arith.index_cast %ij : index to i32
      %x = arith.sitofp %int : i32 to f32
      %y = arith.addf %a, %x : f32
      scf.yield %y : f32
    }
    %got = memref.load %out[%i] : memref<5xf32>
    %d = arith.subf %got, %ref : f32
    %ad = math.absf %d : f32
    %m = arith.maximumf %e, %ad : f32
    scf.yield %m : f32
  }
  vector.print str "max |big - reference| = "
  vector.print %err2 : f32
  memref.dealloc %out : memref<5xf32>
  return
}

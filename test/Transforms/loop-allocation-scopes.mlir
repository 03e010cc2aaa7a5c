// RUN: vx-opt %s --split-input-file --allow-unregistered-dialect --vx-loop-allocation-scopes | FileCheck %s
// A spawn whose 4096 parallel points each keep 64 KiB of scratch (256 MiB
// in all) runs sequentially within the default 8 MiB stack.
// RUN: vx-opt %S/Inputs/large-scratch.mlir --vx-to-llvm | %mlir_runner -e main | FileCheck %s --check-prefix=EXEC
// RUN: vx-opt %S/Inputs/large-scratch.mlir --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s --check-prefix=EXEC
// RUN: vx-opt %S/Inputs/large-scratch.mlir --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s --check-prefix=EXEC
// EXEC: 1308557312

// Each iteration of a loop that allocates restores the stack pointer.
// CHECK-LABEL: func @parallel
// CHECK: scf.parallel
// CHECK-NEXT: %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: memref.alloca
// CHECK: llvm.intr.stackrestore %[[SP]]
// CHECK-NEXT: scf.reduce
func.func @parallel(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %a = memref.alloca() : memref<16xf32>
    %v = memref.load %a[%c0] : memref<16xf32>
    memref.store %v, %out[%i] : memref<?xf32>
  }
  return
}

// -----

// An alloca under an scf.if belongs to the loop's scope; the values the
// terminator yields are computed before the restore.
// CHECK-LABEL: func @for_if
// CHECK: scf.for
// CHECK-NEXT: %[[SP:.*]] = llvm.intr.stacksave
// CHECK: scf.if
// CHECK: memref.alloca
// CHECK: llvm.intr.stackrestore %[[SP]]
// CHECK-NEXT: scf.yield
func.func @for_if(%n: index, %c: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero) -> f32 {
    %x = scf.if %c -> f32 {
      %a = memref.alloca() : memref<4xf32>
      %v = memref.load %a[%c0] : memref<4xf32>
      scf.yield %v : f32
    } else {
      scf.yield %zero : f32
    }
    %t = arith.addf %s, %x : f32
    scf.yield %t : f32
  }
  return %r : f32
}

// -----

// Loops that do not allocate themselves are left alone: the inner loop is
// the scope of its alloca.
// CHECK-LABEL: func @nested
// CHECK: scf.for
// CHECK-NOT: llvm.intr.stacksave
// CHECK: scf.for
// CHECK-NEXT: llvm.intr.stacksave
// CHECK-NOT: llvm.intr.stacksave
func.func @nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %a = memref.alloca() : memref<4xf32>
      "test.use"(%a) : (memref<4xf32>) -> ()
    }
  }
  return
}

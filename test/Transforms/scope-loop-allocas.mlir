// RUN: vx-opt %s --vx-scope-loop-allocas | FileCheck %s

// An alloca in a loop body (also under an scf.if) is released at the end of
// each iteration.
// CHECK-LABEL: func @for_body
// CHECK: scf.for
// CHECK-NEXT: %[[STACK:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK: memref.alloca() : memref<1024xf32>
// CHECK: scf.if
// CHECK: memref.alloca() : memref<16xf32>
// CHECK: llvm.intr.stackrestore %[[STACK]] : !llvm.ptr
// CHECK-NEXT: }
func.func @for_body(%n: index, %flag: i1, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %buffer = memref.alloca() : memref<1024xf32>
    memref.store %one, %buffer[%c0] : memref<1024xf32>
    scf.if %flag {
      %small = memref.alloca() : memref<16xf32>
      memref.store %one, %small[%c0] : memref<16xf32>
    }
    %x = memref.load %buffer[%c0] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<?xf32>
  }
  return
}

// scf.parallel with a reduction: the restore comes before the scf.reduce,
// the reduced value is computed before it.
// CHECK-LABEL: func @parallel_body
// CHECK: scf.parallel
// CHECK-NEXT: %[[STACK:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK: memref.alloca() : memref<64xf32>
// CHECK: %[[X:.*]] = memref.load
// CHECK: llvm.intr.stackrestore %[[STACK]] : !llvm.ptr
// CHECK-NEXT: scf.reduce(%[[X]] : f32)
func.func @parallel_body(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
    %buffer = memref.alloca() : memref<64xf32>
    memref.store %zero, %buffer[%c0] : memref<64xf32>
    %x = memref.load %buffer[%c0] : memref<64xf32>
    scf.reduce(%x : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}

// The alloca belongs to the inner loop, not the outer one; a loop that
// allocates nothing, and an alloca in a nested alloca scope, are left alone.
// CHECK-LABEL: func @nested
// CHECK: scf.for
// CHECK-NOT: llvm.intr.stacksave
// CHECK: scf.for
// CHECK-NEXT: llvm.intr.stacksave
// CHECK: llvm.intr.stackrestore
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: scf.for
// CHECK-NOT: llvm.intr
// CHECK: return
func.func @nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %buffer = memref.alloca() : memref<8xf32>
      memref.store %zero, %buffer[%c0] : memref<8xf32>
    }
  }
  scf.for %i = %c0 to %n step %c1 {
    memref.alloca_scope {
      %buffer = memref.alloca() : memref<8xf32>
      memref.store %zero, %buffer[%c0] : memref<8xf32>
    }
  }
  return
}

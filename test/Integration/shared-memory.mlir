// Shared-memory scratch of several element types (bytes, f64, vectors of
// f32) and sizes, one beside the other in the CTA's dynamic shared memory,
// at several threads per block (each thread an instance with its slices),
// fed by cp.async: row sums of a 37x16 input in four 4-element steps along
// an arbitrary dimension, against sums computed by plain loops in @main.
// via-gpu executes the dynamic shared memory on the CPU.
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=3" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=4 reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=32 openmp=true" | %mlir_runner -e main | FileCheck %s

// CHECK: max |row sums - reference| = 0

func.func @row_sums(%in: memref<37x16xf32>, %sums: memref<37xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [37, 4] semantics [parallel, arbitrary] {
    %r = vx.grid_index 0
    %k = vx.grid_index 1
    %flag = vx.scratch smem : memref<3xi8>
    %tile = vx.scratch smem : memref<4xf32>
    %acc = vx.scratch smem : memref<2xvector<4xf32>>
    %steps = vx.scratch smem : memref<1xf64>
    %col = arith.muli %k, %c4 : index
    %src = memref.subview %in[%r, %col] [1, 4] [1, 1] : memref<37x16xf32> to memref<4xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0.0> : vector<4xf32>
      memref.store %zero, %acc[%c0] : memref<2xvector<4xf32>>
      memref.store %zero, %acc[%c1] : memref<2xvector<4xf32>>
      %nothing = arith.constant 0.0 : f64
      memref.store %nothing, %steps[%c0] : memref<1xf64>
      %seven = arith.constant 7 : i8
      memref.store %seven, %flag[%c0] : memref<3xi8>
    }
    vx.await %t
    %v = vector.load %tile[%c0] : memref<4xf32>, vector<4xf32>
    %a = memref.load %acc[%c1] : memref<2xvector<4xf32>>
    %b = arith.addf %a, %v : vector<4xf32>
    memref.store %b, %acc[%c1] : memref<2xvector<4xf32>>
    %s = memref.load %steps[%c0] : memref<1xf64>
    %one = arith.constant 1.0 : f64
    %s1 = arith.addf %s, %one : f64
    memref.store %s1, %steps[%c0] : memref<1xf64>
    %last = arith.cmpi eq, %k, %c3 : index
    scf.if %last {
      %total = memref.load %acc[%c1] : memref<2xvector<4xf32>>
      %sum = vector.reduction <add>, %total : vector<4xf32> into f32
      // Multiplied by steps / 4 = 1 and flag - 6 = 1: the other buffers
      // must hold what was stored.
      %n = memref.load %steps[%c0] : memref<1xf64>
      %four = arith.constant 4.0 : f64
      %ratio = arith.divf %n, %four : f64
      %ratio32 = arith.truncf %ratio : f64 to f32
      %f = memref.load %flag[%c0] : memref<3xi8>
      %six = arith.constant 6 : i8
      %d = arith.subi %f, %six : i8
      %dfloat = arith.sitofp %d : i8 to f32
      %x = arith.mulf %sum, %ratio32 : f32
      %y = arith.mulf %x, %dfloat : f32
      memref.store %y, %sums[%r] : memref<37xf32>
    }
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c37 = arith.constant 37 : index
  %zero = arith.constant 0.0 : f32
  %in = memref.alloc() : memref<37x16xf32>
  %inu = memref.cast %in : memref<37x16xf32> to memref<*xf32>
  call @make_device_visible_f32(%inu) : (memref<*xf32>) -> ()
  %sums = memref.alloc() : memref<37xf32>
  %sumsu = memref.cast %sums : memref<37xf32> to memref<*xf32>
  call @make_device_visible_f32(%sumsu) : (memref<*xf32>) -> ()
  scf.for %r = %c0 to %c37 step %c1 {
    scf.for %c = %c0 to %c16 step %c1 {
      %rc = arith.muli %r, %c16 : index
      %l = arith.addi %rc, %c : index
      %li = arith.index_cast %l : index to i32
      %x = arith.sitofp %li : i32 to f32
      memref.store %x, %in[%r, %c] : memref<37x16xf32>
    }
  }
  call @row_sums(%in, %sums) : (memref<37x16xf32>, memref<37xf32>) -> ()
  %err = scf.for %r = %c0 to %c37 step %c1 iter_args(%e = %zero) -> f32 {
    %ref = scf.for %c = %c0 to %c16 step %c1 iter_args(%a = %zero) -> f32 {
      %x = memref.load %in[%r, %c] : memref<37x16xf32>
      %y = arith.addf %a, %x : f32
      scf.yield %y : f32
    }
    %got = memref.load %sums[%r] : memref<37xf32>
    %d = arith.subf %got, %ref : f32
    %ad = math.absf %d : f32
    %m = arith.maximumf %e, %ad : f32
    scf.yield %m : f32
  }
  vector.print str "max |row sums - reference| = "
  vector.print %err : f32

  memref.dealloc %in : memref<37x16xf32>
  memref.dealloc %sums : memref<37xf32>
  return
}

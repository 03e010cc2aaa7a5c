// A first-index-above-threshold search (and its last-index twin): a
// thread-loop scf.reduce of arith.minsi / arith.maxsi on index, as a new
// user writes it. Each thread's partial must start from index's own
// identities (2^63 - 1 for minsi, -2^63 for maxsi): with i1's or a
// bit-width-less APInt the GPU mapping started from -1 (a wrong answer) or
// built a constant whose printing never ended (vx-to-gpu, via-gpu and the
// plugin hung in APInt::toString). Every route runs to completion here; the
// rows hold their first match at 0, 37 and nowhere, their last at 63, 37 and
// nowhere (64 and -1 then). Each thread's loop over its two elements is
// unrolled, so the identities fold away: the minimum's partials start
// from the elements themselves, never from -1.
// RUN: vx-opt %s --vx-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: vx-opt %s --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%vx_plugin --load-pass-plugin=%vx_plugin --pass-pipeline="builtin.module(vx-to-gpu)" | FileCheck %s --check-prefix=GPU
// RUN: mlir-opt %s --load-dialect-plugin=%vx_plugin --load-pass-plugin=%vx_plugin --pass-pipeline="builtin.module(vx-to-llvm{via-gpu=true})" | %mlir_runner -e main | FileCheck %s

// GPU-LABEL: gpu.func @first_and_last_above_kernel(
// GPU: arith.minsi
// GPU-NOT: arith.minsi {{.*}}%c-1
// GPU: arith.maxsi

// CHECK: ( 0, 63 )
// CHECK-NEXT: ( 37, 37 )
// CHECK-NEXT: ( 64, -1 )

func.func @first_and_last_above(%x: memref<3x64xf32>, %out: memref<3x2xindex>,
                                %threshold: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %none = arith.constant -1 : index
  vx.spawn on tensor_core grid [3] semantics [parallel] threads 32 {
    %row = vx.grid_index 0
    %first = scf.parallel (%i) = (%c0) to (%c64) step (%c1) init (%c64) -> index {
      %v = memref.load %x[%row, %i] : memref<3x64xf32>
      %above = arith.cmpf ogt, %v, %threshold : f32
      %candidate = arith.select %above, %i, %c64 : index
      scf.reduce(%candidate : index) {
      ^bb0(%a: index, %b: index):
        %m = arith.minsi %a, %b : index
        scf.reduce.return %m : index
      }
    }
    %last = scf.parallel (%i) = (%c0) to (%c64) step (%c1) init (%none) -> index {
      %v = memref.load %x[%row, %i] : memref<3x64xf32>
      %above = arith.cmpf ogt, %v, %threshold : f32
      %candidate = arith.select %above, %i, %none : index
      scf.reduce(%candidate : index) {
      ^bb0(%a: index, %b: index):
        %m = arith.maxsi %a, %b : index
        scf.reduce.return %m : index
      }
    }
    memref.store %first, %out[%row, %c0] : memref<3x2xindex>
    memref.store %last, %out[%row, %c1] : memref<3x2xindex>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c37 = arith.constant 37 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %low = arith.constant 0.0 : f32
  %high = arith.constant 2.0 : f32
  %threshold = arith.constant 1.0 : f32
  %x = memref.alloc() : memref<3x64xf32>
  %out = memref.alloc() : memref<3x2xindex>
  scf.for %r = %c0 to %c3 step %c1 {
    scf.for %i = %c0 to %c64 step %c1 {
      memref.store %low, %x[%r, %i] : memref<3x64xf32>
    }
  }
  memref.store %high, %x[%c0, %c0] : memref<3x64xf32>
  memref.store %high, %x[%c0, %c63] : memref<3x64xf32>
  memref.store %high, %x[%c1, %c37] : memref<3x64xf32>
  func.call @first_and_last_above(%x, %out, %threshold)
      : (memref<3x64xf32>, memref<3x2xindex>, f32) -> ()
  scf.for %r = %c0 to %c3 step %c1 {
    %first = memref.load %out[%r, %c0] : memref<3x2xindex>
    %last = memref.load %out[%r, %c1] : memref<3x2xindex>
    %first64 = arith.index_cast %first : index to i64
    %last64 = arith.index_cast %last : index to i64
    %pair = vector.from_elements %first64, %last64 : vector<2xi64>
    vector.print %pair : vector<2xi64>
  }
  memref.dealloc %x : memref<3x64xf32>
  memref.dealloc %out : memref<3x2xindex>
  return
}

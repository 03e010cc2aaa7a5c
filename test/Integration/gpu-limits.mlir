// Grids built for the limits of the GPU mapping, run on the CPU through it
// (via-gpu): a dimension over the limit of y, five parallel dimensions, a
// dynamic grid (grid-stride), and threads-per-block with a ragged last
// block. Every instance must run exactly once: each adds its row-major
// linear index plus one at out[linear index]; @report prints sum and count.
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=4" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=128 reverse-parallel=true openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="detect-races=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="detect-races=true via-gpu=true threads-per-block=3 openmp=true" | %mlir_runner -e main | FileCheck %s

func.func @wide(%out: memref<?xi64>) {
  %c70000 = arith.constant 70000 : index
  vx.spawn on tensor_core grid [3, 70000] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %row = arith.muli %i, %c70000 : index
    %lin = arith.addi %row, %j : index
    %one = arith.constant 1 : i64
    %iv = arith.index_cast %lin : index to i64
    %x = memref.load %out[%lin] : memref<?xi64>
    %v0 = arith.addi %iv, %one : i64
    %v = arith.addi %x, %v0 : i64
    memref.store %v, %out[%lin] : memref<?xi64>
  }
  return
}

func.func @five(%out: memref<?xi64>) {
  vx.spawn on tensor_core grid [2, 3, 4, 5, 6]
      semantics [parallel, parallel, parallel, parallel, parallel] {
    %i0 = vx.grid_index 0
    %i1 = vx.grid_index 1
    %i2 = vx.grid_index 2
    %i3 = vx.grid_index 3
    %i4 = vx.grid_index 4
    %lin = affine.apply affine_map<(a, b, c, d, e) -> ((((a * 3 + b) * 4 + c) * 5 + d) * 6 + e)>(%i0, %i1, %i2, %i3, %i4)
    %one = arith.constant 1 : i64
    %iv = arith.index_cast %lin : index to i64
    %x = memref.load %out[%lin] : memref<?xi64>
    %v0 = arith.addi %iv, %one : i64
    %v = arith.addi %x, %v0 : i64
    memref.store %v, %out[%lin] : memref<?xi64>
  }
  return
}

// Dynamic sizes: the folded grid loops grid-stride, and an empty grid
// launches nothing.
func.func @dynamic(%out: memref<?xi64>, %n: index, %m: index) {
  vx.spawn on tensor_core grid [%n, %m] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %row = arith.muli %i, %m : index
    %lin = arith.addi %row, %j : index
    %one = arith.constant 1 : i64
    %iv = arith.index_cast %lin : index to i64
    %x = memref.load %out[%lin] : memref<?xi64>
    %v0 = arith.addi %iv, %one : i64
    %v = arith.addi %x, %v0 : i64
    memref.store %v, %out[%lin] : memref<?xi64>
  }
  return
}

// 7 is ragged for 4 and 128 threads per block.
func.func @ragged(%out: memref<?xi64>) {
  %c7 = arith.constant 7 : index
  vx.spawn on tensor_core grid [10, 7] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %row = arith.muli %i, %c7 : index
    %lin = arith.addi %row, %j : index
    %one = arith.constant 1 : i64
    %iv = arith.index_cast %lin : index to i64
    %x = memref.load %out[%lin] : memref<?xi64>
    %v0 = arith.addi %iv, %one : i64
    %v = arith.addi %x, %v0 : i64
    memref.store %v, %out[%lin] : memref<?xi64>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c25 = arith.constant 25 : index
  %c40 = arith.constant 40 : index
  %size = arith.constant 210000 : index
  %zero = arith.constant 0 : i64
  %out = memref.alloc(%size) : memref<?xi64>
  %outu = memref.cast %out : memref<?xi64> to memref<*xi64>
  call @make_device_visible_i64(%outu) : (memref<*xi64>) -> ()
  linalg.fill ins(%zero : i64) outs(%out : memref<?xi64>)
  // CHECK: 22050105000
  // CHECK-NEXT: 210000
  call @wide(%out) : (memref<?xi64>) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // CHECK-NEXT: 259560
  // CHECK-NEXT: 720
  call @five(%out) : (memref<?xi64>) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // CHECK-NEXT: 500500
  // CHECK-NEXT: 1000
  call @dynamic(%out, %c25, %c40) : (memref<?xi64>, index, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  call @dynamic(%out, %c0, %c40) : (memref<?xi64>, index, index) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  // CHECK-NEXT: 2485
  // CHECK-NEXT: 70
  call @ragged(%out) : (memref<?xi64>) -> ()
  call @report(%out) : (memref<?xi64>) -> ()
  memref.dealloc %out : memref<?xi64>
  return
}

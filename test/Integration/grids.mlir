// Every instance of 1-D, 3-D, 5-D and 6-D grids (2-D and 4-D: transfer.mlir
// and attention.mlir) (static, dynamic, mixed sizes, mixed
// semantics) runs exactly once with the right coordinates: each writes its
// row-major linear index plus one, and main checks the sum and the count.
// RUN: cat %s %S/Inputs/report.mlir | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir | vx-opt --vx-to-llvm="reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir | vx-opt --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir | vx-opt --vx-to-llvm="via-gpu=true threads-per-block=3 openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir | vx-opt --vx-to-llvm="detect-races=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/report.mlir | vx-opt --vx-to-llvm="detect-races=true via-gpu=true threads-per-block=3 openmp=true" | %mlir_runner -e main | FileCheck %s

// Adds 1 + the row-major linear index of the instance at out[linear index].
func.func @grid1(%out: memref<?xi64>, %n: index) {
  %one = arith.constant 1 : i64
  vx.spawn on host grid [%n] semantics [parallel] {
    %i = vx.grid_index 0
    %iv = arith.index_cast %i : index to i64
    %x = memref.load %out[%i] : memref<?xi64>
    %v0 = arith.addi %iv, %one : i64
    %v = arith.addi %x, %v0 : i64
    memref.store %v, %out[%i] : memref<?xi64>
  }
  return
}

func.func @grid3(%out: memref<?xi64>, %n: index) {
  %one = arith.constant 1 : i64
  vx.spawn on tensor_core grid [3, %n, 5] semantics [arbitrary, parallel, parallel] {
    %a = vx.grid_index 0
    %b = vx.grid_index 1
    %c = vx.grid_index 2
    %nb = vx.grid_dim 1
    %nc = vx.grid_dim 2
    %l0 = arith.muli %a, %nb : index
    %l1 = arith.addi %l0, %b : index
    %l2 = arith.muli %l1, %nc : index
    %lin = arith.addi %l2, %c : index
    %iv = arith.index_cast %lin : index to i64
    %x = memref.load %out[%lin] : memref<?xi64>
    %v0 = arith.addi %iv, %one : i64
    %v = arith.addi %x, %v0 : i64
    memref.store %v, %out[%lin] : memref<?xi64>
  }
  return
}

func.func @grid6(%out: memref<?xi64>, %n: index, %m: index) {
  %one = arith.constant 1 : i64
  vx.spawn on tensor_core grid [2, %n, 3, 1, %m, 2]
      semantics [parallel, arbitrary, parallel, arbitrary, parallel, arbitrary] {
    %lin = vx.grid_index 0
    %d1 = vx.grid_dim 1
    %d2 = vx.grid_dim 2
    %d3 = vx.grid_dim 3
    %d4 = vx.grid_dim 4
    %d5 = vx.grid_dim 5
    %i1 = vx.grid_index 1
    %i2 = vx.grid_index 2
    %i3 = vx.grid_index 3
    %i4 = vx.grid_index 4
    %i5 = vx.grid_index 5
    %a1 = arith.muli %lin, %d1 : index
    %b1 = arith.addi %a1, %i1 : index
    %a2 = arith.muli %b1, %d2 : index
    %b2 = arith.addi %a2, %i2 : index
    %a3 = arith.muli %b2, %d3 : index
    %b3 = arith.addi %a3, %i3 : index
    %a4 = arith.muli %b3, %d4 : index
    %b4 = arith.addi %a4, %i4 : index
    %a5 = arith.muli %b4, %d5 : index
    %b5 = arith.addi %a5, %i5 : index
    %iv = arith.index_cast %b5 : index to i64
    %x = memref.load %out[%b5] : memref<?xi64>
    %v0 = arith.addi %iv, %one : i64
    %v = arith.addi %x, %v0 : i64
    memref.store %v, %out[%b5] : memref<?xi64>
  }
  return
}

func.func @grid5(%out: memref<?xi64>, %n: index) {
  %one = arith.constant 1 : i64
  vx.spawn on tensor_core grid [%n, 2, 3, 2, 2]
      semantics [parallel, parallel, arbitrary, parallel, arbitrary] {
    %i0 = vx.grid_index 0
    %i1 = vx.grid_index 1
    %i2 = vx.grid_index 2
    %i3 = vx.grid_index 3
    %i4 = vx.grid_index 4
    %d1 = vx.grid_dim 1
    %d2 = vx.grid_dim 2
    %d3 = vx.grid_dim 3
    %d4 = vx.grid_dim 4
    %a1 = arith.muli %i0, %d1 : index
    %b1 = arith.addi %a1, %i1 : index
    %a2 = arith.muli %b1, %d2 : index
    %b2 = arith.addi %a2, %i2 : index
    %a3 = arith.muli %b2, %d3 : index
    %b3 = arith.addi %a3, %i3 : index
    %a4 = arith.muli %b3, %d4 : index
    %b4 = arith.addi %a4, %i4 : index
    %iv = arith.index_cast %b4 : index to i64
    %x = memref.load %out[%b4] : memref<?xi64>
    %v0 = arith.addi %iv, %one : i64
    %v = arith.addi %x, %v0 : i64
    memref.store %v, %out[%b4] : memref<?xi64>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c13 = arith.constant 13 : index
  %c1000 = arith.constant 1000 : index
  %zero = arith.constant 0 : i64
  %out = memref.alloc(%c1000) : memref<?xi64>
  linalg.fill ins(%zero : i64) outs(%out : memref<?xi64>)

  // 13 instances: 13 * 14 / 2 = 91.
  // CHECK: 91
  // CHECK-NEXT: 13
  func.call @grid1(%out, %c13) : (memref<?xi64>, index) -> ()
  func.call @report(%out) : (memref<?xi64>) -> ()

  // 3 * 7 * 5 = 105 instances: 105 * 106 / 2 = 5565.
  // CHECK-NEXT: 5565
  // CHECK-NEXT: 105
  func.call @grid3(%out, %c7) : (memref<?xi64>, index) -> ()
  func.call @report(%out) : (memref<?xi64>) -> ()

  // 2 * 4 * 3 * 1 * 7 * 2 = 336 instances: 336 * 337 / 2 = 56616.
  // CHECK-NEXT: 56616
  // CHECK-NEXT: 336
  func.call @grid6(%out, %c4, %c7) : (memref<?xi64>, index, index) -> ()
  func.call @report(%out) : (memref<?xi64>) -> ()

  // 4 * 2 * 3 * 2 * 2 = 96 instances: 96 * 97 / 2 = 4656.
  // CHECK-NEXT: 4656
  // CHECK-NEXT: 96
  func.call @grid5(%out, %c4) : (memref<?xi64>, index) -> ()
  func.call @report(%out) : (memref<?xi64>) -> ()

  // Dynamic sizes of 0 run nothing.
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0
  func.call @grid1(%out, %c0) : (memref<?xi64>, index) -> ()
  func.call @grid6(%out, %c4, %c0) : (memref<?xi64>, index, index) -> ()
  func.call @report(%out) : (memref<?xi64>) -> ()
  memref.dealloc %out : memref<?xi64>
  return
}

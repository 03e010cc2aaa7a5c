// A transpose through shared memory (bench/kernels/transpose_smem.mlir at
// 64x96): a thread loop writes each 32x32 tile's rows, a second one reads
// it down its columns, which vx-pad-shared-tiles pads to 33-float rows on
// the GPU routes (remark below); a second kernel fills its tile with a
// transfer, whose padding keeps cp.async's 16-byte chunks (36-float rows)
// where no TMA copy may write it. Every element against @main's plain
// loops, on the CPU, via-gpu (both orders) and the PTX simulator
// (PTXSim/transpose-smem.mlir).
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true detect-races=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-gpu="chip=sm_80" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-gpu="chip=sm_80" 2>/dev/null | FileCheck %s --check-prefix=LAYOUT

// REMARK: remark: padded from 128 to 132 bytes a row: 32-way bank conflicts of 'memref.load' (line {{[0-9]+}}) -> 1
// REMARK: remark: padded from 128 to 144 bytes a row: 32-way bank conflicts of 'memref.load' (line {{[0-9]+}}) -> 4
// LAYOUT: memref.view {{.*}} to memref<32x33xf32
// LAYOUT: memref.subview {{.*}} : memref<32x33xf32> to memref<32x32xf32, strided<[33, 1]>>
// LAYOUT: memref.view {{.*}} to memref<32x36xf32
// LAYOUT: memref.subview {{.*}} : memref<32x36xf32> to memref<32x32xf32, strided<[36, 1]>>

// CHECK: transpose: max |out - in^T| = 0
// CHECK: transferred: max |out - in^T| = 0
// CHECK: out[5, 37] = 3557

func.func @transpose(%in: memref<64x96xf32>, %out: memref<96x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  vx.spawn on tensor_core grid [2, 3] semantics [parallel, parallel]
      threads 256 {
    %tile = vx.scratch smem : memref<32x32xf32>
    %bi = vx.grid_index 0
    %bj = vx.grid_index 1
    %i0 = arith.muli %bi, %c32 : index
    %j0 = arith.muli %bj, %c32 : index
    scf.parallel (%r, %c) = (%c0, %c0) to (%c32, %c32) step (%c1, %c1) {
      %i = arith.addi %i0, %r : index
      %j = arith.addi %j0, %c : index
      %x = memref.load %in[%i, %j] : memref<64x96xf32>
      memref.store %x, %tile[%r, %c] : memref<32x32xf32>
    }
    scf.parallel (%r, %c) = (%c0, %c0) to (%c32, %c32) step (%c1, %c1) {
      %x = memref.load %tile[%c, %r] : memref<32x32xf32>
      %j = arith.addi %j0, %r : index
      %i = arith.addi %i0, %c : index
      memref.store %x, %out[%j, %i] : memref<96x64xf32>
    }
  }
  return
}

func.func @transferred(%in: memref<64x96xf32>, %out: memref<96x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  vx.spawn on tensor_core grid [2, 3] semantics [parallel, parallel]
      threads 128 {
    %tile = vx.scratch smem : memref<32x32xf32>
    %bi = vx.grid_index 0
    %bj = vx.grid_index 1
    %i0 = arith.muli %bi, %c32 : index
    %j0 = arith.muli %bj, %c32 : index
    %src = memref.subview %in[%i0, %j0] [32, 32] [1, 1]
        : memref<64x96xf32> to memref<32x32xf32, strided<[96, 1], offset: ?>>
    %t = vx.transfer_async %src to %tile
        : memref<32x32xf32, strided<[96, 1], offset: ?>> to memref<32x32xf32>
    vx.await %t
    scf.parallel (%r, %c) = (%c0, %c0) to (%c32, %c32) step (%c1, %c1) {
      %x = memref.load %tile[%c, %r] : memref<32x32xf32>
      %j = arith.addi %j0, %r : index
      %i = arith.addi %i0, %c : index
      memref.store %x, %out[%j, %i] : memref<96x64xf32>
    }
  }
  return
}

/// max |out[j, i] - in[i, j]|.
func.func @error(%in: memref<64x96xf32>, %out: memref<96x64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %zero = arith.constant 0.0 : f32
  %err = scf.for %i = %c0 to %c64 step %c1 iter_args(%e = %zero) -> f32 {
    %row = scf.for %j = %c0 to %c96 step %c1 iter_args(%a = %e) -> f32 {
      %x = memref.load %in[%i, %j] : memref<64x96xf32>
      %y = memref.load %out[%j, %i] : memref<96x64xf32>
      %d = arith.subf %y, %x : f32
      %ad = math.absf %d : f32
      %m = arith.maximumf %a, %ad : f32
      scf.yield %m : f32
    }
    scf.yield %row : f32
  }
  return %err : f32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c37 = arith.constant 37 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %in = memref.alloc() : memref<64x96xf32>
  %inu = memref.cast %in : memref<64x96xf32> to memref<*xf32>
  call @make_device_visible_f32(%inu) : (memref<*xf32>) -> ()
  %out = memref.alloc() : memref<96x64xf32>
  %outu = memref.cast %out : memref<96x64xf32> to memref<*xf32>
  call @make_device_visible_f32(%outu) : (memref<*xf32>) -> ()
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c96 step %c1 {
      %row = arith.muli %i, %c96 : index
      %l = arith.addi %row, %j : index
      %li = arith.index_cast %l : index to i32
      %x = arith.sitofp %li : i32 to f32
      memref.store %x, %in[%i, %j] : memref<64x96xf32>
    }
  }
  call @transpose(%in, %out) : (memref<64x96xf32>, memref<96x64xf32>) -> ()
  %e1 = call @error(%in, %out) : (memref<64x96xf32>, memref<96x64xf32>) -> f32
  vector.print str "transpose: max |out - in^T| = "
  vector.print %e1 : f32
  %nan = arith.constant 0x7FC00000 : f32
  linalg.fill ins(%nan : f32) outs(%out : memref<96x64xf32>)
  call @transferred(%in, %out) : (memref<64x96xf32>, memref<96x64xf32>) -> ()
  %e2 = call @error(%in, %out) : (memref<64x96xf32>, memref<96x64xf32>) -> f32
  vector.print str "transferred: max |out - in^T| = "
  vector.print %e2 : f32
  // in[37, 5] = 37 * 96 + 5.
  %v = memref.load %out[%c5, %c37] : memref<96x64xf32>
  vector.print str "out[5, 37] = "
  vector.print %v : f32
  memref.dealloc %in : memref<64x96xf32>
  memref.dealloc %out : memref<96x64xf32>
  return
}

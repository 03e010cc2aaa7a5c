// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics
// RUN: vx-opt --vx-verify-semantics %S/../../examples/tile_matmul.mlir -o /dev/null 2>&1 | FileCheck --allow-empty --check-prefix=PROVED %s
// RUN: vx-opt --vx-verify-semantics %S/../../examples/tile_attention.mlir -o /dev/null 2>&1 | FileCheck --allow-empty --check-prefix=PROVED %s
// PROVED-NOT: {{warning|error}}

// vx-verify-semantics models tile ops (VX_SPEC 2.3) element by element, as
// the thread loops of vx-distribute-tile-ops: ownership of a private tile
// touched by tile ops and thread loops is proved or refuted, naming both
// ops, and races between the elements of one op are found.

// A column reduction reads a private tile down its columns: the tile's ops
// go by rows (row r on thread r), the reduction by columns.
func.func @column_reduction_of_a_private_tile(%out: memref<64xf32>) {
  %z = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    // expected-error @+1 {{private scratch used in thread loops is not owned by the 64 threads of the spawn's CTA (its 'threads' clause): element (63, 0) is touched by iteration (63) on thread 63 and iteration (0) on thread 0 (instances (0) and (0))}}
    %s = vx.scratch : memref<64x64xf32>
    %m = vx.scratch smem : memref<64xf32>
    // expected-note @+1 {{one access}}
    linalg.fill ins(%z : f32) outs(%s : memref<64x64xf32>)
    linalg.fill ins(%z : f32) outs(%m : memref<64xf32>)
    // expected-note @+1 {{the other access}}
    linalg.reduce ins(%s : memref<64x64xf32>) outs(%m : memref<64xf32>) dimensions = [0]
      (%x: f32, %y: f32) {
        %n = arith.addf %x, %y : f32
        linalg.yield %n : f32
      }
    memref.copy %m, %out : memref<64xf32> to memref<64xf32>
  }
  return
}

// -----

// A thread loop over part of the columns of a private tile that a row
// reduction reads by rows: not elementwise over the whole tile, so it keeps
// its own distribution (a loop over all of it is mapped onto the rows,
// distribute-tile-ops-thread-loops.mlir).
func.func @thread_loop_against_a_row_reduction(%out: memref<64xf32>) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    // expected-error @+1 {{private scratch used in thread loops is not owned by the 64 threads of the spawn's CTA (its 'threads' clause): element (0, 31) is touched by iteration (0, 31) on thread 31 and iteration (0) on thread 0}}
    %s = vx.scratch : memref<64x64xf32>
    %m = vx.scratch : memref<64xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c32) step (%c1, %c1) {
      // expected-note @+1 {{one access}}
      memref.store %z, %s[%i, %j] : memref<64x64xf32>
    }
    linalg.fill ins(%z : f32) outs(%m : memref<64xf32>)
    // expected-note @+1 {{the other access}}
    linalg.reduce ins(%s : memref<64x64xf32>) outs(%m : memref<64xf32>) dimensions = [1]
      (%x: f32, %y: f32) {
        %n = arith.addf %x, %y : f32
        linalg.yield %n : f32
      }
    memref.copy %m, %out : memref<64xf32> to memref<64xf32>
  }
  return
}

// -----

// In place, a transposition's elements read what others write.
func.func @transpose_in_place(%out: memref<64x64xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    %t = vx.scratch smem : memref<64x64xf32>
    memref.copy %out, %t : memref<64x64xf32> to memref<64x64xf32>
    // expected-error-re @+3 {{iterations ({{[0-9]+}}, {{[0-9]+}}) and ({{[0-9]+}}, {{[0-9]+}}) of a thread loop (instance (0)) read and write the same element}}
    // expected-note @+2 {{the other access}}
    // expected-note @+1 {{the iterations of a thread loop must be independent}}
    linalg.transpose ins(%t : memref<64x64xf32>) outs(%t : memref<64x64xf32>) permutation = [1, 0]
    memref.copy %t, %out : memref<64x64xf32> to memref<64x64xf32>
  }
  return
}

// -----

// Proved (as the tile-op kernels of examples/ are, PROVED above): a thread
// loop in the element distribution of tile ops.
func.func @elementwise_and_matmul_share_a_distribution(
    %a: memref<64x32xf16>, %b: memref<32x64xf16>, %c: memref<64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %as = vx.scratch smem : memref<64x32xf16>
    %bs = vx.scratch smem : memref<32x64xf16>
    %acc = vx.scratch : memref<64x64xf32>
    %ta = vx.transfer_async %a to %as : memref<64x32xf16> to memref<64x32xf16>
    %tb = vx.transfer_async %b to %bs : memref<32x64xf16> to memref<32x64xf16>
    vx.await %ta
    vx.await %tb
    linalg.fill ins(%z : f32) outs(%acc : memref<64x64xf32>)
    linalg.matmul ins(%as, %bs : memref<64x32xf16>, memref<32x64xf16>)
                  outs(%acc : memref<64x64xf32>)
    // A thread loop in the tile's distribution: element i on thread i mod N.
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
      %x = memref.load %acc[%i, %j] : memref<64x64xf32>
      %y = arith.mulf %x, %two : f32
      memref.store %y, %acc[%i, %j] : memref<64x64xf32>
    }
    memref.copy %acc, %c : memref<64x64xf32> to memref<64x64xf32>
  }
  return
}

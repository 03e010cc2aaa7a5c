// A spawn without a `threads` clause gets the pipeline's threads-per-block:
// the checker that starts each pipeline proves ownership for that count.
// RUN: vx-opt %s --vx-verify-semantics="threads-per-block=3" | FileCheck %s --check-prefix=OWNED
// RUN: vx-opt %s --vx-to-gpu="threads-per-block=3" | FileCheck %s --check-prefix=OWNED
// RUN: not vx-opt %s --vx-verify-semantics="threads-per-block=4" 2>&1 | FileCheck %s --check-prefix=TPB4
// RUN: not vx-opt %s --vx-to-gpu="threads-per-block=4" 2>&1 | FileCheck %s --check-prefix=TPB4
// RUN: not vx-opt %s --vx-to-llvm="via-gpu=true threads-per-block=4" 2>&1 | FileCheck %s --check-prefix=TPB4
// RUN: not vx-opt %s --vx-verify-semantics="threads-per-block=2000" 2>&1 | FileCheck %s --check-prefix=RANGE

// OWNED-LABEL: func.func @transposed
// TPB4: error: private scratch used in thread loops is not owned by the 4 threads of the spawn's CTA (threads-per-block): element (0, 3) is touched by iteration (0, 3) on thread 3 and iteration (3, 0) on thread 0
// TPB4: note: it is owned by N threads only when N is one of 1, 3
// RANGE: error: vx-verify-semantics: threads-per-block must be between 1 and 1024 (0: the default CTA size), got 2000

// A 4x4 tile written by an (r, c) thread loop and read by a (c, r) one:
// owned by N threads when N divides 3.
func.func @transposed(%a: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] {
    %tile = vx.scratch : memref<4x4xf32>
    scf.parallel (%r, %c) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      %r4 = arith.muli %r, %c4 : index
      %e = arith.addi %r4, %c : index
      %x = memref.load %a[%e] : memref<16xf32>
      memref.store %x, %tile[%r, %c] : memref<4x4xf32>
    }
    scf.parallel (%c, %r) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      %y = memref.load %tile[%r, %c] : memref<4x4xf32>
      %r4 = arith.muli %r, %c4 : index
      %e = arith.addi %r4, %c : index
      memref.store %y, %out[%e] : memref<16xf32>
    }
  }
  return
}

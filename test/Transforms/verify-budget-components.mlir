// A query whose constraints fall into independent components is decided by
// an empty one even where another has more cases than the budget: the
// components are searched fewest cases first and one over the budget does
// not end the search.
// RUN: vx-opt %s --vx-verify-semantics="threads-per-block=3" -verify-diagnostics -o /dev/null
// RUN: vx-opt %s --vx-to-gpu="threads-per-block=3" 2>/dev/null | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true detect-races=true threads-per-block=3" -o /dev/null

// CHECK-LABEL: func.func @one_iteration_thread_loop
// CHECK: gpu.launch_func

// A one-iteration thread loop (thread 0 only, so every element it touches
// is owned, and no two of its iterations collide) stores at a slot computed
// from memory the spawn writes, so each iteration's slot is its own unknown
// with many cases (the select, the wrap-around of trunci / ceildivsi, the
// remainder).
func.func @one_iteration_thread_loop(%table: memref<8xindex>, %fallback: index,
                                     %n: index, %value: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  // expected-remark @below {{device spawn has no parallel dimension: it runs on a single CTA}}
  vx.spawn on tensor_core grid [%n] semantics [arbitrary] {
    %g = vx.grid_index 0
    %q = vx.scratch : memref<8xf32>
    memref.store %g, %table[%c0] : memref<8xindex>
    %end = arith.floordivsi %g, %c4 : index
    scf.for %k = %g to %end step %c3 {
      scf.parallel (%t) = (%c0) to (%c1) step (%c1) {
        %a = memref.load %table[%c2] : memref<8xindex>
        %parity = arith.remui %a, %c2 : index
        %cond = arith.cmpi sge, %parity, %c3 : index
        %b = memref.load %table[%c4] : memref<8xindex>
        %b64 = arith.index_cast %b : index to i64
        %b32 = arith.trunci %b64 : i64 to i32
        %bz = arith.extui %b32 : i32 to i64
        %bi = arith.index_castui %bz : i64 to index
        %third = arith.ceildivsi %bi, %c3 : index
        %pick = arith.select %cond, %third, %fallback : index
        %slot = arith.remui %pick, %c8 : index
        memref.store %value, %q[%slot] : memref<8xf32>
      }
    }
  }
  return
}

// vx-unroll-thread-loops unrolls, in mapped cooperative bodies, the static
// scf.for loops without a barrier, innermost first, while the unrolled loop
// stays within max-ops: the 4x2 nest of the thread loop (a few ops per
// inner iteration) unrolls whole at the default budget and stays at
// max-ops=0; a loop with a dynamic trip count is kept. Unmapped spawns are
// left alone.
// RUN: vx-opt %s --vx-plan-launch --vx-map-cta --vx-unroll-thread-loops | FileCheck %s --check-prefix=ALL
// RUN: vx-opt %s --vx-plan-launch --vx-map-cta --vx-unroll-thread-loops="max-ops=0" | FileCheck %s --check-prefix=NONE
// RUN: vx-opt %s --vx-unroll-thread-loops | FileCheck %s --check-prefix=UNMAPPED
// RUN: not vx-opt %s --vx-unroll-thread-loops="max-ops=-1" 2>&1 | FileCheck %s --check-prefix=INVALID

// INVALID: vx-unroll-thread-loops: max-ops must be >= 0, got -1

// ALL-LABEL: func.func @nest
// ALL-NOT: scf.for
// ALL-COUNT-8: memref.store
// ALL-NOT: memref.store
// ALL: return

// NONE-LABEL: func.func @nest
// NONE: scf.for
// NONE: scf.for
// NONE: memref.store
// NONE: return

// UNMAPPED-LABEL: func.func @nest
// UNMAPPED: scf.parallel
// UNMAPPED: scf.for
// UNMAPPED: scf.for
func.func @nest() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 16 {
    %tile = vx.scratch smem : memref<16x8xf32>
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      scf.for %i = %c0 to %c4 step %c1 {
        scf.for %j = %c0 to %c2 step %c1 {
          %col = arith.muli %i, %c2 : index
          %k = arith.addi %col, %j : index
          %x = arith.index_cast %k : index to i32
          %y = arith.sitofp %x : i32 to f32
          memref.store %y, %tile[%t, %k] : memref<16x8xf32>
        }
      }
    }
  }
  return
}

// A dynamic trip count: kept.
// ALL-LABEL: func.func @dynamic
// ALL: scf.for
func.func @dynamic(%out: memref<4x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 16 {
    %b = vx.grid_index 0
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      scf.for %i = %c0 to %n step %c1 {
        memref.store %one, %out[%b, %t] : memref<4x16xf32>
      }
    }
  }
  return
}

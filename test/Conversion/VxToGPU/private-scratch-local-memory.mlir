// RUN: vx-opt %s --convert-vx-to-gpu -split-input-file -verify-diagnostics | FileCheck %s

// A thread's part of private scratch stays in registers when every load and
// store reaches it at constant indices: the CTA mapping unrolls the loops
// whose counters index it (at most 64 iterations and 16384 operations
// unrolled). Where an index stays dynamic, LLVM keeps the part in local
// memory (a load or store per access), and a remark says which access and
// why.

// The row of 16 scores of attention's key chunk (examples/attention.mlir):
// 16 dot products of 64 multiply-adds, then 16 updates of the 64
// accumulators, each about 12000 operations unrolled. Every index of the
// parts is a constant: no remark, no loop left, 16 independent dot
// products.
// CHECK-LABEL: func.func @score_chunk
// CHECK-DAG: memref.alloca() {{.*}} : memref<1x16xf32>
// CHECK-DAG: memref.alloca() {{.*}} : memref<1x64xf32>
// CHECK-NOT: scf.for
// CHECK: gpu.terminator
func.func @score_chunk(%k: memref<16x64xf32>, %v: memref<16x64xf32>,
                       %o: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    %scores = vx.scratch : memref<64x16xf32>
    %acc = vx.scratch : memref<64x64xf32>
    scf.parallel (%r) = (%c0) to (%c64) step (%c1) {
      scf.for %d = %c0 to %c64 step %c1 {
        memref.store %zero, %acc[%r, %d] : memref<64x64xf32>
      }
      scf.for %j = %c0 to %c16 step %c1 {
        %dot = scf.for %d = %c0 to %c64 step %c1 iter_args(%s = %zero) -> f32 {
          %x = memref.load %acc[%r, %d] : memref<64x64xf32>
          %y = memref.load %k[%j, %d] : memref<16x64xf32>
          %p = arith.mulf %x, %y : f32
          %n = arith.addf %s, %p : f32
          scf.yield %n : f32
        }
        memref.store %dot, %scores[%r, %j] : memref<64x16xf32>
      }
      scf.for %j = %c0 to %c16 step %c1 {
        %p = memref.load %scores[%r, %j] : memref<64x16xf32>
        scf.for %d = %c0 to %c64 step %c1 {
          %a = memref.load %acc[%r, %d] : memref<64x64xf32>
          %y = memref.load %v[%j, %d] : memref<16x64xf32>
          %py = arith.mulf %p, %y : f32
          %an = arith.addf %a, %py : f32
          memref.store %an, %acc[%r, %d] : memref<64x64xf32>
        }
      }
      scf.for %d = %c0 to %c64 step %c1 {
        %a = memref.load %acc[%r, %d] : memref<64x64xf32>
        memref.store %a, %o[%r, %d] : memref<64x64xf32>
      }
    }
  }
  return
}

// -----

// A whole row of 64 scores: the loop over the keys would be 64 dot
// products of 64 multiply-adds unrolled (the loop over the query row, a
// part too, is unrolled inside), over the budget, so the row of scores is
// indexed by its counter.
func.func @score_row(%k: memref<64x64xf32>, %q: memref<64x64xf32>,
                     %o: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    %q_row = vx.scratch : memref<64x64xf32>
    // expected-remark-re @below {{private scratch stays in local memory: index 1 of 'memref.store' is not a constant, it is the counter of an 'scf.for' that stays a loop ({{[0-9]+}} operations unrolled, more than 16384)}}
    %scores = vx.scratch : memref<64x64xf32>
    scf.parallel (%r) = (%c0) to (%c64) step (%c1) {
      scf.for %d = %c0 to %c64 step %c1 {
        %x = memref.load %q[%r, %d] : memref<64x64xf32>
        memref.store %x, %q_row[%r, %d] : memref<64x64xf32>
      }
      // expected-note @below {{the index comes from here}}
      scf.for %j = %c0 to %c64 step %c1 {
        %dot = scf.for %d = %c0 to %c64 step %c1 iter_args(%s = %zero) -> f32 {
          %x = memref.load %q_row[%r, %d] : memref<64x64xf32>
          %y = memref.load %k[%j, %d] : memref<64x64xf32>
          %p = arith.mulf %x, %y : f32
          %n = arith.addf %s, %p : f32
          scf.yield %n : f32
        }
        // expected-note @below {{the access}}
        memref.store %dot, %scores[%r, %j] : memref<64x64xf32>
      }
      scf.for %j = %c0 to %c64 step %c1 {
        %s = memref.load %scores[%r, %j] : memref<64x64xf32>
        memref.store %s, %o[%r, %j] : memref<64x64xf32>
      }
    }
  }
  return
}

// -----

// More iterations than the unrolling takes.
func.func @long_row(%a: memref<4x100xf32>, %o: memref<4x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c100 = arith.constant 100 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 4 {
    // expected-remark @below {{private scratch stays in local memory: index 1 of 'memref.store' is not a constant, it is the counter of an 'scf.for' that stays a loop (100 iterations, more than 64)}}
    %row = vx.scratch : memref<4x100xf32>
    scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
      // expected-note @below {{the index comes from here}}
      scf.for %j = %c0 to %c100 step %c1 {
        %x = memref.load %a[%r, %j] : memref<4x100xf32>
        // expected-note @below {{the access}}
        memref.store %x, %row[%r, %j] : memref<4x100xf32>
      }
      scf.for %j = %c0 to %c100 step %c1 {
        %x = memref.load %row[%r, %j] : memref<4x100xf32>
        memref.store %x, %o[%r, %j] : memref<4x100xf32>
      }
    }
  }
  return
}

// -----

// A loop whose trip count is known at run time only (at most 8).
func.func @dynamic_trips(%a: memref<4x8xf32>, %o: memref<4x8xf32>,
                         %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %trips = arith.minui %n, %c8 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 4 {
    // expected-remark @below {{private scratch stays in local memory: index 1 of 'memref.store' is not a constant, it is the counter of an 'scf.for' that stays a loop (its trip count is not a constant)}}
    %row = vx.scratch : memref<4x8xf32>
    scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
      // expected-note @below {{the index comes from here}}
      scf.for %j = %c0 to %trips step %c1 {
        %x = memref.load %a[%r, %j] : memref<4x8xf32>
        // expected-note @below {{the access}}
        memref.store %x, %row[%r, %j] : memref<4x8xf32>
      }
      scf.for %j = %c0 to %trips step %c1 {
        %x = memref.load %row[%r, %j] : memref<4x8xf32>
        memref.store %x, %o[%r, %j] : memref<4x8xf32>
      }
    }
  }
  return
}

// -----

// An index read from memory, in a spawn without thread loops (one thread
// per instance keeps the whole buffer).
func.func @gathered(%idx: memref<16xindex>, %o: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [16] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-remark @below {{private scratch stays in local memory: index 0 of 'memref.load' is not a constant, it is computed by 'memref.load'}}
    %buffer = vx.scratch : memref<8xf32>
    %c0 = arith.constant 0 : index
    memref.store %zero, %buffer[%c0] : memref<8xf32>
    // expected-note @below {{the index comes from here}}
    %j = memref.load %idx[%i] : memref<16xindex>
    // expected-note @below {{the access}}
    %x = memref.load %buffer[%j] : memref<8xf32>
    memref.store %x, %o[%i] : memref<16xf32>
  }
  return
}

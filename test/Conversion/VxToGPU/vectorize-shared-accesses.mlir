// vx-vectorize-shared-accesses joins, in mapped cooperative bodies, the
// scalar loads (stores) of an smem scratch that cover an aligned 16- or
// 8-byte chunk into one aligned vector.load (vector.store); chunks whose
// first element is not a multiple of the width for every thread, loads
// with a store of the scratch between them, stores past a load of it, and
// unmapped spawns are left alone.
// RUN: vx-opt %s --vx-plan-launch --vx-map-cta --vx-unroll-thread-loops --vx-vectorize-shared-accesses | FileCheck %s
// RUN: vx-opt %s --vx-vectorize-shared-accesses | FileCheck %s --check-prefix=UNMAPPED

// SGEMM's reads: B's row [kk][4 tx + j] and A's row [4 ty][kk] for kk < 8,
// as 128-bit loads (one for B, two for A).
// CHECK-LABEL: func.func @sgemm_reads
// CHECK-NOT: memref.load %{{.*}} : memref<16x8xf32>
// CHECK-DAG: vector.load %{{.*}} {alignment = 16 : i64} : memref<16x8xf32>, vector<4xf32>
// CHECK-DAG: vector.load %{{.*}} {alignment = 16 : i64} : memref<16x8xf32>, vector<4xf32>
// CHECK-DAG: vector.load %{{.*}} {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK-NOT: memref.load %{{.*}} : memref<8x64xf32>
// CHECK: return
// UNMAPPED-LABEL: func.func @sgemm_reads
// UNMAPPED-NOT: vector.load
// UNMAPPED: return
func.func @sgemm_reads(%out: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 16 {
    %a = vx.scratch smem : memref<16x8xf32>
    %b = vx.scratch smem : memref<8x64xf32>
    scf.parallel (%tx) = (%c0) to (%c16) step (%c1) {
      %j0 = arith.muli %tx, %c4 : index
      %x = scf.for %kk = %c0 to %c8 step %c1 iter_args(%s = %zero) -> f32 {
        %va = memref.load %a[%tx, %kk] : memref<16x8xf32>
        %t = arith.addf %s, %va : f32
        scf.yield %t : f32
      }
      scf.for %j = %c0 to %c4 step %c1 {
        %col = arith.addi %j0, %j : index
        %vb = memref.load %b[%c1, %col] : memref<8x64xf32>
        %p = arith.mulf %x, %vb : f32
        memref.store %p, %out[%tx, %col] : memref<16x64xf32>
      }
    }
  }
  return
}

// Stores of [4 t + j] for j < 4: one 128-bit store of the four values.
// Two adjacent elements at [2 t + j]: a 64-bit chunk. Odd offsets
// [t + j] are not aligned for every thread and stay scalar.
// CHECK-LABEL: func.func @widths
// CHECK: %[[V:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: vector.store %[[V]], %{{.*}} {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<32xf32>, vector<2xf32>
// CHECK-COUNT-2: memref.load %{{.*}} : memref<32xf32>
// CHECK: return
func.func @widths(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 16 {
    %wide = vx.scratch smem : memref<64xf32>
    %pair = vx.scratch smem : memref<32xf32>
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      %base = arith.muli %t, %c4 : index
      scf.for %j = %c0 to %c4 step %c1 {
        %i = arith.addi %base, %j : index
        %x = arith.index_cast %i : index to i32
        %y = arith.sitofp %x : i32 to f32
        memref.store %y, %wide[%i] : memref<64xf32>
      }
      %even = arith.muli %t, %c2 : index
      %p0 = memref.load %pair[%even] : memref<32xf32>
      %odd = arith.addi %even, %c1 : index
      %p1 = memref.load %pair[%odd] : memref<32xf32>
      %q0 = memref.load %pair[%t] : memref<32xf32>
      %next = arith.addi %t, %c1 : index
      %q1 = memref.load %pair[%next] : memref<32xf32>
      %s = arith.addf %p0, %p1 : f32
      %u = arith.addf %q0, %q1 : f32
      %r = arith.addf %s, %u : f32
      memref.store %r, %out[%t] : memref<16xf32>
    }
  }
  return
}

// A store of the scratch between two loads of one chunk, and a load of it
// between two stores of one chunk: nothing moves past them.
// CHECK-LABEL: func.func @ordered
// CHECK-NOT: vector.load
// CHECK-NOT: vector.store
// CHECK: return
func.func @ordered(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 16 {
    %tile = vx.scratch smem : memref<32xf32>
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      %even = arith.muli %t, %c2 : index
      %odd = arith.addi %even, %c1 : index
      %x0 = memref.load %tile[%even] : memref<32xf32>
      memref.store %one, %tile[%odd] : memref<32xf32>
      %x1 = memref.load %tile[%odd] : memref<32xf32>
      memref.store %x1, %tile[%even] : memref<32xf32>
      %y = memref.load %tile[%odd] : memref<32xf32>
      memref.store %x0, %tile[%odd] : memref<32xf32>
      %s = arith.addf %y, %x0 : f32
      memref.store %s, %out[%t] : memref<16xf32>
    }
  }
  return
}

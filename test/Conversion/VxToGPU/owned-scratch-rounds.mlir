// RUN: vx-opt %s --convert-vx-to-gpu -split-input-file -verify-diagnostics | FileCheck %s

// Owned private scratch accessed in several rounds (more iterations than
// threads; iteration i runs on thread i mod N in round i / N). A thread's
// part is indexed by the round only where every element is reached by one
// linear iteration, so in one round by every thread loop.

// Element (r, c) written and read by iteration 4 r + c of both loops: 16
// iterations on 3 threads, 6 rounds; each thread keeps one element per
// round.
// CHECK-LABEL: func.func @same_iteration
// CHECK: %[[PART:.*]] = memref.alloca() {{.*}} : memref<6x1x1xf32>
// CHECK-NOT: memref<4x4xf32>
// CHECK: memref.store %{{.*}}, %[[PART]][%[[ROUND:.*]], %{{.*}}, %{{.*}}] : memref<6x1x1xf32>
// CHECK: memref.load %[[PART]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<6x1x1xf32>
func.func @same_iteration(%a: memref<16xf32>, %out: memref<16xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 3 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // expected-remark @below {{private scratch stays in local memory: index 0 of 'memref.store' is not a constant, it is computed by 'arith.divui'}}
    %tile = vx.scratch : memref<4x4xf32>
    // expected-note @below {{the index comes from here}}
    scf.parallel (%r, %c) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      %r4 = arith.muli %r, %c4 : index
      %e = arith.addi %r4, %c : index
      %x = memref.load %a[%e] : memref<16xf32>
      // expected-note @below {{the access}}
      memref.store %x, %tile[%r, %c] : memref<4x4xf32>
    }
    scf.parallel (%r, %c) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      %y = memref.load %tile[%r, %c] : memref<4x4xf32>
      %r4 = arith.muli %r, %c4 : index
      %e = arith.addi %r4, %c : index
      memref.store %y, %out[%e] : memref<16xf32>
    }
  }
  return
}

// -----

// Read by a (c, r) loop: element (r, c) is reached by iterations 4 r + c
// and 4 c + r, one thread when 3 divides their difference 3 (r - c), but
// in different rounds (element (0, 1): rounds 0 and 1). The thread keeps
// its part indexed by element: the whole tile.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[TILE:.*]] = memref.alloca() {{.*}} : memref<4x4xf32>
// CHECK-NOT: memref<6x1x1xf32>
// CHECK: memref.store %{{.*}}, %[[TILE]][%{{.*}}, %{{.*}}] : memref<4x4xf32>
// CHECK: memref.load %[[TILE]][%{{.*}}, %{{.*}}] : memref<4x4xf32>
func.func @transposed(%a: memref<16xf32>, %out: memref<16xf32>) {
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 3 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // expected-remark @below {{private scratch keeps a whole copy per thread of the 3-thread CTA: a thread may reach one element in different rounds of the thread loops (it is owned for some thread counts only)}}
    // expected-remark @below {{private scratch stays in local memory: index 0 of 'memref.load' is not a constant, it is computed by 'arith.remui'}}
    %tile = vx.scratch : memref<4x4xf32>
    scf.parallel (%r, %c) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      %r4 = arith.muli %r, %c4 : index
      %e = arith.addi %r4, %c : index
      %x = memref.load %a[%e] : memref<16xf32>
      memref.store %x, %tile[%r, %c] : memref<4x4xf32>
    }
    // expected-note @below {{the index comes from here}}
    scf.parallel (%c, %r) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      // expected-note @below {{the access}}
      %y = memref.load %tile[%r, %c] : memref<4x4xf32>
      %r4 = arith.muli %r, %c4 : index
      %e = arith.addi %r4, %c : index
      memref.store %y, %out[%e] : memref<16xf32>
    }
  }
  return
}

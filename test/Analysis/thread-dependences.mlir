// The cross-thread dependences the CTA mapping places barriers for: an
// access in one phase (a thread loop, or the code between thread loops,
// which runs on every thread) and one in a later phase that touch one
// element of shared memory from different threads.
// RUN: vx-opt %s --vx-test-thread-dependences="threads=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FOUR
// RUN: vx-opt %s --vx-test-thread-dependences="threads=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE --allow-empty
// RUN: vx-opt %s --vx-test-thread-dependences -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANY
// RUN: vx-opt %s --vx-test-thread-dependences="threads=4 across-steps=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STEPS

// With one thread nothing crosses threads.
// ONE-NOT: remark

func.func @raw_between_loops(%out: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %s = vx.scratch smem : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      memref.store %v, %s[%t] : memref<8xf32>
    }
    scf.parallel (%t) = (%c0) to (%c7) step (%c1) {
      %n = arith.addi %t, %c1 : index
      // FOUR: [[@LINE+2]]:12: remark: RAW dependence on line 22 across threads {{[0-3]}} and {{[0-3]}} (instances ([[I:[0-3]]]) and ([[I]]))
      // ANY: [[@LINE+1]]:12: remark: RAW dependence on line 22 across threads (instances
      %x = memref.load %s[%n] : memref<8xf32>
      memref.store %x, %out[%i, %t] : memref<4x8xf32>
    }
  }
  return
}

// Near miss: the later loop reads the element its own thread wrote.
func.func @same_thread(%out: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %s = vx.scratch smem : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      memref.store %v, %s[%t] : memref<8xf32>
    }
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      // FOUR-NOT: :[[@LINE+2]]:{{.*}}remark
      // ANY-NOT: :[[@LINE+1]]:{{.*}}remark
      %x = memref.load %s[%t] : memref<8xf32>
      memref.store %x, %out[%i, %t] : memref<4x8xf32>
    }
  }
  return
}

// Iteration t of the later loop runs on thread t mod 4: iteration t + 4 of
// an 8-iteration loop writes what iteration t of a 4-iteration loop read.
// Same thread for 4 threads, not for every count.
func.func @war_modulo(%v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %s = vx.scratch smem : memref<16xf32>
    scf.parallel (%t) = (%c0) to (%c4) step (%c1) {
      %u = arith.addi %t, %c4 : index
      %x = memref.load %s[%u] : memref<16xf32>
      memref.store %x, %s[%t] : memref<16xf32>
    }
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      // FOUR-NOT: :[[@LINE+2]]:{{.*}}remark
      // ANY: [[@LINE+1]]:7: remark: WAR dependence on line 69 across threads
      memref.store %v, %s[%t] : memref<16xf32>
    }
  }
  return
}

// Code between thread loops runs on every thread: a value it stores is
// read by other threads.
func.func @once_code(%out: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %s = vx.scratch smem : memref<8xf32>
    memref.store %v, %s[%c0] : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      // FOUR: [[@LINE+1]]:12: remark: RAW dependence on line 90 across threads
      %x = memref.load %s[%c0] : memref<8xf32>
      memref.store %x, %out[%i, %t] : memref<4x8xf32>
    }
  }
  return
}

// Across arbitrary steps: step k + 1's first loop overwrites what step k's
// second loop read on another thread.
func.func @next_step(%out: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [4, 2] semantics [parallel, arbitrary] {
    %i = vx.grid_index 0
    %s = vx.scratch smem : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c8) step (%c1) {
      // STEPS-DAG: [[@LINE+1]]:7: remark: WAR dependence on line 117 across threads {{[0-3]}} and {{[0-3]}} (instances ([[I:[0-3]]], 0) and ([[I]], 1))
      memref.store %v, %s[%t] : memref<8xf32>
    }
    scf.parallel (%t) = (%c0) to (%c7) step (%c1) {
      %n = arith.addi %t, %c1 : index
      // STEPS-DAG: [[@LINE+1]]:12: remark: RAW dependence on line 112 across threads {{[0-3]}} and {{[0-3]}} (instances ([[J:[0-3]]], 0) and ([[J]], 1))
      %x = memref.load %s[%n] : memref<8xf32>
      memref.store %x, %out[%i, %t] : memref<4x8xf32>
    }
  }
  return
}

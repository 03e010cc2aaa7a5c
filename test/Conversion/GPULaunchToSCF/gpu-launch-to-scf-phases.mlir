// RUN: vx-opt %s --convert-gpu-launch-to-scf -split-input-file | FileCheck %s

// Two phases: what the first defines and the second uses is kept in a
// buffer of one element per thread (a loaded value) or computed again (an
// index computed from the thread ids, a view).
// CHECK-LABEL: func @two_phases
// CHECK: scf.parallel
// CHECK: %[[TILE:.*]] = memref.alloca() : memref<16xi8>
// CHECK: %[[KEPT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[TX:[^ ]*]] =
// CHECK: %[[LIN:.*]] = arith.addi %{{.*}}, %[[TX]] : index
// CHECK: %[[X:.*]] = memref.load
// CHECK-NEXT: memref.store %[[X]], %[[KEPT]][%[[LIN]]]
// CHECK-NEXT: memref.store %[[X]], %{{.*}}[%[[TX]]] : memref<4xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[TX2:[^ ]*]] =
// CHECK: %[[LIN2:.*]] = arith.addi %{{.*}}, %[[TX2]] : index
// CHECK: %[[VIEW:.*]] = memref.view %[[TILE]]
// CHECK: %[[Y:.*]] = memref.load %[[VIEW]]
// CHECK: %[[X2:.*]] = memref.load %[[KEPT]][%[[LIN2]]]
// CHECK: arith.addf %[[X2]], %[[Y]]
// CHECK: arith.addi %[[TX2]], %c8
// CHECK: memref.dealloc %[[KEPT]]
func.func @two_phases(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%tx, %ty, %tz) in (%s0 = %c4, %s1 = %c1, %s2 = %c1)
             workgroup(%wg : memref<16xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %view = memref.view %wg[%c0][] : memref<16xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    %tile = memref.memory_space_cast %view : memref<4xf32, #gpu.address_space<workgroup>> to memref<4xf32>
    %i = arith.addi %tx, %c8 : index
    %x = memref.load %in[%i] : memref<?xf32>
    memref.store %x, %tile[%tx] : memref<4xf32>
    gpu.barrier
    %y = memref.load %tile[%c0] : memref<4xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %out[%i] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// A loop around a barrier keeps its structure, its bound (the same on every
// thread) read from thread 0; its iter_arg is kept per thread, stored on
// entry by the phase before the loop and at the yield by its last phase.
// CHECK-LABEL: func @loop_phases
// CHECK-DAG: %[[BOUND:.*]] = memref.alloc() {{.*}} : memref<4xindex>
// CHECK-DAG: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[N:.*]] = memref.load %{{.*}} : memref<1xindex>
// CHECK: memref.store %[[N]], %[[BOUND]]
// CHECK: %[[X:.*]] = memref.load %{{.*}} : memref<?xf32>
// CHECK: memref.store %[[X]], %[[ACC]]
// CHECK: %[[N0:.*]] = memref.load %[[BOUND]][%c0{{.*}}] : memref<4xindex>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N0]]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[A:.*]] = memref.load %[[ACC]]
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[A]]
// CHECK: memref.store %[[S]], %[[ACC]]
// CHECK: %[[R:.*]] = memref.load %[[ACC]]
// CHECK: memref.store %[[R]], %{{.*}} : memref<?xf32>
func.func @loop_phases(%in: memref<?xf32>, %sizes: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%tx, %ty, %tz) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %n = memref.load %sizes[%c0] : memref<1xindex>
    %x = memref.load %in[%tx] : memref<?xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%a = %x) -> f32 {
      gpu.barrier
      %s = arith.addf %a, %a : f32
      scf.yield %s : f32
    }
    memref.store %r, %in[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// A shuffle reads its partner's value from the buffer of its operand; when
// the operand is an iter_arg that the yield overwrites, the yield stores in
// a loop over the threads of its own, after every thread has read.
// CHECK-LABEL: func @shuffled_iter_arg
// CHECK-DAG: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<32xf32>
// CHECK-DAG: %[[SUM:.*]] = memref.alloc() {{.*}} : memref<32xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c5
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[TX:[^ ]*]] =
// CHECK: %[[LIN:.*]] = arith.addi %{{.*}}, %[[TX]] : index
// CHECK: %[[LANE:.*]] = arith.remui %[[LIN]], %c32{{.*}} : index
// CHECK: %[[START:.*]] = arith.subi %[[LIN]], %[[LANE]]
// CHECK: %[[K:.*]] = arith.index_cast %[[LANE]] : index to i32
// CHECK: %[[J:.*]] = arith.xori %[[K]], %c1_i32
// CHECK: %[[JI:.*]] = arith.index_cast %[[J]] : i32 to index
// CHECK: %[[PARTNER:.*]] = arith.addi %[[START]], %[[JI]]
// CHECK: %[[FROM:.*]] = arith.select %{{.*}}, %[[PARTNER]], %[[LIN]]
// CHECK: %[[P:.*]] = memref.load %[[ACC]][%[[FROM]]]
// CHECK: %[[A:.*]] = memref.load %[[ACC]][%[[LIN]]]
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[P]]
// CHECK: memref.store %[[S]], %[[SUM]][%[[LIN]]]
// CHECK: }
// CHECK: }
// CHECK: }
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[TX2:[^ ]*]] =
// CHECK: %[[LIN2:.*]] = arith.addi %{{.*}}, %[[TX2]] : index
// CHECK: %[[NEXT:.*]] = memref.load %[[SUM]][%[[LIN2]]]
// CHECK: memref.store %[[NEXT]], %[[ACC]][%[[LIN2]]]
// CHECK-NOT: gpu.shuffle
func.func @shuffled_iter_arg(%in: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %w = arith.constant 32 : i32
  %o = arith.constant 1 : i32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%tx, %ty, %tz) in (%s0 = %c32, %s1 = %c1, %s2 = %c1) {
    %x = memref.load %in[%tx] : memref<?xf32>
    %r = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %x) -> f32 {
      %p, %valid = gpu.shuffle xor %a, %o, %w : f32
      %s = arith.addf %a, %p : f32
      scf.yield %s : f32
    }
    memref.store %r, %in[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// Uniform conditions: an id along a dimension of one thread, a load from an
// address that is the same on every thread. The if's result is kept per
// thread, stored by each branch.
// CHECK-LABEL: func @uniform_conditions
// CHECK: %[[RESULT:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK: %[[ROW0:.*]] = arith.cmpi eq, %c0{{.*}}, %c0{{.*}} : index
// CHECK: scf.if %[[ROW0]] {
// CHECK: %[[FLAG:.*]] = memref.load %{{.*}}[%c0{{.*}}] : memref<4xi1>
// CHECK: scf.if %[[FLAG]] {
// CHECK: memref.store %cst, %[[RESULT]]
// CHECK: } else {
// CHECK: arith.sitofp
// CHECK: memref.store %{{.*}}, %[[RESULT]]
// CHECK: }
// CHECK: memref.load %[[RESULT]]
func.func @uniform_conditions(%flags: memref<2xi1>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%tx, %ty, %tz) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %row0 = arith.cmpi eq, %ty, %c0 : index
    scf.if %row0 {
      gpu.barrier
    }
    %flag = memref.load %flags[%b0] : memref<2xi1>
    %v = scf.if %flag -> f32 {
      gpu.barrier
      scf.yield %one : f32
    } else {
      %t = arith.index_cast %tx : index to i64
      %f = arith.sitofp %t : i64 to f32
      scf.yield %f : f32
    }
    memref.store %v, %out[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// A static alloca is private memory: a slice per thread of one buffer per
// block, seen through a view at the thread's offset in each phase.
// CHECK-LABEL: func @private_buffer
// CHECK: %[[BUFFER:.*]] = memref.alloc() {alignment = 64 : i64} : memref<48xi8>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[TX:[^ ]*]] =
// CHECK: %[[LIN:.*]] = arith.addi %{{.*}}, %[[TX]] : index
// CHECK: %[[SHIFT:.*]] = arith.muli %[[LIN]], %c12
// CHECK: %[[SLICE:.*]] = memref.view %[[BUFFER]][%[[SHIFT]]][] : memref<48xi8> to memref<3xf32>
// CHECK: memref.store %{{.*}}, %[[SLICE]]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[TX2:[^ ]*]] =
// CHECK: %[[LIN2:.*]] = arith.addi %{{.*}}, %[[TX2]] : index
// CHECK: %[[SHIFT2:.*]] = arith.muli %[[LIN2]], %c12
// CHECK: %[[SLICE2:.*]] = memref.view %[[BUFFER]][%[[SHIFT2]]][]
// CHECK: memref.load %[[SLICE2]]
// CHECK-NOT: memref.alloca
// CHECK: memref.dealloc %[[BUFFER]]
func.func @private_buffer(%out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%tx, %ty, %tz) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %acc = memref.alloca() : memref<3xf32>
    memref.store %one, %acc[%c1] : memref<3xf32>
    gpu.barrier
    %v = memref.load %acc[%c1] : memref<3xf32>
    memref.store %v, %out[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// A while loop and an index_switch around barriers.
// CHECK-LABEL: func @while_and_switch
// CHECK-SAME: %{{.*}}: memref<?xindex>, %[[SEL:.*]]: index
// CHECK-DAG: %[[I:.*]] = memref.alloc() {{.*}} : memref<4xindex>
// CHECK-DAG: %[[A:.*]] = memref.alloc() {{.*}} : memref<4xindex>
// CHECK-DAG: %[[I2:.*]] = memref.alloc() {{.*}} : memref<4xindex>
// CHECK-DAG: %[[A2:.*]] = memref.alloc() {{.*}} : memref<4xindex>
// CHECK-DAG: %[[S:.*]] = memref.alloc() {{.*}} : memref<4xindex>
// CHECK: memref.store %c0, %[[I]]
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: scf.while : () -> () {
// CHECK: %[[IV:.*]] = memref.load %[[I]]
// CHECK: %[[AV:.*]] = memref.load %[[A]]
// CHECK: memref.store %[[IV]], %[[I2]]
// CHECK: memref.store %[[AV]], %[[A2]]
// CHECK: %[[I0:.*]] = memref.load %[[I]][%c0{{.*}}]
// CHECK: %[[MORE:.*]] = arith.cmpi ult, %[[I0]], %c4
// CHECK: scf.condition(%[[MORE]])
// CHECK: } do {
// CHECK: memref.load %[[I2]]
// CHECK: memref.load %[[A2]]
// CHECK: memref.store %{{.*}}, %[[I]]
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: scf.yield
// CHECK: scf.index_switch %[[SEL]]
// CHECK: case 2 {
// CHECK: %[[R:.*]] = memref.load %[[A2]]
// CHECK: memref.store %[[R]], %[[S]]
// CHECK: default {
// CHECK: memref.store %c0, %[[S]]
// CHECK: memref.load %[[S]]
func.func @while_and_switch(%out: memref<?xindex>, %sel: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%tx, %ty, %tz) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %steps, %r = scf.while (%i = %c0, %a = %tx) : (index, index) -> (index, index) {
      %more = arith.cmpi ult, %i, %c4 : index
      scf.condition(%more) %i, %a : index, index
    } do {
    ^bb0(%i: index, %a: index):
      gpu.barrier
      %next = arith.addi %i, %c1 : index
      %n = arith.addi %a, %i : index
      scf.yield %next, %n : index, index
    }
    %s = scf.index_switch %sel -> index
    case 2 {
      gpu.barrier
      scf.yield %r : index
    }
    default {
      scf.yield %c0 : index
    }
    memref.store %s, %out[%tx] : memref<?xindex>
    gpu.terminator
  }
  return
}

// RUN: vx-opt %s --convert-gpu-launch-to-scf -split-input-file -verify-diagnostics

// A barrier that only some threads of a block reach.
func.func @barrier_under_thread_condition() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %low = arith.cmpi ult, %t0, %c2 : index
    // expected-note @below {{the condition of this 'scf.if' may differ between the threads of a block}}
    scf.if %low {
      // expected-error @below {{'gpu.barrier' op is in divergent control flow: every thread of the block must reach it}}
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// A shuffle in a loop whose trip count depends on the lane.
func.func @shuffle_under_lane_bound(%v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %w = arith.constant 32 : i32
  %o = arith.constant 1 : i32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c32, %s1 = %c1, %s2 = %c1) {
    %lane = gpu.lane_id
    // expected-note @below {{the bounds of this 'scf.for' may differ between the threads of a block}}
    scf.for %i = %c0 to %lane step %c1 {
      // expected-error @below {{'gpu.shuffle' op is in divergent control flow: on the CPU every thread of the block must reach it}}
      %r, %valid = gpu.shuffle xor %v, %o, %w : f32
    }
    gpu.terminator
  }
  return
}

// -----

// A while loop whose condition depends on the thread (along y).
func.func @barrier_in_divergent_while() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c4, %s2 = %c1) {
    // expected-note @below {{the condition of this 'scf.while' may differ between the threads of a block}}
    %r = scf.while (%i = %t1) : (index) -> index {
      %more = arith.cmpi ult, %i, %c4 : index
      scf.condition(%more) %i : index
    } do {
    ^bb0(%i: index):
      // expected-error @below {{'gpu.barrier' op is in divergent control flow}}
      gpu.barrier
      %next = arith.addi %i, %c1 : index
      scf.yield %next : index
    }
    gpu.terminator
  }
  return
}

// -----

// A condition loaded from an address that depends on the thread.
func.func @barrier_under_divergent_load(%flags: memref<4xi1>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %flag = memref.load %flags[%t0] : memref<4xi1>
    // expected-note @below {{the condition of this 'scf.if'}}
    scf.if %flag {
      // expected-error @below {{divergent control flow}}
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// A condition loaded from per-thread memory: the same address holds a
// different value on each thread.
func.func @barrier_under_private_load() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %mine = memref.alloca() : memref<1xindex>
    memref.store %t0, %mine[%c0] : memref<1xindex>
    %t = memref.load %mine[%c0] : memref<1xindex>
    %low = arith.cmpi ult, %t, %c2 : index
    // expected-note @below {{the condition of this 'scf.if'}}
    scf.if %low {
      // expected-error @below {{divergent control flow}}
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// The old value of an atomic differs between the threads.
func.func @barrier_under_atomic(%counter: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %old = memref.atomic_rmw addi %one, %counter[%c0] : (i32, memref<1xi32>) -> i32
    %first = arith.cmpi eq, %old, %one : i32
    // expected-note @below {{the condition of this 'scf.if'}}
    scf.if %first {
      // expected-error @below {{divergent control flow}}
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// An iter_arg that starts the same on every thread and becomes divergent
// through what the loop yields.
func.func @barrier_under_carried_divergence() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %c0) -> index {
      %n = arith.addi %a, %t0 : index
      scf.yield %n : index
    }
    %big = arith.cmpi ugt, %sum, %c4 : index
    // expected-note @below {{the condition of this 'scf.if'}}
    scf.if %big {
      // expected-error @below {{divergent control flow}}
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @shuffle_divergent_width(%v: f32) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %o = arith.constant 1 : i32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c32, %s1 = %c1, %s2 = %c1) {
    %w = arith.index_cast %t0 : index to i32
    // expected-error @below {{'gpu.shuffle' op width must be the same on every thread}}
    %r, %valid = gpu.shuffle xor %v, %o, %w : f32
    gpu.terminator
  }
  return
}

// -----

func.func @barrier_in_parallel_loop() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      // expected-error @below {{'gpu.barrier' op cannot run on the CPU inside 'scf.parallel': a block's threads run in phases only through scf.for, scf.if, scf.index_switch and scf.while}}
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// A buffer of a size known at run time cannot be kept per thread.
func.func @dynamic_alloca_across_barrier(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    // expected-error @below {{'memref.alloca' op result of type 'memref<?xf32>' is used after a barrier or shuffle; on the CPU it cannot be kept per thread}}
    %buffer = memref.alloca(%n) : memref<?xf32>
    gpu.barrier
    // expected-note @below {{used here}}
    memref.store %zero, %buffer[%c0] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// A ranked memref carried across a barrier is kept per thread (its
// descriptor); an unranked one has no fixed-size descriptor to keep.
func.func @unranked_memref_carried_across_barrier(%a: memref<*xf32>, %b: memref<*xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    // expected-error @below {{'scf.for' op carries a value of type 'memref<*xf32>' across a barrier or shuffle; on the CPU only scalars, vectors, complex numbers and ranked memrefs can be kept per thread}}
    %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %a) -> memref<*xf32> {
      gpu.barrier
      scf.yield %b : memref<*xf32>
    }
    %rank = memref.rank %last : memref<*xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @async_launch() {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'gpu.launch' op with async dependencies cannot run as loops}}
  %token = gpu.launch async blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @cluster_launch() {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'gpu.launch' op with clusters cannot run as loops}}
  gpu.launch clusters(%c0, %c1_, %c2) in (%n0 = %c1, %n1 = %c1, %n2 = %c1)
             blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @private_attribution() {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'gpu.launch' op with private attributions cannot run as loops}}
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1)
             private(%p : memref<4xf32, #gpu.address_space<private>>) {
    gpu.terminator
  }
  return
}

// -----

func.func @multi_block_body() {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'gpu.launch' op with a multi-block body cannot run as loops}}
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    cf.br ^next
  ^next:
    gpu.terminator
  }
  return
}

// -----

func.func @no_cpu_execution() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    // expected-error @below {{'gpu.subgroup_id' op has no CPU execution}}
    %id = gpu.subgroup_id : index
    gpu.terminator
  }
  return
}

// -----

func.func @workgroup_used_directly() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1)
             workgroup(%wg : memref<4xf32, #gpu.address_space<workgroup>>) {
    // expected-error @below {{'memref.store' op uses workgroup memory directly; on the CPU only 'memref.view' and 'memref.memory_space_cast' of it can run}}
    memref.store %zero, %wg[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

func.func @workgroup_view_used_directly() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1)
             workgroup(%wg : memref<16xi8, #gpu.address_space<workgroup>>) {
    %view = memref.view %wg[%c0][] : memref<16xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{'memref.load' op uses workgroup memory directly}}
    %x = memref.load %view[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

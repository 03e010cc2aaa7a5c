// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics

// Rule 4: every token awaited exactly once on every path; the destination
// untouched and the source unwritten until then.

func.func @never_awaited(%a: memref<4xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    // expected-error @+1 {{token is never awaited on some path through the spawn body}}
    %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
  }
  return
}

// -----

func.func @awaited_twice(%a: memref<4xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    vx.await %t
    // expected-error @+1 {{token is awaited more than once}}
    vx.await %t
  }
  return
}

// -----

func.func @awaited_on_one_branch(%a: memref<4xf32>, %c: i1) {
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    // expected-note @+1 {{the transfer starts here}}
    %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    // expected-error @+1 {{token is awaited in one branch of 'scf.if' but not the other}}
    scf.if %c {
      vx.await %t
    }
  }
  return
}

// -----

// Near miss: awaited on both branches.
func.func @awaited_on_both_branches(%a: memref<4xf32>, %c: i1) {
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    scf.if %c {
      vx.await %t
    } else {
      vx.await %t
    }
  }
  return
}

// -----

func.func @started_in_a_branch(%a: memref<4xf32>, %c: i1) {
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    scf.if %c {
      // expected-error @+1 {{token is never awaited on the 'scf.if' branch that starts it}}
      %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    }
  }
  return
}

// -----

func.func @awaited_in_every_iteration(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    scf.for %k = %c0 to %c4 step %c1 {
      // expected-error @+1 {{token from outside the loop is awaited in every iteration of the loop; await it once, outside}}
      vx.await %t
    }
    vx.await %t
  }
  return
}

// -----

func.func @left_in_the_iteration(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    scf.for %k = %c0 to %c4 step %c1 {
      // expected-error @+1 {{token is never awaited on the loop iteration that holds it (await it or carry it to the next iteration)}}
      %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    }
  }
  return
}

// -----

// Near miss: double buffering along an arbitrary axis. The next tile's
// transfer starts before the current one is awaited; the token is carried
// through iter_args and the last one awaited after the loop.
func.func @double_buffered(%a: memref<8x4xf32>, %out: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %buf = vx.scratch : memref<2x4xf32>
    %first = memref.subview %a[0, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1]>>
    %slot0 = memref.subview %buf[0, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1]>>
    %t0 = vx.transfer_async %first to %slot0 : memref<4xf32, strided<[1]>> to memref<4xf32, strided<[1]>>
    %last = scf.for %k = %c0 to %c7 step %c1 iter_args(%t = %t0) -> !vx.token {
      %next = arith.addi %k, %c1 : index
      %slot = arith.remui %next, %c2 : index
      %src = memref.subview %a[%next, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      %dst = memref.subview %buf[%slot, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      %tn = vx.transfer_async %src to %dst : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
      vx.await %t
      %cur = arith.remui %k, %c2 : index
      %x = memref.load %buf[%cur, %c0] : memref<2x4xf32>
      memref.store %x, %out[%p, %k] : memref<2x8xf32>
      scf.yield %tn : !vx.token
    }
    vx.await %last
  }
  return
}

// -----

func.func @destination_read_early(%a: memref<4xf32>, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %s = vx.scratch : memref<4xf32>
    // expected-note @+1 {{the transfer starts here}}
    %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    // expected-error @+1 {{'memref.load' reads the destination of a 'vx.transfer_async' before its 'vx.await'}}
    %x = memref.load %s[%c0] : memref<4xf32>
    vx.await %t
    memref.store %x, %out[%p] : memref<2xf32>
  }
  return
}

// -----

func.func @source_written_early(%out: memref<2xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %src = vx.scratch : memref<4xf32>
    %dst = vx.scratch : memref<4xf32>
    // expected-note @+1 {{the transfer starts here}}
    %t = vx.transfer_async %src to %dst : memref<4xf32> to memref<4xf32>
    scf.for %k = %c0 to %c4 step %c1 {
      // expected-error @+1 {{'memref.store' writes the source of a 'vx.transfer_async' before its 'vx.await'}}
      memref.store %v, %src[%k] : memref<4xf32>
    }
    vx.await %t
  }
  return
}

// -----

// Near miss: reading the source and touching other elements of the
// destination's buffer are allowed before the await.
func.func @other_elements_early(%a: memref<4xf32>, %out: memref<2xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %s = vx.scratch : memref<2x4xf32>
    %half = memref.subview %s[0, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1]>>
    %t = vx.transfer_async %a to %half : memref<4xf32> to memref<4xf32, strided<[1]>>
    %x = memref.load %a[%c0] : memref<4xf32>
    memref.store %v, %s[%c1, %c0] : memref<2x4xf32>
    vx.await %t
    %y = memref.load %s[%c0, %c0] : memref<2x4xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %out[%p] : memref<2xf32>
  }
  return
}

// -----

func.func @through_a_while(%a: memref<4xf32>, %c: i1) {
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    // expected-error @+1 {{tokens cannot be followed through 'scf.while'; await them with 'vx.await' or carry them through 'scf.for' and 'scf.if'}}
    scf.while : () -> () {
      scf.condition(%c)
    } do {
      vx.await %t
      scf.yield
    }
  }
  return
}

// -----

// A token out of scf.if stands for the transfers of both branches.
func.func @token_out_of_if(%a: memref<4xf32>, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %s = vx.scratch : memref<4xf32>
    %first = arith.cmpi eq, %p, %c0 : index
    %t = scf.if %first -> !vx.token {
      // expected-note @+1 {{the transfer starts here (one of them runs)}}
      %t1 = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
      scf.yield %t1 : !vx.token
    } else {
      // expected-note @+1 {{the transfer starts here (one of them runs)}}
      %t2 = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
      scf.yield %t2 : !vx.token
    }
    // expected-error @+1 {{'memref.load' reads the destination of a 'vx.transfer_async' before its 'vx.await'}}
    %x = memref.load %s[%c0] : memref<4xf32>
    vx.await %t
    memref.store %x, %out[%p] : memref<2xf32>
  }
  return
}

// -----

// The same on a captured flag, from two sources: both branches fill %s, so
// the read is early whatever the flag (an error, not a warning naming a
// value of the flag, as when each transfer was checked alone).
func.func @token_out_of_if_on_flag(%a: memref<4xf32>, %b: memref<4xf32>, %out: memref<2xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %s = vx.scratch : memref<4xf32>
    %t = scf.if %c -> !vx.token {
      // expected-note @+1 {{the transfer starts here (one of them runs)}}
      %t1 = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
      scf.yield %t1 : !vx.token
    } else {
      // expected-note @+1 {{the transfer starts here (one of them runs)}}
      %t2 = vx.transfer_async %b to %s : memref<4xf32> to memref<4xf32>
      scf.yield %t2 : !vx.token
    }
    // expected-error @+1 {{'memref.load' reads the destination of a 'vx.transfer_async' before its 'vx.await'}}
    %x = memref.load %s[%c0] : memref<4xf32>
    vx.await %t
    memref.store %x, %out[%p] : memref<2xf32>
  }
  return
}

// -----

// Nested branches, all filling %s: still certain.
func.func @token_out_of_nested_ifs(%a: memref<4xf32>, %c: i1, %d: i1) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    %t = scf.if %c -> !vx.token {
      %inner = scf.if %d -> !vx.token {
        // expected-note @+1 {{the transfer starts here (one of them runs)}}
        %t1 = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
        scf.yield %t1 : !vx.token
      } else {
        // expected-note @+1 {{the transfer starts here (one of them runs)}}
        %t2 = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
        scf.yield %t2 : !vx.token
      }
      scf.yield %inner : !vx.token
    } else {
      // expected-note @+1 {{the transfer starts here (one of them runs)}}
      %t3 = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
      scf.yield %t3 : !vx.token
    }
    // expected-error @+1 {{'memref.store' writes the destination of a 'vx.transfer_async' before its 'vx.await'}}
    memref.store %zero, %s[%c0] : memref<4xf32>
    vx.await %t
  }
  return
}

// -----

// Branches that fill different buffers: the read of one is early only
// where its branch ran (a warning naming the flag's value).
func.func @token_out_of_if_two_destinations(%a: memref<4xf32>, %out: memref<2xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %s = vx.scratch : memref<4xf32>
    %u = vx.scratch : memref<4xf32>
    %t = scf.if %c -> !vx.token {
      // expected-note @+1 {{the transfer starts here}}
      %t1 = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
      scf.yield %t1 : !vx.token
    } else {
      %t2 = vx.transfer_async %a to %u : memref<4xf32> to memref<4xf32>
      scf.yield %t2 : !vx.token
    }
    // expected-warning @+1 {{'memref.load' reads the destination of a 'vx.transfer_async' before its 'vx.await' when %arg2 = true}}
    %x = memref.load %s[%c0] : memref<4xf32>
    vx.await %t
    memref.store %x, %out[%p] : memref<2xf32>
  }
  return
}

// -----

// The classic double-buffering bug: iteration k reads slot k % 2, which the
// transfer carried from iteration k - 1 (or, for k = 0, the first one) is
// still filling.
func.func @reads_the_filling_slot(%a: memref<8x4xf32>, %out: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %buf = vx.scratch : memref<2x4xf32>
    %first = memref.subview %a[0, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1]>>
    %slot0 = memref.subview %buf[0, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1]>>
    // expected-note @+1 {{the transfer starts here}}
    %t0 = vx.transfer_async %first to %slot0 : memref<4xf32, strided<[1]>> to memref<4xf32, strided<[1]>>
    %last = scf.for %k = %c0 to %c7 step %c1 iter_args(%t = %t0) -> !vx.token {
      %next = arith.addi %k, %c1 : index
      %slot = arith.remui %next, %c2 : index
      %src = memref.subview %a[%next, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      %dst = memref.subview %buf[%slot, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      %tn = vx.transfer_async %src to %dst : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
      %cur = arith.remui %k, %c2 : index
      // expected-error @+1 {{'memref.load' reads the destination of a 'vx.transfer_async' before its 'vx.await'}}
      %x = memref.load %buf[%cur, %c0] : memref<2x4xf32>
      vx.await %t
      memref.store %x, %out[%p, %k] : memref<2x8xf32>
      scf.yield %tn : !vx.token
    }
    vx.await %last
  }
  return
}

// -----

// The last prefetched slot read after the loop before its await.
func.func @reads_last_slot_early(%a: memref<8x4xf32>, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %buf = vx.scratch : memref<2x4xf32>
    %first = memref.subview %a[0, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1]>>
    %slot0 = memref.subview %buf[0, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1]>>
    %t0 = vx.transfer_async %first to %slot0 : memref<4xf32, strided<[1]>> to memref<4xf32, strided<[1]>>
    %last = scf.for %k = %c0 to %c7 step %c1 iter_args(%t = %t0) -> !vx.token {
      %next = arith.addi %k, %c1 : index
      %slot = arith.remui %next, %c2 : index
      %src = memref.subview %a[%next, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      %dst = memref.subview %buf[%slot, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      // expected-note @+1 {{the transfer starts here}}
      %tn = vx.transfer_async %src to %dst : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
      vx.await %t
      scf.yield %tn : !vx.token
    }
    // The last transfer (k = 6) fills slot 7 % 2 = 1.
    // expected-error @+1 {{'memref.load' reads the destination of a 'vx.transfer_async' before its 'vx.await'}}
    %x = memref.load %buf[%c1, %c0] : memref<2x4xf32>
    vx.await %last
    memref.store %x, %out[%p] : memref<2xf32>
  }
  return
}

// -----

// Writing the in-flight slot at the top of the next iteration.
func.func @writes_the_filling_slot(%a: memref<8x4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %buf = vx.scratch : memref<2x4xf32>
    %first = memref.subview %a[0, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1]>>
    %slot0 = memref.subview %buf[0, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1]>>
    // expected-note @+1 {{the transfer starts here}}
    %t0 = vx.transfer_async %first to %slot0 : memref<4xf32, strided<[1]>> to memref<4xf32, strided<[1]>>
    %last = scf.for %k = %c0 to %c7 step %c1 iter_args(%t = %t0) -> !vx.token {
      %cur = arith.remui %k, %c2 : index
      // expected-error @+1 {{'memref.store' writes the destination of a 'vx.transfer_async' before its 'vx.await'}}
      memref.store %v, %buf[%cur, %c0] : memref<2x4xf32>
      vx.await %t
      %next = arith.addi %k, %c1 : index
      %slot = arith.remui %next, %c2 : index
      %src = memref.subview %a[%next, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      %dst = memref.subview %buf[%slot, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      %tn = vx.transfer_async %src to %dst : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
      scf.yield %tn : !vx.token
    }
    vx.await %last
  }
  return
}

// -----

// Near miss: a token from outside the loop awaited only in its first
// iteration is awaited exactly once.
func.func @awaited_in_first_iteration(%a: memref<4xf32>, %out: memref<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %s = vx.scratch : memref<4xf32>
    %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    scf.for %k = %c0 to %c4 step %c1 {
      %first = arith.cmpi eq, %k, %c0 : index
      scf.if %first {
        vx.await %t
      }
      %x = memref.load %s[%k] : memref<4xf32>
      memref.store %x, %out[%p, %k] : memref<2x4xf32>
    }
  }
  return
}

// -----

// Awaited under a guard that holds in two iterations.
func.func @awaited_in_two_iterations(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    scf.for %k = %c0 to %c4 step %c1 {
      %early = arith.cmpi ult, %k, %c2 : index
      scf.if %early {
        // expected-error @+1 {{token is awaited more than once (in two iterations of the loop)}}
        vx.await %t
      }
    }
  }
  return
}

// -----

// Awaited only in the last iteration: the first iteration reads too early.
func.func @awaited_in_last_iteration(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %s = vx.scratch : memref<4xf32>
    %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    scf.for %k = %c0 to %c4 step %c1 {
      %last = arith.cmpi eq, %k, %c3 : index
      scf.if %last {
        // expected-error @+1 {{token is never awaited on some path: the first iteration of the loop does not reach the await}}
        vx.await %t
      }
    }
  }
  return
}

// -----

// Awaited in the first iteration, but read before the await there.
func.func @read_before_guarded_await(%a: memref<4xf32>, %out: memref<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %p = vx.grid_index 0
    %s = vx.scratch : memref<4xf32>
    // expected-note @+1 {{the transfer starts here}}
    %t = vx.transfer_async %a to %s : memref<4xf32> to memref<4xf32>
    scf.for %k = %c0 to %c4 step %c1 {
      // expected-error @+1 {{'memref.load' reads the destination of a 'vx.transfer_async' before its 'vx.await'}}
      %x = memref.load %s[%k] : memref<4xf32>
      %first = arith.cmpi eq, %k, %c0 : index
      scf.if %first {
        vx.await %t
      }
      memref.store %x, %out[%p, %k] : memref<2x4xf32>
    }
  }
  return
}

// -----

// A token through scf.while is one error: the await of the loop's result is
// not also "awaited more than once".
func.func @token_through_while(%a: memref<4xf32>) {
  vx.spawn on tensor_core grid [2] semantics [parallel] {
    %tile = vx.scratch smem : memref<4xf32>
    %t0 = vx.transfer_async %a to %tile : memref<4xf32> to memref<4xf32>
    // expected-error @below {{tokens cannot be followed through 'scf.while'; await them with 'vx.await' or carry them through 'scf.for' and 'scf.if'}}
    %r = scf.while (%t = %t0) : (!vx.token) -> !vx.token {
      %c = arith.constant false
      scf.condition(%c) %t : !vx.token
    } do {
    ^bb0(%t: !vx.token):
      scf.yield %t : !vx.token
    }
    vx.await %r
  }
  return
}

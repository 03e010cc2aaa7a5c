// RUN: vx-opt %s -split-input-file -verify-diagnostics --allow-unregistered-dialect

func.func @empty_grid() {
  // expected-error @+1 {{'vx.spawn' op grid must have at least one dimension}}
  vx.spawn on host grid [] semantics [] {
  }
  return
}

// -----

func.func @zero_static_size() {
  // expected-error @+1 {{'vx.spawn' op static grid size of dimension 1 must be >= 1, got 0}}
  vx.spawn on host grid [4, 0] semantics [parallel, parallel] {
  }
  return
}

// -----

func.func @semantics_count() {
  // expected-error @+1 {{'vx.spawn' op expects one semantics per grid dimension (3), got 2}}
  vx.spawn on host grid [4, 4, 4] semantics [parallel, arbitrary] {
  }
  return
}

// -----

func.func @zero_threads() {
  // expected-error @+1 {{'vx.spawn' op threads must be between 1 and 1024, got 0}}
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 0 {
  }
  return
}

// -----

func.func @too_many_threads() {
  // expected-error @+1 {{'vx.spawn' op threads must be between 1 and 1024, got 2048}}
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 2048 {
  }
  return
}

// -----

func.func @negative_threads() {
  // expected-error @+1 {{'vx.spawn' op threads must be between 1 and 1024, got -1}}
  vx.spawn on tensor_core grid [4] semantics [parallel] threads -1 {
  }
  return
}

// -----

func.func @threads_before_semantics() {
  // expected-error @+1 {{'semantics' comes before 'threads' (the clauses of vx.spawn are in the order semantics, threads, stages)}}
  vx.spawn on tensor_core grid [4] threads 32 semantics [parallel] {
  }
  return
}

// -----

func.func @stages_before_semantics() {
  // expected-error @+1 {{'semantics' comes before 'stages'}}
  vx.spawn on tensor_core grid [4] stages 2 semantics [parallel] {
  }
  return
}

// -----

func.func @threads_not_integer() {
  // expected-error @+1 {{expected the number of threads per CTA after 'threads'}}
  vx.spawn on tensor_core grid [4] semantics [parallel] threads many {
  }
  return
}

// -----

func.func @threads_too_large_an_integer() {
  // expected-error @+1 {{integer value too large}}
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 99999999999999999999 {
  }
  return
}

// -----

func.func @threads_not_i64() {
  // expected-error @+1 {{'vx.spawn' op attribute 'threads' failed to satisfy constraint: 64-bit signless integer attribute}}
  "vx.spawn"() <{semantics = [#vx.semantics<parallel>], static_grid = array<i64: 4>, threads = 32 : i32, topology = #vx.topology<host>}> ({
    "vx.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @zero_stages() {
  // expected-error @+1 {{'vx.spawn' op stages must be at least 1, got 0}}
  vx.spawn on tensor_core grid [4, 8] semantics [parallel, arbitrary] stages 0 {
  }
  return
}

// -----

func.func @negative_stages() {
  // expected-error @+1 {{'vx.spawn' op stages must be at least 1, got -2}}
  vx.spawn on tensor_core grid [4, 8] semantics [parallel, arbitrary] threads 32 stages -2 {
  }
  return
}

// -----

func.func @stages_before_threads() {
  // expected-error @+1 {{'threads' comes before 'stages' (the clauses of vx.spawn are in the order semantics, threads, stages)}}
  vx.spawn on tensor_core grid [4] semantics [arbitrary] stages 2 threads 32 {
  }
  return
}

// -----

func.func @stages_not_integer() {
  // expected-error @+1 {{expected the number of pipeline stages after 'stages'}}
  vx.spawn on tensor_core grid [4] semantics [arbitrary] stages double {
  }
  return
}

// -----

func.func @stages_not_i64() {
  // expected-error @+1 {{'vx.spawn' op attribute 'stages' failed to satisfy constraint: 64-bit signless integer attribute}}
  "vx.spawn"() <{semantics = [#vx.semantics<arbitrary>], stages = 2 : i32, static_grid = array<i64: 4>, topology = #vx.topology<host>}> ({
    "vx.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @unknown_semantics() {
  // expected-error @+1 {{expected 'parallel' or 'arbitrary', got 'sequential'}}
  vx.spawn on host grid [4] semantics [sequential] {
  }
  return
}

// -----

func.func @unknown_topology() {
  // expected-error @+1 {{expected 'host', 'tensor_core' or 'tensor_core5', got 'gpu'}}
  vx.spawn on gpu grid [4] semantics [parallel] {
  }
  return
}

// -----

func.func @unknown_memory() {
  vx.spawn on host grid [4] semantics [parallel] {
    // expected-error @+1 {{expected 'private' or 'smem', got 'global'}}
    %0 = vx.scratch global : memref<4xf32>
  }
  return
}

// -----

func.func @semantics_not_keyword() {
  // expected-error @+1 {{expected 'parallel' or 'arbitrary'}}
  vx.spawn on host grid [4] semantics [1] {
  }
  return
}

// -----

func.func @block_arguments() {
  // expected-error @+1 {{'vx.spawn' op region should have no arguments}}
  "vx.spawn"() <{semantics = [#vx.semantics<parallel>], static_grid = array<i64: 4>, topology = #vx.topology<host>}> ({
  ^bb0(%arg0: index):
    "vx.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @nested_spawn() {
  vx.spawn on host grid [4] semantics [parallel] {
    // expected-error @+1 {{'vx.spawn' op may not be nested inside another 'vx.spawn'}}
    vx.spawn on host grid [2] semantics [parallel] {
    }
  }
  return
}

// -----

func.func @nested_spawn_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [4] semantics [parallel] {
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{'vx.spawn' op may not be nested inside another 'vx.spawn'}}
      vx.spawn on host grid [2] semantics [parallel] {
      }
    }
  }
  return
}

// -----

func.func @grid_index_outside() {
  // expected-error @+1 {{'vx.grid_index' op must be inside a 'vx.spawn' body}}
  %0 = vx.grid_index 0
  return
}

// -----

func.func @grid_index_out_of_range() {
  vx.spawn on host grid [4, 4] semantics [parallel, parallel] {
    // expected-error @+1 {{'vx.grid_index' op dimension 2 is out of range for a grid of rank 2}}
    %0 = vx.grid_index 2
  }
  return
}

// -----

func.func @grid_index_negative() {
  vx.spawn on host grid [4] semantics [parallel] {
    // expected-error @+1 {{'vx.grid_index' op dimension -1 is out of range for a grid of rank 1}}
    %0 = vx.grid_index -1
  }
  return
}

// -----

func.func @grid_dim_outside() {
  // expected-error @+1 {{'vx.grid_dim' op must be inside a 'vx.spawn' body}}
  %0 = vx.grid_dim 0
  return
}

// -----

func.func @grid_dim_out_of_range() {
  vx.spawn on host grid [4] semantics [parallel] {
    // expected-error @+1 {{'vx.grid_dim' op dimension 1 is out of range for a grid of rank 1}}
    %0 = vx.grid_dim 1
  }
  return
}

// -----

func.func @scratch_outside() {
  // expected-error @+1 {{'vx.scratch' op must be directly in a 'vx.spawn' body, not in a nested region}}
  %0 = vx.scratch : memref<4xf32>
  return
}

// -----

func.func @scratch_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [4] semantics [parallel] {
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{'vx.scratch' op must be directly in a 'vx.spawn' body, not in a nested region}}
      %0 = vx.scratch : memref<4xf32>
      "test.use"(%0) : (memref<4xf32>) -> ()
    }
  }
  return
}

// -----

func.func @scratch_dynamic_shape() {
  vx.spawn on host grid [4] semantics [parallel] {
    // expected-error @+1 {{'vx.scratch' op must have a static shape, got 'memref<?xf32>'}}
    %0 = vx.scratch : memref<?xf32>
  }
  return
}

// -----

func.func private @sink(memref<4xf32>)

func.func @scratch_escapes_call() {
  vx.spawn on host grid [4] semantics [parallel] {
    // expected-error @+1 {{'vx.scratch' op buffer escapes the spawn body through 'func.call'}}
    %0 = vx.scratch : memref<4xf32>
    func.call @sink(%0) : (memref<4xf32>) -> ()
  }
  return
}

// -----

// A yield inside the body keeps the buffer in the body (ops.mlir); what
// the scf.if then passes to a call escapes through the call.
func.func private @sink_view(memref<4xf32, strided<[1]>>)

func.func @scratch_escapes_through_yield_and_call(%c: i1) {
  vx.spawn on host grid [4] semantics [parallel] {
    // expected-error @+1 {{'vx.scratch' op buffer escapes the spawn body through 'func.call'}}
    %0 = vx.scratch : memref<8xf32>
    %v = memref.subview %0[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
    %r = scf.if %c -> memref<4xf32, strided<[1]>> {
      scf.yield %v : memref<4xf32, strided<[1]>>
    } else {
      scf.yield %v : memref<4xf32, strided<[1]>>
    }
    func.call @sink_view(%r) : (memref<4xf32, strided<[1]>>) -> ()
  }
  return
}

// -----

func.func private @sink_loop(memref<4xf32>)

func.func @scratch_escapes_through_loop(%n: index) {
  vx.spawn on host grid [4] semantics [parallel] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'vx.scratch' op buffer escapes the spawn body through 'func.call'}}
    %0 = vx.scratch : memref<4xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%b = %0) -> memref<4xf32> {
      func.call @sink_loop(%b) : (memref<4xf32>) -> ()
      scf.yield %b : memref<4xf32>
    }
  }
  return
}

// -----

func.func @transfer_shape(%a: memref<16x64xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %tile = vx.scratch smem : memref<16x32xf32>
    // expected-error @+1 {{'vx.transfer_async' op source shape 16, 64 and destination shape 16, 32 differ}}
    %t = vx.transfer_async %a to %tile : memref<16x64xf32> to memref<16x32xf32>
    vx.await %t
  }
  return
}

// -----

func.func @transfer_element_type(%a: memref<16xf16>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %tile = vx.scratch smem : memref<16xf32>
    // expected-error @+1 {{'vx.transfer_async' op source element type 'f16' and destination element type 'f32' differ}}
    %t = vx.transfer_async %a to %tile : memref<16xf16> to memref<16xf32>
    vx.await %t
  }
  return
}

// -----

func.func @transfer_outside(%a: memref<16xf32>, %b: memref<16xf32>) {
  // expected-error @+1 {{'vx.transfer_async' op must be inside a 'vx.spawn' body}}
  %t = vx.transfer_async %a to %b : memref<16xf32> to memref<16xf32>
  return
}

// -----

func.func @await_outside(%t: !vx.token) {
  // expected-error @+1 {{'vx.await' op must be inside a 'vx.spawn' body}}
  vx.await %t
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @grid_operand_type(%n: i32) {
  // expected-error @+1 {{use of value '%n' expects different type than prior uses: 'index' vs 'i32'}}
  vx.spawn on host grid [%n] semantics [parallel] {
  }
  return
}

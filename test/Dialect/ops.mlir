// RUN: vx-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: vx-opt %s --allow-unregistered-dialect | vx-opt --allow-unregistered-dialect | FileCheck %s
// RUN: vx-opt %s --allow-unregistered-dialect --mlir-print-op-generic | vx-opt --allow-unregistered-dialect | FileCheck %s
// RUN: vx-opt %s --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func @static_grid
// CHECK: vx.spawn on tensor_core grid [8] semantics [parallel] {
// CHECK-NEXT: vx.grid_index 0
// CHECK-NOT: vx.yield
// GENERIC-LABEL: sym_name = "static_grid"
// GENERIC: "vx.spawn"() <{semantics = [#vx.semantics<parallel>], static_grid = array<i64: 8>, topology = #vx.topology<tensor_core>}>
// GENERIC: "vx.grid_index"() <{dim = 0 : i64}> : () -> index
// GENERIC: "vx.yield"() : () -> ()
func.func @static_grid(%a: memref<8xindex>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    memref.store %i, %a[%i] : memref<8xindex>
  }
  return
}

// CHECK-LABEL: func @dynamic_grid
// CHECK: vx.spawn on host grid [%{{.*}}, %{{.*}}] semantics [parallel, arbitrary]
func.func @dynamic_grid(%n: index, %m: index) {
  vx.spawn on host grid [%n, %m] semantics [parallel, arbitrary] {
  }
  return
}

// CHECK-LABEL: func @mixed_grid
// CHECK: vx.spawn on tensor_core5 grid [%{{.*}}, %{{.*}}, 4] semantics [parallel, parallel, arbitrary]
// CHECK: vx.grid_dim 2
// GENERIC-LABEL: sym_name = "mixed_grid"
// GENERIC: static_grid = array<i64: -9223372036854775808, -9223372036854775808, 4>
func.func @mixed_grid(%nb: index, %nh: index, %out: memref<?xindex>) {
  vx.spawn on tensor_core5 grid [%nb, %nh, 4] semantics [parallel, parallel, arbitrary] {
    %n = vx.grid_dim 2
    %b = vx.grid_index 0
    memref.store %n, %out[%b] : memref<?xindex>
  }
  return
}

// Omitted semantics means arbitrary everywhere, and is printed.
// CHECK-LABEL: func @omitted_semantics
// CHECK: vx.spawn on host grid [2, 3] semantics [arbitrary, arbitrary] {
func.func @omitted_semantics() {
  vx.spawn on host grid [2, 3] {
  }
  return
}

// The CTA size of a spawn whose body has thread loops: printed after the
// semantics when present, absent from the generic form otherwise.
// CHECK-LABEL: func @threads
// CHECK: vx.spawn on tensor_core grid [%{{.*}}] semantics [parallel] threads 256 {
// CHECK: scf.parallel
// CHECK: vx.spawn on host grid [2, 3] semantics [arbitrary, arbitrary] threads 1 {
// CHECK: vx.spawn on tensor_core grid [4] semantics [parallel] threads 1024 {
// GENERIC-LABEL: sym_name = "threads"
// GENERIC: "vx.spawn"(%{{.*}}) <{semantics = [#vx.semantics<parallel>], static_grid = array<i64: -9223372036854775808>, threads = 256 : i64, topology = #vx.topology<tensor_core>}>
func.func @threads(%rows: index, %x: memref<?x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [%rows] semantics [parallel] threads 256 {
    %r = vx.grid_index 0
    scf.parallel (%col) = (%c0) to (%c1024) step (%c1) {
      memref.store %zero, %x[%r, %col] : memref<?x1024xf32>
    }
  }
  vx.spawn on host grid [2, 3] threads 1 {
  }
  vx.spawn on tensor_core grid [4] semantics [parallel] threads 1024 {
  }
  return
}

// CHECK-LABEL: func @six_dims
// CHECK: vx.spawn on tensor_core grid [2, %{{.*}}, 3, 1, %{{.*}}, 5] semantics [parallel, arbitrary, parallel, arbitrary, parallel, parallel]
// CHECK: vx.grid_index 5
func.func @six_dims(%n: index) {
  vx.spawn on tensor_core grid [2, %n, 3, 1, %n, 5] semantics [parallel, arbitrary, parallel, arbitrary, parallel, parallel] {
    %x = vx.grid_index 5
    "test.use"(%x) : (index) -> ()
  }
  return
}

// CHECK-LABEL: func @scratch_and_transfers
// CHECK: %[[ACC:.*]] = vx.scratch : memref<64xf32>
// CHECK: %[[TILE:.*]] = vx.scratch smem : memref<16x64xf32>
// CHECK: %[[T:.*]] = vx.transfer_async %{{.*}} to %[[TILE]] : memref<16x64xf32, strided<[64, 1], offset: ?>> to memref<16x64xf32>
// CHECK: vx.await %[[T]]
// GENERIC-LABEL: sym_name = "scratch_and_transfers"
// GENERIC: "vx.scratch"() : () -> memref<64xf32>
// GENERIC: "vx.scratch"() <{memory = #vx.memory<smem>}> : () -> memref<16x64xf32>
// GENERIC: "vx.transfer_async"(%{{.*}}, %{{.*}}) : (memref<16x64xf32, strided<[64, 1], offset: ?>>, memref<16x64xf32>) -> !vx.token
// GENERIC: "vx.await"(%{{.*}}) : (!vx.token) -> ()
func.func @scratch_and_transfers(%src: memref<16x64xf32, strided<[64, 1], offset: ?>>) {
  vx.spawn on tensor_core grid [4] semantics [arbitrary] {
    %acc = vx.scratch : memref<64xf32>
    %tile = vx.scratch smem : memref<16x64xf32>
    %t = vx.transfer_async %src to %tile : memref<16x64xf32, strided<[64, 1], offset: ?>> to memref<16x64xf32>
    vx.await %t
    "test.use"(%acc) : (memref<64xf32>) -> ()
  }
  return
}

// CHECK-LABEL: func @private_scratch
// CHECK: vx.scratch private : memref<4xf32>
func.func @private_scratch() {
  vx.spawn on host grid [1] semantics [arbitrary] {
    %p = vx.scratch private : memref<4xf32>
    "test.use"(%p) : (memref<4xf32>) -> ()
  }
  return
}

// Grid queries work inside nested regions of the body.
// CHECK-LABEL: func @nested_query
// CHECK: scf.for
// CHECK: vx.grid_index 1
func.func @nested_query(%a: memref<4x4xindex>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [4, 4] semantics [parallel, parallel] {
    scf.for %k = %c0 to %c4 step %c1 {
      %i = vx.grid_index 0
      %j = vx.grid_index 1
      memref.store %k, %a[%i, %j] : memref<4x4xindex>
    }
  }
  return
}

// CHECK-LABEL: func @attributes
// CHECK: attrs = [#vx.topology<host>, #vx.topology<tensor_core>, #vx.topology<tensor_core5>, #vx.semantics<parallel>, #vx.semantics<arbitrary>, #vx.memory<private>, #vx.memory<smem>]
// CHECK-SAME: token_type = !vx.token
func.func @attributes() attributes {attrs = [#vx.topology<host>, #vx.topology<tensor_core>, #vx.topology<tensor_core5>, #vx.semantics<parallel>, #vx.semantics<arbitrary>, #vx.memory<private>, #vx.memory<smem>], token_type = !vx.token} {
  return
}

// Scratch chosen by an scf.if, or carried by an scf.for, stays in the body:
// no escape.
// CHECK-LABEL: func @scratch_through_regions
// CHECK: scf.if
// CHECK: scf.yield %{{.*}} : memref<4xf32>
// CHECK: scf.for
func.func @scratch_through_regions(%a: memref<4xf32>, %c: i1, %n: index) {
  vx.spawn on tensor_core grid [2] semantics [arbitrary] {
    %s1 = vx.scratch : memref<4xf32>
    %s2 = vx.scratch : memref<4xf32>
    %pick = scf.if %c -> memref<4xf32> {
      scf.yield %s1 : memref<4xf32>
    } else {
      scf.yield %s2 : memref<4xf32>
    }
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%b = %pick) -> memref<4xf32> {
      scf.yield %s2 : memref<4xf32>
    }
    %x = memref.load %last[%c0] : memref<4xf32>
    memref.store %x, %a[%c0] : memref<4xf32>
  }
  return
}

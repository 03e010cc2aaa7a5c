// RUN: vx-opt %s --convert-gpu-launch-to-scf -split-input-file -verify-diagnostics | FileCheck %s
// RUN: vx-opt %s --convert-gpu-launch-to-scf="reverse-blocks=true" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=REVERSE

// Blocks run as an scf.parallel, threads as an scf.for nest (x innermost),
// workgroup memory once per block in the default memory space.
// CHECK-LABEL: func @launch
// CHECK-SAME: %[[GX:[^:]*]]: index, %[[BX:[^:]*]]: index
// CHECK: scf.parallel (%[[BIDX:.*]], %{{.*}}, %{{.*}}) = ({{.*}}) to (%[[GX]], %{{.*}}, %{{.*}})
// CHECK: %[[WG:.*]] = memref.alloca() : memref<8xi8>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[TIDX:.*]] = %{{.*}} to %[[BX]]
// CHECK: %[[SHIFT:.*]] = arith.muli %[[TIDX]]
// CHECK: %[[VIEW:.*]] = memref.view %[[WG]][%[[SHIFT]]][] : memref<8xi8> to memref<1xf32>
// CHECK: memref.store %{{.*}}, %[[VIEW]]
// CHECK: %[[LIN:.*]] = arith.addi %[[BIDX]], %[[TIDX]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[LIN]]]
// CHECK-NOT: gpu.
// REVERSE-LABEL: func @launch
// REVERSE: scf.parallel (%[[IV:.*]], %{{.*}}, %{{.*}}) =
// REVERSE: %[[LAST:.*]] = arith.subi %{{.*}}, %c1
// REVERSE: %[[BIDX:.*]] = arith.subi %[[LAST]], %[[IV]]
// REVERSE: arith.addi %[[BIDX]]
func.func @launch(%gx: index, %bx: index, %out: memref<?xf32>, %v: f32) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %gx, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %bx, %s1 = %c1, %s2 = %c1)
             workgroup(%wg : memref<8xi8, #gpu.address_space<workgroup>>) {
    %shift = arith.muli %t0, %c4 : index
    %view = memref.view %wg[%shift][] : memref<8xi8, #gpu.address_space<workgroup>> to memref<1xf32, #gpu.address_space<workgroup>>
    %slice = memref.memory_space_cast %view : memref<1xf32, #gpu.address_space<workgroup>> to memref<1xf32>
    %c0 = arith.constant 0 : index
    memref.store %v, %slice[%c0] : memref<1xf32>
    %lin = arith.addi %b0, %t0 : index
    memref.store %v, %out[%lin] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// Dynamic shared memory: one byte buffer per block of the launch's dynamic
// size, aligned for its widest view (vector<8xf32>: 32 bytes; at least 16).
// CHECK-LABEL: func @dynamic_shared
// CHECK-SAME: %[[BYTES:[^:]*]]: i32
// CHECK: scf.parallel
// CHECK: %[[SIZE:.*]] = arith.index_castui %[[BYTES]] : i32 to index
// CHECK: %[[SHARED:.*]] = memref.alloca(%[[SIZE]]) {alignment = 32 : i64} : memref<?xi8>
// CHECK: scf.for %[[TIDX:.*]] =
// CHECK: memref.view %[[SHARED]][%{{.*}}][] : memref<?xi8> to memref<1xf32>
// CHECK: memref.view %[[SHARED]][%{{.*}}][] : memref<?xi8> to memref<1xvector<8xf32>>
// CHECK-NOT: gpu.
func.func @dynamic_shared(%bytes: i32, %out: memref<?xf32>, %v: f32) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c2, %s1 = %c1, %s2 = %c1)
             dynamic_shared_memory_size %bytes {
    %shared = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %shift = arith.muli %t0, %c4 : index
    %view = memref.view %shared[%shift][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1xf32, #gpu.address_space<workgroup>>
    %slice = memref.memory_space_cast %view : memref<1xf32, #gpu.address_space<workgroup>> to memref<1xf32>
    %c0 = arith.constant 0 : index
    memref.store %v, %slice[%c0] : memref<1xf32>
    %wide = memref.view %shared[%c32][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1xvector<8xf32>, #gpu.address_space<workgroup>>
    %x = memref.load %slice[%c0] : memref<1xf32>
    memref.store %x, %out[%t0] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// Dynamic shared memory needs the launch's dynamic size.
func.func @unsized_shared() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    // expected-error @below {{'gpu.dynamic_shared_memory' op reads dynamic shared memory, which the launch does not size}}
    %shared = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Threads of a block run one after another, so a barrier cannot hold.
func.func @barrier(%bx: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c2, %s1 = %c1, %s2 = %c1) {
    // expected-error @below {{'gpu.barrier' op cannot run on the CPU: blocks of more than one thread run their threads one after another}}
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

// With one thread per block a barrier is a no-op.
// CHECK-LABEL: func @single_thread_barrier
// CHECK-NOT: gpu.barrier
func.func @single_thread_barrier() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

func.func @shuffle(%v: f32) {
  %c1 = arith.constant 1 : index
  %w = arith.constant 32 : i32
  %o = arith.constant 1 : i32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    // expected-error @below {{'gpu.shuffle' op has no CPU execution}}
    %r, %valid = gpu.shuffle xor %v, %o, %w : f32
    gpu.terminator
  }
  return
}

// -----

// cp.async chunks run as element copies into the buffer under the
// workgroup cast; groups and waits disappear, and tokens carried by loops
// become i1.
// CHECK-LABEL: func @async_copies
// CHECK-NOT: nvgpu.
// CHECK: %[[TILE:.*]] = memref.alloca() : memref<4xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i1)
// CHECK: %[[X0:.*]] = memref.load %{{.*}} : memref<8xf32>
// CHECK: memref.store %[[X0]], %[[TILE]][%{{.*}}] : memref<4xf32>
// CHECK: %[[X1:.*]] = memref.load
// CHECK: memref.store %[[X1]], %[[TILE]]
// CHECK-NOT: nvgpu.
func.func @async_copies(%src: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1)
             workgroup(%wg : memref<4xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %wg : memref<4xf32, #gpu.address_space<workgroup>> to memref<4xf32>
    %back = memref.memory_space_cast %tile : memref<4xf32> to memref<4xf32, #gpu.address_space<workgroup>>
    %none = ub.poison : !nvgpu.device.async.token
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%pending = %none) -> (!nvgpu.device.async.token) {
      %t = nvgpu.device_async_copy %src[%c0], %back[%c0], 2 : memref<8xf32> to memref<4xf32, #gpu.address_space<workgroup>>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %pending {numGroups = 1 : i32}
      scf.yield %g : !nvgpu.device.async.token
    }
    nvgpu.device_async_wait %last {numGroups = 0 : i32}
    gpu.terminator
  }
  return
}

// -----

func.func @partial_async_copy(%src: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1)
             workgroup(%wg : memref<4xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %wg : memref<4xf32, #gpu.address_space<workgroup>> to memref<4xf32>
    %back = memref.memory_space_cast %tile : memref<4xf32> to memref<4xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{'nvgpu.device_async_copy' op runs on the CPU only as a whole-chunk copy}}
    %t = nvgpu.device_async_copy %src[%c0], %back[%c0], 2, %c1 : memref<8xf32> to memref<4xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

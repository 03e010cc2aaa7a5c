// RUN: vx-opt %s --convert-gpu-launch-to-scf -split-input-file -verify-diagnostics | FileCheck %s
// RUN: vx-opt %s --convert-gpu-launch-to-scf="reverse-parallel=true" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=REVERSE

// Blocks run as an scf.parallel, threads as an scf.for nest (x innermost),
// workgroup memory once per block in the default memory space; with
// reverse-parallel the blocks and the threads run from last to first.
// CHECK-LABEL: func @launch
// CHECK-SAME: %[[GX:[^:]*]]: index, %[[BX:[^:]*]]: index
// CHECK: scf.parallel (%[[BIDX:.*]], %{{.*}}, %{{.*}}) = ({{.*}}) to (%[[GX]], %{{.*}}, %{{.*}})
// CHECK: %[[WG:.*]] = memref.alloca() : memref<8xi8>
// CHECK: %[[POSITIVE:.*]] = arith.cmpi sgt, %[[BX]], %c0
// CHECK: scf.if %[[POSITIVE]] {
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
// REVERSE-SAME: %[[GX:[^:]*]]: index, %[[BX:[^:]*]]: index
// REVERSE: scf.parallel (%[[IV:.*]], %{{.*}}, %{{.*}}) =
// REVERSE: %[[LAST:.*]] = arith.subi %[[GX]], %c1
// REVERSE: %[[BIDX:.*]] = arith.subi %[[LAST]], %[[IV]]
// REVERSE: %[[LASTT:.*]] = arith.subi %[[BX]], %c1
// REVERSE: scf.for %[[TIV:.*]] = %{{.*}} to %[[BX]]
// REVERSE: %[[TIDX:.*]] = arith.subi %[[LASTT]], %[[TIV]]
// REVERSE: arith.muli %[[TIDX]]
// REVERSE: arith.addi %[[BIDX]], %[[TIDX]]
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
// CHECK: %[[SHARED:.*]] = memref.alloca(%[[SIZE]]) {alignment = 128 : i64} : memref<?xi8>
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

// A block without threads runs nothing.
// CHECK-LABEL: func @no_threads
// CHECK: scf.parallel
// CHECK-NOT: memref.store
// CHECK: scf.reduce
func.func @no_threads(%out: memref<?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c0, %s2 = %c1) {
    memref.store %v, %out[%t0] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// With one thread per block, a barrier is a no-op: the phases it separates
// run one after the other.
// CHECK-LABEL: func @single_thread_barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK: memref.store
// CHECK: scf.for
// CHECK: memref.load
// CHECK-NOT: gpu.barrier
func.func @single_thread_barrier(%out: memref<1xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    memref.store %v, %out[%t0] : memref<1xf32>
    gpu.barrier
    %x = memref.load %out[%c0] : memref<1xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %out[%c0] : memref<1xf32>
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

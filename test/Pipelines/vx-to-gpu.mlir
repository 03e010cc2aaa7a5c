// Launch geometry of the gpu stage: grid -> gpu.launch_func dims.
// RUN: vx-opt %s --vx-to-gpu | FileCheck %s
// RUN: vx-opt %s --vx-to-gpu="threads-per-block=128" | FileCheck %s --check-prefix=TPB
// The delinearization of over_y_limit.
// CHECK-DAG: #[[QUOTIENT:.*]] = affine_map<()[s0] -> (s0 floordiv 70000)>
// CHECK-DAG: #[[REMAINDER:.*]] = affine_map<()[s0] -> (s0 mod 70000)>

// CHECK-LABEL: func.func @one_d
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: gpu.launch_func @one_d_kernel::@one_d_kernel blocks in (%[[C64]], %[[C1]], %[[C1]]) threads in (%[[C1]], %[[C1]], %[[C1]])
// TPB-LABEL: func.func @one_d
// TPB-DAG: %[[C1:.*]] = arith.constant 1 : index
// TPB-DAG: %[[C128:.*]] = arith.constant 128 : index
// TPB: gpu.launch_func @one_d_kernel::@one_d_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C128]], %[[C1]], %[[C1]])
func.func @one_d(%a: memref<64xf32>) {
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i] : memref<64xf32>
  }
  return
}

// The k-th parallel dimension is launch dimension x, y, z; arbitrary
// dimensions are a loop in the kernel.
// CHECK-LABEL: func.func @three_d
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: gpu.launch_func @three_d_kernel::@three_d_kernel blocks in (%[[C2]], %[[C3]], %[[C5]]) threads in (%[[C1]], %[[C1]], %[[C1]])
// CHECK-LABEL: gpu.func @three_d_kernel
// CHECK-DAG: %[[X:.*]] = gpu.block_id x
// CHECK-DAG: %[[Y:.*]] = gpu.block_id y
// CHECK-DAG: %[[Z:.*]] = gpu.block_id z
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[X]], %[[K]], %[[Y]], %[[Z]]]
// TPB-LABEL: func.func @three_d
// TPB-DAG: %[[C1:.*]] = arith.constant 1 : index
// TPB-DAG: %[[C2:.*]] = arith.constant 2 : index
// TPB-DAG: %[[C3:.*]] = arith.constant 3 : index
// TPB-DAG: %[[C128:.*]] = arith.constant 128 : index
// TPB: gpu.launch_func @three_d_kernel::@three_d_kernel blocks in (%[[C2]], %[[C3]], %[[C1]]) threads in (%[[C128]], %[[C1]], %[[C1]])
// TPB-LABEL: gpu.func @three_d_kernel
// TPB-DAG: %[[Z:.*]] = gpu.block_id z
// TPB-DAG: %[[T:.*]] = gpu.thread_id x
// TPB-DAG: %[[C5:.*]] = arith.constant 5 : index
// TPB: %[[INNER:.*]] = arith.addi %{{.*}}, %[[T]] : index
// TPB: %[[IN:.*]] = arith.cmpi ult, %[[INNER]], %[[C5]] : index
// TPB: scf.if %[[IN]]
func.func @three_d(%a: memref<2x4x3x5xf32>, %v: f32) {
  vx.spawn on tensor_core grid [2, 4, 3, 5]
      semantics [parallel, arbitrary, parallel, parallel] {
    %i = vx.grid_index 0
    %k = vx.grid_index 1
    %j = vx.grid_index 2
    %l = vx.grid_index 3
    memref.store %v, %a[%i, %k, %j, %l] : memref<2x4x3x5xf32>
  }
  return
}

// A dimension over the limit of y folds the grid into x, recovered by
// delinearization in the kernel.
// CHECK-LABEL: func.func @over_y_limit
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[TOTAL:.*]] = arith.constant 210000 : index
// CHECK: gpu.launch_func @over_y_limit_kernel::@over_y_limit_kernel blocks in (%[[TOTAL]], %[[C1]], %[[C1]])
// CHECK-LABEL: gpu.func @over_y_limit_kernel
// CHECK: %[[X:.*]] = gpu.block_id x
// CHECK: %[[I:.*]] = affine.apply #[[QUOTIENT]]()[%[[X]]]
// CHECK: %[[J:.*]] = affine.apply #[[REMAINDER]]()[%[[X]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
func.func @over_y_limit(%a: memref<3x70000xf32>, %v: f32) {
  vx.spawn on tensor_core grid [3, 70000] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    memref.store %v, %a[%i, %j] : memref<3x70000xf32>
  }
  return
}

// More than three parallel dimensions fold too.
// CHECK-LABEL: func.func @five_parallel
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[TOTAL:.*]] = arith.constant 720 : index
// CHECK: gpu.launch_func @five_parallel_kernel::@five_parallel_kernel blocks in (%[[TOTAL]], %[[C1]], %[[C1]])
// CHECK-LABEL: gpu.func @five_parallel_kernel
// CHECK-COUNT-5: affine.apply
// CHECK-NOT: scf.for
func.func @five_parallel(%a: memref<2x3x4x5x6xf32>, %v: f32) {
  vx.spawn on tensor_core grid [2, 3, 4, 5, 6]
      semantics [parallel, parallel, parallel, parallel, parallel] {
    %i0 = vx.grid_index 0
    %i1 = vx.grid_index 1
    %i2 = vx.grid_index 2
    %i3 = vx.grid_index 3
    %i4 = vx.grid_index 4
    memref.store %v, %a[%i0, %i1, %i2, %i3, %i4] : memref<2x3x4x5x6xf32>
  }
  return
}

// A dynamic grid: sizes are clamped at 0 (a negative size runs nothing);
// the launch is skipped when empty or when the product overflows (after an
// assertion that says so), capped at the limit of x, and the kernel loops
// grid-stride over the folded instances.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: %[[N:[^:]*]]: index, %[[M:[^:]*]]: index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[MAXX:.*]] = arith.constant 2147483647 : index
// CHECK-DAG: %[[N0:.*]] = arith.maxsi %[[N]], %[[C0]] : index
// CHECK-DAG: %[[M0:.*]] = arith.maxsi %[[M]], %[[C0]] : index
// CHECK: %[[TOTAL:.*]] = arith.muli %[[N0]], %[[M0]] : index
// CHECK: %[[BACK:.*]] = arith.divui %[[TOTAL]]
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi ne, %[[TOTAL]], %[[C0]] : index
// CHECK: cf.assert %[[FITS:.*]], "vx.spawn at {{.*}}vx-to-gpu.mlir:[[# @LINE + 10]]:3: the product of the parallel grid sizes exceeds 2^63-1, so the GPU mapping cannot count its instances; nothing is launched"
// CHECK: %[[LAUNCH:.*]] = arith.andi %[[NONEMPTY]], %[[FITS]] : i1
// CHECK: scf.if %[[LAUNCH]]
// CHECK: %[[GRIDX:.*]] = arith.minui %[[TOTAL]], %[[MAXX]] : index
// CHECK: gpu.launch_func @dynamic_kernel::@dynamic_kernel blocks in (%[[GRIDX]],
// CHECK-LABEL: gpu.func @dynamic_kernel
// CHECK-DAG: %[[X:.*]] = gpu.block_id x
// CHECK-DAG: %[[GX:.*]] = gpu.grid_dim x
// CHECK: scf.for %{{.*}} = %[[X]] to %{{.*}} step %[[GX]]
func.func @dynamic(%a: memref<?x?xf32>, %v: f32, %n: index, %m: index) {
  vx.spawn on tensor_core5 grid [%n, %m] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    memref.store %v, %a[%i, %j] : memref<?x?xf32>
  }
  return
}

// No parallel dimension: one CTA runs the arbitrary loops in grid order.
// CHECK-LABEL: func.func @no_parallel
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: gpu.launch_func @no_parallel_kernel::@no_parallel_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C1]], %[[C1]], %[[C1]])
// CHECK-LABEL: gpu.func @no_parallel_kernel
// CHECK: scf.for
// CHECK: scf.for
// TPB-LABEL: func.func @no_parallel
// TPB: %[[C1:.*]] = arith.constant 1 : index
// TPB: gpu.launch_func @no_parallel_kernel::@no_parallel_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C1]], %[[C1]], %[[C1]])
func.func @no_parallel(%a: memref<1xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [4, 8] {
    %x = memref.load %a[%c0] : memref<1xf32>
    %y = arith.addf %x, %v : f32
    memref.store %y, %a[%c0] : memref<1xf32>
  }
  return
}

// Host spawns stay loops.
// CHECK-LABEL: func.func @host
// CHECK-NOT: gpu.launch_func
// CHECK: scf.parallel
func.func @host(%a: memref<8xf32>, %v: f32) {
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    memref.store %v, %a[%i] : memref<8xf32>
  }
  return
}

// 6-D, mixed static and dynamic: the parallel dims 0, 2 and 4 fold into x.
// CHECK-LABEL: func.func @six_d
// CHECK-SAME: %[[M:[^:]*]]: index)
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[M0:.*]] = arith.maxsi %[[M]]
// CHECK: %[[TOTAL:.*]] = arith.muli %[[M0]], %[[C6]] : index
// CHECK: scf.if
// CHECK: %[[GRIDX:.*]] = arith.minui %[[TOTAL]]
// CHECK: gpu.launch_func @six_d_kernel::@six_d_kernel blocks in (%[[GRIDX]],
// CHECK-LABEL: gpu.func @six_d_kernel
// CHECK: scf.for
// CHECK-COUNT-3: affine.apply
// The size-1 arbitrary dimension folds away.
// CHECK-COUNT-2: scf.for
// CHECK-NOT: scf.for
func.func @six_d(%a: memref<?xf32>, %v: f32, %n: index, %m: index) {
  vx.spawn on tensor_core grid [2, %n, 3, 1, %m, 2]
      semantics [parallel, arbitrary, parallel, arbitrary, parallel, arbitrary] {
    %i0 = vx.grid_index 0
    %i2 = vx.grid_index 2
    %i4 = vx.grid_index 4
    %c3 = arith.constant 3 : index
    %r0 = arith.muli %i0, %c3 : index
    %a0 = arith.addi %r0, %i2 : index
    %r1 = arith.muli %a0, %m : index
    %a1 = arith.addi %r1, %i4 : index
    memref.store %v, %a[%a1] : memref<?xf32>
  }
  return
}

// Two spawns in one function: each kernel is named as its module, uniquely.
// CHECK-LABEL: func.func @two_spawns
// CHECK: gpu.launch_func @two_spawns_kernel::@two_spawns_kernel
// CHECK: gpu.launch_func @two_spawns_kernel_0::@two_spawns_kernel_0
// CHECK: gpu.module @two_spawns_kernel
// CHECK: gpu.func @two_spawns_kernel(
// CHECK: gpu.module @two_spawns_kernel_0
// CHECK: gpu.func @two_spawns_kernel_0(
func.func @two_spawns(%a: memref<8xf32>, %v: f32) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    memref.store %v, %a[%i] : memref<8xf32>
  }
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    memref.store %v, %a[%i] : memref<8xf32>
  }
  return
}

// A body without thread loops whose 512-byte tile, pipelined in 3 stages,
// would not fit the shared memory at the default 256 instances per CTA:
// vx-plan-launch keeps the 3 stages requested (VX_SPEC 2.2) and runs fewer
// instances per CTA, chosen by occupancy among those whose slots fit (128
// for any chip and sm_90; 32 on sm_80, three CTAs per SM, with a remark
// that `stages 2` would fit four), so that the transfers still pipeline,
// and the sums, over 300 rows (not a multiple of the CTA) and 5 steps, are
// those of the host loops.
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=3" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true stages=3 chip=sm_80" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-gpu="stages=3" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: vx-opt %s --convert-vx-to-gpu="stages=3 chip=sm_80" 2>&1 | FileCheck %s --check-prefix=IR80

// IR: remark: runs 128 instances per CTA instead of 256 so that its transfers pipeline in 3 stages (3 requested
// IR-NOT: remark
// IR: dynamic_shared_memory_size %c196608_i32
// IR: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// IR80: remark: runs 32 instances per CTA instead of 256 so that its transfers pipeline in 3 stages (3 requested
// IR80: remark: pipelines its transfers in 3 stages at a cost in occupancy on 'sm_80': its CTAs of 49152 bytes of shared memory fit 3 per SM, where `stages 2` would fit 4
// IR80-NOT: remark
// IR80: dynamic_shared_memory_size %c49152_i32
// IR80: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}

// CHECK: mismatches: 0

// out[p] = sum over the steps k of (k + 1) * sum(in[p, 128 k .. 128 k + 127]):
// the weight is the step's own, so a tile from another step (a wrong slot
// or prefetch index) changes the sum.
func.func @weighted_rows(%in: memref<300x640xf32>, %out: memref<300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [300, 5] semantics [parallel, arbitrary] {
    %tile = vx.scratch smem : memref<128xf32>
    %p = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c128 : index
    %src = memref.subview %in[%p, %col] [1, 128] [1, 1] : memref<300x640xf32> to memref<128xf32, strided<[1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<128xf32, strided<[1], offset: ?>> to memref<128xf32>
    vx.await %tok
    %sum = scf.for %c = %c0 to %c128 step %c1 iter_args(%t = %zero) -> f32 {
      %x = memref.load %tile[%c] : memref<128xf32>
      %n = arith.addf %t, %x : f32
      scf.yield %n : f32
    }
    %k1 = arith.addi %k, %c1 : index
    %ki = arith.index_cast %k1 : index to i64
    %w = arith.sitofp %ki : i64 to f32
    %ws = arith.mulf %w, %sum : f32
    %first = arith.cmpi eq, %k, %c0 : index
    %old = memref.load %out[%p] : memref<300xf32>
    %base = arith.select %first, %zero, %old : f32
    %new = arith.addf %base, %ws : f32
    memref.store %new, %out[%p] : memref<300xf32>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c128 = arith.constant 128 : index
  %c300 = arith.constant 300 : index
  %c640 = arith.constant 640 : index
  %zero = arith.constant 0.0 : f32
  %in = memref.alloc() : memref<300x640xf32>
  %out = memref.alloc() : memref<300xf32>
  // in[r, c] = (7 r + 3 c) mod 11: small integers whose sums f32 holds
  // exactly.
  scf.for %r = %c0 to %c300 step %c1 {
    scf.for %c = %c0 to %c640 step %c1 {
      %r7 = arith.muli %r, %c7 : index
      %c3c = arith.muli %c, %c3 : index
      %s = arith.addi %r7, %c3c : index
      %v = arith.remui %s, %c11 : index
      %vi = arith.index_cast %v : index to i64
      %f = arith.sitofp %vi : i64 to f32
      memref.store %f, %in[%r, %c] : memref<300x640xf32>
    }
  }
  call @weighted_rows(%in, %out) : (memref<300x640xf32>, memref<300xf32>) -> ()
  %zeroi = arith.constant 0 : i64
  %onei = arith.constant 1 : i64
  %bad = scf.for %p = %c0 to %c300 step %c1 iter_args(%b = %zeroi) -> i64 {
    %ref = scf.for %k = %c0 to %c5 step %c1 iter_args(%t = %zero) -> f32 {
      %base = arith.muli %k, %c128 : index
      %sum = scf.for %c = %c0 to %c128 step %c1 iter_args(%u = %zero) -> f32 {
        %col = arith.addi %base, %c : index
        %x = memref.load %in[%p, %col] : memref<300x640xf32>
        %n = arith.addf %u, %x : f32
        scf.yield %n : f32
      }
      %k1 = arith.addi %k, %c1 : index
      %ki = arith.index_cast %k1 : index to i64
      %w = arith.sitofp %ki : i64 to f32
      %ws = arith.mulf %w, %sum : f32
      %n = arith.addf %t, %ws : f32
      scf.yield %n : f32
    }
    %got = memref.load %out[%p] : memref<300xf32>
    %ne = arith.cmpf une, %got, %ref : f32
    %inc = arith.select %ne, %onei, %zeroi : i64
    %nb = arith.addi %b, %inc : i64
    scf.yield %nb : i64
  }
  vector.print str "mismatches: "
  vector.print %bad : i64
  memref.dealloc %in : memref<300x640xf32>
  memref.dealloc %out : memref<300xf32>
  return
}

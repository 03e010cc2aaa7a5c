// vx-report: one remark per launch, at its spawn, with the mapping that
// convert-vx-to-gpu chose (no PTX at this stage: no ptxas fields). Neither
// spawn has thread loops, so a CTA runs one instance per thread: 32 (the
// spawn's threads) and 64 (threads-per-block). The first pipelines its
// transfers in 3 stages: 3 slots of 128 bytes for each of 32 instances.
// Unknown values print as `?`.
// RUN: vx-opt %s --vx-to-gpu="stages=3 threads-per-block=64" --vx-report -verify-diagnostics -o /dev/null

func.func @pipelined(%in: memref<64x256xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  // expected-remark @below {{kernel pipelined_kernel: grid=(2, 1, 1) block=(32, 1, 1) instances_per_cta=32 shared_bytes=12288 stages=3}}
  vx.spawn on tensor_core grid [64, 8] semantics [parallel, arbitrary] threads 32 {
    %tile = vx.scratch smem : memref<32xf32>
    %r = vx.grid_index 0
    %k = vx.grid_index 1
    %col = arith.muli %k, %c32 : index
    %src = memref.subview %in[%r, %col] [1, 32] [1, 1] : memref<64x256xf32> to memref<32xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<32xf32, strided<[1], offset: ?>> to memref<32xf32>
    vx.await %t
    %v = memref.load %tile[%c0] : memref<32xf32>
    memref.store %v, %out[%r] : memref<64xf32>
  }
  return
}

func.func @saxpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  // expected-remark @below {{kernel saxpy_kernel: grid=(?, 1, 1) block=(64, 1, 1) instances_per_cta=64 shared_bytes=0 stages=1}}
  vx.spawn on tensor_core grid [%n] semantics [parallel] {
    %i = vx.grid_index 0
    %xi = memref.load %x[%i] : memref<?xf32>
    %yi = memref.load %y[%i] : memref<?xf32>
    %p = arith.mulf %a, %xi : f32
    %s = arith.addf %p, %yi : f32
    memref.store %s, %y[%i] : memref<?xf32>
  }
  return
}

// A launch that convert-vx-to-gpu did not make: what it does not record is
// unknown.
func.func @raw() {
  %c1 = arith.constant 1 : index
  // expected-remark @below {{kernel raw_kernel: grid=(1, 1, 1) block=(1, 1, 1) instances_per_cta=? shared_bytes=0 stages=?}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    gpu.terminator
  }
  return
}

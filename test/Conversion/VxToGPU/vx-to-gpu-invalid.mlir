// What cannot run on the device, or would not lower on every route of a
// device spawn (the GPU and the CPU paths), is refused up front, naming the
// op, with a note at the spawn.
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90" -split-input-file -verify-diagnostics

func.func private @host_fn(f32)

func.func @call(%v: f32) {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-error @below {{'func.call' op cannot run on the device: device spawns may not call host functions}}
    func.call @host_fn(%v) : (f32) -> ()
  }
  return
}

// -----

func.func @alloc() {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-error @below {{'memref.alloc' op cannot run on the device: allocate per-instance memory with 'vx.scratch'}}
    %m = memref.alloc() : memref<4xf32>
  }
  return
}

// -----

func.func @host_dialect() {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %true = arith.constant true
    // expected-error @below {{'cf.assert' op cannot run on the device: its dialect has no device lowering}}
    cf.assert %true, "always"
  }
  return
}

// -----

func.func @tensor() {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-error @below {{'tensor.empty' op cannot run on the device: device code works on memrefs, not tensors (bufferize first)}}
    %t = tensor.empty() : tensor<4xf32>
  }
  return
}

// -----

func.func @tensor_linalg(%t: tensor<4xf32>, %v: f32) {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-error @below {{'linalg.fill' op cannot run on the device: device code works on memrefs, not tensors (bufferize first)}}
    %f = linalg.fill ins(%v : f32) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  }
  return
}

// -----

func.func @gpu_op(%a: memref<4xindex>) {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-error @below {{'gpu.thread_id' op cannot run in a spawn body: it runs only on the GPU, and a spawn body runs on the CPU paths too}}
    %t = gpu.thread_id x
    memref.store %t, %a[%i] : memref<4xindex>
  }
  return
}

// -----

func.func @nvvm_op(%a: memref<4xi32>) {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    // expected-error @below {{'nvvm.read.ptx.sreg.laneid' op cannot run in a spawn body}}
    %l = nvvm.read.ptx.sreg.laneid : i32
    memref.store %l, %a[%i] : memref<4xi32>
  }
  return
}

// -----

func.func @isinf(%a: memref<4xf32>, %b: memref<4xi1>) {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<4xf32>
    // expected-error @below {{'math.isinf' op has no lowering on the CPU paths (LLVM 22's math lowerings lack it); write it with arith comparisons}}
    %inf = math.isinf %x : f32
    memref.store %inf, %b[%i] : memref<4xi1>
  }
  return
}

// -----

func.func @clampf(%a: memref<4xf32>, %lo: f32, %hi: f32) {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<4xf32>
    // expected-error @below {{'math.clampf' op has no lowering on the CPU paths}}
    %c = math.clampf %x to [%lo, %hi] : f32
    memref.store %c, %a[%i] : memref<4xf32>
  }
  return
}

// -----

func.func @print(%a: memref<4xf32>) {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<4xf32>
    // expected-error @below {{'vector.print' op cannot run on the device: it prints through host functions}}
    vector.print %x : f32
  }
  return
}

// -----

func.func @alloca_scope(%a: memref<4xf32>) {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-error @below {{'memref.alloca_scope' op cannot be lowered in a spawn body}}
    memref.alloca_scope {
      %t = memref.alloca() : memref<1xf32>
    }
  }
  return
}

// -----

func.func @float_generic_atomic(%a: memref<4xf32>, %acc: memref<1xf32>) {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%i] : memref<4xf32>
    // expected-error @below {{'memref.generic_atomic_rmw' op does not lower on a f32 element (LLVM's cmpxchg takes integers of 8 bits or more); use 'memref.atomic_rmw' or an integer buffer}}
    %r = memref.generic_atomic_rmw %acc[%c0] : memref<1xf32> {
    ^bb0(%cur: f32):
      %n = arith.addf %cur, %x : f32
      memref.atomic_yield %n : f32
    }
  }
  return
}

// -----

func.func @blackwell_on_hopper() {
  // expected-error @below {{'vx.spawn' op on 'tensor_core5' needs a Blackwell chip (sm_100 or newer), got 'sm_90'}}
  vx.spawn on tensor_core5 grid [4] semantics [parallel] {
  }
  return
}

// -----

func.func @smem_layout() {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-error @below {{'vx.scratch' op in shared memory needs the identity layout and no memory space, got 'memref<4xf32, strided<[2]>>'}}
    %s = vx.scratch smem : memref<4xf32, strided<[2]>>
  }
  return
}

// -----

// Host spawns may do anything the host can.
func.func private @host_fn2(f32)

func.func @host_call(%v: f32) {
  vx.spawn on host grid [4] semantics [parallel] {
    func.call @host_fn2(%v) : (f32) -> ()
  }
  return
}

// -----

// The GPU mapping counts CTAs in an index: a static grid beyond it is an
// error before anything is rewritten (the CPU path needs no product). One
// instance per CTA, so that the CTAs are as many as the instances.
func.func @static_overflow(%out: memref<?x?xi64>) {
  // expected-error @below {{'vx.spawn' op has more CTAs along its parallel dimensions (4611686018427387904 x 3) than the GPU mapping can count in an index (2^63-1); make a dimension 'arbitrary' or split the spawn}}
  vx.spawn on tensor_core grid [4611686018427387904, 3] semantics [parallel, parallel] threads 1 {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %one = arith.constant 1 : i64
    memref.store %one, %out[%i, %j] : memref<?x?xi64>
  }
  return
}

// -----

// The CTA's shared memory is checked against the chip's (dynamic shared
// memory: sm_90 gives 227 KiB, less the 16 bytes of the symbol).
func.func @smem_budget() {
  // expected-error @below {{'vx.spawn' op needs 240064 bytes of shared memory per CTA (240000 bytes of smem scratch per instance), more than the 232320 bytes of dynamic shared memory that 'sm_90' gives a CTA}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-note @below {{smem scratch of 200000 bytes per instance}}
    %a = vx.scratch smem : memref<50000xf32>
    // expected-note @below {{smem scratch of 40000 bytes per instance}}
    %b = vx.scratch smem : memref<5000xf64>
  }
  return
}

// -----

func.func @atomic_multiply(%a: memref<4xf32>, %v: f32) {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %c0 = arith.constant 0 : index
    // expected-error @below {{'memref.atomic_rmw' op 'mulf' does not lower (LLVM has no atomic multiplication); use 'memref.generic_atomic_rmw' on an integer buffer}}
    %r = memref.atomic_rmw mulf %v, %a[%c0] : (f32, memref<4xf32>) -> f32
  }
  return
}

// -----

func.func @atomic_bit(%a: memref<4xi1>, %v: i1) {
  // expected-note @below {{in this device spawn}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %c0 = arith.constant 0 : index
    // expected-error @below {{'memref.atomic_rmw' op does not lower on a i1 element (LLVM's atomics take integers of 8 bits or more)}}
    %r = memref.atomic_rmw assign %v, %a[%c0] : (i1, memref<4xi1>) -> i1
  }
  return
}

// What cannot run on the device is refused, naming the op.
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90" -split-input-file -verify-diagnostics

func.func private @host_fn(f32)

func.func @call(%v: f32) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-error @below {{'func.call' op cannot run on the device: device spawns may not call host functions}}
    func.call @host_fn(%v) : (f32) -> ()
  }
  return
}

// -----

func.func @alloc() {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-error @below {{'memref.alloc' op cannot run on the device: allocate per-instance memory with 'vx.scratch'}}
    %m = memref.alloc() : memref<4xf32>
  }
  return
}

// -----

func.func @tensor() {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-error @below {{'tensor.empty' op cannot run on the device: its dialect has no device lowering}}
    %t = tensor.empty() : tensor<4xf32>
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
// error before anything is rewritten (the CPU path needs no product).
func.func @static_overflow(%out: memref<?x?xi64>) {
  // expected-error @below {{'vx.spawn' op has more CTAs along its parallel dimensions (4611686018427387904 x 3) than the GPU mapping can count in an index (2^63-1); make a dimension 'arbitrary' or split the spawn}}
  vx.spawn on tensor_core grid [4611686018427387904, 3] semantics [parallel, parallel] {
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
  // expected-error @below {{'vx.spawn' op needs 240000 bytes of shared memory per CTA (240000 bytes of smem scratch per instance), more than the 232432 bytes of dynamic shared memory that 'sm_90' gives a CTA}}
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    // expected-note @below {{smem scratch of 200000 bytes per instance}}
    %a = vx.scratch smem : memref<50000xf32>
    // expected-note @below {{smem scratch of 40000 bytes per instance}}
    %b = vx.scratch smem : memref<5000xf64>
  }
  return
}

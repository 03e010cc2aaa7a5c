// What convert-vx-to-gpu cannot pipeline, and why: a remark per transfer
// under the stages option, a warning under a spawn's own stages clause.
// The code stays correct: such transfers keep their own awaits.
// RUN: vx-opt %s --convert-vx-to-gpu="stages=3 chip=sm_90" -split-input-file -verify-diagnostics

func.func @in_a_branch(%in: memref<64xf32>, %out: memref<8xf32>, %c: i1) {
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %in[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    scf.if %c {
      // expected-remark @below {{transfer is not pipelined: it is not directly in the spawn body (it would not run in every step)}}
      %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
      vx.await %t
    }
  }
  return
}

// -----

func.func @view_destination(%in: memref<64xf32>) {
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<16xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %in[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    %half = memref.subview %tile[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
    // expected-remark @below {{transfer is not pipelined: its destination is a view of the scratch; each step gets its own copy of the scratch, so the transfer must fill all of it}}
    %t = vx.transfer_async %src to %half : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32, strided<[1]>>
    vx.await %t
  }
  return
}

// -----

func.func @strided_source(%in: memref<64x2xf32>) {
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    %row = arith.muli %k, %c8 : index
    %src = memref.subview %in[%row, 0] [8, 1] [1, 1] : memref<64x2xf32> to memref<8xf32, strided<[2], offset: ?>>
    // expected-remark @below {{transfer lowers to a synchronous copy: cp.async needs unit stride along the innermost dimension}}
    // expected-remark @below {{transfer is not pipelined: it is not a cp.async copy: cp.async needs unit stride along the innermost dimension}}
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[2], offset: ?>> to memref<8xf32>
    vx.await %t
  }
  return
}

// -----

// Hand-written double buffering: the first transfer's token is carried
// into the loop, the loop's transfers are not in the body.
func.func @carried(%in: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %in[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is not pipelined: its token is not awaited in the same step, directly in the spawn body}}
    %t0 = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    %last = scf.for %i = %c0 to %c1 step %c1 iter_args(%t = %t0) -> !vx.token {
      vx.await %t
      // expected-remark @below {{transfer is not pipelined: it is not directly in the spawn body (it would not run in every step)}}
      %tn = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
      scf.yield %tn : !vx.token
    }
    vx.await %last
  }
  return
}

// -----

func.func @loaded_offset(%in: memref<64xf32>, %offsets: memref<8xindex>) {
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    // expected-note @below {{here}}
    %block = memref.load %offsets[%k] : memref<8xindex>
    %col = arith.muli %block, %c8 : index
    %src = memref.subview %in[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is not pipelined: its source depends on an op that a step cannot run ahead of time (one with memory effects or regions)}}
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vx.await %t
  }
  return
}

// -----

func.func @fixed_source(%in: memref<64xf32>) {
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<8xf32>
    %src = memref.subview %in[8] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: 8>>
    // expected-remark @below {{transfer is not pipelined: its source does not move with an arbitrary dimension}}
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: 8>> to memref<8xf32>
    vx.await %t
  }
  return
}

// -----

// Each step writes the tile it read back: a step ahead would read the tile
// before the write of the steps before it.
func.func @written_source(%io: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %io[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is not pipelined: the spawn may write the memory it reads, which a step ahead would read before the write}}
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vx.await %t
    %x = memref.load %tile[%c0] : memref<8xf32>
    %next = arith.addi %col, %c8 : index
    // expected-note @below {{here}}
    memref.store %x, %io[%next] : memref<64xf32>
  }
  return
}

// -----

// The same through a linalg op, whose writes are its own effects, not its
// body's (it is left to the CPU route when the pass runs alone).
func.func @filled_source(%io: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %io[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is not pipelined: the spawn may write the memory it reads, which a step ahead would read before the write}}
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vx.await %t
    %x = memref.load %tile[%c0] : memref<8xf32>
    %next = arith.addi %col, %c8 : index
    %dst = memref.subview %io[%next] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    // expected-note @below {{here}}
    linalg.fill ins(%x : f32) outs(%dst : memref<8xf32, strided<[1], offset: ?>>)
  }
  return
}

// -----

// A tile that carries state from one step to the next cannot have a slot
// per step.
func.func @used_before_await(%in: memref<64xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    // expected-note @below {{here}}
    %previous = memref.load %tile[%c0] : memref<8xf32>
    memref.store %previous, %out[%k] : memref<8xf32>
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %in[%col] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is not pipelined: its destination is used before the await (every use of a slot must follow the await of its step)}}
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vx.await %t
  }
  return
}

// -----

// The spawn's own clause asked for the stages: a warning.
func.func @clause(%in: memref<64xf32>) {
  vx.spawn on tensor_core grid [8] semantics [arbitrary] stages 2 {
    %tile = vx.scratch smem : memref<8xf32>
    %src = memref.subview %in[8] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: 8>>
    // expected-warning @below {{transfer is not pipelined: its source does not move with an arbitrary dimension}}
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: 8>> to memref<8xf32>
    vx.await %t
  }
  return
}

// -----

// The write reaches the source through a select (issue 27): the roots of
// both are compared, not the values their views start from.
func.func @written_source_through_select(%io: memref<72xf32>, %other: memref<72xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %tile = vx.scratch smem : memref<8xf32>
    %k = vx.grid_index 0
    %col = arith.muli %k, %c8 : index
    %src = memref.subview %io[%col] [8] [1] : memref<72xf32> to memref<8xf32, strided<[1], offset: ?>>
    // expected-remark @below {{transfer is not pipelined: the spawn may write the memory it reads, which a step ahead would read before the write}}
    %t = vx.transfer_async %src to %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vx.await %t
    %x = memref.load %tile[%c0] : memref<8xf32>
    %next = arith.addi %col, %c8 : index
    %target = arith.select %flag, %io, %other : memref<72xf32>
    // expected-note @below {{here}}
    memref.store %x, %target[%next] : memref<72xf32>
  }
  return
}

// -----

// A swizzled tile (the tensor cores read it) whose source does not move:
// loaded once, the step that writes it would hand the next step its write
// instead of the source. Not pipelined, and TMA alone writes the layout.
func.func @written_swizzled_fixed(%q: memref<64x64xbf16>, %k: memref<512x64xbf16>, %out: memref<512xbf16>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : bf16
  // expected-remark @below {{pipelines its transfers in 3 stages at a cost in occupancy}}
  vx.spawn on tensor_core grid [8] semantics [arbitrary] {
    %qt = vx.scratch smem {vx.swizzle = 128 : i64} : memref<64x64xbf16>
    %kt = vx.scratch smem {vx.swizzle = 128 : i64} : memref<64x64xbf16>
    %s = vx.grid_index 0
    %row = arith.muli %s, %c64 : index
    %ksrc = memref.subview %k[%row, 0] [64, 64] [1, 1] : memref<512x64xbf16> to memref<64x64xbf16, strided<[64, 1], offset: ?>>
    // expected-remark @below {{transfer is not pipelined: its source does not move with an arbitrary dimension and the spawn writes its destination, which every step must read as loaded}}
    // expected-error @below {{writes a tile that the tensor cores read in the swizzled layout of TMA, and is not a TMA copy}}
    %tq = vx.transfer_async %q to %qt : memref<64x64xbf16> to memref<64x64xbf16>
    %tk = vx.transfer_async %ksrc to %kt : memref<64x64xbf16, strided<[64, 1], offset: ?>> to memref<64x64xbf16>
    vx.await %tq
    vx.await %tk
    %x = memref.load %qt[%c0, %c0] : memref<64x64xbf16>
    %y = memref.load %kt[%c0, %c0] : memref<64x64xbf16>
    %z = arith.addf %x, %y : bf16
    memref.store %z, %out[%row] : memref<512xbf16>
    // expected-note @below {{here}}
    memref.store %zero, %qt[%c0, %c0] : memref<64x64xbf16>
  }
  return
}

// The kernels whose barriers issue 30 removed, run on every CPU route: a
// write outside thread loops that only thread 0 makes and rereads
// (test/Conversion/VxToGPU/map-cta-barriers.mlir), and thread loops whose
// bounds move with an enclosing loop, which meet on one thread. A missing
// barrier shows in the numbers on via-gpu in one of the two thread orders.
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true detect-races=true" | %mlir_runner -e main | FileCheck %s
// RUN: cat %s %S/Inputs/host-memory.mlir | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true detect-races=true" | %mlir_runner -e main | FileCheck %s
// The same on the PTX simulator's race check: PTXSim/barriers.mlir.

func.func private @printMemrefF32(memref<*xf32>)

// out[p, i] = a[p, 7 - i], plus 100 at i = 7: thread 0 stores the 100 in
// hist[0] outside the thread loops, iteration 0 (thread 0) adds a[p, 0].
func.func @thread_zero_store(%a: memref<2x8xf32>, %out: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %hundred = arith.constant 100.0 : f32
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 8 {
    %hist = vx.scratch smem : memref<8xf32>
    %p = vx.grid_index 0
    memref.store %hundred, %hist[%c0] : memref<8xf32>
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %x = memref.load %a[%p, %i] : memref<2x8xf32>
      %first = arith.cmpi eq, %i, %c0 : index
      %base = scf.if %first -> f32 {
        %h = memref.load %hist[%c0] : memref<8xf32>
        scf.yield %h : f32
      } else {
        scf.yield %zero : f32
      }
      %y = arith.addf %x, %base : f32
      memref.store %y, %hist[%i] : memref<8xf32>
    }
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %j = arith.subi %c7, %i : index
      %x = memref.load %hist[%j] : memref<8xf32>
      memref.store %x, %out[%p, %i] : memref<2x8xf32>
    }
  }
  return
}

// out[p, j, u, w] = a[p, w + j] * (u + 1) + j: the thread loops run v from
// j to j + 8; the next j overwrites s on other threads (a barrier at the
// head of the j loop), the second loop rereads what its own thread wrote.
func.func @moving_bounds(%a: memref<2x16xf32>, %out: memref<2x4x8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  vx.spawn on tensor_core grid [2] semantics [parallel] threads 64 {
    %s = vx.scratch smem : memref<8x12xf32>
    %p = vx.grid_index 0
    scf.for %j = %c0 to %c4 step %c1 {
      %ub = arith.addi %j, %c8 : index
      %jf = arith.index_cast %j : index to i32
      %shift = arith.sitofp %jf : i32 to f32
      scf.parallel (%u, %v) = (%c0, %j) to (%c8, %ub) step (%c1, %c1) {
        %x = memref.load %a[%p, %v] : memref<2x16xf32>
        %u1 = arith.addi %u, %c1 : index
        %ui = arith.index_cast %u1 : index to i32
        %uf = arith.sitofp %ui : i32 to f32
        %scaled = arith.mulf %x, %uf : f32
        %y = arith.addf %scaled, %shift : f32
        memref.store %y, %s[%u, %v] : memref<8x12xf32>
      }
      scf.parallel (%u, %v) = (%c0, %j) to (%c8, %ub) step (%c1, %c1) {
        %x = memref.load %s[%u, %v] : memref<8x12xf32>
        %w = arith.subi %v, %j : index
        memref.store %x, %out[%p, %j, %u, %w] : memref<2x4x8x8xf32>
      }
    }
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %a8 = memref.alloc() : memref<2x8xf32>
  %a16 = memref.alloc() : memref<2x16xf32>
  %out8 = memref.alloc() : memref<2x8xf32>
  %out = memref.alloc() : memref<2x4x8x8xf32>
  // a[p, i] = 10 p + i.
  scf.for %p = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %c16 step %c1 {
      %t = arith.muli %p, %c10 : index
      %n = arith.addi %t, %i : index
      %ni = arith.index_cast %n : index to i32
      %x = arith.sitofp %ni : i32 to f32
      memref.store %x, %a16[%p, %i] : memref<2x16xf32>
      %small = arith.cmpi ult, %i, %c8 : index
      scf.if %small {
        memref.store %x, %a8[%p, %i] : memref<2x8xf32>
      }
    }
  }
  %u8a = memref.cast %a8 : memref<2x8xf32> to memref<*xf32>
  %u16 = memref.cast %a16 : memref<2x16xf32> to memref<*xf32>
  %u8o = memref.cast %out8 : memref<2x8xf32> to memref<*xf32>
  %uo = memref.cast %out : memref<2x4x8x8xf32> to memref<*xf32>
  call @make_device_visible_f32(%u8a) : (memref<*xf32>) -> ()
  call @make_device_visible_f32(%u16) : (memref<*xf32>) -> ()
  call @make_device_visible_f32(%u8o) : (memref<*xf32>) -> ()
  call @make_device_visible_f32(%uo) : (memref<*xf32>) -> ()
  call @thread_zero_store(%a8, %out8) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
  call @moving_bounds(%a16, %out) : (memref<2x16xf32>, memref<2x4x8x8xf32>) -> ()
  // CHECK: Unranked Memref
  // CHECK-NEXT: {{\[\[}}7,   6,   5,   4,   3,   2,   1,   100],
  // CHECK-NEXT: [17,   16,   15,   14,   13,   12,   11,   110]]
  call @printMemrefF32(%u8o) : (memref<*xf32>) -> ()
  // out[1, 3, 7, :] = (13 .. 20) * 8 + 3; out[0, 2, 0, :] = (2 .. 9) + 2.
  // CHECK: Unranked Memref
  // CHECK-NEXT: {{\[\[\[\[}}107,   115,   123,   131,   139,   147,   155,   163]]]]
  // CHECK: Unranked Memref
  // CHECK-NEXT: {{\[\[\[\[}}4,   5,   6,   7,   8,   9,   10,   11]]]]
  %last = memref.subview %out[1, 3, 7, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<2x4x8x8xf32> to memref<1x1x1x8xf32, strided<[256, 64, 8, 1], offset: 504>>
  %mid = memref.subview %out[0, 2, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<2x4x8x8xf32> to memref<1x1x1x8xf32, strided<[256, 64, 8, 1], offset: 128>>
  %ul = memref.cast %last : memref<1x1x1x8xf32, strided<[256, 64, 8, 1], offset: 504>> to memref<*xf32>
  %um = memref.cast %mid : memref<1x1x1x8xf32, strided<[256, 64, 8, 1], offset: 128>> to memref<*xf32>
  call @printMemrefF32(%ul) : (memref<*xf32>) -> ()
  call @printMemrefF32(%um) : (memref<*xf32>) -> ()
  memref.dealloc %a8 : memref<2x8xf32>
  memref.dealloc %a16 : memref<2x16xf32>
  memref.dealloc %out8 : memref<2x8xf32>
  memref.dealloc %out : memref<2x4x8x8xf32>
  return
}

// The point of running the threads of a block in either order: a kernel
// that misses a barrier gives different numbers in the two orders, where a
// correct kernel (thread-phases.mlir) gives the same.
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s --check-prefix=FORWARD
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s --check-prefix=REVERSE

func.func private @printMemrefF32(memref<*xf32>)

// Meant to be out[t] = in[(t + 1) % 8] = t + 2 (8 for t = 7, with in[t] =
// t + 1) through shared memory, but the barrier between the writes of `in`
// and the reads of the neighbour's element is missing, so a thread may read
// the 0 written before the first barrier. Threads 0 to 6 read their
// neighbour's element before it is written in the order 0 to 7, only
// thread 7 does in the order 7 to 0.
// FORWARD: [0,  0,  0,  0,  0,  0,  0,  1]
// REVERSE: [2,  3,  4,  5,  6,  7,  8,  0]
func.func @rotate_racy(%in: memref<8xf32>, %out: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1)
             workgroup(%wg : memref<8xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %wg : memref<8xf32, #gpu.address_space<workgroup>> to memref<8xf32>
    memref.store %zero, %tile[%t] : memref<8xf32>
    gpu.barrier
    %x = memref.load %in[%t] : memref<8xf32>
    memref.store %x, %tile[%t] : memref<8xf32>
    %n0 = arith.addi %t, %c1 : index
    %n = arith.remui %n0, %c8 : index
    %y = memref.load %tile[%n] : memref<8xf32>
    memref.store %y, %out[%t] : memref<8xf32>
    gpu.terminator
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %in = memref.alloc() : memref<8xf32>
  %out = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %v = arith.index_cast %i1 : index to i64
    %f = arith.sitofp %v : i64 to f32
    memref.store %f, %in[%i] : memref<8xf32>
  }
  func.call @rotate_racy(%in, %out) : (memref<8xf32>, memref<8xf32>) -> ()
  %u = memref.cast %out : memref<8xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %in : memref<8xf32>
  memref.dealloc %out : memref<8xf32>
  return
}

// 4096 parallel points with 64 KiB of scratch each: x[i] = sum of the
// point's scratch, which holds i + j at j for j < 16384 (checksum below).
func.func @fill(%x: memref<4096xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16384 = arith.constant 16384 : index
  %zero = arith.constant 0 : i32
  vx.spawn on tensor_core grid [4096] semantics [parallel] {
    %s = vx.scratch : memref<16384xi32>
    %i = vx.grid_index 0
    scf.for %j = %c0 to %c16384 step %c1 {
      %v = arith.addi %i, %j : index
      %w = arith.index_cast %v : index to i32
      memref.store %w, %s[%j] : memref<16384xi32>
    }
    %sum = scf.for %j = %c0 to %c16384 step %c1 iter_args(%acc = %zero) -> i32 {
      %v = memref.load %s[%j] : memref<16384xi32>
      %n = arith.addi %acc, %v : i32
      scf.yield %n : i32
    }
    %wide = arith.extsi %sum : i32 to i64
    memref.store %wide, %x[%i] : memref<4096xi64>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %x = memref.alloc() : memref<4096xi64>
  func.call @fill(%x) : (memref<4096xi64>) -> ()
  // The row sums modulo 2^32 summed with a stride, to keep the output small.
  %zero = arith.constant 0 : i64
  %c512 = arith.constant 512 : index
  %total = scf.for %i = %c0 to %c4096 step %c512 iter_args(%t = %zero) -> i64 {
    %v = memref.load %x[%i] : memref<4096xi64>
    %n = arith.addi %t, %v : i64
    scf.yield %n : i64
  }
  vector.print %total : i64
  memref.dealloc %x : memref<4096xi64>
  return
}

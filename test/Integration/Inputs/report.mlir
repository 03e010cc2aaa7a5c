// Prints "sum count" of out: with every instance run once, sum is
// total * (total + 1) / 2 and count (non-zero entries) is total.
func.func @report(%out: memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %size = memref.dim %out, %c0 : memref<?xi64>
  %sum, %count = scf.for %i = %c0 to %size step %c1
      iter_args(%s = %zero, %n = %zero) -> (i64, i64) {
    %x = memref.load %out[%i] : memref<?xi64>
    %s1 = arith.addi %s, %x : i64
    %nz = arith.cmpi ne, %x, %zero : i64
    %inc = arith.select %nz, %one, %zero : i64
    %n1 = arith.addi %n, %inc : i64
    scf.yield %s1, %n1 : i64, i64
  }
  vector.print %sum : i64
  vector.print %count : i64
  linalg.fill ins(%zero : i64) outs(%out : memref<?xi64>)
  return
}


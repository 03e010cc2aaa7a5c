// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics -o /dev/null

// A narrow reading of a value whose range spans more than 2^16 wrap counts
// is a column of its own (docs/design.md). It is defined inside the thread
// loop, so each iteration has its own: found by the soundness fuzzer (seed
// 5000, @k64991), where the two iterations shared one and the checker
// proved a race that is not there. %pick is %t in every instance (%g never
// equals 2^63 - 1): race-free, but the reading is approximate.
func.func @wide_select(%b: memref<?xf32>, %value: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %huge = arith.constant 9223372036854775807 : index
  vx.spawn on host grid [5] semantics [arbitrary] {
    %g = vx.grid_index 0
    scf.parallel (%t) = (%c0) to (%c4) step (%c1) {
      %never = arith.cmpi eq, %g, %huge : index
      %pick = arith.select %never, %huge, %t : index
      %wide = arith.index_cast %pick : index to i64
      %low = arith.trunci %wide : i64 to i16
      %zext = arith.extui %low : i16 to i64
      %slot = arith.index_cast %zext : i64 to index
      // expected-warning @below {{cannot prove that the iterations of the thread loop touch distinct elements: the address uses the result of 'arith.trunci'}}
      memref.store %value, %b[%slot] : memref<?xf32>
    }
  }
  return
}

// -----

// The same reading of a value that is one in every instance is shared by
// the iterations: their race on it is proven.
func.func @wide_reading_of_an_instance_value(%b: memref<?xf32>, %value: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %large = arith.constant 1099511627776 : i64
  vx.spawn on host grid [5] semantics [arbitrary] {
    %g = vx.grid_index 0
    %gi = arith.index_cast %g : index to i64
    %scaled = arith.muli %gi, %large : i64
    %low = arith.trunci %scaled : i64 to i16
    %zext = arith.extui %low : i16 to i64
    %slot = arith.index_cast %zext : i64 to index
    scf.parallel (%t) = (%c0) to (%c4) step (%c1) {
      // expected-note @-1 {{the iterations of a thread loop must be independent}}
      // expected-error @below {{iterations (3) and (0) of a thread loop (instance (4)) write the same element}}
      memref.store %value, %b[%slot] : memref<?xf32>
    }
  }
  return
}

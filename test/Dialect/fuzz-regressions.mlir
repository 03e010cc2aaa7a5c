// A fuzzer input (a spawn outside any function, a mangled op) that once
// tripped ASan's use-after-poison check in scripts/sanitize.sh's build: the
// BumpPtrAllocator code inlined into Vx poisons a fresh slab that the
// uninstrumented libMLIR then allocates from without unpoisoning. The
// sanitizer build runs with allow_user_poisoning=0; here the input must get
// a diagnostic and exit code 1.
// RUN: not vx-opt --vx-to-scf < %s 2>&1 | FileCheck %s

// CHECK: error: Dialect `' not found for custom op 'is'
%c0 = arith.constant 0 : index
vx.spawn on host grid [4] semantics [parallel] {
 is    arith.remui = vx.scratch : memref<1xf32>
  %v, memref.store %v, %s[%c0] : memref<1xf32>
}

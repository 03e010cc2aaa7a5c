// vx-set-sim-order: a constructor of priority 101 (before the module loads of
// the gpu.binary ops, priority 123) calls vxSimSetOrder, appended to the
// module's own constructors.
// RUN: vx-opt %s --vx-set-sim-order="order=shuffle:42" | FileCheck %s
// RUN: vx-opt %s --vx-set-sim-order | FileCheck %s --check-prefix=DEFAULT
// RUN: not vx-opt %s --vx-set-sim-order="order=shuffle:-1" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not vx-opt %s --vx-set-sim-order="order=sideways" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: vx-opt %s --vx-set-sim-order | not vx-opt --vx-set-sim-order 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: vx-opt %S/Inputs/set-sim-order-invalid.mlir --vx-set-sim-order -split-input-file -verify-diagnostics
// The constructors run in priority order under mlir-runner.
// RUN: vx-opt %s --vx-set-sim-order="order=reverse" | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so 2>&1 | FileCheck %s --check-prefix=ORDER

// The module's own @vxSimSetOrder is called; none is declared.
// CHECK-NOT: llvm.func @vxSimSetOrder(!llvm.ptr)
// CHECK: llvm.mlir.global internal constant @vx_sim_order("shuffle:42\00")
// CHECK: llvm.func internal @vx_set_sim_order() {
// CHECK-NEXT: %[[TEXT:.*]] = llvm.mlir.addressof @vx_sim_order : !llvm.ptr
// CHECK-NEXT: llvm.call @vxSimSetOrder(%[[TEXT]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.return
// CHECK: llvm.mlir.global_ctors ctors = [@late, @vx_set_sim_order], priorities = [200 : i32, 101 : i32], data = [#llvm.zero, #llvm.zero]
// CHECK-NOT: llvm.mlir.global_ctors
// DEFAULT: @vx_sim_order("forward\00")
// BAD: error: vx-set-sim-order: order must be 'forward', 'reverse', 'shuffle' or 'shuffle:SEED', got '
// TWICE: error: vx-set-sim-order: the module already defines @vx_set_sim_order
// ORDER: reverse
// ORDER-NEXT: late
// ORDER-NEXT: main

llvm.func @puts(!llvm.ptr) -> i32
llvm.mlir.global internal constant @late_text("late\00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @main_text("main\00") {addr_space = 0 : i32}
llvm.func @late() {
  %text = llvm.mlir.addressof @late_text : !llvm.ptr
  %0 = llvm.call @puts(%text) : (!llvm.ptr) -> i32
  llvm.return
}
llvm.mlir.global_ctors ctors = [@late], priorities = [200 : i32], data = [#llvm.zero]
// Stands in for the simulator: prints the order it is given.
llvm.func @vxSimSetOrder(%order: !llvm.ptr) {
  %0 = llvm.call @puts(%order) : (!llvm.ptr) -> i32
  llvm.return
}
llvm.func @main() {
  %text = llvm.mlir.addressof @main_text : !llvm.ptr
  %0 = llvm.call @puts(%text) : (!llvm.ptr) -> i32
  llvm.return
}

// Modules that vx-set-sim-order refuses (test/Transforms/set-sim-order.mlir).

// expected-error@+1 {{vx-set-sim-order: the module already defines @vx_sim_order}}
module {
  llvm.mlir.global internal constant @vx_sim_order("forward\00") {addr_space = 0 : i32}
}

// -----

module {
  // expected-error@+1 {{vx-set-sim-order: @vxSimSetOrder must have type '!llvm.func<void (ptr)>'}}
  llvm.func @vxSimSetOrder(i32)
}

// -----

// expected-error@+1 {{vx-set-sim-order: @vxSimSetOrder is not an llvm.func}}
module {
  llvm.mlir.global internal @vxSimSetOrder(0 : i32) : i32
}

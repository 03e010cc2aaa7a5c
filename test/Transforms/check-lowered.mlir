// vx-check-lowered names the first op outside the stage's dialects (an
// unrealized cast is never lowered; with no dialects, vx ops are what must
// be gone).
// RUN: not vx-opt %s --vx-check-lowered="stage=llvm dialects=builtin.module,llvm" -split-input-file 2>&1 | FileCheck %s --check-prefix=LLVM
// RUN: not vx-opt %s --vx-check-lowered -split-input-file 2>&1 | FileCheck %s --check-prefix=ANY

// LLVM: :[[# @LINE + 4]]:8: error: 'builtin.unrealized_conversion_cast' op was left unlowered by vx-to-llvm; its output holds only builtin.module, llvm
// ANY: :[[# @LINE + 3]]:8: error: 'builtin.unrealized_conversion_cast' op was left unlowered by the pipeline
llvm.func @cast() {
  %c = llvm.mlir.constant(0 : index) : i64
  %i = builtin.unrealized_conversion_cast %c : i64 to index
  llvm.return
}

// -----

// LLVM: :[[# @LINE + 2]]:1: error: 'func.func' op was left unlowered by vx-to-llvm
// ANY-NOT: 'func.func' op
func.func @func_left() {
  return
}

// -----

// LLVM-NOT: 'llvm.func' op
// ANY-NOT: 'llvm.func' op
llvm.func @lowered() {
  llvm.return
}

// -----

// LLVM: :[[# @LINE + 3]]:1: error: 'func.func' op was left unlowered
// ANY: :[[# @LINE + 3]]:3: error: 'vx.spawn' op was left unlowered by the pipeline
// ANY-NOT: error
func.func @spawn() {
  vx.spawn on host grid [2] semantics [parallel] {
  }
  return
}

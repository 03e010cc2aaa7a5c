// RUN: vx-opt %s --vx-carry-bf16-as-integers --split-input-file | FileCheck %s

// A bf16 load stored in another block: the bits cross, the store stores them.
// CHECK-LABEL: llvm.func @guarded_copy
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> bf16
// CHECK-NEXT: %[[BITS:.*]] = llvm.bitcast %[[X]] : bf16 to i16
// CHECK: ^bb1:
// CHECK-NEXT: llvm.store %[[BITS]], %{{.*}} : i16, !llvm.ptr
llvm.func @guarded_copy(%a: !llvm.ptr, %b: !llvm.ptr, %c: i1) {
  %x = llvm.load %a : !llvm.ptr -> bf16
  llvm.cond_br %c, ^bb1, ^bb2
^bb1:
  llvm.store %x, %b : bf16, !llvm.ptr
  llvm.br ^bb2
^bb2:
  llvm.return
}

// -----

// A bf16 block argument becomes i16; arithmetic in the block gets its bf16
// back, and uses in the defining block stay as they are.
// CHECK-LABEL: llvm.func @select_then_use
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<2xbf16>
// CHECK-NEXT: llvm.fpext %[[X]] : vector<2xbf16> to vector<2xf32>
// CHECK-NEXT: %[[BITS:.*]] = llvm.bitcast %[[X]] : vector<2xbf16> to vector<2xi16>
// CHECK-NEXT: llvm.br ^bb1(%[[BITS]] : vector<2xi16>)
// CHECK: ^bb1(%[[ARG:.*]]: vector<2xi16>):
// CHECK-NEXT: %[[BACK:.*]] = llvm.bitcast %[[ARG]] : vector<2xi16> to vector<2xbf16>
// CHECK-NEXT: llvm.fpext %[[BACK]] : vector<2xbf16> to vector<2xf32>
// CHECK-NEXT: llvm.store %[[ARG]], %{{.*}} : vector<2xi16>, !llvm.ptr
llvm.func @select_then_use(%a: !llvm.ptr, %b: !llvm.ptr) -> vector<2xf32> {
  %x = llvm.load %a : !llvm.ptr -> vector<2xbf16>
  %y = llvm.fpext %x : vector<2xbf16> to vector<2xf32>
  llvm.br ^bb1(%x : vector<2xbf16>)
^bb1(%v: vector<2xbf16>):
  %z = llvm.fpext %v : vector<2xbf16> to vector<2xf32>
  llvm.store %v, %b : vector<2xbf16>, !llvm.ptr
  %s = llvm.fadd %y, %z : vector<2xf32>
  llvm.return %s : vector<2xf32>
}

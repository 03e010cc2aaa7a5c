// The race detector (detect-races=true) tells the iterations of an
// affine.parallel apart, as it does those of an scf.parallel: a
// read-modify-write of one shared element in every iteration is reported
// with both iterations, on the CPU route and through via-gpu.
// RUN: vx-opt %s --vx-to-llvm="allow-races=true detect-races=true" 2>/dev/null | not %mlir_runner -e racy 2>&1 | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="allow-races=true detect-races=true via-gpu=true" 2>/dev/null | not %mlir_runner -e racy 2>&1 | FileCheck %s

// s[0] += 1 in every iteration: the threads would lose updates.
// CHECK: vx: data race in the spawn at {{.*}}thread-loop-races.mlir:[[@LINE+7]]:3 on element [0] of the scratch at {{.*}}thread-loop-races.mlir:{{[0-9]+}}:{{[0-9]+}}:
// CHECK-NEXT: instance ([[I:[0-3]]]), iteration ({{[0-7]}}) of the thread loop at {{.*}}thread-loop-races.mlir:[[@LINE+9]]:5 {{reads|writes}} it
// CHECK-NEXT: instance ([[I]]), iteration ({{[0-7]}}) of the thread loop at {{.*}} {{reads|writes}} it
// CHECK-NEXT: the iterations of a thread loop must be independent
func.func @racy() {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %s = vx.scratch smem : memref<8xf32>
    memref.store %one, %s[%c0] : memref<8xf32>
    affine.parallel (%t) = (0) to (8) {
      %x = memref.load %s[%c0] : memref<8xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %s[%c0] : memref<8xf32>
    }
  }
  return
}


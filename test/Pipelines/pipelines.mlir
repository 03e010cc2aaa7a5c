// Every pipeline starts with vx-verify-semantics.
// The runs that need the CUDA toolkit are in pipelines-ptx.mlir.
// RUN: not vx-opt %s --vx-to-scf 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not vx-opt %s --vx-to-gpu 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not vx-opt %s --vx-to-nvvm 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not vx-opt %s --vx-to-llvm 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not vx-opt %s --vx-to-llvm="via-gpu=true" 2>&1 | FileCheck %s --check-prefix=RACE
// threads-per-block belongs to the GPU mapping.
// RUN: not vx-opt %s --vx-to-llvm="threads-per-block=4" 2>&1 | FileCheck %s --check-prefix=TPB
// So does stages (VX_SPEC 2.2): taken by every GPU stage and by vx-to-llvm
// with via-gpu, passed to convert-vx-to-gpu, and at least 1.
// RUN: not vx-opt %s --vx-to-llvm="stages=2" 2>&1 | FileCheck %s --check-prefix=STAGES-CPU
// RUN: vx-opt %S/../../examples/matmul.mlir --vx-to-gpu="stages=3" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGES3
// RUN: vx-opt %S/../../examples/matmul.mlir --vx-to-nvvm="stages=2" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGES2
// RUN: vx-opt %S/../../examples/matmul.mlir --vx-to-llvm="via-gpu=true stages=2" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGES2
// RUN: not vx-opt %s --vx-to-gpu="stages=0" 2>&1 | FileCheck %s --check-prefix=STAGES0
// RUN: not vx-opt %s --vx-to-ptx="stages=-1" 2>&1 | FileCheck %s --check-prefix=STAGES-NEGATIVE

// RACE: error: write to memory captured by the spawn does not depend on parallel dimension 0
// TPB: vx-to-llvm: 'threads-per-block' applies only with 'via-gpu=true' or 'ptx-sim=true'
// STAGES-CPU: vx-to-llvm: 'stages' applies only with 'via-gpu=true' or 'ptx-sim=true'
// STAGES3: convert-vx-to-gpu{chip= fma=true stages=3 threads-per-block=0}
// STAGES2: convert-vx-to-gpu{{.*}} stages=2 threads-per-block=0}
// STAGES4: convert-vx-to-gpu{chip=sm_90 fma=true stages=4 threads-per-block=0}
// STAGES0: vx-to-gpu: stages must be at least 1, got 0
// STAGES-NEGATIVE: vx-to-ptx: stages must be at least 1, got -1
func.func @mislabelled(%a: memref<1xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    memref.store %v, %a[%c0] : memref<1xf32>
  }
  return
}

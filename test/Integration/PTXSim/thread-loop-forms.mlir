// thread-loop-forms.mlir on the PTX simulator, checked like the CPU and
// via-gpu runs: affine.parallel thread loops, and a transfer that each
// thread issues (per-thread cp.async on sm_80 and newer) and awaits in its
// own thread-loop iteration. ptxas assembles the PTX, which waits for the
// thread's own cp.async group with no barrier after it.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: cat %S/../thread-loop-forms.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80" | %mlir_runner_sim -e main | FileCheck %S/../thread-loop-forms.mlir
// RUN: cat %S/../thread-loop-forms.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_80 sim-order=reverse threads-per-block=3" | %mlir_runner_sim -e main | FileCheck %S/../thread-loop-forms.mlir
// RUN: cat %S/../thread-loop-forms.mlir | vx-opt --test-vx-register-host-memory --vx-to-llvm="ptx-sim=true chip=sm_90a sim-order=shuffle:1" | %mlir_runner_sim -e main | FileCheck %S/../thread-loop-forms.mlir
// RUN: vx-opt %S/../thread-loop-forms.mlir --vx-to-ptx="chip=sm_80" -o %t/ptx.mlir
// RUN: %extract_ptx %t/ptx.mlir %t/ptx
// RUN: FileCheck %s < %t/ptx/rows_kernel.ptx
// RUN: %ptxas -arch=sm_80 %t/ptx/rows_kernel.ptx -o %t/rows.cubin
// RUN: %ptxas -arch=sm_80 %t/ptx/reverse_kernel.ptx -o %t/reverse.cubin

// CHECK-COUNT-4: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK-NEXT: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group{{[[:space:]]+}}0;
// CHECK-NOT: bar.sync
// CHECK: ld.shared.b32

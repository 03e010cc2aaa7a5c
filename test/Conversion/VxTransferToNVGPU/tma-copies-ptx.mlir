// The TMA loads of tma-copies.mlir assemble with ptxas for sm_90a.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %S/tma-copies.mlir --test-vx-tma-copies --vx-to-ptx="chip=sm_90a" -o %t/tma.mlir
// RUN: %extract_ptx %t/tma.mlir %t/ptx
// RUN: FileCheck %s < %t/ptx/steps_kernel.ptx
// RUN: %ptxas -arch=sm_90a %t/ptx/rows_kernel.ptx -o %t/rows.cubin
// RUN: %ptxas -arch=sm_90a %t/ptx/heads_kernel.ptx -o %t/heads.cubin
// RUN: %ptxas -arch=sm_90a %t/ptx/steps_kernel.ptx -o %t/steps.cubin

// Two barriers, each initialized by one thread; per step, the bytes of each
// tile announced and the tile loaded by that thread, then waited for with
// the step's parity.
// CHECK: .target sm_90a
// CHECK: .shared .align 8 .b8 [[BARRIERS:.*]][16];
// CHECK-COUNT-2: mbarrier.init.shared.b64
// CHECK: bar.sync 0;
// CHECK: mbarrier.arrive.expect_tx.shared.b64 _, [{{.*}}], {{.*}};
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: mbarrier.try_wait.parity.shared.b64

// The PTX of pipeline-transfers.mlir's kernels (its PTX* checks): cp.async
// waits for all but N-2 groups, TMA loads, and ptxas assembles each.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %S/pipeline-transfers.mlir --vx-to-ptx="chip=sm_80 stages=3 threads-per-block=1" -o %t/three.mlir
// RUN: %extract_ptx %t/three.mlir %t/three
// RUN: FileCheck %S/pipeline-transfers.mlir --check-prefix=PTX3 < %t/three/rows_kernel.ptx
// RUN: vx-opt %S/pipeline-transfers.mlir --vx-to-ptx="chip=sm_89 stages=4 threads-per-block=1" -o %t/four.mlir
// RUN: %extract_ptx %t/four.mlir %t/four
// RUN: FileCheck %S/pipeline-transfers.mlir --check-prefix=PTX4 < %t/four/rows_kernel.ptx
// RUN: %ptxas -arch=sm_80 %t/three/rows_kernel.ptx -o %t/three.cubin
// RUN: %ptxas -arch=sm_89 %t/four/rows_kernel.ptx -o %t/four.cubin
// RUN: vx-opt %S/pipeline-transfers.mlir --vx-to-ptx="chip=sm_90a stages=3 threads-per-block=1" -o %t/tma.mlir
// RUN: %extract_ptx %t/tma.mlir %t/tma
// RUN: FileCheck %S/pipeline-transfers.mlir --check-prefix=PTXTMA < %t/tma/rows_kernel.ptx
// RUN: %ptxas -arch=sm_90a %t/tma/rows_kernel.ptx -o %t/tma.cubin
// RUN: vx-opt %S/pipeline-transfers.mlir --vx-to-ptx="chip=sm_90a stages=1 threads-per-block=1" -o %t/tma1.mlir
// RUN: %extract_ptx %t/tma1.mlir %t/tma1
// RUN: %ptxas -arch=sm_90a %t/tma1/rows_kernel.ptx -o %t/tma1.cubin

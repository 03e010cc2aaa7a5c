// A read-only kernel input loads with ld.global.nc; the output stores plainly.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %S/noalias.mlir --vx-to-ptx -o %t/scale.mlir
// RUN: %extract_ptx %t/scale.mlir %t/scale
// RUN: FileCheck %s < %t/scale/scale_kernel.ptx
// RUN: %ptxas -arch=sm_90 %t/scale/scale_kernel.ptx -o %t/scale.cubin

// CHECK: ld.global.nc.b32
// CHECK: st.global.b32

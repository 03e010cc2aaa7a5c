// REQUIRES: ptxas
// The report of the examples with ptxas's numbers (vx-report after
// --vx-to-ptx with PTX): a change in the mapping or in the code ptxas gets
// shows here. matmul with 3 stages needs 3 slots of its A and B tiles.
// RUN: vx-opt %vx_root/examples/matmul.mlir --vx-to-ptx --vx-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=MATMUL
// RUN: vx-opt %vx_root/examples/matmul.mlir --vx-to-ptx="stages=3" --vx-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: vx-opt %vx_root/examples/softmax.mlir --vx-to-ptx --vx-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=SOFTMAX
// RUN: vx-opt %vx_root/examples/attention.mlir --vx-to-ptx --vx-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATTENTION
// The binary formats hold no PTX to ask ptxas about: the mapping only.
// RUN: vx-opt %vx_root/examples/matmul.mlir --vx-to-ptx="format=bin" --vx-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUBIN

// MATMUL: matmul.mlir:24:3: remark: kernel matmul_kernel: grid=(2, 3, 1) block=(256, 1, 1) instances_per_cta=1 shared_bytes=8192 stages=1 registers=128 spill_bytes=0 stack_bytes=0
// STAGES: remark: kernel matmul_kernel: grid=(2, 3, 1) block=(256, 1, 1) instances_per_cta=1 shared_bytes=24576 stages=3 registers=128 spill_bytes=0 stack_bytes=0
// SOFTMAX: softmax.mlir:18:3: remark: kernel softmax_kernel: grid=(6, 1, 1) block=(256, 1, 1) instances_per_cta=1 shared_bytes=160 stages=1 registers=23 spill_bytes=0 stack_bytes=0
// ATTENTION: attention.mlir:23:3: remark: kernel attention_kernel: grid=(1, 2, 2) block=(64, 1, 1) instances_per_cta=1 shared_bytes=32768 stages=1 registers=196 spill_bytes=0 stack_bytes=0
// CUBIN: remark: kernel matmul_kernel: grid=(2, 3, 1) block=(256, 1, 1) instances_per_cta=1 shared_bytes=8192 stages=1{{$}}

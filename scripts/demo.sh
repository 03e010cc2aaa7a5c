#!/usr/bin/env bash
# Sets up and builds Vx, then takes the attention example through every stage
# (vx, scf, gpu, nvvm, ptx, and ptxas on the PTX) and runs the examples
# (attention, matmul, softmax: CTA-cooperative kernels with thread loops) on
# the CPU, directly and through the GPU mapping; then the same from Python.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
VX_OPT="$VX_ROOT/build/bin/vx-opt"
EXAMPLE="$VX_ROOT/examples/attention.mlir"
OUT="$VX_ROOT/build/demo"
LIBS=/usr/lib/llvm-22/lib
RUNNER=(mlir-runner -e main -entry-point-result=void
        "-shared-libs=$LIBS/libmlir_runner_utils.so,$LIBS/libmlir_c_runner_utils.so,$LIBS/libomp.so")
mkdir -p "$OUT"

echo "=== vx: attention.mlir parsed and verified (vx-verify-semantics)"
"$VX_OPT" "$EXAMPLE" --vx-verify-semantics
echo "=== scf (--vx-to-scf): parallel dims as scf.parallel, arbitrary dims as scf.for"
"$VX_OPT" "$EXAMPLE" --vx-to-scf
echo "=== gpu (--vx-to-gpu): the launch geometry"
"$VX_OPT" "$EXAMPLE" --vx-to-gpu | grep -E "gpu.launch_func|gpu.func"
echo "=== nvvm (--vx-to-nvvm): the NVVM target and the kernel"
"$VX_OPT" "$EXAMPLE" --vx-to-nvvm | grep -E "#nvvm.target|llvm.func @attention_kernel"
echo "=== ptx (--vx-to-ptx): $OUT/ptx/"
"$VX_OPT" "$EXAMPLE" --vx-to-ptx -o "$OUT/attention.ptx.mlir"
/usr/bin/python3 "$VX_ROOT/test/Inputs/extract_ptx.py" "$OUT/attention.ptx.mlir" "$OUT/ptx"
grep -E "^\.(version|target)|\.entry" "$OUT"/ptx/*.ptx
PTXAS="${CUDA_HOME:-/usr/local/cuda}/bin/ptxas"
if [ -x "$PTXAS" ]; then
  echo "=== ptxas -arch=sm_90 on the PTX"
  for ptx in "$OUT"/ptx/*.ptx; do
    "$PTXAS" -arch=sm_90 "$ptx" -o "${ptx%.ptx}.cubin"
    echo "$(basename "${ptx%.ptx}.cubin"): $(stat -c %s "${ptx%.ptx}.cubin") bytes"
  done
else
  echo "=== no ptxas at $PTXAS: PTX not assembled"
fi

echo "=== llvm (--vx-to-llvm): attention on the CPU, online softmax beside a plain softmax"
cat "$EXAMPLE" "$VX_ROOT/test/Integration/attention.mlir" |
  "$VX_OPT" --vx-to-llvm | "${RUNNER[@]}"
echo "=== the same through the GPU mapping (--vx-to-llvm=\"via-gpu=true\")"
cat "$EXAMPLE" "$VX_ROOT/test/Integration/attention.mlir" |
  "$VX_OPT" --vx-to-llvm="via-gpu=true" | "${RUNNER[@]}"
MATMUL=("$VX_ROOT/examples/matmul.mlir" "$VX_ROOT/test/Integration/matmul.mlir"
        "$VX_ROOT/test/Integration/Inputs/host-memory.mlir")
echo "=== matmul on the CPU with OpenMP, kernel beside the reference loop"
cat "${MATMUL[@]}" | "$VX_OPT" --vx-to-llvm="openmp=true" | "${RUNNER[@]}"
echo "=== matmul through the GPU mapping, 4 threads per block"
cat "${MATMUL[@]}" |
  "$VX_OPT" --vx-to-llvm="via-gpu=true threads-per-block=4" | "${RUNNER[@]}"
SOFTMAX=("$VX_ROOT/examples/softmax.mlir" "$VX_ROOT/test/Integration/softmax.mlir")
echo "=== softmax (one CTA per row, thread-loop reductions) on the CPU with OpenMP"
cat "${SOFTMAX[@]}" | "$VX_OPT" --vx-to-llvm="openmp=true" | "${RUNNER[@]}"

echo "=== Python (build/python_packages): python/examples/attention.py"
PYTHONPATH="$VX_ROOT/build/python_packages" /usr/bin/python3 \
  "$VX_ROOT/python/examples/attention.py" "$OUT"

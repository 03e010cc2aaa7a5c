#!/usr/bin/env bash
# Sets up and builds Vx, then takes the examples through every stage that
# exists: parse and verify, the scf stage, and CPU execution.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
VX_OPT="$VX_ROOT/build/bin/vx-opt"
LIBS=/usr/lib/llvm-22/lib
RUNNER=(mlir-runner -e main -entry-point-result=void
        "-shared-libs=$LIBS/libmlir_runner_utils.so,$LIBS/libmlir_c_runner_utils.so,$LIBS/libomp.so")

for example in "$VX_ROOT"/examples/*.mlir; do
  echo "=== $(basename "$example"): parsed and verified"
  "$VX_OPT" "$example"
  echo "=== $(basename "$example"): --vx-to-scf"
  "$VX_OPT" "$example" --vx-to-scf
done

echo "=== attention on the CPU (--vx-to-llvm), online softmax beside a plain softmax"
cat "$VX_ROOT/examples/attention.mlir" "$VX_ROOT/test/Integration/attention.mlir" |
  "$VX_OPT" --vx-to-llvm | "${RUNNER[@]}"
echo "=== matmul on the CPU (--vx-to-llvm), kernel beside the reference loop"
cat "$VX_ROOT/examples/matmul.mlir" "$VX_ROOT/test/Integration/matmul.mlir" |
  "$VX_OPT" --vx-to-llvm | "${RUNNER[@]}"
echo "=== the same with OpenMP (--vx-to-llvm=\"openmp=true\")"
cat "$VX_ROOT/examples/matmul.mlir" "$VX_ROOT/test/Integration/matmul.mlir" |
  "$VX_OPT" --vx-to-llvm="openmp=true" | "${RUNNER[@]}"

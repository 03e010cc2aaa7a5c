#!/usr/bin/env bash
# Sets up and builds Vx, then runs the benchmarks of bench/ and rewrites
# bench/RESULTS.md. Not part of the tests: it needs the CUDA toolkit (nvcc,
# ptxas) and a quiet machine. Extra arguments go to bench/bench.py.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
CUDA="${CUDA_HOME:-/usr/local/cuda}"
if ! command -v nvcc >/dev/null && [ ! -x "$CUDA/bin/nvcc" ]; then
  echo "vx: bench.sh needs the CUDA toolkit (nvcc, ptxas): set CUDA_HOME" >&2
  exit 1
fi
export PATH="$PATH:$CUDA/bin"
/usr/bin/python3 "$VX_ROOT/bench/bench.py" "$VX_ROOT/build/bin/vx-opt" "$@"

#!/usr/bin/env bash
# The GPU benchmark in two halves (bench/gpu_bench.py, bench/gpu_driver.py):
#   scripts/gpu-bench.sh prepare DIR [--chip sm_90] [--target cpu]
#       here (no GPU needed): builds Vx, compiles every bench kernel and GPU
#       integration test to libraries, plus the driver, into DIR (a few MiB);
#       with nvcc, also the expert tensor-core kernels of bench/cuda (entries
#       expert_*: timed against torch.matmul bf16 and scaled_dot_product_
#       attention's flash backend; bench/cuda/expert.py) and vx's tile-op
#       tensor-core kernels at the same sizes (entries vx_*)
#   scripts/gpu-bench.sh run DIR --simulate [--only PATTERN ...]
#       here, before any GPU time is spent: runs the prepared CUDA libraries
#       on the PTX simulator (libvx_ptx_sim, in DIR/python/vx) and checks
#       every output against numpy; no timing. Exit status 1 on a wrong or
#       failing entry (a SimulationError names the kernel, thread, PTX line).
#   scripts/gpu-bench.sh run DIR [driver options]
#       on a machine with the NVIDIA driver and python3 with torch: checks,
#       times and sanitizes every kernel; a table on stdout, DIR/results.json.
#       Copy that JSON to bench/gpu-results.json for scripts/bench.sh.
#   Either way each entry runs in its own process, killed after --timeout
#   seconds (default 120; recorded as TIMED OUT, the run goes on), and
#   DIR/results.json is rewritten after every entry, so a run cut short
#   keeps what it measured.
set -euo pipefail
usage() { echo "usage: $0 prepare DIR [options] | run DIR [options]" >&2; exit 2; }
[ $# -ge 2 ] || usage
command="$1" directory="$2"
shift 2
case "$command" in
  prepare)
    source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
    CUDA="${CUDA_HOME:-/usr/local/cuda}"
    export PATH="$PATH:$CUDA/bin"
    PYTHONPATH="$VX_ROOT/build/python_packages" \
      /usr/bin/python3 "$VX_ROOT/bench/gpu_bench.py" "$directory" "$@" ;;
  run)
    [ -f "$directory/driver.py" ] || { echo "gpu-bench: $directory is not prepared" >&2; exit 1; }
    exec python3 "$directory/driver.py" "$@" ;;
  *) usage ;;
esac

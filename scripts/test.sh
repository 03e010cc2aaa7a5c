#!/usr/bin/env bash
# Sets up, builds and runs every Vx test suite; non-zero on any failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cmake --build "$VX_ROOT/build" --target check-vx
cmake --build "$VX_ROOT/build" --target check-vx-python
# A bounded mutation-fuzzing run over every pipeline (fuzz/mutate.py).
/usr/bin/python3 "$VX_ROOT/fuzz/mutate.py" "$VX_ROOT/build/bin/vx-opt" \
  "$VX_ROOT/build/fuzz-crashes" --seconds 60

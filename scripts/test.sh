#!/usr/bin/env bash
# Sets up, builds and runs every Vx test suite; non-zero on any failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cmake --build "$VX_ROOT/build" --target check-vx
cmake --build "$VX_ROOT/build" --target check-vx-python
# The README's quick start: the demo (its other commands: test/Docs/readme.test).
bash "$VX_ROOT/scripts/demo.sh" > "$VX_ROOT/build/demo.log" 2>&1 ||
  { tail -n 40 "$VX_ROOT/build/demo.log"; echo "vx: scripts/demo.sh failed"; exit 1; }
# A bounded mutation-fuzzing run over every pipeline (fuzz/mutate.py).
/usr/bin/python3 "$VX_ROOT/fuzz/mutate.py" "$VX_ROOT/build/bin/vx-opt" \
  "$VX_ROOT/build/fuzz-crashes" --seconds 60
# A bounded soundness-fuzzing run (fuzz/soundness.py): the static verdicts of
# random kernels against the dynamic race detector and their numbers against
# the sequential route, a fixed seed, < 2 minutes. The whole grammar
# (issue 27's constructs included; see fuzz/README.md).
/usr/bin/python3 "$VX_ROOT/fuzz/soundness.py" "$VX_ROOT/build/bin/vx-opt" \
  --seconds 90 --batch 100 --seed 1 --grammar all \
  --out "$VX_ROOT/build/fuzz-soundness"

#!/usr/bin/env bash
# Sets up, builds and runs every Vx test suite; non-zero on any failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cmake --build "$VX_ROOT/build" --target check-vx
cmake --build "$VX_ROOT/build" --target check-vx-python

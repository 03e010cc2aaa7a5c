#!/usr/bin/env bash
# Installs what Vx needs (when missing) and configures and builds build/.
# Sourced by demo.sh and test.sh; idempotent and quick when all is there.
set -euo pipefail
VX_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PACKAGES=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22
          libomp-22-dev cmake ninja-build pybind11-dev python3-dev
          python3-numpy python3-pytest python3-pip python3-venv
          valgrind             # bench.py's instructions per call (callgrind)
          libtcmalloc-minimal4)  # fuzz/soundness.py's checker allocator
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "vx: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
export PATH="/usr/lib/llvm-22/bin:$PATH"
if [ ! -f "$VX_ROOT/build/build.ninja" ]; then
  cmake -S "$VX_ROOT" -B "$VX_ROOT/build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
fi
cmake --build "$VX_ROOT/build"

#!/usr/bin/env bash
# Builds Vx with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-sanitize/ and runs the lit and pytest suites against that build.
# Then runs the mutation fuzzer against the instrumented vx-opt
# (VX_FUZZ_SECONDS, default 120), where a sanitizer report is a failure.
# Not part of scripts/test.sh (a second full build); run it by hand or in a
# nightly job.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
if ! dpkg-query -W -f='${Status}' libclang-rt-22-dev 2>/dev/null | grep -q "ok installed"; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q libclang-rt-22-dev
fi
BUILD="$VX_ROOT/build-sanitize"
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$VX_ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DVX_SANITIZE="address;undefined"
fi
cmake --build "$BUILD"
# LLVM's and MLIR's process-lifetime singletons (and the Python module's
# never-destroyed context) are reported as leaks at exit: leak checking off.
# LLVM's BumpPtrAllocator poisons fresh slabs and unpoisons what it hands out,
# but only where it is compiled with ASan: a slab that Vx's (instrumented)
# inlined copy poisons and the uninstrumented libMLIR then allocates from
# reads as use-after-poison (test/Dialect/fuzz-regressions.mlir). Manual
# poisoning off: the instrumentation's own checks stay.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# mlir-opt-22 (loading the plugin) and the Python interpreter are not
# instrumented: the runtime must be loaded first.
export LD_PRELOAD="$(clang++-22 -print-file-name=libclang_rt.asan-x86_64.so)"
cmake --build "$BUILD" --target check-vx
cmake --build "$BUILD" --target check-vx-python
/usr/bin/python3 "$VX_ROOT/fuzz/mutate.py" "$BUILD/bin/vx-opt" \
  "$BUILD/fuzz-crashes" --seconds "${VX_FUZZ_SECONDS:-120}"

"""The vx package installed by `cmake --install` and by `pip install
--no-build-isolation .` (both from the build tree the suite runs in)."""

import ast
import os
import subprocess
import sys

import pytest

import vx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(vx.__file__))))

pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")),
    reason="vx is not imported from a CMake build tree")

# Runs a kernel and compiles a library with the installed package alone.
CLIENT = """
import os, sys, numpy as np, vx
assert vx.__file__.startswith(sys.argv[1]), vx.__file__
m = vx.parse(open(sys.argv[2]).read())
a = np.arange(256 * 32, dtype=np.float32).reshape(256, 32)
b = np.ones((32, 384), np.float32)
c = np.zeros((256, 384), np.float32)
vx.run(m, "matmul", a, b, c)
assert np.array_equal(c, a @ b)
library = vx.compile(m, "cpu")
library.matmul(a, b, c)
assert np.array_equal(c, a @ b)
if os.path.exists("/usr/local/cuda/bin/ptxas"):   # the package's simulator
    c[:] = 0
    vx.run(m, "matmul", a, b, c, ptx_sim=True, chip="sm_80")
    assert np.array_equal(c, a @ b)
print(sorted(os.listdir(os.path.dirname(vx.__file__))))
"""


def run_client(path, tmp_path):
    environment = dict(os.environ, PYTHONPATH=path,
                       VX_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-c", CLIENT, path,
                           os.path.join(ROOT, "examples", "matmul.mlir")],
                          capture_output=True, text=True, env=environment,
                          cwd=str(tmp_path))


def installed_files(output):
    return [name for name in ast.literal_eval(output) if name != "__pycache__"]


EXPECTED = ["__init__.py", "__main__.py", "_compiler.py", "_config.py",
            "_vx" + next(n for n in os.listdir(os.path.dirname(vx.__file__))
                         if n.startswith("_vx"))[3:], "libvx_ptx_sim.so",
            "libvx_race_runtime.so", "py.typed", "runtime.py", "tracer.py"]
if os.path.exists(os.path.join(os.path.dirname(vx.__file__), "libvx_cuda_runtime.so")):
    EXPECTED.insert(5, "libvx_cuda_runtime.so")


def test_cmake_install(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BUILD, "--prefix", str(prefix),
                    "--component", "VxPython"], check=True, capture_output=True)
    packages = str(prefix / "python_packages")
    result = run_client(packages, tmp_path)
    assert result.returncode == 0, result.stderr
    assert installed_files(result.stdout) == EXPECTED


@pytest.mark.skipif(subprocess.run([sys.executable, "-m", "pip", "--version"],
                                   capture_output=True).returncode != 0,
                    reason="no pip")
def test_pip_install_builds_with_cmake_offline(tmp_path):
    target = tmp_path / "site"
    environment = dict(os.environ, VX_CMAKE_BUILD_DIR=BUILD)
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-build-isolation",
         "--no-index", "--no-deps", "--no-cache-dir", "--target", str(target),
         ROOT], capture_output=True, text=True, env=environment)
    assert result.returncode == 0, result.stdout + result.stderr
    result = run_client(str(target), tmp_path)
    assert result.returncode == 0, result.stderr
    assert installed_files(result.stdout) == EXPECTED

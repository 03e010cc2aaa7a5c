"""The vx package installed by `cmake --install`, by `pip install
--no-build-isolation .` into a venv, and as a wheel into a plain venv (all
from the build tree the suite runs in)."""

import ast
import os
import subprocess
import sys
import zipfile

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


def run_client(path, tmp_path, python=sys.executable):
    """CLIENT run by `python`, with `path` (where vx must come from) on
    PYTHONPATH or, for a venv's python, as the venv's site-packages."""
    environment = dict(os.environ, VX_CACHE_DIR=str(tmp_path / "cache"))
    if python == sys.executable:
        environment["PYTHONPATH"] = path
    else:
        environment.pop("PYTHONPATH", None)
    return subprocess.run([python, "-c", CLIENT, path,
                           os.path.join(ROOT, "examples", "matmul.mlir")],
                          capture_output=True, text=True, env=environment,
                          cwd=str(tmp_path))


def installed_files(output):
    return [name for name in ast.literal_eval(output) if name != "__pycache__"]


PACKAGE = os.path.dirname(vx.__file__)
EXTENSION = next(n for n in os.listdir(PACKAGE) if n.startswith("_vx."))
EXPECTED = sorted(
    ["__init__.py", "__main__.py", "_cache.py", "_compiler.py", "_config.py",
     EXTENSION, "_vx_opt.py", "libvx_ptx_sim.so", "libvx_race_runtime.so",
     "py.typed",
     "runtime.py", "tracer.py"] +
    (["libvx_cuda_runtime.so"]
     if os.path.exists(os.path.join(PACKAGE, "libvx_cuda_runtime.so")) else []))


def test_cmake_install(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BUILD, "--prefix", str(prefix),
                    "--component", "VxPython"], check=True, capture_output=True)
    packages = str(prefix / "python_packages")
    result = run_client(packages, tmp_path)
    assert result.returncode == 0, result.stderr
    assert installed_files(result.stdout) == EXPECTED


needs_pip = pytest.mark.skipif(
    subprocess.run([sys.executable, "-m", "pip", "--version"],
                   capture_output=True).returncode != 0 or
    subprocess.run([sys.executable, "-m", "venv", "-h"],
                   capture_output=True).returncode != 0,
    reason="no pip or venv (python3-pip, python3-venv)")


def venv(directory, system_site_packages):
    """A venv of this Python; its interpreter and site-packages."""
    subprocess.run([sys.executable, "-m", "venv", str(directory)] +
                   (["--system-site-packages"] if system_site_packages else []),
                   check=True, capture_output=True)
    python = str(directory / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig."
                           "get_paths()['purelib'])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    return python, site


def pip(python, *arguments):
    """`python -m pip` offline, building from this suite's build tree."""
    environment = dict(os.environ, VX_CMAKE_BUILD_DIR=BUILD)
    environment.pop("PYTHONPATH", None)
    return subprocess.run([python, "-m", "pip", *arguments, "--no-index",
                           "--no-cache-dir", "--disable-pip-version-check"],
                          capture_output=True, text=True, env=environment)


def check_console_scripts(directory):
    """The venv's `vx` and `vx-opt` name the versions vx-opt does."""
    expected = subprocess.run([os.path.join(BUILD, "bin", "vx-opt"),
                               "--version"], capture_output=True, text=True,
                              check=True).stdout
    environment = dict(os.environ)
    environment.pop("PYTHONPATH", None)
    for script in ("vx", "vx-opt"):
        result = subprocess.run([str(directory / "bin" / script), "--version"],
                                capture_output=True, text=True,
                                env=environment)
        assert (result.returncode, result.stdout) == (0, expected), \
            result.stderr


@needs_pip
def test_pip_install_builds_with_cmake_offline(tmp_path):
    """README "Install": the offline path, into a venv that sees Debian's
    numpy (and setuptools, which --no-build-isolation uses)."""
    python, site = venv(tmp_path / "venv", system_site_packages=True)
    result = pip(python, "install", "--no-build-isolation", ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    result = run_client(site, tmp_path, python)
    assert result.returncode == 0, result.stderr
    assert installed_files(result.stdout) == sorted(EXPECTED + ["bin"])
    check_console_scripts(tmp_path / "venv")


@needs_pip
def test_wheel_installs_in_a_plain_venv_with_numpy(tmp_path):
    result = pip(sys.executable, "wheel", "--no-build-isolation", "--no-deps",
                 "-w", str(tmp_path / "wheels"), ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    [wheel] = (tmp_path / "wheels").iterdir()
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path / "unpacked")
        entry_points = archive.read(next(
            n for n in names if n.endswith(".dist-info/entry_points.txt")))
    assert sorted(n[3:] for n in names if n.startswith("vx/")) == sorted(
        EXPECTED + ["bin/vx-opt"])
    assert ("vx = vx.__main__:main" in entry_points.decode() and
            "vx-opt = vx._vx_opt:main" in entry_points.decode())
    # Every ELF file of the wheel: no search path relative to the working
    # directory (extracted without modes; readelf needs none).
    check = os.path.join(ROOT, "test", "Inputs", "check_runpath.py")
    runpaths = subprocess.run(
        [sys.executable, check, str(tmp_path / "unpacked")],
        capture_output=True, text=True)
    assert runpaths.returncode == 0, runpaths.stdout + runpaths.stderr
    assert "vx/libvx_race_runtime.so: none" in runpaths.stdout

    python, site = venv(tmp_path / "venv", system_site_packages=False)
    result = pip(python, "install", str(wheel))
    assert result.returncode != 0 and "for numpy" in result.stderr
    # Offline, numpy is "present" as Debian's, linked into the venv with its
    # metadata; online, pip would fetch it.
    numpy = os.path.dirname(__import__("numpy").__file__)
    os.symlink(numpy, os.path.join(site, "numpy"))
    for name in os.listdir(os.path.dirname(numpy)):
        if name.startswith("numpy-") and name.endswith("-info"):
            source = os.path.join(os.path.dirname(numpy), name)
            os.symlink(source, os.path.join(site, name))
    result = pip(python, "install", str(wheel))
    assert result.returncode == 0, result.stdout + result.stderr
    result = run_client(site, tmp_path, python)
    assert result.returncode == 0, result.stderr
    assert installed_files(result.stdout) == sorted(EXPECTED + ["bin"])
    check_console_scripts(tmp_path / "venv")

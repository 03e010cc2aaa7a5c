"""Builds the vx Python package with CMake for pip (pyproject.toml):

    pip install --no-build-isolation .
    pip wheel --no-build-isolation --no-deps .

Configures build/ as scripts/setup.sh does when it is not configured yet
(VX_CMAKE_BUILD_DIR overrides the directory; MLIR_DIR where MLIR's CMake
package is), builds the VxPython and vx-opt targets, and puts
build/python_packages/vx (sources, _config.py, the _vx extension, the
runtime libraries) and bin/vx-opt, as vx/bin/vx-opt, in the wheel; the
console scripts `vx` and `vx-opt` run them. Nothing is downloaded.
"""

import os
import re
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


def cmake_build_directory():
    return os.path.abspath(os.environ.get("VX_CMAKE_BUILD_DIR",
                                          os.path.join(ROOT, "build")))


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as cmake:
        found = re.search(r"project\(\s*vx\s+VERSION\s+([0-9.]+)", cmake.read())
    return found.group(1) if found else "0.0.0"


class BuildWithCMake(build_py):
    """build_py that builds the package with CMake and copies it whole."""

    def run(self):
        build = cmake_build_directory()
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.check_call(
                ["cmake", "-S", ROOT, "-B", build, *generator,
                 "-DCMAKE_BUILD_TYPE=Release",
                 "-DMLIR_DIR=" + os.environ.get(
                     "MLIR_DIR", "/usr/lib/llvm-22/lib/cmake/mlir"),
                 "-DPython3_EXECUTABLE=" + sys.executable])
        subprocess.check_call(["cmake", "--build", build, "--target",
                               "VxPython", "vx-opt"])
        package = os.path.join(build, "python_packages", "vx")
        target = os.path.join(self.build_lib, "vx")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(package, target,
                        ignore=shutil.ignore_patterns("__pycache__"))
        # The `vx-opt` console script (vx/_vx_opt.py) runs this copy.
        os.makedirs(os.path.join(target, "bin"))
        shutil.copy2(os.path.join(build, "bin", "vx-opt"),
                     os.path.join(target, "bin", "vx-opt"))


class BinaryDistribution(Distribution):
    """The wheel holds a compiled extension: platform-specific."""

    def has_ext_modules(self):
        return True


setup(version=version(), cmdclass={"build_py": BuildWithCMake},
      distclass=BinaryDistribution,
      options={"build": {"build_base": os.path.join("build", "setuptools")},
               "egg_info": {"egg_base": os.path.join("build")}})

"""vx.__version__ is the version that the top-level CMakeLists.txt declares."""

import os
import re

import vx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def test_version_is_the_projects():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as cmake:
        declared = re.search(r"project\(vx VERSION (\d+\.\d+\.\d+)",
                             cmake.read()).group(1)
    assert vx.__version__ == declared

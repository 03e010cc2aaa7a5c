"""The `vx-opt` console script of an installed wheel: runs the vx-opt binary
that the wheel carries in vx/bin (setup.py puts it there)."""

import os
import sys


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin",
                        "vx-opt")
    if not os.access(path, os.X_OK):
        sys.exit(f"vx-opt: this vx package has no vx-opt ({path}); it is "
                 f"build/bin/vx-opt of a CMake build")
    os.execv(path, [path] + sys.argv[1:])

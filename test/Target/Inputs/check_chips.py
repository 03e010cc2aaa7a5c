"""Checks vx's chip validation against the installed LLVM: for every chip
that vx lists (LLVM's NVPTX processors), the lowest PTX version vx accepts
is one LLVM compiles with, and LLVM refuses the version just below it (a
fatal error there, a diagnostic in vx).

usage: check_chips.py VX_OPT LLC KERNEL_LL"""

import re
import subprocess
import sys

vx_opt, llc, kernel = sys.argv[1:4]


def vx_nvvm(options):
    """vx-opt --vx-to-nvvm on an empty module: (exit status, stderr)."""
    result = subprocess.run([vx_opt, f"--vx-to-nvvm={options}", "-"], input="",
                            capture_output=True, text=True)
    assert "LLVM ERROR" not in result.stderr, result.stderr
    assert "not a recognized" not in result.stderr, result.stderr
    return result.returncode, result.stderr


def llc_accepts(chip, version):
    result = subprocess.run([llc, "-mtriple=nvptx64-nvidia-cuda", f"-mcpu={chip}",
                             f"-mattr=+ptx{version}", kernel, "-o", "/dev/null"],
                            capture_output=True, text=True)
    return result.returncode == 0


status, listing = vx_nvvm("chip=sm_999")
assert status == 1, listing
chips = re.search(r"the chips are (.*)", listing).group(1).split(", ")
assert len(chips) > 30 and "sm_90a" in chips and "sm_100f" in chips, chips
help_text = subprocess.run([llc, "-march=nvptx64", "-mattr=help"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True).stdout
versions = sorted({int(v) for v in re.findall(r"^\s+ptx(\d+)\s", help_text, re.M)})
assert versions, help_text
for chip in chips:
    status, message = vx_nvvm(f"chip={chip} features=+ptx{versions[0]}")
    minimum = versions[0]
    if status != 0:
        minimum = int(re.search(r"needs PTX [\d.]+ or newer \(features=\+ptx(\d+)\)",
                                message).group(1))
    assert llc_accepts(chip, minimum), f"{chip}: LLVM refuses PTX {minimum}"
    below = [version for version in versions if version < minimum]
    if below:
        assert not llc_accepts(chip, below[-1]), \
            f"{chip}: vx refuses PTX {below[-1]}, which LLVM accepts"
print(f"checked {len(chips)} chips")

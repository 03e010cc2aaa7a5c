"""pytest suite of what vx tells about a compile and what a deployed
library checks: the kernel report (Module.report, Library.report,
`python3 -m vx --report`), diagnostics kept and shown, reproducible
libraries, the exception types of a broken driver, DLPack CPU arrays, and
the size requirements of a function's arguments."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import vx
import vx.runtime
from vx._compiler import _vx
from test_compile import (CUDA_STUB, EXAMPLES, PACKAGE, needs_cuda_toolkit,
                          read_example, runtime_only_package)

SAXPY = """
func.func @saxpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  vx.spawn on tensor_core grid [%n] semantics [parallel] {
    %i = vx.grid_index 0
    %xi = memref.load %x[%i] : memref<?xf32>
    %yi = memref.load %y[%i] : memref<?xf32>
    %p = arith.mulf %a, %xi : f32
    %s = arith.addf %p, %yi : f32
    memref.store %s, %y[%i] : memref<?xf32>
  }
  return
}
"""

# A scatter through loaded indices: vx-verify-semantics cannot prove the
# writes distinct, and warns (line 6, column 5).
SCATTER = """func.func @scatter(%idx: memref<8xindex>, %y: memref<16xf32>) {
  %one = arith.constant 1.0 : f32
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %j = memref.load %idx[%i] : memref<8xindex>
    memref.store %one, %y[%j] : memref<16xf32>
  }
  return
}
"""
SCATTER_WARNING = ("cannot prove that parallel instances write distinct "
                   "elements: the address uses the result of 'memref.load'")


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("VX_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def run_vx(*arguments, **environment):
    return subprocess.run([sys.executable, "-m", "vx", *arguments],
                          capture_output=True, text=True,
                          env=dict(os.environ, **environment))


# -- the report ----------------------------------------------------------------

# What the compiler does with the examples on sm_90 (ptxas 13's numbers; a
# change in the mapping or in the code ptxas gets shows here).
EXAMPLE_REPORTS = {
    "matmul.mlir": vx.KernelReport("matmul_kernel", (2, 3, 1), (256, 1, 1),
                                   1, 8192, 1, 128, 0, 0),
    "softmax.mlir": vx.KernelReport("softmax_kernel", (6, 1, 1), (256, 1, 1),
                                    1, 160, 1, 23, 0, 0),
    "attention.mlir": vx.KernelReport("attention_kernel", (1, 2, 2),
                                      (64, 1, 1), 1, 32768, 1, 196, 0, 0),
}


@needs_cuda_toolkit
@pytest.mark.parametrize("name", sorted(EXAMPLE_REPORTS))
def test_report_of_the_examples(name):
    assert read_example(name).report(chip="sm_90") == [EXAMPLE_REPORTS[name]]


@needs_cuda_toolkit
def test_report_follows_the_options():
    # Three stages: three slots of the A and B tiles (TMA, 16896 bytes more).
    [report] = read_example("matmul.mlir").report(stages=3)
    assert (report.stages, report.shared_bytes) == (3, 24576)
    with pytest.raises(ValueError, match="format must be 'isa'"):
        read_example("matmul.mlir").report(format="bin")


def test_report_without_a_toolkit_has_the_mapping_only(monkeypatch, tmp_path):
    # CUDA_HOME names a directory without a toolkit: no ptxas to ask.
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    [report] = vx.parse(SAXPY).report(threads_per_block=64)
    assert report == vx.KernelReport("saxpy_kernel", (None, 1, 1), (64, 1, 1),
                                     64, 0, 1, None, None, None)
    # A lowered module is reported as it is.
    [gpu_report] = vx.parse(SAXPY).lower("gpu").report()
    assert gpu_report.block == (256, 1, 1) and gpu_report.registers is None
    with pytest.raises(TypeError, match="options apply only"):
        vx.parse(SAXPY).lower("gpu").report(chip="sm_80")


@needs_cuda_toolkit
def test_report_on_the_command_line():
    result = run_vx(os.path.join(EXAMPLES, "matmul.mlir"), "--report",
                    "--stages=3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "kernel         grid   block    instances/CTA  shared bytes  stages  "
        "registers  spill bytes  stack bytes",
        "matmul_kernel  2x3x1  256x1x1  1              24576         3       "
        "128        0            0"]


CUDA_REPORT_CLIENT = """
import sys, vx.runtime
library = vx.runtime.Library(sys.argv[1], vx.runtime.read_metadata(sys.argv[1]))
print(library.report)
assert "vx._vx" not in sys.modules
"""


@needs_cuda_toolkit
def test_cuda_library_carries_its_report(tmp_path):
    path = str(tmp_path / "lib" / "matmul.so")
    library = vx.compile(read_example("matmul.mlir"), "cuda", output=path)
    assert library.report == [EXAMPLE_REPORTS["matmul.mlir"]]
    # Read back without MLIR, from the library's own metadata.
    result = subprocess.run(
        [sys.executable, "-c", CUDA_REPORT_CLIENT, path], capture_output=True,
        text=True, env=dict(os.environ,
                            PYTHONPATH=runtime_only_package(tmp_path)))
    assert result.returncode == 0, result.stderr
    assert result.stdout == repr([EXAMPLE_REPORTS["matmul.mlir"]]) + "\n"
    assert vx.compile(read_example("matmul.mlir"), "cpu").report == []


# -- diagnostics ---------------------------------------------------------------

def test_compile_keeps_and_shows_its_warnings(capfd):
    library = vx.compile(vx.parse(SCATTER, "scatter.mlir"), "cpu")
    assert library.diagnostics == [
        vx.Diagnostic("warning", SCATTER_WARNING, "scatter.mlir:6:5",
                      ("scatter.mlir:6:5",))]
    # Shown as vx-opt shows them: with the source line and a caret.
    assert capfd.readouterr().err == (
        f"scatter.mlir:6:5: warning: {SCATTER_WARNING}\n"
        "    memref.store %one, %y[%j] : memref<16xf32>\n"
        "    ^\n")
    # A cached library has them too, and shows them again.
    assert vx.compile(vx.parse(SCATTER, "scatter.mlir"), "cpu").diagnostics \
        == library.diagnostics
    assert SCATTER_WARNING in capfd.readouterr().err
    # The same code two lines down has its warning at the new line, in a
    # library of its own (a library's metadata holds its diagnostics).
    moved = vx.compile(vx.parse("\n\n" + SCATTER, "scatter.mlir"), "cpu")
    assert moved.path != library.path
    assert moved.diagnostics == [
        vx.Diagnostic("warning", SCATTER_WARNING, "scatter.mlir:8:5",
                      ("scatter.mlir:8:5",))]


def test_command_line_shows_warnings_of_a_compile(tmp_path):
    source = tmp_path / "scatter.mlir"
    source.write_text(SCATTER)
    library = str(tmp_path / "scatter.so")
    result = run_vx(str(source), "--compile", "cpu", "-o", library)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"{source}:6:5: warning: {SCATTER_WARNING}",
        "    memref.store %one, %y[%j] : memref<16xf32>",
        "    ^",
        f"vx: wrote {library} (scatter)"]
    # And read back without MLIR: the library's metadata holds them.
    metadata = vx.runtime.read_metadata(library)
    assert metadata["diagnostics"] == [
        ["warning", SCATTER_WARNING, f"{source}:6:5", [f"{source}:6:5"]]]


def test_command_line_shows_source_lines_of_stage_warnings(tmp_path):
    source = tmp_path / "scatter.mlir"
    source.write_text(SCATTER.replace("on host", "on tensor_core"))
    result = run_vx(str(source), "--stage", "gpu", "-o", os.devnull)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[:3] == [
        f"{source}:6:5: warning: {SCATTER_WARNING}",
        "    memref.store %one, %y[%j] : memref<16xf32>",
        "    ^"]


FAKE_PTXAS = """#!/bin/sh
case "$*" in *--help*)
  echo "--gpu-name <gpu name>  Allowed values for this option: 'sm_90'."
  exit 0;;
esac
echo "ptxas fatal   : Unresolved extern function 'vx_fake' (a fake ptxas)" >&2
exit 255
"""


@needs_cuda_toolkit
def test_ptxas_log_is_in_the_exception_message(monkeypatch, tmp_path):
    # A toolkit whose ptxas fails, with libdevice from the real one.
    os.makedirs(tmp_path / "bin")
    os.makedirs(tmp_path / "nvvm" / "libdevice")
    ptxas = tmp_path / "bin" / "ptxas"
    ptxas.write_text(FAKE_PTXAS)
    ptxas.chmod(0o755)
    # The toolkit vx itself would use (CUDA_HOME, ptxas on PATH, /usr/local/cuda).
    real = _vx.cuda_toolkit()
    assert real, "needs_cuda_toolkit let a machine without a toolkit through"
    os.symlink(os.path.join(real, "nvvm", "libdevice", "libdevice.10.bc"),
               tmp_path / "nvvm" / "libdevice" / "libdevice.10.bc")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    log = "ptxas fatal   : Unresolved extern function 'vx_fake' (a fake ptxas)"
    module = vx.parse(SAXPY)
    with pytest.raises(vx.VxError) as raised:
        module.lower("ptx", format="bin")
    assert log in str(raised.value)
    with pytest.raises(vx.VxError) as raised:
        module.report()
    assert log in str(raised.value)
    with pytest.raises(vx.VxError) as raised:
        vx.compile(module, "cuda")
    assert log in str(raised.value)


# -- reproducible libraries ----------------------------------------------------

def build_id(path):
    notes = subprocess.run(["readelf", "-n", path], capture_output=True,
                           text=True, check=True).stdout
    [line] = [line for line in notes.splitlines() if "Build ID" in line]
    return line.split()[-1]


COMPILE_CLIENT = """
import sys, vx
module = vx.parse(open(sys.argv[1]).read(), "matmul.mlir")
vx.compile(module, sys.argv[2], output=sys.argv[3])
"""


@pytest.mark.parametrize("target", [
    "cpu", pytest.param("cuda", marks=needs_cuda_toolkit)])
def test_two_builds_compile_the_same_bytes(target, tmp_path):
    """Two copies of the package (other paths, other mtimes: as two builds
    of one commit), each compiling in a process of its own with a cache of
    its own, write the same library bytes, GNU build-id included."""
    paths = []
    for build in ("first", "second"):
        package = tmp_path / build / "python"
        shutil.copytree(PACKAGE, package / "vx", copy_function=shutil.copy)
        path = str(tmp_path / build / "matmul.so")
        result = subprocess.run(
            [sys.executable, "-c", COMPILE_CLIENT,
             os.path.join(EXAMPLES, "matmul.mlir"), target, path],
            capture_output=True, text=True,
            env=dict(os.environ, PYTHONPATH=str(package),
                     VX_CACHE_DIR=str(tmp_path / build / "cache")))
        assert result.returncode == 0, result.stderr
        paths.append(path)
    first, second = (open(p, "rb").read() for p in paths)
    assert first == second
    assert build_id(paths[0]) == build_id(paths[1])
    identity = vx.runtime.read_metadata(paths[0])["vx"]
    assert identity.startswith(vx.__version__ + " ") and ":" not in identity


# -- the exception types of a call ---------------------------------------------

STUB_CLIENT = """
import sys, vx.runtime
sys.path.insert(0, sys.argv[2])
from fake_arrays import FakeCudaArray
library = vx.runtime.Library(sys.argv[1], vx.runtime.read_metadata(sys.argv[1]))
x = FakeCudaArray((5,), "<f4", 1 << 40)
y = FakeCudaArray((5,), "<f4", (1 << 40) + 4096)
for attempt in range(2):
    try:
        library.saxpy(2.0, x, y)
    except Exception as error:
        print(type(error).__name__ + ":", error)
"""


@needs_cuda_toolkit
@pytest.mark.skipif(not os.path.exists(CUDA_STUB), reason="no stub driver")
def test_broken_driver_raises_cuda_error_on_every_call(tmp_path):
    path = str(tmp_path / "lib" / "saxpy.so")
    vx.compile(vx.parse(SAXPY), "cuda", output=path)
    stub = tmp_path / "stub"
    stub.mkdir()
    os.symlink(CUDA_STUB, stub / "libcuda.so.1")
    inputs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs")
    result = subprocess.run(
        [sys.executable, "-c", STUB_CLIENT, path, inputs], capture_output=True,
        text=True, env=dict(os.environ, LD_LIBRARY_PATH=str(stub),
                            PYTHONPATH=runtime_only_package(tmp_path)))
    assert result.returncode == 0, result.stderr
    error = (f"CudaError: could not load the kernels of {path}: cuInit "
             f"failed with CUDA_ERROR_STUB_LIBRARY")
    assert result.stdout.splitlines() == [error, error]


class HostArray:
    """A CPU array known only by the DLPack protocol (as a torch CPU tensor
    is), over a numpy array's memory."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_cpu_library_takes_dlpack_cpu_arrays():
    library = vx.compile(vx.parse(SAXPY), "cpu")
    x = np.arange(6, dtype=np.float32)
    y = np.ones(6, dtype=np.float32)
    library.saxpy(2.0, HostArray(x), HostArray(y))
    assert np.array_equal(y, 2 * np.arange(6) + 1)
    # A strided view is passed through a row-major copy and written back.
    z = np.ones(12, dtype=np.float32)
    library.saxpy(1.0, x, HostArray(z[::2]))
    assert np.array_equal(z[::2], np.arange(6) + 1) and np.all(z[1::2] == 1)
    with pytest.raises(TypeError, match="expected a float32 array, got float64"):
        library.saxpy(1.0, x, HostArray(np.ones(6)))


def test_cpu_library_refuses_dlpack_arrays_on_a_device():
    class DeviceArray(HostArray):
        def __dlpack_device__(self):
            return (2, 0)   # kDLCUDA
    library = vx.compile(vx.parse(SAXPY), "cpu")
    x = np.ones(4, dtype=np.float32)
    with pytest.raises(TypeError, match="DLPack device type 2; CUDA arrays "
                                        "go to CUDA libraries"):
        library.saxpy(1.0, x, DeviceArray(x.copy()))


# -- size requirements ---------------------------------------------------------

def test_saxpy_refuses_a_y_shorter_than_x():
    module = vx.parse(SAXPY)
    x = np.ones(5, dtype=np.float32)
    y = np.zeros(4, dtype=np.float32)
    message = (r"argument 2 has 4 elements along dim 0, fewer than argument 1 "
               r"has along dim 0 \(5\): @saxpy indexes argument 2 along dim 0 "
               r"over the range of argument 1's dim 0")
    with pytest.raises(ValueError, match=message):
        vx.run(module, "saxpy", 2.0, x, y)
    with pytest.raises(ValueError, match=message):
        vx.compile(module, "cpu").saxpy(2.0, x, y)
    assert np.all(y == 0)
    # A longer y is what the kernel needs; an empty x needs nothing.
    longer = np.zeros(6, dtype=np.float32)
    vx.run(module, "saxpy", 2.0, x, longer)
    assert list(longer) == [2, 2, 2, 2, 2, 0]
    vx.run(module, "saxpy", 2.0, np.ones(0, dtype=np.float32), y)


RELATIONS = """
func.func @relations(%a: memref<?x?xf32>, %b: memref<?xf32>, %c: memref<?xf32>,
                     %d: memref<?xf32>, %e: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %rows = memref.dim %a, %c0 : memref<?x?xf32>
  %cols = memref.dim %a, %c1 : memref<?x?xf32>
  %n = memref.dim %b, %c0 : memref<?xf32>
  // b[j] for j over a's columns, in every row: when there are rows.
  vx.spawn on host grid [%rows, %cols] semantics [arbitrary, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %v = memref.load %a[%i, %j] : memref<?x?xf32>
    memref.store %v, %b[%j] : memref<?xf32>
  }
  // A step of 2, and an access under a condition: no requirement.
  scf.for %k = %c0 to %n step %c2 {
    %v = memref.load %b[%k] : memref<?xf32>
    memref.store %v, %c[%k] : memref<?xf32>
  }
  scf.for %k = %c0 to %n step %c1 {
    %m = memref.dim %d, %c0 : memref<?xf32>
    %in = arith.cmpi ult, %k, %m : index
    scf.if %in {
      %v = memref.load %b[%k] : memref<?xf32>
      memref.store %v, %d[%k] : memref<?xf32>
    }
  }
  // e[k] for k over b's size.
  scf.for %k = %c0 to %n step %c1 {
    %v = memref.load %b[%k] : memref<?xf32>
    memref.store %v, %e[%k] : memref<?xf32>
  }
  return
}
"""


def test_size_requirements_are_the_ones_every_call_relies_on():
    module = vx.parse(RELATIONS)
    [function] = vx.compile(module, "cpu").metadata["functions"]
    assert function["size_requirements"] == [
        {"argument": [1, 0], "at_least": [0, 1], "when_positive": [[0, 0]]},
        {"argument": [4, 0], "at_least": [1, 0], "when_positive": []}]
    a = np.ones((2, 3), dtype=np.float32)
    short = np.ones(2, dtype=np.float32)
    with pytest.raises(ValueError, match="argument 1 has 2 elements along "
                                         "dim 0, fewer than argument 0 has "
                                         r"along dim 1 \(3\)"):
        vx.run(module, "relations", a, short, short.copy(), short.copy(),
               short.copy())
    # No rows: the spawn runs nothing, and b may be shorter.
    vx.run(module, "relations", np.ones((0, 3), dtype=np.float32),
           short, short.copy(), np.ones(1, dtype=np.float32), short.copy())

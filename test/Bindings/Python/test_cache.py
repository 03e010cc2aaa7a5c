"""pytest suite of the compile cache's disk half (python/vx/_cache.py) and its
key: one compile for concurrent processes, the CUDA toolkit and normalized
options in the key, the size limit, an unusable directory, damaged
entries."""

import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import vx
import vx._compiler

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
MATMUL = os.path.join(ROOT, "examples", "matmul.mlir")
PACKAGE = os.path.dirname(vx.__file__)

SAXPY = """
func.func @saxpy(%a: f32, %x: memref<64xf32>, %y: memref<64xf32>) {
  vx.spawn on tensor_core grid [64] semantics [parallel] {
    %i = vx.grid_index 0
    %xi = memref.load %x[%i] : memref<64xf32>
    %yi = memref.load %y[%i] : memref<64xf32>
    %ax = arith.mulf %a, %xi : f32
    %r = arith.addf %ax, %yi : f32
    memref.store %r, %y[%i] : memref<64xf32>
  }
  return
}
"""


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    """An empty cache directory, with nothing in this process's memory."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("VX_CACHE_DIR", str(directory))
    monkeypatch.delenv("VX_CACHE_MAX_BYTES", raising=False)
    monkeypatch.setattr(vx._compiler, "_memory_cache", {})
    return directory


@pytest.fixture(scope="module")
def matmul():
    with open(MATMUL) as source:
        return vx.parse(source.read(), MATMUL)


def entries(cache):
    return sorted(name for name in os.listdir(cache)
                  if not name.startswith("."))


def check_saxpy(library):
    x = np.arange(64, dtype=np.float32)
    y = np.ones(64, np.float32)
    library.saxpy(2.0, x, y)
    assert np.array_equal(y, 2 * np.arange(64, dtype=np.float32) + 1)


# Compiles matmul; the compile itself (vx._compiler._build) is logged and
# made slow, so that the processes started together overlap in it.
CONCURRENT = """
import sys, time, vx, vx._compiler as compiler
build = compiler._build
def logged(*arguments):
    with open(sys.argv[1], "a") as log:
        log.write("compiled\\n")
    time.sleep(1)
    return build(*arguments)
compiler._build = logged
print(vx.compile(vx.parse(open(sys.argv[2]).read()), "cpu").path)
"""


def test_concurrent_processes_compile_once(cache, tmp_path):
    log = tmp_path / "compiles.log"
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    processes = [subprocess.Popen([sys.executable, "-c", CONCURRENT, str(log),
                                   MATMUL], env=environment, text=True,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
                 for _ in range(3)]
    outputs = [p.communicate() for p in processes]
    assert all(p.returncode == 0 for p in processes), outputs
    assert log.read_text() == "compiled\n"
    assert len({out for out, _ in outputs}) == 1
    assert len(entries(cache)) == 1


def fake_toolkit(directory, version):
    """A CUDA toolkit (for vx.cuda_toolkit: bin/ptxas and libdevice) whose
    ptxas says `version` and otherwise runs the real one."""
    (directory / "bin").mkdir(parents=True)
    (directory / "nvvm" / "libdevice").mkdir(parents=True)
    (directory / "nvvm" / "libdevice" / "libdevice.10.bc").write_bytes(
        open("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc", "rb").read()
        if os.path.exists("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc")
        else b"")
    ptxas = directory / "bin" / "ptxas"
    ptxas.write_text("#!/bin/sh\n"
                     f'[ "$1" = --version ] && echo "{version}" && exit 0\n'
                     'exec /usr/local/cuda/bin/ptxas "$@"\n')
    ptxas.chmod(0o755)
    return ptxas


def test_cuda_toolkit_path_and_version_are_in_the_key(cache, tmp_path,
                                                      monkeypatch):
    module = vx.parse(SAXPY)
    toolkit = tmp_path / "toolkit"
    ptxas = fake_toolkit(toolkit, "release 12.4, V12.4.131")
    monkeypatch.setenv("CUDA_HOME", str(toolkit))
    first = vx.compile(module, "cpu").path
    assert vx.compile(module, "cpu").path == first
    # The same path, another version.
    ptxas.write_text(ptxas.read_text().replace("12.4", "12.8"))
    second = vx.compile(module, "cpu").path
    # Another path, the same version.
    shutil.copytree(toolkit, tmp_path / "other")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "other"))
    third = vx.compile(module, "cpu").path
    assert len({first, second, third}) == 3
    assert len(entries(cache)) == 3
    check_saxpy(vx.runtime.load(third))


needs_cuda_toolkit = pytest.mark.skipif(
    not os.path.exists(os.path.join(PACKAGE, vx.runtime.CUDA_RUNTIME)) or
    not os.path.exists("/usr/local/cuda/bin/ptxas"),
    reason="no CUDA toolkit at /usr/local/cuda (libvx_cuda_runtime.so)")


@needs_cuda_toolkit
def test_a_cuda_library_of_another_ptxas_is_not_served(cache, tmp_path,
                                                      monkeypatch):
    module = vx.parse(SAXPY)
    monkeypatch.setenv("CUDA_HOME", "/usr/local/cuda")
    ours = vx.compile(module, "cuda", format="bin")
    fake_toolkit(tmp_path / "toolkit", "Cuda compilation tools, release 11.0")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "toolkit"))
    theirs = vx.compile(module, "cuda", format="bin")
    assert ours.path != theirs.path and len(entries(cache)) == 2


def test_options_naming_their_defaults_are_one_entry(cache, matmul):
    plain = vx.compile(matmul, "cpu")
    spelt = vx.compile(matmul, "cpu", openmp=False, via_gpu=False,
                       reverse_parallel=False, allow_races=False)
    assert plain.path == spelt.path and len(entries(cache)) == 1
    # The metadata records every option, whichever spelling built it.
    assert plain.metadata["options"]["openmp"] is False
    assert plain.metadata["options"]["stages"] == 1
    assert vx.compile(matmul, "cpu", openmp=True).path != plain.path


@needs_cuda_toolkit
def test_the_default_chip_named_is_one_entry(cache, matmul):
    assert (vx.compile(matmul, "cuda").path ==
            vx.compile(matmul, "cuda", chip="sm_90", fma=True).path)
    assert len(entries(cache)) == 1


def test_an_unusable_cache_directory_is_an_error(tmp_path, monkeypatch,
                                                 matmul):
    occupied = tmp_path / "a-file"
    occupied.write_text("")
    for directory, reason in ((occupied, "File exists"),
                              (occupied / "cache", "Not a directory")):
        monkeypatch.setenv("VX_CACHE_DIR", str(directory))
        with pytest.raises(vx.VxError) as error:
            vx.compile(matmul, "cpu")
        assert str(error.value) == (
            f"the compile cache directory {directory} is unusable: {reason}; "
            f"set VX_CACHE_DIR to a writable directory")
    assert sorted(os.listdir(tmp_path)) == ["a-file"]


def test_least_recently_used_entries_go_over_the_limit(cache, monkeypatch,
                                                       matmul):
    first = vx.compile(matmul, "cpu")
    first_entry = os.path.dirname(first.path)
    entry_size = sum(os.path.getsize(os.path.join(first_entry, name))
                     for name in os.listdir(first_entry))
    monkeypatch.setenv("VX_CACHE_MAX_BYTES", str(entry_size * 5 // 2))
    second = vx.compile(matmul, "cpu", reverse_parallel=True)
    assert len(entries(cache)) == 2
    # Using the first makes the second the least recently used (after a
    # tick of the file system's clock, which may be coarse).
    time.sleep(0.05)
    vx.runtime.load(vx.compile(matmul, "cpu").path)
    third = vx.compile(matmul, "cpu", allow_races=True)
    assert entries(cache) == sorted(
        os.path.basename(os.path.dirname(lib.path)) for lib in (first, third))
    assert not os.path.exists(second.path)
    # An evicted entry is compiled again, also from this process's memory.
    assert vx.compile(matmul, "cpu", reverse_parallel=True).path == second.path
    assert os.path.exists(second.path)
    # A limit below one entry keeps the entry just used.
    monkeypatch.setenv("VX_CACHE_MAX_BYTES", "1K")
    vx.compile(matmul, "cpu", allow_races=True, reverse_parallel=True)
    assert len(entries(cache)) == 1


def test_an_invalid_size_limit_is_an_error(monkeypatch, matmul):
    monkeypatch.setenv("VX_CACHE_MAX_BYTES", "lots")
    with pytest.raises(vx.VxError, match="VX_CACHE_MAX_BYTES='lots' is not a "
                                         "size in bytes"):
        vx.compile(matmul, "cpu")


@pytest.mark.parametrize("damage", ["truncate library", "truncate metadata",
                                    "no manifest", "empty directory"])
def test_damaged_entries_are_rebuilt(cache, monkeypatch, damage):
    module = vx.parse(SAXPY)
    library = vx.compile(module, "cpu").path
    entry = os.path.dirname(library)
    if damage == "truncate library":
        os.truncate(library, os.path.getsize(library) // 2)
    elif damage == "truncate metadata":
        os.truncate(os.path.join(entry, "metadata.json"), 10)
    elif damage == "no manifest":
        os.remove(os.path.join(entry, "manifest.json"))
    else:
        shutil.rmtree(entry)
        os.mkdir(entry)
    monkeypatch.setattr(vx._compiler, "_memory_cache", {})
    rebuilt = vx.compile(module, "cpu")
    assert rebuilt.path == library
    with open(os.path.join(entry, "manifest.json")) as source:
        manifest = json.load(source)["files"]
    assert sorted(manifest) == ["library.so", "metadata.json"]
    assert manifest["library.so"][0] == os.path.getsize(library)
    check_saxpy(rebuilt)
    assert not [name for name in os.listdir(cache)
                if name.startswith((".build", ".removing"))]

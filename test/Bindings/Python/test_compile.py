"""pytest suite of vx.compile, vx.runtime and the compile cache (run by
scripts/test.sh with PYTHONPATH=build/python_packages)."""

import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import vx
import vx.runtime

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from fake_arrays import FakeCudaArray  # noqa: E402
# A prefix sum labelled parallel: test_vx's mislabelled kernel.
from test_vx import PREFIX as RACY_PREFIX  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
EXAMPLES = os.path.join(ROOT, "examples")
PACKAGE = os.path.dirname(vx.__file__)
CUDA_STUB = "/usr/local/cuda/lib64/stubs/libcuda.so"


def read_example(name):
    with open(os.path.join(EXAMPLES, name)) as source:
        return vx.parse(source.read(), name)


@pytest.fixture(scope="module")
def matmul():
    return read_example("matmul.mlir")


@pytest.fixture(scope="module")
def attention():
    return read_example("attention.mlir")


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("VX_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def attention_reference(q, k, v, scale=0.125):
    scores = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("bhqk,bhkd->bhqd", weights, v)


def dynamic_entries(path):
    """{tag: [values]} of `readelf -d`."""
    entries = {}
    for line in subprocess.run(["readelf", "-d", path], capture_output=True,
                               text=True, check=True).stdout.splitlines():
        if "(" in line and "[" in line:
            tag = line.split("(")[1].split(")")[0]
            entries.setdefault(tag, []).append(line.split("[")[1].rstrip("]"))
    return entries


def dynamic_symbols(path, defined):
    flag = "--defined-only" if defined else "--undefined-only"
    output = subprocess.run(["nm", "-D", flag, path], capture_output=True,
                            text=True, check=True).stdout
    return {line.split()[-1] for line in output.splitlines() if line.strip()}


def runtime_only_package(directory):
    """A copy of the pure-Python half of the package, without the _vx
    extension (as on a machine without MLIR)."""
    package = directory / "vx"
    package.mkdir()
    for name in ("__init__.py", "_config.py", "runtime.py"):
        shutil.copy(os.path.join(PACKAGE, name), package / name)
    return str(directory)


def run_python(script, path, **environment):
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True,
        env=dict(os.environ, PYTHONPATH=path, **environment))


# -- CPU libraries -------------------------------------------------------------

CPU_CLIENT = """
import numpy as np, sys, vx.runtime
lib = vx.runtime.load(sys.argv[1] if len(sys.argv) > 1 else {path!r})
rng = np.random.default_rng(5)
a = rng.integers(-4, 5, (256, 32)).astype(np.float32)
b = rng.integers(-4, 5, (32, 384)).astype(np.float32)
c = np.full((256, 384), np.nan, np.float32)
lib.matmul(a, b, c)
assert np.array_equal(c, a @ b), c
maps = open("/proc/self/maps").read()
assert "libMLIR" not in maps and "libLLVM" not in maps, "MLIR was loaded"
assert "vx._vx" not in sys.modules and "vx._compiler" not in sys.modules
print("ok", lib.target, lib.functions)
"""


def test_cpu_library_runs_in_a_process_without_mlir(matmul, tmp_path):
    path = str(tmp_path / "lib" / "matmul.so")
    library = vx.compile(matmul, "cpu", output=path)
    assert library.path == path and library.functions == ["matmul"]
    assert not any("MLIR" in n or "LLVM" in n
                   for n in dynamic_entries(path)["NEEDED"])
    result = run_python(CPU_CLIENT.format(path=path),
                        runtime_only_package(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok cpu ['matmul']\n"


def test_cpu_library_numbers_and_options(attention, tmp_path):
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((1, 2, 128, 64)).astype(np.float32)
               for _ in range(3))
    for options in ({}, {"openmp": True}, {"via_gpu": True, "threads_per_block": 3}):
        library = vx.compile(attention, output=str(tmp_path / "attention.so"),
                             **options)
        out = np.zeros_like(q)
        assert library.attention(q, k, v, out) is None
        np.testing.assert_allclose(out, attention_reference(q, k, v),
                                   rtol=1e-5, atol=1e-6)


def test_libraries_run_on_any_cpu_of_the_triple(attention, tmp_path):
    """A library may be carried to another machine: generic x86-64 code
    (no AVX registers), where vx.run's own libraries use this CPU."""
    path = str(tmp_path / "attention.so")
    vx.compile(attention, output=path)
    assert vx.runtime.read_metadata(path)["host"].split()[1] == "generic"
    disassembly = subprocess.run(["objdump", "-d", path], capture_output=True,
                                 text=True, check=True).stdout
    assert "%xmm" in disassembly
    assert "%ymm" not in disassembly and "%zmm" not in disassembly


def test_openmp_library_carries_libomp(matmul, tmp_path):
    path = str(tmp_path / "matmul.so")
    vx.compile(matmul, "cpu", output=path, openmp=True)
    assert "libomp.so.5" in dynamic_entries(path)["NEEDED"]
    assert dynamic_entries(path)["RUNPATH"] == ["$ORIGIN"]
    assert os.path.exists(tmp_path / "libomp.so.5")
    python = tmp_path / "python"
    python.mkdir()
    result = run_python(CPU_CLIENT.format(path=path), runtime_only_package(python))
    assert result.returncode == 0, result.stderr


def test_library_metadata_and_abi(matmul, tmp_path):
    path = str(tmp_path / "matmul.so")
    vx.compile(matmul, "cpu", output=path)
    metadata = vx.runtime.read_metadata(path)
    assert metadata["abi"] == vx.runtime.ABI_VERSION and metadata["target"] == "cpu"
    [function] = metadata["functions"]
    assert function["name"] == "matmul" and function["results"] == []
    assert [a["shape"] for a in function["arguments"]] == [[256, 32], [32, 384], [256, 384]]
    exported = dynamic_symbols(path, defined=True)
    assert {"matmul", "_mlir_ciface_matmul", "vx_call_matmul"} <= exported
    with pytest.raises(vx.VxError, match="not a Vx library"):
        vx.runtime.read_metadata(os.path.join(PACKAGE, vx.runtime.CUDA_RUNTIME)
                                 if os.path.exists(os.path.join(
                                     PACKAGE, vx.runtime.CUDA_RUNTIME))
                                 else shutil.which("true"))
    with pytest.raises(vx.VxError, match="not a 64-bit little-endian ELF"):
        vx.runtime.read_metadata(os.path.join(PACKAGE, "runtime.py"))


def test_bound_calls_check_once_and_run_often(tmp_path):
    module = vx.parse("""
func.func @bump(%x: memref<4xi64>, %step: i64) -> i64 {
  vx.spawn on host grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %v = memref.load %x[%i] : memref<4xi64>
    %w = arith.addi %v, %step : i64
    memref.store %w, %x[%i] : memref<4xi64>
  }
  %c0 = arith.constant 0 : index
  %first = memref.load %x[%c0] : memref<4xi64>
  return %first : i64
}
""")
    library = vx.compile(module, output=str(tmp_path / "bump.so"))
    base = np.zeros(8, np.int64)
    bump = library.bump.bind(base[::2], 3)      # a copied view: copied each call
    assert [bump() for _ in range(3)] == [3, 6, 9]
    np.testing.assert_array_equal(base, [9, 0, 9, 0, 9, 0, 9, 0])
    base[0] = 100
    assert bump() == 103
    with pytest.raises(TypeError, match="argument 1 is i64: expected an int"):
        library.bump.bind(base[:4], 1.5)
    with pytest.raises(TypeError, match="stream= applies to CUDA libraries only"):
        library.bump(base[:4], 1, stream=0)


def test_unsupported_functions_are_named_not_exported(tmp_path):
    module = vx.parse("""
func.func @ok(%x: memref<4xf32>, %s: f32) -> f32 {
  return %s : f32
}
func.func @make(%m: memref<4xf32>) -> memref<4xf32> {
  return %m : memref<4xf32>
}
func.func @pair(%a: i32) -> (i32, i32) {
  return %a, %a : i32, i32
}
""")
    library = vx.compile(module, output=str(tmp_path / "l.so"))
    assert library.functions == ["ok"]
    assert library.ok(np.zeros(4, np.float32), 2.5) == 2.5
    with pytest.raises(TypeError, match="@make returns memref<4xf32>"):
        library.make
    with pytest.raises(TypeError, match="@pair returns i32, i32"):
        library.function("pair")
    with pytest.raises(ValueError, match="no function @nope; it has: ok"):
        library.function("nope")
    with pytest.raises(AttributeError):
        library.nope
    assert "vx_call_make" not in dynamic_symbols(library._load_path, defined=True)


def test_functions_keeps_only_those(tmp_path):
    module = vx.parse("""
func.func @keep(%x: memref<4xf32>) {
  func.call @helper(%x) : (memref<4xf32>) -> ()
  return
}
func.func @helper(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %x[%c0] : memref<4xf32>
  return
}
func.func @drop() {
  return
}
""")
    library = vx.compile(module, output=str(tmp_path / "l.so"), functions=["keep"])
    assert library.functions == ["keep"]
    x = np.zeros(4, np.float32)
    library.keep(x)
    assert x[0] == 1.0
    with pytest.raises(ValueError, match="no function @nope"):
        vx.compile(module, functions=["nope"])


def test_overlapping_arguments_are_refused():
    module = vx.parse("""
func.func @copy(%src: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                %dst: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %src, %c0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %cols = memref.dim %src, %c1 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  vx.spawn on host grid [%rows, %cols] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %v = memref.load %src[%i, %j] : memref<?x?xf32, strided<[?, ?], offset: ?>>
    memref.store %v, %dst[%i, %j] : memref<?x?xf32, strided<[?, ?], offset: ?>>
  }
  return
}
""")
    base = np.arange(32, dtype=np.float32).reshape(4, 8)
    with pytest.raises(ValueError, match="arguments 0 and 1 overlap"):
        vx.run(module, "copy", base, base)
    with pytest.raises(ValueError, match="arguments 0 and 1 overlap"):
        vx.run(module, "copy", base[:, 0:4], base[:, 2:6])
    # Interleaved columns share a span but no element.
    expected = base.copy()
    expected[:, 1::2] = base[:, 0::2]
    vx.run(module, "copy", base[:, 0::2], base[:, 1::2])
    np.testing.assert_array_equal(base, expected)


BF16_ROUNDING = """
func.func @to_bf16(%x: memref<?xf32>, %bits: memref<?xi16>, %back: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  vx.spawn on tensor_core grid [%n] semantics [parallel] {
    %i = vx.grid_index 0
    %v = memref.load %x[%i] : memref<?xf32>
    %b = arith.truncf %v : f32 to bf16
    %w = arith.bitcast %b : bf16 to i16
    memref.store %w, %bits[%i] : memref<?xi16>
    %e = arith.extf %b : bf16 to f32
    memref.store %e, %back[%i] : memref<?xf32>
  }
  return
}
"""


def test_cpu_library_rounds_f32_to_bf16(tmp_path):
    """arith.truncf to bf16 is integer arithmetic on the CPU (upstream's
    bf16 expansion): no __truncsfbf2 to link, round to nearest even."""
    special = np.array([
        0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF,  # ties, near ties
        0x00008000, 0x00018000, 0x807FFFFF, 0x00000001,  # subnormals
        0x7F7FFFFF, 0x7F7F7FFF, 0x7F800000, 0xFF800000,  # overflow, inf
        0x80000000, 0x7FC00000, 0x7F800001, 0xFFA00000,  # -0, NaNs
    ], dtype=np.uint32)
    rng = np.random.default_rng(27)
    bits = np.concatenate([special, rng.integers(0, 2**32, 4096,
                                                 dtype=np.uint64).astype(np.uint32)])
    x = bits.view(np.float32)
    rounded = np.zeros(x.size, np.int16)
    back = np.zeros_like(x)
    library = vx.compile(vx.parse(BF16_ROUNDING), "cpu",
                         output=str(tmp_path / "round.so"))
    library.to_bf16(x, rounded, back)
    wide = bits.astype(np.uint64)
    expected = ((wide + 0x7FFF + ((wide >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    got = rounded.view(np.uint16)
    np.testing.assert_array_equal(got[~nan], expected[~nan])
    # NaNs stay NaNs (signalling ones included), never infinities.
    assert np.all((got[nan] & 0x7F80) == 0x7F80) and np.all(got[nan] & 0x7F)
    np.testing.assert_array_equal(
        back.view(np.uint32), got.astype(np.uint32) << 16)


def test_link_error_names_the_missing_symbol(tmp_path):
    """A routine that the code generator calls (f64 to bf16 has no
    expansion) is named, not attributed to an unknown function."""
    module = vx.parse(BF16_ROUNDING.replace("memref<?xf32>", "memref<?xf64>")
                      .replace("f32 to bf16", "f64 to bf16")
                      .replace("bf16 to f32", "bf16 to f64"))
    with pytest.raises(vx.VxError) as error:
        vx.compile(module, "cpu", output=str(tmp_path / "round.so"))
    message = str(error.value)
    assert "@to_bf16 needs @__truncdfbf2" in message and "@?" not in message


RACE_CLIENT = """
import numpy as np, sys, vx, vx.runtime
lib = vx.runtime.load(sys.argv[1])
for attempt in range(2):
    try:
        lib.prefix(np.ones(8, np.int64))
    except vx.VxError as error:
        print("raised:", str(error).splitlines()[0])
print("alive")
"""


def test_cpu_library_with_detect_races_raises(tmp_path):
    """A race in a library compiled with detect_races=True raises VxError
    with the report (every call), and the process lives on."""
    path = str(tmp_path / "lib" / "prefix.so")
    vx.compile(vx.parse(RACY_PREFIX), "cpu", output=path, allow_races=True,
               detect_races=True)
    result = subprocess.run(
        [sys.executable, "-c", RACE_CLIENT, path], capture_output=True,
        text=True, env=dict(os.environ,
                            PYTHONPATH=runtime_only_package(tmp_path)))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "alive" and len(lines) == 3, result.stdout
    for line in lines[:2]:
        assert re.match(r"raised: vx: data race in the spawn at .* on element "
                        r"\[[1-7]\] of argument 0 of @prefix", line), line
    assert "data race" not in result.stderr


def test_compile_errors(matmul):
    with pytest.raises(ValueError, match="unknown target 'tpu'"):
        vx.compile(matmul, "tpu")
    with pytest.raises(ValueError, match="stage 'gpu' cannot be compiled"):
        vx.compile(matmul.lower("gpu"), "cpu")
    with pytest.raises(TypeError, match="expected a vx.Module"):
        vx.compile("matmul", "cpu")
    with pytest.raises(TypeError, match="stage 'llvm' has no option 'features'"):
        vx.compile(matmul, "cpu", features="+ptx80")


# -- CUDA libraries ------------------------------------------------------------

needs_cuda_toolkit = pytest.mark.skipif(
    not os.path.exists(os.path.join(PACKAGE, vx.runtime.CUDA_RUNTIME)) or
    not (shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")),
    reason="no CUDA toolkit (ptxas, libvx_cuda_runtime.so)")


@needs_cuda_toolkit
def test_cuda_library_symbols_dependencies_and_binary(matmul, tmp_path):
    path = str(tmp_path / "matmul.so")
    library = vx.compile(matmul, "cuda", output=path, chip="sm_90", format="bin")
    assert library.target == "cuda" and library.functions == ["matmul"]
    assert os.path.exists(tmp_path / vx.runtime.CUDA_RUNTIME)
    entries = dynamic_entries(path)
    assert "libvx_cuda_runtime.so" in entries["NEEDED"]
    assert entries["RUNPATH"] == ["$ORIGIN"]
    ldd = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    assert "libvx_cuda_runtime.so => " + str(tmp_path) in ldd
    assert "libMLIR" not in ldd and "libLLVM" not in ldd
    assert {"vx_call_matmul", "_mlir_ciface_matmul"} <= dynamic_symbols(path, True)
    assert {"mgpuModuleLoad", "mgpuLaunchKernel"} <= dynamic_symbols(path, False)
    # The cubin of the module, embedded as it is.
    [(_, _, kind, cubin)] = matmul.lower("ptx", chip="sm_90",
                                         format="bin")._native.binaries()
    assert kind == "bin" and cubin[:4] == b"\x7fELF"
    with open(path, "rb") as data:
        assert cubin in data.read()
    metadata = vx.runtime.read_metadata(path)
    assert metadata["options"]["chip"] == "sm_90"
    assert metadata["runtime"] == ["libvx_cuda_runtime.so"]


@needs_cuda_toolkit
def test_cuda_library_defaults_to_a_fatbin(matmul):
    library = vx.compile(matmul, "cuda")
    assert library.metadata["options"]["format"] == "fatbin"


@needs_cuda_toolkit
def test_cuda_library_refuses_host_code_that_touches_memrefs():
    module = vx.parse("""
func.func @f(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32>
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    memref.store %v, %x[%i] : memref<4xf32>
  }
  return
}
""", "host.mlir")
    with pytest.raises(vx.VxError, match="host code cannot run with device memory") as raised:
        vx.compile(module, "cuda")
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.location == "host.mlir:4:8"
    assert "'memref.load' accesses memref memory on the host" in diagnostic.message


CUDA_CLIENT = """
import sys, vx.runtime
try:
    vx.runtime.load(sys.argv[1])
except vx.runtime.CudaError as error:
    print("CudaError:", error)
"""


@needs_cuda_toolkit
@pytest.mark.skipif(os.path.exists("/dev/nvidia0"), reason="a GPU is present")
def test_cuda_library_without_gpu_is_a_clear_error(matmul, tmp_path):
    path = str(tmp_path / "lib" / "matmul.so")
    vx.compile(matmul, "cuda", output=path)
    python = runtime_only_package(tmp_path)
    script = CUDA_CLIENT.replace("sys.argv[1]", repr(path))
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_python(script, python, LD_LIBRARY_PATH=str(empty))
    assert result.returncode == 0, result.stderr
    if "no NVIDIA driver" not in result.stdout:
        pytest.skip("this machine has a driver but no GPU")
    assert "libcuda.so.1 cannot be loaded" in result.stdout
    if not os.path.exists(CUDA_STUB):
        return
    # The toolkit's stub driver: cuInit fails, and the library's constructor
    # (the module load) reports it instead of exiting.
    stub = tmp_path / "stub"
    stub.mkdir()
    os.symlink(CUDA_STUB, stub / "libcuda.so.1")
    result = run_python(script, python, LD_LIBRARY_PATH=str(stub))
    assert result.returncode == 0, result.stderr
    assert result.stdout == (f"CudaError: could not load the kernels of {path}: "
                             f"cuInit failed with CUDA_ERROR_STUB_LIBRARY\n")


FAKE_CLIENT = """
import os, sys, vx.runtime
sys.path.insert(0, sys.argv[2])
from fake_arrays import FakeCudaArray
lib = vx.runtime.load(sys.argv[1])
base = 1 << 40                          # device memory for the fake driver
a = FakeCudaArray((256, 32), "<f4", base)
b = FakeCudaArray((32, 384), "<f4", base + 32768)
c = FakeCudaArray((256, 384), "<f4", base + 81920)
print("default stream:", lib.matmul(a, b, c))
lib.matmul(a, b, c, stream=0x1234)
lib.matmul(a, b, FakeCudaArray((256, 384), "<f4", base + 81920, stream=0x77))
for arguments in ((a, b, FakeCudaArray((256, 384), "<f8", base + 81920)),
                  (a, b, FakeCudaArray((256, 384), "<f4", base + 256)),
                  (a, b, FakeCudaArray((256, 384), "<f4", 4096))):
    try:
        lib.matmul(*arguments)
    except (TypeError, ValueError) as error:
        print(type(error).__name__ + ":", error)
os.environ["VX_FAKE_CUDA_FAIL_LAUNCH"] = "1"
try:
    lib.matmul(a, b, c)
except vx.runtime.CudaError as error:
    print("CudaError:", error)
os.environ.pop("VX_FAKE_CUDA_FAIL_LAUNCH")
lib.matmul(a, b, c)
print("recovered")
"""


@needs_cuda_toolkit
def test_cuda_library_host_code_with_a_fake_driver(matmul, tmp_path):
    """The whole host path (vx.runtime, vx_call_, the C interface, the
    host code, libvx_cuda_runtime) against a driver that logs instead of
    running: the launch geometry is the one vx computes, the kernel gets the
    arrays' pointers, streams are honoured, and wrong arguments never
    launch."""
    fake = tmp_path / "driver"
    fake.mkdir()
    subprocess.run(["cc", "-shared", "-fPIC", "-I/usr/local/cuda/include",
                    os.path.join(os.path.dirname(__file__), "Inputs", "fake_cuda.c"),
                    "-o", str(fake / "libcuda.so.1")], check=True)
    path = str(tmp_path / "lib" / "matmul.so")
    vx.compile(matmul, "cuda", output=path, format="bin")
    log = tmp_path / "cuda.log"
    result = subprocess.run(
        [sys.executable, "-c", FAKE_CLIENT, path,
         os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs")],
        capture_output=True,
        text=True, env=dict(os.environ, PYTHONPATH=runtime_only_package(tmp_path),
                            LD_LIBRARY_PATH=str(fake), VX_FAKE_CUDA_LOG=str(log)))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "default stream: None",
        "TypeError: argument 2 is memref<256x384xf32>: expected a float32 array, got float64",
        "ValueError: arguments 0 and 2 overlap in memory; the memref arguments of a "
        "call must not overlap (Vx's aliasing contract)",
        "TypeError: argument 2: its memory is not CUDA device memory "
        "(cuPointerGetAttribute failed with CUDA_ERROR_INVALID_VALUE (from the fake "
        "driver))",
        "CudaError: @matmul failed: cuLaunchKernel failed with "
        "CUDA_ERROR_LAUNCH_FAILED (from the fake driver)",
        "recovered"]
    [launch] = matmul.launches()
    geometry = (f"launch {launch.kernel} grid={','.join(map(str, launch.grid))} "
                f"block={','.join(map(str, launch.block))}")
    first = f"memref0={hex(1 << 40)},{hex(1 << 40)},0"
    # On sm_90 the A and B tiles are TMA loads: before the first launch the
    # host encodes their tensor maps (a 256x32 and a 32x384 tensor, boxes of
    # the 128x8 and 8x128 tiles) and copies them to the device; the other
    # launches, with the same arrays, find them in the cache.
    maps = [f"tensormap type=7 address={hex(address)} dims={dims} "
            f"strides={stride} box={box} element_strides=1,1 interleave=0 "
            "swizzle=0 l2=0 oob=0"
            for address, dims, stride, box in (
                ((1 << 40), "32,256", 128, "8,128"),
                ((1 << 40) + 256 * 32 * 4, "384,32", 1536, "128,8"))]
    assert log.read_text().splitlines() == [
        "load 7f454c46",                                  # the cubin, at load
        maps[0], "alloc 128 at 0x20000000000", "copy 128 bytes to 0x20000000000",
        maps[1], "alloc 128 at 0x20000000100", "copy 128 bytes to 0x20000000100",
        f"{geometry} stream=(nil) {first}", "synchronize (nil)",
        f"{geometry} stream=0x1234 {first}",              # no wait on a caller's stream
        "wait (nil) after 0x77",                          # the array's stream first
        f"{geometry} stream=(nil) {first}", "synchronize (nil)",
        f"{geometry} stream=(nil) {first}",               # the failing launch
        f"{geometry} stream=(nil) {first}", "synchronize (nil)"]


TENSOR_MAP_CLIENT = r"""
import ctypes, os, sys
runtime = ctypes.CDLL(sys.argv[1])
encode = runtime.mgpuTensorMapEncodeTiledMemref
encode.restype = ctypes.c_void_p
encode.argtypes = ([ctypes.c_int64, ctypes.c_void_p] + [ctypes.c_int64] * 5 +
                   [ctypes.POINTER(ctypes.c_int64)])
runtime.vxCudaTakeError.restype = ctypes.c_char_p

class MemRef(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * 3),
                ("strides", ctypes.c_int64 * 3)]

def call(memref, box, rank=3, data_type=7):
    # As the lowering of nvgpu.tma.create.descriptor calls it: rank, the
    # ranked descriptor, the data type (7: f32), interleave, swizzle, L2
    # promotion and fill (none, none, none, zero), the box outermost first.
    boxes = (ctypes.c_int64 * 5)(*box)
    return encode(rank, ctypes.byref(memref), data_type, 0, 0, 0, 0, boxes)

base = 1 << 40
# memref<2x128x64xf32, strided<[8192, 64, 1], offset: 16>>: the offset counts.
tensor = MemRef(base, base, 16, (2, 128, 64), (8192, 64, 1))
first = call(tensor, (1, 16, 64))
print("map", hex(first))
print("again", call(tensor, (1, 16, 64)) == first)
print("other box", call(tensor, (1, 32, 64)) != first)
# Each encode input is part of the key: the fill (NaN), the data type (i32),
# the tensor's offset and its outer stride each make another map.
fill = encode(3, ctypes.byref(tensor), 7, 0, 0, 0, 1, (ctypes.c_int64 * 5)(1, 16, 64))
print("other fill", fill not in (first, None))
print("other type", call(tensor, (1, 16, 64), data_type=3) not in (first, fill))
shifted = MemRef(base, base, 32, (2, 128, 64), (8192, 64, 1))
print("other offset", call(shifted, (1, 16, 64)) != first)
wider = MemRef(base, base, 16, (2, 128, 64), (16384, 64, 1))
print("other stride", call(wider, (1, 16, 64)) != first)
# Another device has its own context, its own copy of an equal map.
runtime.mgpuSetDefaultDevice(1)
second = call(tensor, (1, 16, 64))
print("other device", second not in (first, None), call(tensor, (1, 16, 64)) == second)
runtime.mgpuSetDefaultDevice(0)
print("back", call(tensor, (1, 16, 64)) == first)
runtime.vxCudaReportErrors()
for memref, box, rank, data_type in (
        (MemRef(base, base, 0, (2, 128, 64), (8192, 128, 2)), (1, 16, 64), 3, 7),
        (tensor, (1, 16, 64), 6, 7),
        (tensor, (1, 16, 64), 3, 13)):
    print("error", call(memref, box, rank, data_type),
          runtime.vxCudaTakeError().decode())
os.environ["VX_FAKE_CUDA_FAIL_TENSOR_MAP"] = "1"
print("error", call(tensor, (1, 8, 64)), runtime.vxCudaTakeError().decode())
"""


@needs_cuda_toolkit
def test_tensor_map_encoding_with_a_fake_driver(tmp_path):
    """mgpuTensorMapEncodeTiledMemref, which host code lowered from
    nvgpu.tma.create.descriptor calls, against a driver that logs: the
    memref's sizes and strides reach cuTensorMapEncodeTiled innermost first
    (strides in bytes, the offset in the address), each distinct map (per
    encode inputs, context and device) is encoded and copied once and then
    only looked up, and bad arguments are errors reported like the others."""
    fake = tmp_path / "driver"
    fake.mkdir()
    subprocess.run(["cc", "-shared", "-fPIC", "-I/usr/local/cuda/include",
                    os.path.join(os.path.dirname(__file__), "Inputs", "fake_cuda.c"),
                    "-o", str(fake / "libcuda.so.1")], check=True)
    log = tmp_path / "cuda.log"
    result = subprocess.run(
        [sys.executable, "-c", TENSOR_MAP_CLIENT,
         os.path.join(PACKAGE, vx.runtime.CUDA_RUNTIME)],
        capture_output=True, text=True,
        env=dict(os.environ, LD_LIBRARY_PATH=str(fake), VX_FAKE_CUDA_LOG=str(log)))
    assert result.returncode == 0, result.stderr
    copy = hex(1 << 41)
    assert result.stdout.splitlines() == [
        f"map {copy}", "again True", "other box True", "other fill True",
        "other type True", "other offset True", "other stride True",
        "other device True True", "back True",
        "error None mgpuTensorMapEncodeTiledMemref: the innermost stride must be 1, got 2",
        "error None mgpuTensorMapEncodeTiledMemref: a tensor map has rank 1 to 5, got 6",
        "error None mgpuTensorMapEncodeTiledMemref: unknown data type 13",
        "error None cuTensorMapEncodeTiled failed with CUDA_ERROR_INVALID_VALUE "
        "(from the fake driver)"]
    def encoded(box=16, data_type=7, offset=16, stride=32768, oob=0):
        return (f"tensormap type={data_type} address={hex((1 << 40) + 4 * offset)} "
                f"dims=64,128,2 strides=256,{stride} box=64,{box},1 "
                f"element_strides=1,1,1 interleave=0 swizzle=0 l2=0 oob={oob}")

    def copied(index):
        at = hex((1 << 41) + 256 * index)
        return [f"alloc 128 at {at}", f"copy 128 bytes to {at}"]

    # One encoding and copy per distinct map, none for a repeated one.
    assert log.read_text().splitlines() == [
        encoded(), *copied(0),
        encoded(box=32), *copied(1),
        encoded(oob=1), *copied(2),
        encoded(data_type=3), *copied(3),
        encoded(offset=32), *copied(4),
        encoded(stride=65536), *copied(5),
        encoded(), *copied(6),                            # device 1
        encoded(box=8)]


def test_cuda_arguments_are_checked_against_the_signature():
    """The checks that run before a launch, on __cuda_array_interface__ and
    DLPack objects (no GPU needed: nothing is dereferenced)."""
    from vx.runtime import _check_view, _cuda_view, _admits
    description = {"kind": "memref", "type": "memref<8x?xf32>", "element": "f32",
                   "shape": [8, None], "strides": None, "offset": 0}
    view = _cuda_view(0, FakeCudaArray((8, 3), "<f4"), description, None)
    _check_view(0, view, description)
    assert view.strides == (12, 4) and _admits(view, None)
    with pytest.raises(TypeError, match="expected a float32 array, got float64"):
        _check_view(1, _cuda_view(1, FakeCudaArray((8, 3), "<f8"), description, None),
                    description)
    with pytest.raises(TypeError, match=r"got an array of shape \(4, 3\)"):
        _check_view(0, _cuda_view(0, FakeCudaArray((4, 3), "<f4"), description, None),
                    description)
    with pytest.raises(TypeError, match="read-only"):
        _check_view(0, _cuda_view(0, FakeCudaArray((8, 3), "<f4", readonly=True),
                                  description, None), description)
    transposed = _cuda_view(0, FakeCudaArray((8, 3), "<f4", strides=(4, 32)),
                            description, None)
    assert not _admits(transposed, None) and _admits(transposed, [None, None])
    with pytest.raises(TypeError, match="expected a CUDA array, got a ndarray in "
                                        "host memory"):
        _cuda_view(2, np.zeros((8, 3), np.float32), description, None)
    with pytest.raises(TypeError, match=r"expected a CUDA array \(__cuda_array_"
                                        r"interface__ or __dlpack__\), got list"):
        _cuda_view(2, [1.0], description, None)


def test_dlpack_capsules_are_read_as_numpy_sees_them():
    from vx.runtime import _dlpack_view
    base = np.arange(60, dtype=np.int32).reshape(5, 12)
    view = _dlpack_view(base[1:4, 2::3], None)
    assert view.address == base[1:4, 2::3].__array_interface__["data"][0]
    assert view.shape == (3, 4) and view.strides == (48, 12)
    assert view.dtype == "int32" and view.itemsize == 4 and view.device == (1, 0)


def test_cuda_overlap_check_on_device_addresses():
    from vx.runtime import _check_no_overlap, _cuda_view
    description = {"type": "memref<?xf32>", "element": "f32"}
    whole = _cuda_view(0, FakeCudaArray((16,), "<f4", address=1 << 40), description, None)
    evens = _cuda_view(1, FakeCudaArray((8,), "<f4", address=1 << 40, strides=(8,)),
                       description, None)
    odds = _cuda_view(2, FakeCudaArray((8,), "<f4", address=(1 << 40) + 4,
                                       strides=(8,)), description, None)
    _check_no_overlap([(1, evens), (2, odds)])
    with pytest.raises(ValueError, match="arguments 0 and 2 overlap"):
        _check_no_overlap([(0, whole), (2, odds)])


# -- the compile cache -----------------------------------------------------------

def test_cache_in_memory_and_on_disk(tmp_path, matmul):
    cache = tmp_path / "own-cache"
    environment = dict(os.environ, VX_CACHE_DIR=str(cache),
                       PYTHONPATH=os.pathsep.join(sys.path))
    script = ("import time, vx\n"
              "m = vx.parse(open(%r).read())\n"
              "t = time.perf_counter(); a = vx.compile(m, 'cpu')\n"
              "first = time.perf_counter() - t\n"
              "t = time.perf_counter(); b = vx.compile(m, 'cpu')\n"
              "print(a.path == b.path, a.path, first, time.perf_counter() - t)\n"
              % os.path.join(EXAMPLES, "matmul.mlir"))
    # Three processes at once on an empty cache, then one more.
    processes = [subprocess.Popen([sys.executable, "-c", script], env=environment,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(3)]
    outputs = [p.communicate() for p in processes]
    assert all(p.returncode == 0 for p in processes), outputs
    later = subprocess.run([sys.executable, "-c", script], env=environment,
                           capture_output=True, text=True, check=True).stdout
    paths = {line.split()[1] for line, _ in outputs} | {later.split()[1]}
    assert len(paths) == 1 and all(line.split()[0] == "True" for line, _ in outputs)
    entry = os.path.basename(os.path.dirname(paths.pop()))
    assert sorted(os.listdir(cache)) == [".locks", entry]
    assert sorted(os.listdir(cache / entry)) == ["library.so", "manifest.json",
                                                 "metadata.json"]
    # The process that found the entry on disk compiled nothing.
    _, _, first, again = later.split()
    assert float(first) < 0.5 and float(again) < 0.2


def test_cache_keys_on_options_and_text(matmul, attention):
    assert vx.compile(matmul).path == vx.compile(matmul).path
    assert vx.compile(matmul).path != vx.compile(matmul, openmp=True).path
    assert vx.compile(matmul).path != vx.compile(attention).path
    # The text without its locations: the same code parsed from elsewhere
    # is the same library (unless it has diagnostics, which name the
    # locations: test_deploy).
    again = read_example("matmul.mlir")
    assert vx.compile(again).path == vx.compile(matmul).path
    assert vx.compile(vx.parse(str(matmul))).path == vx.compile(matmul).path

"""pytest suite of @vx.kernel, the Python front end (python/vx/tracer.py,
VX_SPEC 4.1): every construct parses, kernels give numpy's numbers on the
CPU routes, mistakes are reported at the user's line, and the caches."""

import importlib.util
import math
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import vx
from vx import _vx, arbitrary, parallel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from fake_arrays import FakeCudaArray  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
THIS_FILE = os.path.basename(__file__)


def line_of(marker):
    """The line of this file that ends with `# <marker>`."""
    with open(__file__) as source:
        for number, line in enumerate(source, 1):
            if line.rstrip().endswith(f"# {marker}"):
                return number
    raise AssertionError(marker)


def assert_at(error, marker):
    """The error starts with this file and the marked line, then shows it."""
    text = str(error.value)
    line = line_of(marker)
    assert re.match(rf"\S*{re.escape(THIS_FILE)}:{line}: ", text), text
    assert f"# {marker}" in text.split("\n")[1], text


def load_example(name):
    path = os.path.join(ROOT, "python", "examples", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ROUTES = [{}, {"via_gpu": True}, {"reverse_parallel": True}]
#: The examples also run as PTX on the simulator (vx-to-ptx needs the CUDA
#: toolkit).
EXAMPLE_ROUTES = ROUTES + [
    pytest.param({"ptx_sim": True, "chip": chip}, id=f"ptx_sim-{chip}",
                 marks=pytest.mark.skipif(not _vx.cuda_toolkit(),
                                          reason="no CUDA toolkit"))
    for chip in ("sm_80", "sm_90a")]


# -- every construct parses ----------------------------------------------------

@vx.kernel
def everything(x, idx, out, a: vx.f64, scale, n: vx.Const):
    rows, cols = x.shape
    with vx.spawn(grid=[rows, 2], semantics=[parallel, arbitrary],
                  on="tensor_core", threads=32, stages=2) as (r, step):
        mine = vx.scratch((cols,))
        tile = vx.scratch((1, cols), vx.f32, smem=True)
        tile16 = vx.scratch((4, 4), vx.f16, smem=True)
        acc = vx.scratch((4, 4))
        token = vx.copy_async(x[r:r + 1, :], tile)
        token.wait()
        vx.matmul(tile16, tile16, acc)
        last = step == vx.grid_dim(1) - 1
        total = vx.thread_reduce(cols, "add", init=0.0, body=lambda t: tile[0, t])
        low = vx.thread_reduce(cols, "min", init=math.inf, body=lambda t: x[r, t])
        high = vx.thread_reduce((2, cols // 2), "max", init=0,
                                body=lambda i, j: idx[r, i * (cols // 2) + j])
        for t in vx.threads(cols):
            mine[t] = vx.exp(tile[0, t]) + vx.exp2(x[r, t]) - vx.log(scale)
            mine[t] += vx.sqrt(vx.maximum(x[r, t], 0.0)) * vx.minimum(total, low)
        for i, j in vx.threads(2, cols // 2):
            with vx.when(last & (idx[r, i] < high)):
                out[r, i * (cols // 2) + j] = mine[i * (cols // 2) + j] * n
            with vx.otherwise():
                out[r, i * (cols // 2) + j] = vx.where(
                    (idx[r, j] % 3 == 0) | ~last, a.astype(vx.f32),
                    (idx[r, j] // 2).astype(vx.f32) / 2)
        for k in vx.range(0, cols, 2):
            s, c = vx.fori(4, init=(0.0, vx.i32(0)),
                           body=lambda i, carry: (carry[0] + x[r, k], carry[1] + 1))
            out[r, k] = s + c.astype(vx.f32) + vx.f16(0.5).astype(vx.f32)


def test_every_construct_traces_to_ir_that_parses():
    x = np.ones((4, 8), np.float32)
    idx = np.zeros((4, 8), np.int64)
    text = everything.mlir(x, idx, x, 1.0, 2.0, vx.Const(3))
    module = vx.parse(text)
    for op in ("vx.spawn on tensor_core grid [4, 2] semantics [parallel, arbitrary] "
               "threads 32 stages 2", "vx.grid_index 0", "vx.grid_dim 1",
               "vx.scratch : memref<8xf32>", "vx.scratch smem : memref<1x8xf32>",
               "vx.transfer_async", "vx.await", "linalg.matmul", "memref.subview",
               "scf.parallel", "scf.reduce", "scf.if", "} else {", "scf.for",
               "iter_args", "math.exp ", "math.exp2", "math.log", "math.sqrt",
               "arith.maximumf", "arith.minimumf", "arith.select", "arith.floordivsi",
               "arith.extf", "arith.truncf", "arith.sitofp", "arith.andi",
               "arith.ori", "arith.xori", "%a: f64", "%scale: f32", "%idx: memref<4x8xi64>"):
        assert op in text, op
    # n is baked in; the locations are this file's lines.
    assert "%n" not in text
    lowered = module.lower("scf")
    assert "vx.spawn" not in str(lowered)


def test_locations_are_the_python_lines():
    @vx.kernel
    def copy(x, y):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):  # the spawn
            y[r] = x[r] + 1.0  # the store

    x = np.ones(4, np.float32)
    text = copy.mlir(x, x)
    store = next(line for line in text.splitlines() if "memref.store" in line)
    assert store.endswith(f'loc("{__file__}":{line_of("the store")}:13)')
    assert re.search(rf'}} loc\("{re.escape(__file__)}":{line_of("the spawn")}:\d+\)',
                     text)


def helper_store(y, i, value):
    y[i] = value  # helper store


def test_helper_functions_get_call_site_locations():
    @vx.kernel
    def through_helper(x, y):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            helper_store(y, r, x[r])  # helper call

    x = np.ones(4, np.float32)
    text = through_helper.mlir(x, x)
    assert (f'loc(callsite("{__file__}":{line_of("helper store")}:5 at '
            f'"{__file__}":{line_of("helper call")}:13))') in text


# -- numbers on every CPU route ------------------------------------------------

@vx.kernel
def arithmetic(x, n, out):
    (size,) = x.shape
    with vx.spawn(grid=[size], semantics=[parallel]) as (i,):
        v, k = x[i], n[i]
        results = [v + 1.5, v * 2 - 3, v / 4, v // 0.5, v % 0.75, -v,
                   vx.exp(v), vx.exp2(v), vx.log(v + 2), vx.sqrt(v + 2),
                   vx.maximum(v, 0.25), vx.minimum(v, 0.25),
                   vx.where(v > 0.5, v, 0.0), (k // 3).astype(vx.f32),
                   (k % 3).astype(vx.f32), k / 2, abs(v - 0.5), v ** 3,
                   (k * 2 + 1).astype(vx.f32), 1 - v, 2 / (v + 2),
                   vx.where((k > 0) & (v < 0.5), 1.0, 0.0),
                   v.astype(vx.f16).astype(vx.f32), (v * 4).astype(vx.i32)]
        for column, value in enumerate(results):
            out[i, column] = value


def arithmetic_reference(x, n):
    k = n.astype(np.float64)
    return np.stack([x + 1.5, x * 2 - 3, x / 4, x // 0.5, x % 0.75, -x,
                     np.exp(x), np.exp2(x), np.log(x + 2), np.sqrt(x + 2),
                     np.maximum(x, 0.25), np.minimum(x, 0.25),
                     np.where(x > 0.5, x, 0.0), n // 3, n % 3, k / 2,
                     abs(x - 0.5), x ** 3, n * 2 + 1, 1 - x, 2 / (x + 2),
                     np.where((n > 0) & (x < 0.5), 1.0, 0.0),
                     x.astype(np.float16).astype(np.float32),
                     np.trunc(x * 4)], axis=1).astype(np.float32)


@pytest.mark.parametrize("options", ROUTES)
def test_operators_follow_numpy(options):
    rng = np.random.default_rng(1)
    x = rng.uniform(-1.5, 1.5, 64).astype(np.float32)
    n = rng.integers(-7, 8, 64).astype(np.int32)
    out = np.zeros((64, 24), np.float32)
    arithmetic(x, n, out, **options)
    np.testing.assert_allclose(out, arithmetic_reference(x, n), rtol=2e-6, atol=2e-6)


@vx.kernel
def control(x, out):
    rows, cols = x.shape
    with vx.spawn(grid=[rows], semantics=[parallel], threads=16) as (r,):
        low = vx.thread_reduce(cols, "min", init=math.inf, body=lambda t: x[r, t])
        high = vx.thread_reduce(cols, "max", init=-math.inf, body=lambda t: x[r, t])
        for t in vx.threads(cols):
            with vx.when(x[r, t] > 0):
                out[r, t] = high
            with vx.otherwise():
                out[r, t] = low
        prefix = vx.fori(cols, init=0.0, body=lambda t, s: s + x[r, t])
        out[r, 0] = prefix


@pytest.mark.parametrize("options", ROUTES)
def test_control_flow_follows_numpy(options):
    x = np.random.default_rng(2).standard_normal((3, 32)).astype(np.float32)
    out = np.zeros_like(x)
    control(x, out, **options)
    expected = np.where(x > 0, x.max(1, keepdims=True), x.min(1, keepdims=True))
    expected[:, 0] = x.sum(1)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("options", EXAMPLE_ROUTES)
def test_saxpy_example(options):
    saxpy = load_example("saxpy").saxpy
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, np.float32)
    saxpy(0.5, x, y, **options)
    np.testing.assert_allclose(y, 0.5 * np.arange(1000) + 1, rtol=1e-6)


@pytest.mark.parametrize("options", EXAMPLE_ROUTES)
def test_softmax_example(options):
    example = load_example("softmax")
    x = np.random.default_rng(3).standard_normal((6, 512)).astype(np.float32)
    y = np.zeros_like(x)
    example.softmax(x, y, **options)
    np.testing.assert_allclose(y, example.reference(x), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("kernel", ["matmul", "matmul_tiles"])
@pytest.mark.parametrize("options", EXAMPLE_ROUTES)
def test_matmul_example(kernel, options):
    function = getattr(load_example("matmul"), kernel)
    rng = np.random.default_rng(4)
    a = rng.standard_normal((128, 32)).astype(np.float32)
    b = rng.standard_normal((32, 192)).astype(np.float32)
    c = np.zeros((128, 192), np.float32)
    tile = {"tile": vx.Const(64)} if kernel == "matmul" else {}
    # vx-verify-semantics proves both, the tile op element by element: no
    # warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        function(a, b, c, *tile.values(), **options)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    text = function.mlir(a, b, c, *tile.values())
    assert "semantics [parallel, parallel, arbitrary]" in text
    assert "stages 2" in text


@pytest.mark.parametrize("options", EXAMPLE_ROUTES + [{"openmp": True}])
def test_attention_example(options):
    example = load_example("attention")
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((1, 2, 128, 64)).astype(np.float32)
               for _ in range(3))
    o = np.zeros_like(q)
    example.attention(q, k, v, o, **options)
    np.testing.assert_allclose(o, example.reference(q, k, v), rtol=1e-4, atol=1e-5)


def test_scratch_dtypes_and_constants():
    @vx.kernel
    def kinds(out):
        with vx.spawn(grid=[len(out)], semantics=[parallel]) as (i,):
            half = vx.scratch(2, np.float16)
            wide = vx.scratch(2, np.dtype("float64"))
            half[0] = 1e6             # beyond f16: inf, as numpy
            wide[0] = vx.f64(0.1)
            out[i] = half[0].astype(vx.f32) + wide[0].astype(vx.f32)

    out = np.zeros(2, np.float32)
    text = kinds.mlir(out)
    assert "memref<2xf16>" in text and "memref<2xf64>" in text
    assert "arith.constant 0x7C00 : f16" in text
    kinds(out)
    assert np.isinf(out).all()


def test_scalar_arguments_and_annotations():
    @vx.kernel
    def fill(out, value, count, wide: vx.f64):
        with vx.spawn(grid=[out.shape[0]], semantics=[parallel]) as (i,):
            with vx.when(i < count):
                out[i] = value + wide.astype(vx.f32)

    out = np.zeros(8, np.float32)
    text = fill.mlir(out, 1.5, 3, 0.25)
    assert "%value: f32, %count: index, %wide: f64" in text
    fill(out, 1.5, 3, 0.25)
    assert out.tolist() == [1.75] * 3 + [0.0] * 5


@pytest.mark.parametrize("options", ROUTES)
def test_dynamic_grid_and_loop_bounds(options):
    @vx.kernel
    def head(x, y, rows, cols):
        with vx.spawn(grid=[rows], semantics=[parallel]) as (r,):
            for c in vx.range(cols):
                y[r, c] = x[r, c] + vx.grid_dim(0).astype(vx.f32)

    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    y = np.zeros_like(x)
    assert "vx.spawn on tensor_core grid [%rows]" in head.mlir(x, y, 3, 5)
    # Nothing bounds cols by the arrays' 8 columns: the verifier says so,
    # with the parameters' names.
    with pytest.warns(UserWarning, match=r"may write the same element of memory "
                      r"captured by the spawn when (rows|cols) = \d+ and (rows|cols) = \d+"):
        head(x, y, 3, 5, **options)
    expected = np.zeros_like(x)
    expected[:3, :5] = x[:3, :5] + 3
    assert (y == expected).all()


# -- errors at the user's line ---------------------------------------------------

X = np.ones((4, 8), np.float32)


def test_race_is_reported_at_the_write():
    @vx.kernel
    def race(x, y):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):  # race spawn
            for c in vx.range(8):
                y[0, c] = x[r, c]  # racy write

    with pytest.raises(vx.VxError) as error:
        race(X, np.zeros_like(X))
    assert_at(error, "racy write")
    text = str(error.value)
    # IR names become the user's: grid index 0 is `r`.
    assert "parallel dimension 0 ('r')" in text
    assert "index the write by 'r'" in text
    assert f"{THIS_FILE}:{line_of('race spawn')}: note: mark dimension 0" in text


def test_race_in_a_helper_names_the_helper_and_its_caller():
    @vx.kernel
    def race(x, y):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            helper_store(y, 0, x[r, 0])  # racy call

    with pytest.raises(vx.VxError) as error:
        race(X, np.zeros(4, np.float32))
    assert_at(error, "helper store")
    assert f"called from {__file__}:{line_of('racy call')}" in str(error.value)


def test_python_if_on_a_traced_value():
    @vx.kernel
    def branch(x, y):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            if x[r, 0] > 0:  # python if
                y[r, 0] = 1.0

    with pytest.raises(vx.TraceError) as error:
        branch(X, np.zeros_like(X))
    assert_at(error, "python if")
    assert "vx.when" in str(error.value)


def test_python_range_over_a_traced_value():
    @vx.kernel
    def loop(x, n):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            for _ in range(n):  # python range
                x[r, 0] = 1.0

    with pytest.raises(vx.TraceError) as error:
        loop(X, 3)
    assert_at(error, "python range")
    assert "vx.range" in str(error.value)


def test_scratch_outside_the_spawn_body():
    @vx.kernel
    def nested(x):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            for _ in vx.range(2):
                vx.scratch(8)  # nested scratch

    with pytest.raises(vx.TraceError) as error:
        nested(X)
    assert_at(error, "nested scratch")

    @vx.kernel
    def outside(x):
        vx.scratch(8)  # scratch outside

    with pytest.raises(vx.TraceError) as error:
        outside(X)
    assert_at(error, "scratch outside")


def test_copy_shape_mismatch():
    @vx.kernel
    def copy(x):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            tile = vx.scratch(4, smem=True)
            vx.copy_async(x[r, 0:8], tile).wait()  # bad copy

    with pytest.raises(vx.TraceError) as error:
        copy(X)
    assert_at(error, "bad copy")
    assert "same shape" in str(error.value)


def test_too_much_shared_memory():
    @vx.kernel
    def big(x, y):
        with vx.spawn(grid=[4], semantics=[parallel], threads=32) as (r,):  # big spawn
            tile = vx.scratch((256, 256), smem=True)
            for c in vx.threads(8):
                tile[0, c] = x[r, c]
            for c in vx.threads(8):
                y[r, c] = tile[0, c]

    with pytest.raises(vx.VxError) as error:
        big(X, np.zeros_like(X), via_gpu=True)
    assert_at(error, "big spawn")
    assert "bytes of shared memory" in str(error.value)


def test_token_never_awaited():
    @vx.kernel
    def forgetful(x):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            tile = vx.scratch(8, smem=True)
            vx.copy_async(x[r, 0:8], tile)  # lost token

    with pytest.raises(vx.VxError) as error:
        forgetful(X)
    assert_at(error, "lost token")
    assert "never awaited" in str(error.value)


def test_private_scratch_not_owned_by_threads():
    @vx.kernel
    def shared_private(x, y):
        with vx.spawn(grid=[4], semantics=[parallel], threads=8) as (r,):
            t = vx.scratch(8)
            for c in vx.threads(8):
                t[0] = x[r, c]  # unowned write
            for c in vx.threads(8):
                y[r, c] = t[c]

    with pytest.raises(vx.VxError) as error:
        shared_private(X, np.zeros_like(X))
    assert_at(error, "unowned write")


def test_dynamic_race_detector():
    @vx.kernel
    def scatter(x, y, idx):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            y[idx[r], 0] = x[r, 0]  # scatter write

    y, idx = np.zeros_like(X), np.array([0, 1, 1, 3], np.int64)
    with pytest.warns(UserWarning, match="cannot prove that parallel instances"):
        scatter(X, y, idx)   # the verifier cannot decide a data-dependent address
    with pytest.raises(vx.VxError) as error:
        scatter(X, y, idx, detect_races=True)
    assert_at(error, "scatter write")
    assert "of argument 'y'" in str(error.value)
    assert "instance (r=1) writes it" in str(error.value)
    assert "instance (r=2) writes it" in str(error.value)


def test_race_witness_names_the_grid_indices():
    @vx.kernel
    def halves(x, y):
        with vx.spawn(grid=[4, 2], semantics=[parallel, parallel]) as (r, c):
            y[r // 2, c] = x[r, c]  # halves write

    with pytest.raises(vx.VxError) as error:
        halves(X, np.zeros_like(X))
    assert_at(error, "halves write")
    assert re.search(r"parallel instances \(r=\d, c=\d\) and \(r=\d, c=\d\) "
                     r"write the same element", str(error.value)), str(error.value)


def test_verifier_warnings_are_warned_at_the_line():
    @vx.kernel
    def strided(x, y, n):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            y[r * n] = x[r, 0]  # symbolic stride

    y = np.zeros(16, np.float32)
    with pytest.warns(UserWarning) as record:
        strided(X, y, 2)
    [warning] = [w for w in record if "cannot prove" in str(w.message)]
    assert warning.lineno == line_of("symbolic stride")
    assert str(warning.message).startswith(
        f"{__file__}:{line_of('symbolic stride')}: warning: cannot prove")
    assert y[::2][:4].tolist() == [1.0] * 4
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        strided(X, y, 3)                 # warned once per specialization


def test_value_escaping_its_loop():
    @vx.kernel
    def escape(x, y):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            s = 0.0
            for c in vx.range(8):
                s = s + x[r, c]
            y[r, 0] = s  # escaped value

    with pytest.raises(vx.TraceError) as error:
        escape(X, np.zeros_like(X))
    assert_at(error, "escaped value")
    assert "vx.fori" in str(error.value)


def test_otherwise_must_follow_when():
    @vx.kernel
    def dangling(x):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            with vx.otherwise():  # dangling otherwise
                x[r, 0] = 1.0

    with pytest.raises(vx.TraceError) as error:
        dangling(X)
    assert_at(error, "dangling otherwise")


def test_out_of_bounds_static_index_and_bad_slice():
    @vx.kernel
    def outside(x):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            x[r, 8] = 1.0  # index 8

    with pytest.raises(vx.TraceError) as error:
        outside(X)
    assert_at(error, "index 8")

    @vx.kernel
    def dynamic_size(x):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            tile = vx.scratch(2, smem=True)
            vx.copy_async(x[r, r:2 * r], tile).wait()  # dynamic slice

    with pytest.raises(vx.TraceError) as error:
        dynamic_size(X)
    assert_at(error, "dynamic slice")
    assert "a:a + SIZE" in str(error.value)


def test_whole_array_arithmetic():
    @vx.kernel
    def whole(x):
        with vx.spawn(grid=[4], semantics=[parallel]) as (r,):
            x[r, np.int64(0)] = 1.0       # numpy integers index
            x[r, 0:2] += 1.0  # whole slice

    with pytest.raises(vx.TraceError) as error:
        whole(X)
    assert_at(error, "whole slice")
    assert "element by element" in str(error.value)


def test_bad_calls_are_clear_errors():
    @vx.kernel
    def double(x):
        with vx.spawn(grid=[x.shape[0]], semantics=[parallel]) as (i,):
            x[i] = x[i] * 2

    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="has no option 'fast'"):
        double(x, fast=True)
    with pytest.raises(TypeError, match="option 'via_gpu' takes a bool"):
        double(x, via_gpu="yes")
    with pytest.raises(TypeError, match=r"double\(\) takes 1 arguments, got 2"):
        double(x, x)
    with pytest.raises(TypeError, match="pass the kernel argument 'x' by position"):
        double(x=x)
    with pytest.raises(TypeError, match="cannot pass a list"):
        double([1.0])
    with pytest.raises(TypeError, match="numpy and CUDA arrays"):
        vx.kernel(lambda a, b: None)(x, FakeCudaArray((4,), "<f4"))
    assert x.tolist() == [1.0] * 4


def test_constructs_outside_a_kernel():
    with pytest.raises(vx.TraceError, match="@vx.kernel"):
        vx.scratch(8)


def test_diagnostics_carry_the_whole_location_chain():
    text = ('func.func @f() {\n  %i = vx.grid_index 0 '
            'loc(callsite("inner.py":3:5 at callsite("mid.py":7:1 at "outer.py":9:2)))\n'
            '  return\n}\n')
    with pytest.raises(vx.VxError) as error:
        vx.parse(text)
    [diagnostic] = [d for d in error.value.diagnostics if d.severity == "error"]
    assert diagnostic.location == "inner.py:3:5"
    assert diagnostic.chain == ("inner.py:3:5", "mid.py:7:1", "outer.py:9:2")


# -- caches --------------------------------------------------------------------

def test_second_call_does_not_retrace_and_const_changes_do():
    @vx.kernel
    def scale(x, y, factor: vx.Const):
        with vx.spawn(grid=[x.shape[0]], semantics=[parallel]) as (i,):
            y[i] = x[i] * factor

    x = np.arange(4, dtype=np.float32)
    y = np.zeros_like(x)
    scale(x, y, 2.0)
    scale(x, y, 2.0)
    assert scale.cache_info() == {"traces": 1, "specializations": 1, "calls": 1}
    assert y.tolist() == [0, 2, 4, 6]
    scale(x, y, 3.0)
    assert scale.cache_info()["traces"] == 2
    assert y.tolist() == [0, 3, 6, 9]
    scale(x, y, vx.Const(3.0), reverse_parallel=True)   # options: a new call
    assert scale.cache_info() == {"traces": 2, "specializations": 2, "calls": 3}


def test_fast_path_uses_dtypes_and_shapes():
    @vx.kernel
    def double(x):
        with vx.spawn(grid=[x.shape[0]], semantics=[parallel]) as (i,):
            x[i] = x[i] * 2

    x = np.ones(4, np.float32)
    for _ in range(3):
        double(x)
    double(np.ones(5, np.float32))
    double(np.ones(4, np.float64))
    assert double.cache_info()["traces"] == 3
    assert x.tolist() == [8.0] * 4


def test_specialization_warning_names_the_changing_argument():
    @vx.kernel
    def fill(x, y):
        with vx.spawn(grid=[y.shape[0]], semantics=[parallel]) as (i,):
            y[i] = x[0]

    x = np.ones(1, np.float32)
    with pytest.warns(UserWarning, match=r"argument 'y' keeps changing \(shapes"):
        for size in range(1, vx.tracer.SPECIALIZATION_WARNING + 1):
            fill.mlir(x, np.zeros(size, np.float32))


KERNEL_SOURCE = '''
import vx

@vx.kernel
def moved(x):
    with vx.spawn(grid=[x.shape[0]], semantics=[vx.parallel]) as (i,):
        x[i] = x[i] + 1.0
'''


def test_locations_are_not_in_the_disk_cache_key(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("VX_CACHE_DIR", str(cache))
    results = []
    for padding in (0, 7):
        path = tmp_path / f"moved{padding}.py"
        path.write_text("\n" * padding + KERNEL_SOURCE)
        spec = importlib.util.spec_from_file_location(f"moved{padding}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        x = np.zeros(4, np.float32)
        module.moved(x)
        results.append((module.moved.mlir(x), sorted(os.listdir(cache))))
        assert x.tolist() == [1.0] * 4
    (first_text, first_entries), (second_text, second_entries) = results
    assert first_text != second_text           # the locations moved
    assert first_entries == second_entries     # one compiled library


RACY_SOURCE = '''
import vx

@vx.kernel
def scatter(x, y, idx):
    with vx.spawn(grid=[4], semantics=[vx.parallel]) as (r,):
        y[idx[r]] = x[r]
'''


def test_race_reports_follow_a_moved_kernel(tmp_path, monkeypatch):
    """The race detector's code names the accesses' lines: under
    detect_races the locations are part of the compile cache key."""
    monkeypatch.setenv("VX_CACHE_DIR", str(tmp_path / "cache"))
    x, idx = np.ones(4, np.float32), np.array([0, 1, 1, 3], np.int64)
    for padding in (0, 5):
        path = tmp_path / f"racy{padding}.py"
        path.write_text("\n" * padding + RACY_SOURCE)
        spec = importlib.util.spec_from_file_location(f"racy{padding}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # "cannot prove" (a loaded index)
            with pytest.raises(vx.VxError) as error:
                module.scatter(x, np.zeros(4, np.float32), idx, detect_races=True)
        assert str(error.value).startswith(f"{path}:{padding + 7}: "), str(error.value)
        assert f"'memref.store' at {path}:{padding + 7}:9" in str(error.value)


# -- CUDA arrays ---------------------------------------------------------------

PACKAGE = os.path.dirname(vx.__file__)

CUDA_KERNEL_CLIENT = """
import sys, numpy as np, vx
sys.path.insert(0, sys.argv[1])
from fake_arrays import FakeCudaArray

@vx.kernel
def scale(x, y):
    with vx.spawn(grid=[x.shape[0]], semantics=[vx.parallel]) as (i,):
        y[i] = x[i] * 2.0

base = 1 << 40
scale(FakeCudaArray((64,), "<f4", base), FakeCudaArray((64,), "<f4", base + 256))
print(vx.tracer._chips)
print(scale.compile(np.zeros(64, np.float32), np.zeros(64, np.float32),
                    target="cuda", chip="sm_90").target)
"""


@pytest.mark.skipif(not os.path.exists(os.path.join(PACKAGE, "libvx_cuda_runtime.so")),
                    reason="no CUDA toolkit (libvx_cuda_runtime.so)")
def test_cuda_arrays_run_on_the_gpu_with_the_device_chip(tmp_path):
    """CUDA arrays select vx.compile(target="cuda") with the device's chip,
    here a driver that logs instead of running (Inputs/fake_cuda.c)."""
    fake = tmp_path / "driver"
    fake.mkdir()
    subprocess.run(["cc", "-shared", "-fPIC", "-I/usr/local/cuda/include",
                    os.path.join(HERE, "Inputs", "fake_cuda.c"),
                    "-o", str(fake / "libcuda.so.1")], check=True)
    log = tmp_path / "cuda.log"
    result = subprocess.run(
        [sys.executable, "-c", CUDA_KERNEL_CLIENT, os.path.join(HERE, "Inputs")],
        capture_output=True, text=True,
        env=dict(os.environ, LD_LIBRARY_PATH=str(fake), VX_FAKE_CUDA_LOG=str(log),
                 VX_CACHE_DIR=str(tmp_path / "cache")))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "{0: 'sm_90'}\ncuda\n"
    [launch] = [line for line in log.read_text().splitlines()
                if line.startswith("launch ")]
    assert launch.startswith("launch scale_kernel ")
    assert f"memref0={hex(1 << 40)}," in launch

"""pytest suite of the vx Python package (run by scripts/test.sh with
PYTHONPATH=build/python_packages)."""

import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import vx
import vx.runtime

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
EXAMPLES = os.path.join(ROOT, "examples")


def read_example(name):
    with open(os.path.join(EXAMPLES, name)) as source:
        return source.read()


@pytest.fixture(scope="module")
def attention():
    return vx.parse(read_example("attention.mlir"), "attention.mlir")


@pytest.fixture(scope="module")
def matmul():
    return vx.parse(read_example("matmul.mlir"), "matmul.mlir")


@pytest.fixture(scope="module")
def softmax():
    return vx.parse(read_example("softmax.mlir"), "softmax.mlir")


def attention_reference(q, k, v, scale=0.125):
    scores = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("bhqk,bhkd->bhqd", weights, v)


def grid_module(sizes, semantics, dynamic=()):
    """@f(%out, %d<i>...) whose spawn stores grid index 0 at out[i0, i1, ...]:
    race-free for every choice of semantics."""
    rank = len(sizes)
    shape = "x".join("?" if d in dynamic else str(s) for d, s in enumerate(sizes))
    memref = f"memref<{shape}xindex>"
    dynamic_args = "".join(f", %d{d}: index" for d in dynamic)
    grid = ", ".join(f"%d{d}" if d in dynamic else str(s)
                     for d, s in enumerate(sizes))
    indices = "".join(f"    %i{d} = vx.grid_index {d}\n" for d in range(rank))
    all_indices = ", ".join(f"%i{d}" for d in range(rank))
    return (f"func.func @f(%out: {memref}{dynamic_args}) {{\n"
            f"  vx.spawn on tensor_core grid [{grid}] semantics "
            f"[{', '.join(semantics)}] {{\n{indices}"
            f"    memref.store %i0, %out[{all_indices}] : {memref}\n"
            f"  }}\n  return\n}}\n")


# -- stages and pipelines ----------------------------------------------------

def test_stages():
    assert vx.STAGES == ("vx", "scf", "gpu", "nvvm", "ptx", "llvm")


def test_pipeline_text_of_each_stage():
    assert vx.pipeline("vx") == (
        "builtin.module(vx-verify-semantics"
        "{allow-races=false chip= threads-per-block=0})")
    for stage in vx.STAGES:
        text = vx.pipeline(stage)
        assert text.startswith("builtin.module(vx-verify-semantics")
        assert text.endswith(")")
    assert "convert-vx-to-scf{reverse-parallel=false}" in vx.pipeline("scf")
    assert "gpu-kernel-outlining" in vx.pipeline("gpu")
    assert "chip=sm_90 fast=false features=+ptx80" in vx.pipeline("nvvm")
    assert "gpu-module-to-binary{format=isa" in vx.pipeline("ptx")


def test_pipeline_options_map_to_pipeline_options():
    text = vx.pipeline("ptx", chip="sm_100a", threads_per_block=128, format="bin")
    assert ("convert-vx-to-gpu{chip=sm_100a fma=true stages=1 "
            "threads-per-block=128}") in text
    assert "fma=false" in vx.pipeline("gpu", fma=False)
    assert "chip=sm_100a fast=false features=+ptx86" in text
    assert "gpu-module-to-binary{format=bin" in text
    assert "convert-scf-to-openmp" in vx.pipeline("llvm", openmp=True)
    assert "convert-gpu-launch-to-scf{reverse-parallel=true}" in vx.pipeline(
        "llvm", via_gpu=True, reverse_parallel=True)


def test_pipeline_rejects_unknown_stages_and_options():
    with pytest.raises(ValueError, match="unknown stage 'cuda'"):
        vx.pipeline("cuda")
    with pytest.raises(TypeError, match="stage 'gpu' has no option 'format'; "
                                        "its options are: chip, "
                                        "threads_per_block, stages, fma, tf32"):
        vx.pipeline("gpu", format="bin")
    with pytest.raises(TypeError, match="has no option 'anything'; its options are: none"):
        vx.pipeline("vx", anything=1)
    with pytest.raises(TypeError, match="option 'chip' takes a str, got float"):
        vx.pipeline("nvvm", chip=90.0)
    with pytest.raises(TypeError, match="option 'openmp' takes a bool, got str"):
        vx.pipeline("llvm", openmp="maybe")
    with pytest.raises(TypeError, match="option 'threads_per_block' takes an "
                                        "int, got bool"):
        vx.pipeline("gpu", threads_per_block=True)
    with pytest.raises(ValueError, match="invalid value"):
        vx.pipeline("nvvm", chip="sm_90 features=+ptx80")


def test_option_errors_print_nothing():
    # Out-of-range values are the stage's errors (VxError), wrong kinds
    # TypeErrors: llvm::cl never gets to print its own complaint.
    script = ("import vx\n"
              "for stage, options in [('gpu', {'threads_per_block': -1}),\n"
              "                       ('llvm', {'openmp': 'maybe'})]:\n"
              "    try:\n"
              "        vx.pipeline(stage, **options)\n"
              "    except (vx.VxError, TypeError) as error:\n"
              "        print(type(error).__name__, error)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True,
                            text=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert result.stderr == ""
    assert result.stdout == (
        "VxError gpu: threads-per-block must be between 1 and 1024 (0: the "
        "default CTA size), got -1\n"
        "TypeError option 'openmp' takes a bool, got str\n")


def test_pipeline_option_values_refused_by_the_stage():
    with pytest.raises(vx.VxError, match="ptx: format must be 'isa', 'bin' or "
                                         "'fatbin', got 'elf'"):
        vx.pipeline("ptx", format="elf")
    with pytest.raises(vx.VxError, match="chip '90' is not an NVIDIA chip that "
                                         "LLVM 22 knows"):
        vx.pipeline("nvvm", chip="90")
    with pytest.raises(vx.VxError, match="'threads-per-block' applies only with"):
        vx.pipeline("llvm", threads_per_block=4)


def test_stages_option_on_every_gpu_route():
    # VX_SPEC 2.2: `stages` reaches convert-vx-to-gpu on every stage that
    # maps onto the GPU, vx-to-llvm with via-gpu included.
    for stage in ("gpu", "nvvm", "ptx"):
        assert " stages=3 " in vx.pipeline(stage, stages=3)
    assert " stages=2 " in vx.pipeline("llvm", via_gpu=True, stages=2)
    with pytest.raises(vx.VxError, match="'stages' applies only with 'via-gpu=true'"):
        vx.pipeline("llvm", stages=2)
    with pytest.raises(vx.VxError, match="stages must be at least 1, got 0"):
        vx.pipeline("ptx", stages=0)
    with pytest.raises(TypeError, match="stage 'scf' has no option 'stages'"):
        vx.pipeline("scf", stages=2)


# -- parse, print, verify ----------------------------------------------------

def test_parse_print_round_trip(attention):
    text = str(attention)
    assert "vx.spawn on tensor_core grid [1, 2, 2, 2]" in text
    assert str(vx.parse(text)) == text
    assert attention.stage == "vx"
    assert repr(attention) == "<vx.Module at stage 'vx'>"
    assert attention.verify() is None


def test_parse_error_carries_the_diagnostics():
    with pytest.raises(vx.VxError) as raised:
        vx.parse("func.func @f() {\n  vx.spawn on tensor_core grid [0] {\n  }\n"
                 "  return\n}\n", "bad.mlir")
    error = raised.value
    assert error.summary == "could not parse bad.mlir"
    assert len(error.diagnostics) == 1
    diagnostic = error.diagnostics[0]
    assert diagnostic.severity == "error"
    assert diagnostic.location == "bad.mlir:2:3"
    assert "static grid size of dimension 0 must be >= 1, got 0" in diagnostic.message
    assert "bad.mlir:2:3: error: 'vx.spawn' op static grid size" in str(error)


def test_parse_syntax_error():
    with pytest.raises(vx.VxError) as raised:
        vx.parse("func.func @f( {")
    assert raised.value.diagnostics[0].severity == "error"
    assert raised.value.diagnostics[0].location.startswith("<string>:1:")


def test_parse_takes_text():
    with pytest.raises(TypeError, match="takes the IR as a str"):
        vx.parse(b"module {}")


# -- lower -------------------------------------------------------------------

def test_lower_returns_a_new_module(attention):
    before = str(attention)
    scf = attention.lower("scf")
    assert scf.stage == "scf"
    assert "scf.parallel" in str(scf) and "vx.spawn" not in str(scf)
    assert str(attention) == before
    gpu = attention.lower("gpu")
    assert "gpu.launch_func" in str(gpu)
    nvvm = attention.lower("nvvm", chip="sm_100a")
    assert '#nvvm.target<chip = "sm_100a", features = "+ptx86">' in str(nvvm)
    assert "llvm.func @attention" in str(attention.lower("llvm"))
    assert str(attention) == before


def test_lower_along_the_stages(attention):
    gpu = attention.lower("gpu")
    assert "gpu.binary" in str(gpu.lower("ptx"))
    assert "llvm.func" in str(attention.lower("scf").lower("llvm"))
    assert "nvvm.target" in str(gpu.lower("nvvm"))


def test_lower_refuses_going_back_or_across(attention):
    ptx = attention.lower("ptx")
    with pytest.raises(ValueError, match="stage 'ptx' cannot be lowered to 'scf'"):
        ptx.lower("scf")
    with pytest.raises(ValueError, match="stage 'scf' cannot be lowered to 'gpu'"):
        attention.lower("scf").lower("gpu")
    with pytest.raises(ValueError, match="unknown stage"):
        attention.lower("sass")


def test_lower_reports_a_proven_race():
    module = vx.parse("""
func.func @race(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    memref.store %one, %out[%c0] : memref<8xf32>
  }
  return
}""", "race.mlir")
    with pytest.raises(vx.VxError) as raised:
        module.lower("gpu")
    severities = [d.severity for d in raised.value.diagnostics]
    assert severities[0] == "error" and "note" in severities
    assert "parallel dimension 0" in raised.value.diagnostics[0].message
    assert raised.value.diagnostics[0].location == "race.mlir:6:5"


def test_lower_reports_device_illegal_ops():
    module = vx.parse("""
func.func @alloc(%out: memref<4xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %tmp = memref.alloc() : memref<4xf32>
    %x = memref.load %tmp[%i] : memref<4xf32>
    memref.store %x, %out[%i] : memref<4xf32>
    memref.dealloc %tmp : memref<4xf32>
  }
  return
}""")
    with pytest.raises(vx.VxError, match="memref.alloc"):
        module.lower("gpu")
    # The CPU path accepts it.
    assert module.lower("scf").stage == "scf"


def test_lower_refuses_tensor_core5_below_sm_100():
    module = vx.parse(grid_module([4], ["parallel"]).replace(
        "tensor_core", "tensor_core5"))
    with pytest.raises(vx.VxError, match="sm_100"):
        module.lower("nvvm")
    assert "sm_100" in str(module.lower("nvvm", chip="sm_100"))


# -- launches ----------------------------------------------------------------

@pytest.mark.parametrize("sizes, semantics, grid", [
    ([5], ["parallel"], (5, 1, 1)),
    ([3, 4], ["parallel"] * 2, (3, 4, 1)),
    ([2, 3, 4], ["parallel"] * 3, (2, 3, 4)),
    ([2, 3, 4, 5], ["parallel"] * 4, (120, 1, 1)),
    ([2, 2, 2, 2, 2], ["parallel"] * 5, (32, 1, 1)),
    ([2, 3, 2, 3, 2, 2], ["parallel", "arbitrary", "parallel", "parallel",
                          "arbitrary", "parallel"], (24, 1, 1)),
    ([4, 8], ["parallel", "arbitrary"], (4, 1, 1)),
    ([4, 8], ["arbitrary", "arbitrary"], (1, 1, 1)),
    ([3, 70000], ["parallel"] * 2, (210000, 1, 1)),
])
def test_launches_of_1d_to_6d_grids(sizes, semantics, grid):
    # One instance per CTA: the CTAs are the parallel points.
    module = vx.parse(grid_module(sizes, semantics))
    assert module.launches(threads_per_block=1) == [
        vx.Launch("f_kernel", grid, (1, 1, 1), "<string>:2:3")]
    assert (module.lower("gpu", threads_per_block=1).launches() ==
            module.launches(threads_per_block=1))


def test_launches_with_the_default_cta_size():
    # 256 threads per CTA, one instance each, without a threads clause or
    # threads_per_block; a spawn without parallel dims is one thread.
    module = vx.parse(grid_module([3, 700], ["parallel"] * 2))
    assert module.launches() == [
        vx.Launch("f_kernel", (3, 3, 1), (256, 1, 1), "<string>:2:3")]
    module = vx.parse(grid_module([4, 8], ["arbitrary", "arbitrary"]))
    assert module.launches() == [
        vx.Launch("f_kernel", (1, 1, 1), (1, 1, 1), "<string>:2:3")]


def test_launches_with_threads_per_block():
    module = vx.parse(grid_module([3, 70000], ["parallel"] * 2))
    assert module.launches(threads_per_block=128) == [
        vx.Launch("f_kernel", (3, 547, 1), (128, 1, 1), "<string>:2:3")]


def test_launches_of_a_dynamic_grid_are_none():
    module = vx.parse(grid_module([7, 3], ["parallel"] * 2, dynamic=(0,)))
    (launch,) = module.launches()
    assert launch.grid == (None, 1, 1) and launch.block == (256, 1, 1)


TWO_SPAWNS = """func.func @f(%a: memref<8xf32>, %v: f32) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    memref.store %v, %a[%i] : memref<8xf32>
  }
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    memref.store %v, %a[%i] : memref<8xf32>
  }
  return
}
"""


def test_launches_name_each_kernel_as_its_ptx():
    module = vx.parse(TWO_SPAWNS, "two.mlir")
    launches = module.launches()
    assert [(l.kernel, l.grid, l.location) for l in launches] == [
        ("f_kernel", (1, 1, 1), "two.mlir:2:3"),
        ("f_kernel_0", (1, 1, 1), "two.mlir:6:3")]
    ptx = module.ptx()
    assert list(ptx) == ["f_kernel", "f_kernel_0"]
    for launch in launches:
        assert f".entry {launch.kernel}(" in ptx[launch.kernel]


def test_launches_at_each_stage(attention):
    # One query block per CTA of the spawn's 64 threads.
    expected = [vx.Launch("attention_kernel", (1, 2, 2), (64, 1, 1),
                          "attention.mlir:23:3")]
    assert attention.launches() == expected
    assert attention.lower("nvvm").launches() == expected
    assert attention.lower("ptx").launches() == expected
    assert attention.lower("scf").launches() == []
    with pytest.raises(TypeError, match="options apply only"):
        attention.lower("gpu").launches(threads_per_block=2)


def test_host_spawns_have_no_launch():
    module = vx.parse(grid_module([4], ["parallel"]).replace("tensor_core", "host"))
    assert module.launches() == []


# -- ptx ---------------------------------------------------------------------

def test_ptx_for_sm_90(attention):
    ptx = attention.ptx(chip="sm_90")
    assert list(ptx) == ["attention_kernel"]
    text = ptx["attention_kernel"]
    assert ".version 8.0" in text
    assert ".target sm_90" in text
    assert ".entry attention_kernel" in text


def test_ptx_for_sm_100a(matmul):
    text = matmul.ptx(chip="sm_100a", threads_per_block=4)["matmul_kernel"]
    assert ".target sm_100a" in text
    assert ".version 8.6" in text


CHIP_ERRORS = [
    ({"chip": "sm_999"}, "chip 'sm_999' is not an NVIDIA chip that LLVM 22 knows"),
    ({"chip": "sm_100a", "features": "+ptx80"}, "chip 'sm_100a' needs PTX 8.6"),
    ({"features": "+ptx999"}, "feature '+ptx999' is not an NVPTX feature"),
]


@pytest.mark.parametrize("options, message", CHIP_ERRORS)
def test_ptx_refuses_unknown_chips_and_features(matmul, options, message):
    with pytest.raises(vx.VxError, match=re.escape(message)):
        matmul.ptx(**options)
    with pytest.raises(vx.VxError, match=re.escape(message)):
        matmul.lower("nvvm", **options)


def test_unknown_chips_print_nothing_and_exit_1(tmp_path):
    # LLVM would print "not a recognized processor" or end the process with
    # a fatal error; vx refuses first, in its own words.
    script = ("import vx, sys\n"
              "m = vx.parse(open(sys.argv[1]).read())\n"
              "for options in [{'chip': 'sm_999'}, {'chip': 'sm_100a', 'features': '+ptx80'}]:\n"
              "    try:\n"
              "        m.ptx(**options)\n"
              "    except vx.VxError:\n"
              "        continue\n"
              "    sys.exit(2)\n")
    result = subprocess.run([sys.executable, "-c", script,
                             os.path.join(EXAMPLES, "matmul.mlir")],
                            capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert (result.returncode, result.stderr) == (0, "")
    result = run_cli(os.path.join(EXAMPLES, "matmul.mlir"), "--stage", "ptx",
                     "--chip=sm_999")
    assert result.returncode == 1
    assert "not a recognized" not in result.stderr
    assert "chip 'sm_999' is not an NVIDIA chip" in result.stderr


def test_ptx_before_sm_80_copies_synchronously():
    # sm_75 has no cp.async: LLVM would abort the interpreter on it.
    transfer = open(os.path.join(ROOT, "test", "Integration", "transfer.mlir")).read()
    module = vx.parse(transfer)
    lowered = module.lower("ptx", chip="sm_75")
    assert any("cp.async needs sm_80 or newer, and the chip is 'sm_75'" in d.message
               for d in lowered.diagnostics)
    for text in lowered.ptx().values():
        assert ".target sm_75" in text and "cp.async" not in text
    assert any("cp.async" in text for text in module.ptx(chip="sm_80").values())


def test_ptx_of_a_ptx_stage_module(attention):
    assert attention.lower("ptx").ptx() == attention.ptx()
    with pytest.raises(ValueError, match="holds a 'bin' object, not PTX"):
        attention.lower("ptx", format="bin").ptx()
    with pytest.raises(ValueError, match="format must be 'isa'"):
        attention.ptx(format="bin")
    with pytest.raises(TypeError, match="options apply only"):
        attention.lower("ptx").ptx(chip="sm_100a")


def test_ptx_assembles_with_ptxas(attention, tmp_path):
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.access(ptxas, os.X_OK):
        pytest.skip("no ptxas")
    for chip, module in (("sm_90", attention),):
        path = tmp_path / "attention.ptx"
        path.write_text(module.ptx(chip=chip)["attention_kernel"])
        subprocess.run([ptxas, f"-arch={chip}", str(path), "-o",
                        str(tmp_path / "attention.cubin")], check=True)
        assert (tmp_path / "attention.cubin").stat().st_size > 0


# -- run ---------------------------------------------------------------------

@pytest.mark.parametrize("options", [
    {}, {"openmp": True}, {"reverse_parallel": True}, {"via_gpu": True},
    {"via_gpu": True, "threads_per_block": 3, "reverse_parallel": True},
])
def test_run_attention_against_numpy(attention, options):
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((1, 2, 128, 64)).astype(np.float32)
               for _ in range(3))
    out = np.zeros_like(q)
    assert vx.run(attention, "attention", q, k, v, out, **options) is None
    np.testing.assert_allclose(out, attention_reference(q, k, v), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("options", [{}, {"openmp": True},
                                     {"via_gpu": True, "threads_per_block": 4},
                                     {"via_gpu": True, "stages": 3}])
def test_run_matmul_against_numpy(matmul, options):
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (256, 32)).astype(np.float32)
    b = rng.integers(-4, 5, (32, 384)).astype(np.float32)
    c = np.full((256, 384), np.nan, dtype=np.float32)
    vx.run(matmul, "matmul", a, b, c, **options)
    np.testing.assert_array_equal(c, a @ b)


@pytest.mark.parametrize("options", [{}, {"openmp": True},
                                     {"via_gpu": True, "threads_per_block": 2}])
def test_run_softmax_against_numpy(softmax, options):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((6, 2048)) * 30).astype(np.float32)
    y = np.full_like(x, np.nan)
    vx.run(softmax, "softmax", x, y, **options)
    shifted = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, shifted / shifted.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-12)


NEGATIVE_GRID = """func.func @fill(%out: memref<64xi64>, %n: index, %m: index) {
  vx.spawn on tensor_core grid [%n, %m] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %row = arith.muli %i, %m : index
    %l = arith.addi %row, %j : index
    %v = arith.index_cast %l : index to i64
    %one = arith.constant 1 : i64
    %w = arith.addi %v, %one : i64
    memref.store %w, %out[%l] : memref<64xi64>
  }
  return
}
"""


@pytest.mark.parametrize("options", [{}, {"via_gpu": True},
                                     {"via_gpu": True, "threads_per_block": 4},
                                     {"via_gpu": True, "threads_per_block": 32}])
@pytest.mark.parametrize("n, m", [(-2, -3), (-1, 5), (5, -1), (0, 3), (1, 1), (3, 7)])
def test_run_dynamic_grids_of_any_sign(options, n, m):
    module = vx.parse(NEGATIVE_GRID)
    out = np.zeros(64, dtype=np.int64)
    vx.run(module, "fill", out, n, m, **options)
    expected = np.zeros(64, dtype=np.int64)
    count = max(n, 0) * max(m, 0)
    expected[:count] = np.arange(1, count + 1)
    np.testing.assert_array_equal(out, expected)


def test_run_a_lowered_scf_module(matmul):
    a = np.ones((256, 32), np.float32)
    b = np.ones((32, 384), np.float32)
    c = np.zeros((256, 384), np.float32)
    vx.run(matmul.lower("scf"), "matmul", a, b, c)
    np.testing.assert_array_equal(c, np.full((256, 384), 32.0))


SCALARS = """
func.func @axpy(%a: f64, %x: memref<?xf64>, %y: memref<?xf64>, %n: index) {
  vx.spawn on host grid [%n] semantics [parallel] {
    %i = vx.grid_index 0
    %xi = memref.load %x[%i] : memref<?xf64>
    %yi = memref.load %y[%i] : memref<?xf64>
    %p = arith.mulf %a, %xi : f64
    %s = arith.addf %p, %yi : f64
    memref.store %s, %y[%i] : memref<?xf64>
  }
  return
}
func.func @combine(%a: i32, %b: i64, %c: f32, %d: i1) -> f32 {
  %a64 = arith.extsi %a : i32 to i64
  %s = arith.addi %a64, %b : i64
  %f = arith.sitofp %s : i64 to f32
  %m = arith.mulf %f, %c : f32
  %r = arith.select %d, %m, %c : f32
  return %r : f32
}
func.func @negate(%a: i16) -> i16 {
  %zero = arith.constant 0 : i16
  %r = arith.subi %zero, %a : i16
  return %r : i16
}
func.func @is_positive(%a: f16) -> i1 {
  %zero = arith.constant 0.0 : f16
  %r = arith.cmpf ogt, %a, %zero : f16
  return %r : i1
}
"""


def test_run_scalar_arguments_and_results():
    module = vx.parse(SCALARS)
    x = np.arange(5, dtype=np.float64)
    y = np.ones(5)
    vx.run(module, "axpy", 2.5, x, y, 5)
    np.testing.assert_array_equal(y, 2.5 * np.arange(5) + 1)
    assert vx.run(module, "combine", -3, 10, 1.5, True) == pytest.approx(10.5)
    assert vx.run(module, "combine", -3, 10, 1.5, False) == pytest.approx(1.5)
    assert vx.run(module, "negate", 7) == -7
    assert vx.run(module, "negate", -32768) == -32768
    assert vx.run(module, "is_positive", 0.5) is True
    assert vx.run(module, "is_positive", -0.5) is False


COPY = """
func.func @copy_{name}(%src: memref<2x3x{type}>, %dst: memref<2x3x{type}>) {{
  vx.spawn on tensor_core grid [2, 3] semantics [parallel, parallel] {{
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %v = memref.load %src[%i, %j] : memref<2x3x{type}>
    memref.store %v, %dst[%i, %j] : memref<2x3x{type}>
  }}
  return
}}
"""


@pytest.mark.parametrize("element, dtype", [
    ("f16", np.float16), ("f32", np.float32), ("f64", np.float64),
    ("i1", np.bool_), ("i8", np.int8), ("i32", np.int32), ("i64", np.int64),
    ("index", np.int64),
])
def test_run_element_types(element, dtype):
    module = vx.parse(COPY.format(name=element, type=element))
    src = (np.arange(6).reshape(2, 3) % 2 == 1) if dtype is np.bool_ else \
        (np.arange(6).reshape(2, 3) - 2).astype(dtype)
    dst = np.zeros((2, 3), dtype)
    vx.run(module, f"copy_{element}", src, dst, via_gpu=True)
    np.testing.assert_array_equal(dst, src)


RANK0_AND_STRIDED = """
func.func @sum_rows(%m: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                    %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %m, %c0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %cols = memref.dim %m, %c1 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %zero = arith.constant 0.0 : f32
  vx.spawn on host grid [%rows] semantics [parallel] {
    %i = vx.grid_index 0
    %s = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %zero) -> f32 {
      %v = memref.load %m[%i, %j] : memref<?x?xf32, strided<[?, ?], offset: ?>>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %out[%i] : memref<?xf32>
  }
  return
}
func.func @scale_all(%m: memref<4x4xf32>, %factor: memref<f32>) {
  %f = memref.load %factor[] : memref<f32>
  vx.spawn on host grid [4, 4] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %v = memref.load %m[%i, %j] : memref<4x4xf32>
    %s = arith.mulf %v, %f : f32
    memref.store %s, %m[%i, %j] : memref<4x4xf32>
  }
  return
}
"""


def test_run_passes_views_of_a_strided_layout_without_copying():
    module = vx.parse(RANK0_AND_STRIDED)
    base = np.arange(48, dtype=np.float32).reshape(6, 8)
    view = base[1::2, 2:7:2]          # strides (16, 2) elements, offset 10
    out = np.zeros(3, np.float32)
    vx.run(module, "sum_rows", view, out)
    np.testing.assert_array_equal(out, view.sum(axis=1))
    transposed = base.T               # negative-free, non-row-major strides
    out = np.zeros(8, np.float32)
    vx.run(module, "sum_rows", transposed, out)
    np.testing.assert_array_equal(out, transposed.sum(axis=1))


def test_run_copies_views_an_identity_layout_cannot_take_and_back():
    module = vx.parse(RANK0_AND_STRIDED)
    base = np.arange(32, dtype=np.float32).reshape(4, 8)
    expected = base.copy()
    expected[:, ::2] *= 3
    vx.run(module, "scale_all", base[:, ::2], np.array(3.0, np.float32))
    np.testing.assert_array_equal(base, expected)


def test_run_rejects_bad_arguments_before_running(matmul):
    a = np.zeros((256, 32), np.float32)
    b = np.zeros((32, 384), np.float32)
    c = np.zeros((256, 384), np.float32)
    with pytest.raises(TypeError, match=r"@matmul takes 3 arguments \(memref<256x32xf32>, "
                                        r"memref<32x384xf32>, memref<256x384xf32>\), got 2"):
        vx.run(matmul, "matmul", a, b)
    with pytest.raises(TypeError, match="argument 2 is memref<256x384xf32>: expected a "
                                        "float32 array, got float64"):
        vx.run(matmul, "matmul", a, b, c.astype(np.float64))
    with pytest.raises(TypeError, match=r"got an array of shape \(256, 383\)"):
        vx.run(matmul, "matmul", a, b, np.zeros((256, 383), np.float32))
    with pytest.raises(TypeError, match="expected a numpy array or a CPU array "
                                        "with __dlpack__, got list"):
        vx.run(matmul, "matmul", a, b, [[0.0] * 384] * 256)
    readonly = c.copy()
    readonly.flags.writeable = False
    with pytest.raises(TypeError, match="read-only"):
        vx.run(matmul, "matmul", a, b, readonly)
    with pytest.raises(ValueError, match="no function @nope"):
        vx.run(matmul, "nope")
    with pytest.raises(TypeError, match="takes a vx.Module"):
        vx.run(str(matmul), "matmul", a, b, c)
    with pytest.raises(ValueError, match="stage 'gpu' cannot be run"):
        vx.run(matmul.lower("gpu"), "matmul", a, b, c)
    with pytest.raises(TypeError, match="has no option 'features'"):
        vx.run(matmul, "matmul", a, b, c, features="+ptx80")
    with pytest.raises(vx.VxError, match="'chip' applies only with 'via-gpu=true' "
                                         "or 'ptx-sim=true'"):
        vx.run(matmul, "matmul", a, b, c, chip="sm_90")


def test_run_rejects_bad_scalars():
    module = vx.parse(SCALARS)
    with pytest.raises(TypeError, match="argument 0 is f64: expected a number, got str"):
        vx.run(module, "axpy", "2", np.zeros(1), np.zeros(1), 1)
    with pytest.raises(TypeError, match="argument 3 is index: expected an int, got float"):
        vx.run(module, "axpy", 2.0, np.zeros(1), np.zeros(1), 1.0)
    with pytest.raises(OverflowError, match="80000 does not fit i16"):
        vx.run(module, "negate", 40000 * 2)
    with pytest.raises(OverflowError, match="does not fit i1"):
        vx.run(module, "combine", 1, 2, 3.0, 2)


def test_run_refuses_memref_results():
    module = vx.parse("func.func @make(%m: memref<4xf32>) -> memref<4xf32> {\n"
                      "  return %m : memref<4xf32>\n}\n")
    with pytest.raises(TypeError, match="no result or one scalar"):
        vx.run(module, "make", np.zeros(4, np.float32))


def test_run_reports_jit_failures():
    module = vx.parse("func.func private @missing()\n"
                      "func.func @calls() {\n  func.call @missing() : () -> ()\n"
                      "  return\n}\n")
    with pytest.raises(vx.VxError, match="@calls needs @missing, which neither"):
        vx.run(module, "calls")


PREFIX = """
func.func @prefix(%a: memref<8xi64>) {
  %c1 = arith.constant 1 : index
  vx.spawn on host grid [7] semantics [parallel] {
    %i = vx.grid_index 0
    %j = arith.addi %i, %c1 : index
    %prev = memref.load %a[%i] : memref<8xi64>
    %cur = memref.load %a[%j] : memref<8xi64>
    %sum = arith.addi %prev, %cur : i64
    memref.store %sum, %a[%j] : memref<8xi64>
  }
  return
}"""


def test_reverse_parallel_exposes_a_mislabelled_kernel():
    # A prefix sum labelled parallel: vx-verify-semantics proves the race;
    # forced past it with allow_races, reverse_parallel changes the numbers.
    module = vx.parse(PREFIX)
    forward, backward = np.ones(8, np.int64), np.ones(8, np.int64)
    with pytest.raises(vx.VxError, match="the pipeline failed") as raised:
        vx.run(module, "prefix", forward)
    witness = re.search(r"parallel instance \((\d+)\) reads the element that "
                        r"instance \((\d+)\) writes", raised.value.diagnostics[0].message)
    assert witness and int(witness[1]) == int(witness[2]) + 1
    vx.run(module, "prefix", forward, allow_races=True)
    vx.run(module, "prefix", backward, allow_races=True, reverse_parallel=True)
    np.testing.assert_array_equal(forward, np.arange(1, 9))
    assert not np.array_equal(forward, backward)


@pytest.mark.parametrize("options", [{}, {"via_gpu": True},
                                     {"openmp": True, "reverse_parallel": True}])
def test_detect_races_raises_without_ending_the_interpreter(options):
    module = vx.parse(PREFIX)
    with pytest.raises(vx.VxError) as raised:
        vx.run(module, "prefix", np.ones(8, np.int64), allow_races=True,
               detect_races=True, **options)
    message = str(raised.value)
    assert re.search(r"vx: data race in the spawn at .* on element \[[1-7]\] of "
                     r"argument 0 of @prefix", message), message
    assert re.search(r"instance \(\d\) (reads|writes) it", message), message
    # The interpreter lives on, and the next run starts clean.
    out = np.zeros((4, 8), np.float32)
    vx.run(vx.parse(grid_module_f32()), "f", out, detect_races=True)
    np.testing.assert_array_equal(out, np.arange(4, dtype=np.float32)[:, None] * np.ones(8))


def grid_module_f32():
    return """
func.func @f(%out: memref<4x8xf32>) {
  vx.spawn on host grid [4, 8] semantics [parallel, parallel] {
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %w = arith.index_cast %i : index to i64
    %x = arith.sitofp %w : i64 to f32
    memref.store %x, %out[%i, %j] : memref<4x8xf32>
  }
  return
}"""


# via_gpu: a whole CTA runs each instance of the matmul's thread loops.
@pytest.mark.parametrize("options", [{}, {"openmp": True}, {"via_gpu": True}])
def test_detect_races_keeps_the_numbers_of_correct_kernels(matmul, options):
    rng = np.random.default_rng(5)
    a = rng.integers(-4, 5, (256, 32)).astype(np.float32)
    b = rng.integers(-4, 5, (32, 384)).astype(np.float32)
    c = np.full((256, 384), np.nan, dtype=np.float32)
    vx.run(matmul, "matmul", a, b, c, detect_races=True, **options)
    np.testing.assert_array_equal(c, a @ b)


def test_run_refuses_overlapping_arrays():
    module = vx.parse("""
func.func @add(%a: memref<8xf32>, %b: memref<8xf32>) {
  vx.spawn on host grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %x = memref.load %a[%i] : memref<8xf32>
    memref.store %x, %b[%i] : memref<8xf32>
  }
  return
}
func.func @strided(%a: memref<4x2xf32, strided<[?, ?], offset: ?>>) {
  return
}""")
    data = np.arange(16, dtype=np.float32)
    with pytest.raises(ValueError, match="arguments 0 and 1 overlap"):
        vx.run(module, "add", data[:8], data[4:12])
    with pytest.raises(ValueError, match="arguments 0 and 1 overlap"):
        vx.run(module, "add", data[:8], data[:8])
    # Interleaved views of one array do not overlap.
    vx.run(module, "add", data[0::2], data[1::2])
    np.testing.assert_array_equal(data[1::2], data[0::2])
    rows = np.lib.stride_tricks.as_strided(np.zeros(4, np.float32), (4, 2), (4, 4))
    with pytest.raises(ValueError, match="argument 0 overlaps itself"):
        vx.run(module, "strided", rows)


# -- the command line --------------------------------------------------------

def run_cli(*arguments):
    return subprocess.run([sys.executable, "-m", "vx", *arguments],
                          capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))


def test_cli_writes_ptx(tmp_path):
    output = tmp_path / "out.ptx"
    result = run_cli(os.path.join(EXAMPLES, "attention.mlir"), "--stage", "ptx",
                     "-o", str(output))
    assert result.returncode == 0, result.stderr
    text = output.read_text()
    assert ".target sm_90" in text and ".entry attention_kernel" in text


def test_cli_stage_options(tmp_path):
    output = tmp_path / "out.ptx"
    result = run_cli(os.path.join(EXAMPLES, "matmul.mlir"), "--stage", "ptx",
                     "--chip=sm_100a", "--threads-per-block", "4", "-o", str(output))
    assert result.returncode == 0, result.stderr
    assert ".target sm_100a" in output.read_text()


def test_cli_prints_every_stage():
    source = os.path.join(EXAMPLES, "attention.mlir")
    expected = {"vx": "vx.spawn", "scf": "scf.parallel", "gpu": "gpu.launch_func",
                "nvvm": "#nvvm.target", "llvm": "llvm.func @attention"}
    for stage, marker in expected.items():
        result = run_cli(source, "--stage", stage)
        assert result.returncode == 0, result.stderr
        assert marker in result.stdout


def test_cli_launches():
    result = run_cli(os.path.join(EXAMPLES, "attention.mlir"), "--launches")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ("attention_kernel grid=(1, 2, 2) block=(64, 1, 1) "
                             f"at {os.path.join(EXAMPLES, 'attention.mlir')}:23:3\n")


def test_cli_errors_exit_1(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() {\n  vx.spawn on tensor_core grid [0] {\n  }\n"
                   "  return\n}\n")
    result = run_cli(str(bad), "--stage", "gpu")
    assert result.returncode == 1
    assert f"{bad}:2:3: error: 'vx.spawn' op static grid size" in result.stderr
    result = run_cli(os.path.join(EXAMPLES, "attention.mlir"), "--stage", "gpu",
                     "--format=bin")
    assert result.returncode == 1
    assert "stage 'gpu' has no option 'format'" in result.stderr
    result = run_cli(str(tmp_path / "missing.mlir"))
    assert result.returncode == 1
    assert "cannot read" in result.stderr
    # Command-line errors too (argparse's status is 2).
    result = run_cli(os.path.join(EXAMPLES, "attention.mlir"), "--stage", "bogus")
    assert result.returncode == 1
    assert "argument --stage: invalid choice: 'bogus'" in result.stderr
    result = run_cli()
    assert result.returncode == 1
    assert "the following arguments are required: file" in result.stderr


VX_OPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(vx.__file__)))), "bin", "vx-opt")


@pytest.mark.skipif(not os.path.exists(VX_OPT),
                    reason="vx is not imported from a CMake build tree")
def test_cli_version():
    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    vx_opt = subprocess.run([VX_OPT, "--version"], capture_output=True,
                            text=True, check=True)
    assert result.stdout == vx_opt.stdout
    assert result.stdout.startswith(f"Vx version {vx.__version__}\n")


def test_cli_compile(tmp_path, monkeypatch):
    monkeypatch.setenv("VX_CACHE_DIR", str(tmp_path / "cache"))
    output = tmp_path / "kernels.so"
    result = run_cli(os.path.join(EXAMPLES, "matmul.mlir"), "--compile", "cpu",
                     "-o", str(output), "--openmp")
    assert result.returncode == 0, result.stderr
    assert f"vx: wrote {output} (matmul)" in result.stderr
    assert vx.runtime.read_metadata(str(output))["options"] == {
        "allow_races": False, "chip": "", "detect_races": False,
        "openmp": True, "ptx_sim": False, "reverse_parallel": False,
        "sim_order": "", "stages": 1, "tf32": False, "threads_per_block": 0,
        "via_gpu": False}
    result = run_cli(os.path.join(EXAMPLES, "matmul.mlir"), "--compile", "cpu")
    assert result.returncode == 1 and "give it a path with -o" in result.stderr
    result = run_cli(os.path.join(EXAMPLES, "matmul.mlir"), "--compile", "cpu",
                     "-o", str(output), "--functions", "nope")
    assert result.returncode == 1 and "no function @nope" in result.stderr

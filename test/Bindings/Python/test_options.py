"""Stage options as typed values (VX_SPEC 3 and 4): keyword arguments are
checked against the typed fields of the pipeline options in C++, the
pipeline is built once from them, and what the stage refuses raises
VxError."""

import os

import numpy as np
import pytest

import vx
import vx._compiler

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))), "examples")


@pytest.fixture(scope="module")
def matmul():
    with open(os.path.join(EXAMPLES, "matmul.mlir")) as source:
        return vx.parse(source.read(), "matmul.mlir")


@pytest.mark.parametrize("stage, options, message", [
    ("gpu", {"tf32": "yes"}, "option 'tf32' takes a bool, got str"),
    ("gpu", {"tf32": 1}, "option 'tf32' takes a bool, got int"),
    ("gpu", {"stages": 2.0}, "option 'stages' takes an int, got float"),
    ("gpu", {"threads_per_block": False},
     "option 'threads_per_block' takes an int, got bool"),
    ("gpu", {"chip": 90}, "option 'chip' takes a str, got int"),
    ("llvm", {"sim_order": None}, "option 'sim_order' takes a str, got NoneType"),
])
def test_wrong_kind_is_a_type_error(stage, options, message):
    with pytest.raises(TypeError, match=f"^{message}$"):
        vx.pipeline(stage, **options)


def test_unknown_option_names_the_valid_ones(matmul):
    with pytest.raises(TypeError, match="^stage 'nvvm' has no option "
                                        "'threads'; its options are: chip, "
                                        "features, threads_per_block, stages, "
                                        "fma, tf32$"):
        vx.pipeline("nvvm", threads=128)
    # The pipeline text's spelling is not a keyword.
    with pytest.raises(TypeError, match="has no option 'threads-per-block'"):
        matmul.lower("gpu", **{"threads-per-block": 128})


@pytest.mark.parametrize("stage, options, message", [
    ("gpu", {"threads_per_block": 1025},
     "gpu: threads-per-block must be between 1 and 1024 (0: the default CTA "
     "size), got 1025"),
    ("nvvm", {"stages": 0}, "nvvm: stages must be at least 1, got 0"),
    ("gpu", {"chip": "sm_9"}, "gpu: chip 'sm_9' is not an NVIDIA chip that "
                              "LLVM 22 knows; the chips are "),
    ("nvvm", {"chip": "sm_90a", "features": "+ptx78"},
     "nvvm: chip 'sm_90a' needs PTX 8.0 or newer (features=+ptx80), got PTX "
     "7.8"),
    ("llvm", {"tf32": True, "chip": "sm_90"},
     "llvm: 'chip' applies only with 'via-gpu=true' or 'ptx-sim=true'"),
])
def test_out_of_range_is_the_stages_error(stage, options, message):
    with pytest.raises(vx.VxError) as raised:
        vx.pipeline(stage, **options)
    assert str(raised.value).startswith(message)


def test_values_the_pipeline_text_cannot_spell():
    with pytest.raises(ValueError, match=r"^option 'stages': invalid value "
                                         r"18446744073709551616 \(not a "
                                         r"64-bit integer\)$"):
        vx.pipeline("gpu", stages=2 ** 64)
    with pytest.raises(ValueError, match="^option 'chip': invalid value ''$"):
        vx.pipeline("gpu", chip="")


def test_tf32_reaches_the_tile_ops_on_every_gpu_stage():
    # With the stage's chip (none on gpu, sm_90 on nvvm); via-gpu's tile ops
    # are FMA code on the CPU.
    for stage, chip in (("gpu", ""), ("nvvm", "sm_90")):
        tile_ops = f"vx-distribute-tile-ops{{chip={chip} tf32="
        assert tile_ops + "false threads-per-block=0}" in vx.pipeline(stage)
        assert tile_ops + "true threads-per-block=0}" in vx.pipeline(
            stage, tf32=True)
    assert "vx-distribute-tile-ops{chip= tf32=true threads-per-block=0}" in (
        vx.pipeline("llvm", via_gpu=True, tf32=True))
    # On the CPU loops there are no tensor cores: accepted, nothing to map.
    assert "convert-vx-to-gpu" not in vx.pipeline("llvm", tf32=True)


def test_chip_on_the_gpu_stage(matmul):
    assert "convert-vx-to-gpu{chip=sm_80 " in vx.pipeline("gpu", chip="sm_80")
    # Unset, the mapping alone stays chip-neutral.
    assert "convert-vx-to-gpu{chip= " in vx.pipeline("gpu")
    plain = matmul.lower("gpu")
    ampere = matmul.lower("gpu", chip="sm_80", tf32=True)
    assert ampere.launches() == plain.launches()


SCALE = """
func.func @scale(%a: memref<1024xf32>) {
  vx.spawn on tensor_core grid [1024] semantics [parallel] {
    %i = vx.grid_index 0
    %v = memref.load %a[%i] : memref<1024xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %a[%i] : memref<1024xf32>
  }
  return
}
"""


def test_threads_per_block_zero_is_the_default_cta_size():
    scale = vx.parse(SCALE)
    for options in ({}, {"threads_per_block": 0}):
        [launch] = scale.lower("gpu", **options).launches()
        assert (launch.grid, launch.block) == ((4, 1, 1), (256, 1, 1))
    # numpy integers are ints.
    [launch] = scale.lower("gpu", threads_per_block=np.int64(64)).launches()
    assert (launch.grid, launch.block) == ((16, 1, 1), (64, 1, 1))


def test_compile_builds_its_pipeline_once(matmul, tmp_path, monkeypatch):
    monkeypatch.setenv("VX_CACHE_DIR", str(tmp_path / "cache"))
    built = []
    make = vx._compiler._vx.StagePipeline

    def counting(stage, options):
        built.append((stage, dict(options)))
        return make(stage, options)

    monkeypatch.setattr(vx._compiler._vx, "StagePipeline", counting)
    library = vx.compile(matmul, "cpu", tf32=True, openmp=False)
    assert built == [("llvm", {"tf32": True, "openmp": False})]
    # Every option of the stage, typed, in the metadata.
    assert library.metadata["options"]["tf32"] is True
    assert library.metadata["options"]["threads_per_block"] == 0

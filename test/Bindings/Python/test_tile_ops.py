"""Tile ops (VX_SPEC 2.3) from Python: the tile-op GEMM and flash attention
of examples/ run by vx.run on every route and checked against numpy."""

import os
import shutil

import numpy as np
import pytest

import vx
import vx.runtime

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
PACKAGE = os.path.dirname(os.path.abspath(vx.__file__))
HAS_PTX_SIM = (
    os.path.exists(os.path.join(PACKAGE, vx.runtime.PTX_SIM)) and
    bool(shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")))

ROUTES = [
    {}, {"via_gpu": True}, {"via_gpu": True, "reverse_parallel": True},
    pytest.param({"ptx_sim": True, "chip": "sm_80"}, marks=pytest.mark.skipif(
        not HAS_PTX_SIM, reason="no CUDA toolkit or no libvx_ptx_sim.so")),
    pytest.param({"ptx_sim": True, "chip": "sm_90a"}, marks=pytest.mark.skipif(
        not HAS_PTX_SIM, reason="no CUDA toolkit or no libvx_ptx_sim.so")),
]


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("VX_CACHE_DIR",
                       str(tmp_path_factory.getbasetemp() / "cache"))


def read_example(name):
    with open(os.path.join(ROOT, "examples", name)) as source:
        return source.read()


@pytest.mark.parametrize("options", ROUTES)
def test_tile_matmul_against_numpy(options):
    # numpy has no bf16: the same kernel with f16 tiles (the f16 x f16 -> f32
    # matmul the tensor cores would also take).
    module = vx.parse(read_example("tile_matmul.mlir").replace("bf16", "f16"),
                      "tile_matmul.mlir")
    rng = np.random.default_rng(11)
    a = rng.integers(-8, 9, (128, 96)).astype(np.float16)
    b = rng.integers(-8, 9, (96, 128)).astype(np.float16)
    c = np.full((128, 128), np.nan, dtype=np.float32)
    vx.run(module, "tile_matmul", a, b, c, **options)
    np.testing.assert_array_equal(
        c, a.astype(np.float32) @ b.astype(np.float32))


def check_gemm_bf16(source, seed, options):
    """Runs examples/gemm_bf16.mlir's `source` with f16 for bf16 (numpy has
    no bf16) on normal inputs of `seed` and checks C against numpy."""
    module = vx.parse(source.replace("xbf16", "xf16"), "gemm_bf16.mlir")
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((256, 512)).astype(np.float16)
    b = rng.standard_normal((512, 512)).astype(np.float16)
    c = np.full((256, 512), np.nan, dtype=np.float16)
    vx.run(module, "gemm_bf16", a, b, c, **options)
    np.testing.assert_allclose(
        c, a.astype(np.float64) @ b.astype(np.float64).T, rtol=1e-3,
        atol=1e-3)


@pytest.mark.parametrize("options", ROUTES)
def test_gemm_bf16_against_numpy(options):
    # examples/gemm_bf16.mlir (C = A B^T, B stored N x K) with f16 tiles and
    # an f16 C, as above; normal inputs, so on the tensor cores the f32 sums
    # differ from numpy's by their order only, and C by its rounding to f16
    # (half an ulp, 2^-11 relative).
    check_gemm_bf16(read_example("gemm_bf16.mlir"), 23, options)


@pytest.mark.skipif(not HAS_PTX_SIM,
                    reason="no CUDA toolkit or no libvx_ptx_sim.so")
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_gemm_bf16_stages_on_ptx_sim(stages):
    # On sm_90a each step's wgmma group stays in flight into the next one
    # (wait_group 1) while the slot it reads waits for its refill: at every
    # depth of the pipeline the simulator, which rejects a write into a
    # pending group's operand, gives numpy's numbers.
    source = read_example("gemm_bf16.mlir")
    check_gemm_bf16(source.replace("stages 4", f"stages {stages}"), stages,
                    {"ptx_sim": True, "chip": "sm_90a"})


@pytest.mark.parametrize("options", ROUTES)
def test_tile_attention_against_numpy(options):
    module = vx.parse(read_example("tile_attention.mlir"),
                      "tile_attention.mlir")
    rng = np.random.default_rng(13)
    q, k, v = (rng.standard_normal((1, 2, 128, 64)).astype(np.float32)
               for _ in range(3))
    out = np.full_like(q, np.nan)
    vx.run(module, "attention", q, k, v, out, **options)
    scores = np.einsum("bhqd,bhkd->bhqk", q.astype(np.float64), k) * 0.125
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(out, np.einsum("bhqk,bhkd->bhqd", weights, v),
                               rtol=1e-5, atol=1e-5)


def attention_reference(q, k, v):
    """Softmax attention in f64, scaled by 1 / sqrt(head dim)."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    scores = np.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("bhqk,bhkd->bhqd", weights, v)


def check_attention(text, options, seed, function="flash_attention",
                    head_dim=64, sequence=128):
    """Runs `function` of `text` on f16 Q, K, V of 2 heads of `sequence`
    queries and keys, against attention_reference."""
    module = vx.parse(text, "flash_attention.mlir")
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((1, 2, sequence, head_dim))
               .astype(np.float16) for _ in range(3))
    out = np.full(q.shape, np.nan, dtype=np.float32)
    vx.run(module, function, q, k, v, out, **options)
    np.testing.assert_allclose(out, attention_reference(q, k, v),
                               rtol=2e-3, atol=2e-3)


# The register form (S and P in the MMA fragment layout on the GPU routes)
# and the form with S and P staged in shared memory (wgmma on sm_90a).
@pytest.mark.parametrize("example", ["flash_attention.mlir",
                                     "flash_attention_smem.mlir"])
@pytest.mark.parametrize("options", ROUTES)
def test_flash_attention_against_numpy(options, example):
    # numpy has no bf16: the same kernel with f16 tiles. P is rounded to
    # f16 for P V (the tensor cores' A operand), as FlashAttention does.
    check_attention(read_example(example).replace("bf16", "f16"), options,
                    seed=23)


@pytest.mark.parametrize("options", ROUTES)
def test_flash_attention_head_dim_128_against_numpy(options):
    # bench/kernels' head-dim-128 variant at the example's sizes (the
    # register form: S and P in the fragment layout, mma.sync on sm_80 with
    # P V's accumulator 16x128 per warp, wgmma on sm_90a with m64n128k16
    # and P as its register A operand).
    with open(os.path.join(ROOT, "bench", "kernels",
                           "flash_attention.mlir")) as source:
        text = source.read().replace("bf16", "f16")
    text = text.replace("1x4x256x", "1x2x128x").replace(
        "grid [1, 4, 4, 4]", "grid [1, 2, 2, 2]")
    check_attention(text, options, seed=29, function="flash_attention128",
                    head_dim=128)


def with_kv_stages(text, stages):
    """A flash-attention kernel of `text` with 384 queries and keys (6 KV
    steps of 64) and K and V in `stages` stages (the spawn's clause)."""
    edits = [("1x2x128x", "1x2x384x"),
             ("grid [1, 2, 2, 2]", "grid [1, 2, 6, 6]"),
             ("threads 128 {", f"threads 128 stages {stages} {{")]
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return text


@pytest.mark.skipif(not HAS_PTX_SIM,
                    reason="no CUDA toolkit or no libvx_ptx_sim.so")
@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_flash_attention_kv_stages_on_ptx_sim(chip, stages):
    # The register form with K and V multi-buffered (the expert kernels
    # double-buffer them): cp.async groups on sm_80, TMA and an mbarrier per
    # slot on sm_90a, the fragment group unchanged; 6 KV steps, so every
    # slot is refilled while another is read, in a shuffled thread order.
    # Q does not move along the KV dim: TMA (sm_90a) or cp.async (sm_80)
    # loads it once, with the first step's K and V; every transfer is
    # pipelined, so the stages asked for draw no warning.
    text = with_kv_stages(read_example("flash_attention.mlir"), stages)
    lowered = vx.parse(text, "flash_attention.mlir").lower("gpu", chip=chip)
    assert [d for d in lowered.diagnostics if d.severity == "warning"] == []
    check_attention(text.replace("bf16", "f16"),
                    {"ptx_sim": True, "chip": chip, "sim_order": "shuffle"},
                    seed=37, sequence=384)


def flash_attention_with_thread_loops(prologue=True):
    """examples/flash_attention.mlir with the last step's 1 / l and O times
    it and, with `prologue`, the first step's fills of the running max, sum
    and output written as thread loops of the user's (VX_SPEC 2.3: mapped
    onto the fragment layout on the GPU routes, onto the rows on the
    others). Without it the row sum l stays per lane across the steps and
    the epilogue's row loop reads it summed over the quad."""
    text = read_example("flash_attention.mlir")
    fills = """      linalg.fill ins(%neg_inf : f32) outs(%m : memref<64xf32>)
      linalg.fill ins(%zero : f32) outs(%l : memref<64xf32>)
      linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
"""
    prologue_loops = """      scf.parallel (%r) = (%c0) to (%c64) step (%c1) {
        memref.store %neg_inf, %m[%r] : memref<64xf32>
        memref.store %zero, %l[%r] : memref<64xf32>
      }
      scf.parallel (%r, %c) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
        memref.store %zero, %acc[%r, %c] : memref<64x64xf32>
      }
"""
    epilogue = """      scf.parallel (%r) = (%c0) to (%c64) step (%c1) {
        %sum = memref.load %l[%r] : memref<64xf32>
        %inverse = arith.divf %one, %sum : f32
        memref.store %inverse, %l_inv[%r] : memref<64xf32>
      }
      scf.parallel (%r, %c) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
        %a = memref.load %acc[%r, %c] : memref<64x64xf32>
        %inverse = memref.load %l_inv[%r] : memref<64xf32>
        %n = arith.mulf %a, %inverse : f32
        memref.store %n, %o_tile[%r, %c]
            : memref<64x64xf32, strided<[64, 1], offset: ?>>
      }
"""
    assert fills in text
    if prologue:
        text = text.replace(fills, prologue_loops)
    start = text.index("      // One reciprocal per row")
    end = text.index("    }\n  }\n  return")
    return text[:start] + epilogue + text[end:]


@pytest.mark.parametrize("prologue", [True, False])
@pytest.mark.parametrize("options", ROUTES)
def test_flash_attention_thread_loops_against_numpy(options, prologue):
    text = flash_attention_with_thread_loops(prologue).replace("bf16", "f16")
    check_attention(text, options, seed=31)


def with_128_queries(text, threads):
    """examples/flash_attention.mlir with 128 queries per CTA of `threads`
    threads: Q, S, P, the output and the row vectors of 128 rows."""
    edits = [
        ("threads 128", f"threads {threads}"),
        ("grid [1, 2, 2, 2]", "grid [1, 2, 1, 2]"),
        ("%q0 = arith.muli %qb, %c64", "%q0 = arith.muli %qb, %c128"),
        ("%c64 = arith.constant 64 : index",
         "%c64 = arith.constant 64 : index\n  %c128 = arith.constant 128 : "
         "index"),
        ("memref<64x64xf32", "memref<128x64xf32"),
        ("memref<64xf32>", "memref<128xf32>"),
        ("vx.scratch smem : memref<64x64xbf16>\n    %k_tile",
         "vx.scratch smem : memref<128x64xbf16>\n    %k_tile"),
        ("%p = vx.scratch : memref<64x64xbf16>",
         "%p = vx.scratch : memref<128x64xbf16>"),
        ("outs(%p : memref<64x64xbf16>)", "outs(%p : memref<128x64xbf16>)"),
        ("ins(%p, %v_tile : memref<64x64xbf16>,",
         "ins(%p, %v_tile : memref<128x64xbf16>,"),
        ("ins(%q_tile, %k_tile : memref<64x64xbf16>,",
         "ins(%q_tile, %k_tile : memref<128x64xbf16>,"),
        ("%q0, 0] [1, 1, 64, 64]", "%q0, 0] [1, 1, 128, 64]"),
        ("to memref<64x64xbf16, strided<[64, 1], offset: ?>>\n    %k_src",
         "to memref<128x64xbf16, strided<[64, 1], offset: ?>>\n    %k_src"),
        ("%tq = vx.transfer_async %q_src to %q_tile\n"
         "        : memref<64x64xbf16, strided<[64, 1], offset: ?>>\n"
         "        to memref<64x64xbf16>",
         "%tq = vx.transfer_async %q_src to %q_tile\n"
         "        : memref<128x64xbf16, strided<[64, 1], offset: ?>>\n"
         "        to memref<128x64xbf16>"),
    ]
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize("threads", [128, 256])
@pytest.mark.parametrize("options", [ROUTES[0], ROUTES[3], ROUTES[4]])
def test_flash_attention_128_queries_against_numpy(options, threads):
    # 128 query rows per CTA: on sm_90a's wgmma one warpgroup holds two
    # 64-row fragments (128 threads) or each of two warpgroups one (256);
    # the fragment group's row reductions and broadcasts follow wgmma's
    # rows (64 per fragment, 16 per warp), mma.sync's on sm_80.
    text = with_128_queries(read_example("flash_attention.mlir"),
                            threads).replace("bf16", "f16")
    check_attention(text, options, seed=31)


def test_flash_attention_thread_loops_in_the_fragment_layout():
    # On sm_80 the thread loops join the fragment group: S, P, the output
    # and the row vectors stay in registers, the softmax's row reductions
    # are quad shuffles, and no shared memory holds more than Q, K and V.
    module = vx.parse(flash_attention_with_thread_loops(),
                      "flash_attention.mlir")
    lowered = module.lower("gpu", chip="sm_80")
    remarks = [d.message for d in lowered.diagnostics
               if d.severity == "remark" and "mma.sync" in d.message]
    assert len(remarks) == 2 and all(
        "in the fragment layout" in remark for remark in remarks), remarks


def test_tile_matmul_is_one_cta_per_tile_with_an_fma_remark():
    module = vx.parse(read_example("tile_matmul.mlir"), "tile_matmul.mlir")
    lowered = module.lower("gpu")
    assert [(launch.grid, launch.block) for launch in lowered.launches()] == [
        ((2, 2, 1), (128, 1, 1))]
    remarks = [d for d in lowered.diagnostics if d.severity == "remark"]
    assert [(d.location, d.message) for d in remarks] == [(
        "tile_matmul.mlir:44:5",
        "the bf16 operands would suit the tensor cores, but this route "
        "computes it with FMA code (the tensor cores need a GPU route's "
        "chip)")]


# Each tensor-core lowering by the chip: its remarks (sm_80: the padded
# layouts of the tiles that ldmatrix reads), its NVVM op, and not the
# other's.
TENSOR_CORE_LOWERINGS = [
    ("sm_80",
     [("tile_matmul.mlir:20:15", "ldmatrix reads this tile with rows padded "
       "from 64 to 80 bytes: bank-conflict-free"),
      ("tile_matmul.mlir:21:15", "ldmatrix reads this tile with rows padded "
       "from 128 to 144 bytes: bank-conflict-free"),
      ("tile_matmul.mlir:44:5", "computed on the tensor cores: "
       "mma.sync.m16n8k16 on 4 warps (2x2), 32x32 of the accumulator per "
       "warp")],
     "nvvm.mma.sync", "nvvm.wgmma.mma_async"),
    ("sm_90a",
     [("tile_matmul.mlir:44:5", "computed on the tensor cores: "
       "wgmma.mma_async.m64n64k16 on 1 warpgroup, 64x64 of the accumulator "
       "per warpgroup; A and B in shared memory with the 64B and 128B "
       "swizzles of their TMA transfers")],
     "nvvm.wgmma.mma_async", "nvvm.mma.sync"),
]


@pytest.mark.parametrize("chip, expected, used, unused",
                         TENSOR_CORE_LOWERINGS)
def test_tile_matmul_on_the_tensor_cores_of_a_chip(chip, expected, used,
                                                   unused):
    module = vx.parse(read_example("tile_matmul.mlir"), "tile_matmul.mlir")
    lowered = module.lower("gpu", chip=chip)
    remarks = [d for d in lowered.diagnostics if d.severity != "note"]
    assert [(d.severity, d.location, d.message) for d in remarks] == [
        ("remark", location, message) for location, message in expected]
    assert used in str(lowered)
    assert unused not in str(lowered)


@pytest.mark.skipif(not HAS_PTX_SIM,
                    reason="no CUDA toolkit or no libvx_ptx_sim.so")
@pytest.mark.parametrize("order", ["forward", "reverse", "shuffle"])
def test_tile_matmul_wgmma_on_the_simulator(order):
    # The simulator checks wgmma's asynchronous rules (fences, groups, reads
    # of operands and accumulators) and the TMA swizzle that the
    # descriptors read, in each thread order; a 128x192 K extent gives six
    # steps, so the three slots are each reloaded while others are read.
    text = read_example("tile_matmul.mlir").replace("bf16", "f16")
    text = text.replace("128x96", "128x192").replace("96x128", "192x128")
    text = text.replace("strided<[96, 1]", "strided<[192, 1]")
    text = text.replace("grid [2, 2, 3]", "grid [2, 2, 6]")
    module = vx.parse(text, "tile_matmul.mlir")
    rng = np.random.default_rng(19)
    a = rng.standard_normal((128, 192)).astype(np.float16)
    b = rng.standard_normal((192, 128)).astype(np.float16)
    c = np.full((128, 128), np.nan, dtype=np.float32)
    vx.run(module, "tile_matmul", a, b, c, ptx_sim=True, chip="sm_90a",
           sim_order=order)
    np.testing.assert_allclose(
        c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(not HAS_PTX_SIM,
                    reason="no CUDA toolkit or no libvx_ptx_sim.so")
@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_tile_matmul_mma_sync_rounds_like_numpy(chip):
    # Values that are not small integers: the f32 accumulation of exact f16
    # products on the tensor cores is numpy's f32 matmul up to the order of
    # the additions.
    module = vx.parse(read_example("tile_matmul.mlir").replace("bf16", "f16"),
                      "tile_matmul.mlir")
    rng = np.random.default_rng(17)
    a = rng.standard_normal((128, 96)).astype(np.float16)
    b = rng.standard_normal((96, 128)).astype(np.float16)
    c = np.full((128, 128), np.nan, dtype=np.float32)
    vx.run(module, "tile_matmul", a, b, c, ptx_sim=True, chip=chip)
    np.testing.assert_allclose(
        c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


COLUMNS_AND_TRANSPOSE = """
func.func @columns(%x: memref<64x32xf32>, %sums: memref<32xf32>,
                   %xt: memref<32x64xf32>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    %tile = vx.scratch smem : memref<64x32xf32>
    %acc = vx.scratch : memref<32xf32>
    %t = vx.transfer_async %x to %tile : memref<64x32xf32> to memref<64x32xf32>
    vx.await %t
    linalg.fill ins(%zero : f32) outs(%acc : memref<32xf32>)
    linalg.reduce ins(%tile : memref<64x32xf32>) outs(%acc : memref<32xf32>)
        dimensions = [0]
      (%e: f32, %s: f32) {
        %n = arith.addf %e, %s : f32
        linalg.yield %n : f32
      }
    memref.copy %acc, %sums : memref<32xf32> to memref<32xf32>
    linalg.transpose ins(%tile : memref<64x32xf32>)
        outs(%xt : memref<32x64xf32>) permutation = [1, 0]
  }
  return
}
"""


@pytest.mark.parametrize("options", ROUTES)
def test_column_reduction_and_transpose_against_numpy(options):
    # The reduction's loops are reordered (its output dim outermost), the
    # transposition's output is captured memory.
    module = vx.parse(COLUMNS_AND_TRANSPOSE, "columns.mlir")
    x = np.random.default_rng(17).integers(-9, 10, (64, 32)).astype(np.float32)
    sums = np.full(32, np.nan, dtype=np.float32)
    xt = np.full((32, 64), np.nan, dtype=np.float32)
    vx.run(module, "columns", x, sums, xt, **options)
    np.testing.assert_array_equal(sums, x.sum(axis=0))
    np.testing.assert_array_equal(xt, x.T)


DYNAMIC_MAP = """
func.func @twice(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %two = arith.constant 2.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    linalg.map ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>)
      (%e: f32, %unused: f32) {
        %n = arith.mulf %e, %two : f32
        linalg.yield %n : f32
      }
  }
  return
}
"""


@pytest.mark.parametrize("options", ROUTES)
def test_tile_op_of_dynamic_shape_against_numpy(options):
    # 70 x 3 elements over 64 threads: the thread loop has dynamic bounds and
    # a partial last round.
    module = vx.parse(DYNAMIC_MAP, "twice.mlir")
    x = np.arange(210, dtype=np.float32).reshape(70, 3)
    y = np.full_like(x, np.nan)
    vx.run(module, "twice", x, y, **options)
    np.testing.assert_array_equal(y, 2 * x)


# Two 16-row fragments per warp (64 rows on 2 warps), two 8-column ones
# (16 columns), a max and a sum reduction, a row broadcast, P from
# registers into an accumulator of 8 columns: the fragment layout's
# indexing beyond flash attention's shapes (one fragment row per warp).
FRAGMENT_GROUP = """
#rows = affine_map<(d0, d1) -> (d0)>
#tile = affine_map<(d0, d1) -> (d0, d1)>
func.func @softmax_pv(%a: memref<64x16xf16>, %b: memref<16x16xf16>,
                      %v: memref<16x8xf16>, %o: memref<64x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    %as = vx.scratch smem : memref<64x16xf16>
    %bs = vx.scratch smem : memref<16x16xf16>
    %vs = vx.scratch smem : memref<16x8xf16>
    %s = vx.scratch : memref<64x16xf32>
    %p = vx.scratch : memref<64x16xf16>
    %out = vx.scratch : memref<64x8xf32>
    %m = vx.scratch : memref<64xf32>
    %l = vx.scratch : memref<64xf32>
    memref.copy %a, %as : memref<64x16xf16> to memref<64x16xf16>
    memref.copy %b, %bs : memref<16x16xf16> to memref<16x16xf16>
    memref.copy %v, %vs : memref<16x8xf16> to memref<16x8xf16>
    linalg.fill ins(%zero : f32) outs(%s : memref<64x16xf32>)
    linalg.fill ins(%zero : f32) outs(%out : memref<64x8xf32>)
    linalg.matmul ins(%as, %bs : memref<64x16xf16>, memref<16x16xf16>)
                  outs(%s : memref<64x16xf32>)
    linalg.fill ins(%neg_inf : f32) outs(%m : memref<64xf32>)
    linalg.reduce ins(%s : memref<64x16xf32>) outs(%m : memref<64xf32>)
        dimensions = [1]
      (%x: f32, %acc: f32) {
        %max = arith.maximumf %x, %acc : f32
        linalg.yield %max : f32
      }
    linalg.generic {indexing_maps = [#rows, #tile],
                    iterator_types = ["parallel", "parallel"]}
        ins(%m : memref<64xf32>) outs(%s : memref<64x16xf32>) {
      ^bb0(%mx: f32, %x: f32):
        %d = arith.subf %x, %mx : f32
        %e = math.exp %d : f32
        linalg.yield %e : f32
    }
    linalg.fill ins(%zero : f32) outs(%l : memref<64xf32>)
    linalg.reduce ins(%s : memref<64x16xf32>) outs(%l : memref<64xf32>)
        dimensions = [1]
      (%x: f32, %acc: f32) {
        %sum = arith.addf %x, %acc : f32
        linalg.yield %sum : f32
      }
    linalg.map ins(%s : memref<64x16xf32>) outs(%p : memref<64x16xf16>)
      (%x: f32, %unused: f16) {
        %t = arith.truncf %x : f32 to f16
        linalg.yield %t : f16
      }
    linalg.matmul ins(%p, %vs : memref<64x16xf16>, memref<16x8xf16>)
                  outs(%out : memref<64x8xf32>)
    linalg.generic {indexing_maps = [#tile, #rows, #tile],
                    iterator_types = ["parallel", "parallel"]}
        ins(%out, %l : memref<64x8xf32>, memref<64xf32>)
        outs(%o : memref<64x8xf32>) {
      ^bb0(%x: f32, %sum: f32, %unused: f32):
        %n = arith.divf %x, %sum : f32
        linalg.yield %n : f32
    }
  }
  return
}
"""


@pytest.mark.parametrize("options", ROUTES)
def test_fragment_group_against_numpy(options):
    module = vx.parse(FRAGMENT_GROUP, "fragment_group.mlir")
    rng = np.random.default_rng(31)
    a = rng.standard_normal((64, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    v = rng.standard_normal((16, 8)).astype(np.float16)
    out = np.full((64, 8), np.nan, dtype=np.float32)
    vx.run(module, "softmax_pv", a, b, v, out, **options)
    scores = a.astype(np.float64) @ b
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    expected = (weights.astype(np.float16).astype(np.float64) @ v /
                weights.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(out, expected, rtol=2e-3, atol=2e-3)


def test_fragment_group_remarks():
    module = vx.parse(FRAGMENT_GROUP, "fragment_group.mlir")
    remarks = [d.message for d in module.lower("gpu", chip="sm_80").diagnostics
               if d.message.startswith("computed on the tensor cores")]
    assert remarks == [
        "computed on the tensor cores: mma.sync.m16n8k16 on 2 warps (2x1), "
        "32x16 of the accumulator per warp, with the row and elementwise "
        "tile ops of its 5 private tiles in the fragment layout",
        "computed on the tensor cores: mma.sync.m16n8k16 on 2 warps (2x1), "
        "32x8 of the accumulator per warp, with the row and elementwise "
        "tile ops of its 5 private tiles in the fragment layout; A from "
        "registers"]

# The expert tensor-core kernels of bench/cuda (wgmma_gemm.cu, the sm_90a
# TMA + wgmma GEMM; flash_attention.cu, the FlashAttention-2 forward pass
# on mma.sync; flash_attention_wgmma.cu, the FlashAttention-3-style one on
# TMA + wgmma) compiled by nvcc to PTX and run on the PTX simulator at
# small sizes, against numpy. Skipped without nvcc or the simulator.

import ctypes
import functools
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from test_ptx_sim import (LIBRARY, ROOT, encode_tiled, launch,  # noqa: F401
                          sim, take_error)

CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")
NVCC = shutil.which("nvcc") or os.path.join(CUDA, "bin", "nvcc")

pytestmark = [
    pytest.mark.skipif(LIBRARY is None,
                       reason="libvx_ptx_sim.so is not built"),
    pytest.mark.skipif(not os.path.exists(NVCC), reason="no nvcc")]

# The kernels' launch geometry (as scripts/gpu-bench.sh launches them) and
# bf16 conversions.
sys.path.insert(0, os.path.join(ROOT, "bench", "cuda"))
from expert import (ATTENTION_THREADS, ATTENTION_TILE_Q,  # noqa: E402
                    BFLOAT16, GEMM_SHARED, GEMM_THREADS, GEMM_TILE,
                    SWIZZLE_128B, attention_shared,
                    attention_wgmma_shared, from_bf16, to_bf16)


@functools.lru_cache(maxsize=None)
def ptx(source, chip):
    """The PTX that nvcc -O3 emits for bench/cuda/`source` on `chip`."""
    command = [NVCC, "-O3", f"-arch={chip}", "-ptx", "-o", "-",
               os.path.join(ROOT, "bench", "cuda", source)]
    # nvcc does not run under scripts/sanitize.sh's ASan LD_PRELOAD.
    environment = {name: value for name, value in os.environ.items()
                   if name != "LD_PRELOAD"}
    result = subprocess.run(command, capture_output=True, text=True,
                            env=environment)
    assert result.returncode == 0, result.stderr
    return result.stdout


def small_integers(shape, seed):
    """Values whose products and sums bf16 and fp32 hold exactly."""
    return np.random.default_rng(seed).integers(-4, 5, shape).astype(
        np.float32)


def run(lib, text, kernel, grid, block, args, smem):
    """Launches `kernel` of nvcc's PTX (its own header) on the simulator
    with the given global arrays registered; returns the error or None."""
    return launch(lib, text, kernel, grid, block, args, smem=smem, header="")


def run_gemm(lib, m, n, k, a, b, text=None):
    """C = A B^T on the simulator (A m x k, B n x k, bf16); returns the
    error and C as float32."""
    tile_m, tile_n, tile_k = GEMM_TILE
    a_bits, b_bits = to_bf16(a), to_bf16(b)
    c = np.zeros((m, n), np.uint16)
    maps = []
    for tensor, rows in ((a_bits, tile_m), (b_bits, tile_n)):
        lib.mgpuMemHostRegister(tensor.ctypes.data, tensor.nbytes)
        maps.append(encode_tiled(lib, tensor, (rows, tile_k),
                                 swizzle=SWIZZLE_128B, data_type=BFLOAT16))
        assert maps[-1], take_error(lib)
    try:
        error = run(lib, text or ptx("wgmma_gemm.cu", "sm_90a"), "wgmmaGemm",
                    (n // tile_n, m // tile_m, 1), (GEMM_THREADS, 1, 1),
                    [ctypes.c_uint64(maps[0]), ctypes.c_uint64(maps[1]), c,
                     ctypes.c_int32(n), ctypes.c_int32(k)], GEMM_SHARED)
    finally:
        for tensor in (a_bits, b_bits):
            lib.mgpuMemHostUnregister(tensor.ctypes.data)
    return error, from_bf16(c)


def rounded_to_bf16(values):
    return from_bf16(to_bf16(values))


def test_wgmma_gemm_exact(sim):
    # Two CTAs along M, a K loop of 2 steps; small integers: the fp32
    # accumulators are exact and C is the product rounded to bf16.
    m, n, k = 256, 256, 128
    a, b = small_integers((m, k), 1), small_integers((n, k), 2)
    error, c = run_gemm(sim, m, n, k, a, b)
    assert error is None, error
    np.testing.assert_array_equal(c, rounded_to_bf16(a @ b.T))


def test_wgmma_gemm_ring_wraps(sim):
    # 8 K steps through the 4 stages: every stage is refilled once, after
    # its "empty" mbarrier's first phase; normal values.
    m, n, k = 128, 256, 512
    rng = np.random.default_rng(3)
    a = rounded_to_bf16(rng.standard_normal((m, k)))
    b = rounded_to_bf16(rng.standard_normal((n, k)))
    error, c = run_gemm(sim, m, n, k, a, b)
    assert error is None, error
    expected = a.astype(np.float64) @ b.T.astype(np.float64)
    # fp32 accumulation, then bf16's 8-bit mantissa: 2^-8 relative.
    np.testing.assert_allclose(c, expected, rtol=2**-8, atol=1e-3 * k)


def attention_reference(q, k, v, scale):
    scores = np.einsum("hqd,hkd->hqk", q, k).astype(np.float64) * scale
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("hqk,hkd->hqd", weights, v)


def run_attention(lib, q, k, v, scale):
    """O = softmax(Q K^T scale) V on the simulator, [heads][seq][d] bf16;
    returns the error and O as float32."""
    heads, seq_q, dim = q.shape
    o = np.zeros(q.shape, np.uint16)
    error = run(lib, ptx("flash_attention.cu", "sm_80"),
                f"flashAttention{dim}",
                (seq_q // ATTENTION_TILE_Q, heads, 1),
                (ATTENTION_THREADS, 1, 1),
                [to_bf16(q), to_bf16(k), to_bf16(v), o,
                 ctypes.c_int32(k.shape[1]), ctypes.c_float(scale)],
                attention_shared(dim))
    return error, from_bf16(o)


@pytest.mark.parametrize("dim", [64, 128])
def test_flash_attention(sim, dim):
    # One head, 128 queries (2 CTAs), 256 keys (4 KV steps, both buffers
    # twice); scores spread enough that the running max changes.
    rng = np.random.default_rng(dim)
    q, k, v = (rounded_to_bf16(rng.standard_normal((1, seq, dim)) * spread)
               for seq, spread in ((128, 2.0), (256, 1.0), (256, 1.0)))
    scale = dim ** -0.5
    error, o = run_attention(sim, q, k, v, scale)
    assert error is None, error
    # P and O in bf16 (8-bit mantissa), ex2.approx: 2^-7 of O's range.
    np.testing.assert_allclose(o, attention_reference(q, k, v, scale),
                               rtol=0, atol=2**-7 * np.abs(v).max())


def run_attention_wgmma(lib, q, k, v, scale):
    """run_attention's computation by flash_attention_wgmma.cu: Q, K and V
    through 128B-swizzled tensor maps of 64 x 64 boxes."""
    heads, seq_q, dim = q.shape
    o = np.zeros(q.shape, np.uint16)
    tensors = [to_bf16(x).reshape(-1, dim) for x in (q, k, v)]
    maps = []
    for tensor in tensors:
        lib.mgpuMemHostRegister(tensor.ctypes.data, tensor.nbytes)
        maps.append(encode_tiled(lib, tensor, (64, 64), swizzle=SWIZZLE_128B,
                                 data_type=BFLOAT16))
        assert maps[-1], take_error(lib)
    try:
        error = run(lib, ptx("flash_attention_wgmma.cu", "sm_90a"),
                    f"flashAttentionWgmma{dim}",
                    (seq_q // ATTENTION_TILE_Q, heads, 1),
                    (ATTENTION_THREADS, 1, 1),
                    [ctypes.c_uint64(m) for m in maps] +
                    [o, ctypes.c_int32(k.shape[1]), ctypes.c_float(scale)],
                    attention_wgmma_shared(dim))
    finally:
        for tensor in tensors:
            lib.mgpuMemHostUnregister(tensor.ctypes.data)
    return error, from_bf16(o)


@pytest.mark.parametrize("dim", [64, 128])
def test_flash_attention_wgmma(sim, dim):
    # Two heads (the tensor maps' rows run on across them), 128 queries,
    # 192 keys: 3 KV steps through the 2 stages, one refilled.
    rng = np.random.default_rng(dim + 1)
    q, k, v = (rounded_to_bf16(rng.standard_normal((2, seq, dim)) * spread)
               for seq, spread in ((128, 2.0), (192, 1.0), (192, 1.0)))
    scale = dim ** -0.5
    error, o = run_attention_wgmma(sim, q, k, v, scale)
    assert error is None, error
    np.testing.assert_allclose(o, attention_reference(q, k, v, scale),
                               rtol=0, atol=2**-7 * np.abs(v).max())

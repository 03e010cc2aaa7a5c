"""bench/peak_model.py: the FP32-peak estimate of RESULTS.md section 2, on
instruction mixes whose bounds are worked out by hand below."""

import collections
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "bench"))
import peak_model  # noqa: E402
from peak_model import FFMA, LDS, MUFU, STS  # noqa: E402

IADD3, BRA = 0x010, 0x147  # two other opcodes (low 9 bits)


def mix(**counts):
    names = {"ffma": FFMA, "lds": LDS, "mufu": MUFU, "other": IADD3}
    return collections.Counter({names[name]: count
                                for name, count in counts.items()})


def test_sgemm_step_of_issue_30():
    # Issue 30's SGEMM kk step: 64 FFMA, 16 LDS.32, 10 integer and branch
    # instructions, 48 wavefronts. FFMA needs 16 clocks, issue 90 / 4 =
    # 22.5, shared memory 48: the step takes 48 clocks, 16 of FFMA.
    share, limit = peak_model.issue_bound(mix(ffma=64, lds=16, other=10), 48)
    assert limit == "shared memory"
    assert share == pytest.approx(16 / 48)
    # Conflict-free (6 wavefronts): issue-bound, 16 of 22.5 clocks.
    share, limit = peak_model.issue_bound(mix(ffma=64, lds=16, other=10), 6)
    assert limit == "issue"
    assert share == pytest.approx(16 / 22.5)


def test_mufu_bound():
    # 8 FFMA and 8 MUFU: 2 clocks of FFMA, 4 issue, 16 of MUFU (half a warp
    # instruction per clock).
    share, limit = peak_model.issue_bound(mix(ffma=8, mufu=8), 0)
    assert limit == "mufu"
    assert share == pytest.approx(2 / 16)


def test_loop_mix_spans_the_unrolled_loop():
    # Prologue and epilogue outside the first and last FFMA / LDS / STS;
    # FFMA with an immediate operand (0x823) is an FFMA.
    opcodes = [IADD3, IADD3, 0x984, 0x223, IADD3, 0x823, 0x388, BRA, IADD3]
    counts = peak_model.loop_mix(opcodes)
    assert counts == collections.Counter({LDS: 1, FFMA: 2, IADD3: 1,
                                          STS: 1})
    assert peak_model.loop_mix([IADD3, BRA]) is None


def test_wavefronts_of_unknown_addresses():
    # (line, kind, bytes, wavefronts, phases): a known 2-way conflict, and
    # unknown 128-bit and 32-bit accesses at one wavefront per phase.
    accesses = [(0, "ld", 4, 2, 1), (1, "ld", 16, None, None),
                (2, "st", 4, None, None)]
    assert peak_model.wavefronts(accesses) == 2 + 4 + 1


def test_memory_bound():
    # vector_add: 1 flop per 12 bytes at 4.8 TB/s against the peak.
    flops, dram_bytes = peak_model.kernel_work("vector_add", [(1024,)] * 3)
    assert (flops, dram_bytes) == (1024, 12 * 1024)
    assert peak_model.memory_bound(flops, dram_bytes) == pytest.approx(
        4.8e12 / 12 / peak_model.PEAK_FLOPS)
    # SGEMM at 256^3: 42.7 flops per byte, far above the balance point.
    flops, dram_bytes = peak_model.kernel_work("matmul", [(256, 256)] * 3)
    assert flops == 2 * 256 ** 3
    assert peak_model.memory_bound(flops, dram_bytes) == 1.0


def test_attention_work():
    flops, dram_bytes = peak_model.kernel_work("attention",
                                               [(1, 4, 256, 64)] * 4)
    assert flops == 4 * 4 * 256 * 256 * 64
    assert dram_bytes == 4 * 4 * (4 * 256 * 64)


def test_estimate_is_the_lower_bound():
    usage = {"opcodes": [0x984] + [0x223] * 64 + [IADD3] * 10,
             "shared accesses": [(0, "ld", 4, 48, 1)]}
    side = peak_model.estimate(usage, 2 * 256 ** 3, 3 * 4 * 256 ** 2)
    assert side["limit"] == "shared memory"
    assert side["estimate"] == pytest.approx(16 / 48)
    # A copy has no flops: 0, whatever its loop.
    assert peak_model.estimate(usage, 0, 8)["estimate"] == 0.0
    with pytest.raises(ValueError):
        peak_model.kernel_work("unknown", [(1,)])

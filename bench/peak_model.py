"""An estimate of the share of an H200's FP32 peak that a kernel can reach,
from its SASS instruction mix and its memory traffic (no GPU needed).

Two bounds, the lower one is the estimate:

- Issue: per SM and clock, 4 warp instructions issue (one per scheduler),
  4 warp FP32 instructions execute (FFMA, FADD, FMUL: 128 lanes), 1
  shared-memory wavefront is served (128 bytes) and half a warp MUFU (16
  lanes). The main loop's mix (the SASS from the first to the last FFMA,
  LDS or STS: the unrolled main loop, where nearly all of them are) and its
  shared wavefronts (bank_conflicts.py on the PTX's shared accesses, one
  per phase where the address is unknown) give the clocks one warp's pass
  of the loop occupies the SM: the largest of instructions / 4, FP32 / 4,
  wavefronts / 1 and MUFU / 0.5; its flops (2 per FFMA lane, 1 per FADD
  and FMUL lane) over the SM's 256 flops per clock in that time is the
  share. It assumes enough warps to hide latency and ignores the
  instructions outside the loop.
- Memory: the kernel's flops over its minimum DRAM bytes (each argument
  read or written once), times the HBM bandwidth, over the peak.

    python3 bench/peak_model.py VX_OPT    # the table of RESULTS.md
"""

import collections
import math
import os
import sys
import tempfile

# H200 SXM: 132 SMs at a 1.98 GHz boost clock; HBM3e.
SMS, CLOCK_HZ, HBM_BYTES_PER_S = 132, 1.98e9, 4.8e12
FLOPS_PER_SM_CLOCK = 128 * 2  # 128 FP32 lanes, an FFMA is 2 flops
PEAK_FLOPS = SMS * CLOCK_HZ * FLOPS_PER_SM_CLOCK
# Per SM and clock, in warp instructions (wavefronts for shared memory).
ISSUE_RATE, FP32_RATE, SHARED_RATE, MUFU_RATE = 4.0, 4.0, 1.0, 0.5

# SASS opcodes by their low 9 bits (bits 9-11 select the operand form:
# 0x223 is FFMA on registers, 0x823 with an immediate, 0x423 ...).
FFMA, FADD, FMUL, MUFU, LDS, STS = 0x023, 0x021, 0x020, 0x108, 0x184, 0x188
FP32_FLOPS = {FFMA: 2, FADD: 1, FMUL: 1}


def loop_mix(opcodes):
    """The opcode counts (low 9 bits) of the main loop: from the first to
    the last FFMA, LDS or STS of the kernel's SASS; None without any."""
    classes = [opcode & 0x1FF for opcode in opcodes]
    marked = [index for index, opcode in enumerate(classes)
              if opcode in (FFMA, LDS, STS)]
    if not marked:
        return None
    return collections.Counter(classes[marked[0]:marked[-1] + 1])


def wavefronts(accesses):
    """The shared-memory wavefronts of one warp's pass over `accesses`
    (bank_conflicts.shared_accesses; one per phase where the address is
    unknown)."""
    total = 0
    for _, _, width, fronts, phases in accesses:
        if fronts is None:
            fronts = max(1, width // 4) if width <= 16 else 1
        total += fronts
    return total


def issue_bound(mix, shared_wavefronts):
    """(share of the FP32 peak, the limiting resource) of a main loop of
    opcode counts `mix` and `shared_wavefronts` per warp."""
    fp32 = sum(mix[opcode] for opcode in FP32_FLOPS)
    clocks = {"issue": sum(mix.values()) / ISSUE_RATE,
              "fp32": fp32 / FP32_RATE,
              "shared memory": shared_wavefronts / SHARED_RATE,
              "mufu": mix[MUFU] / MUFU_RATE}
    limit = max(clocks, key=clocks.get)
    flops = 32 * sum(mix[opcode] * per_lane
                     for opcode, per_lane in FP32_FLOPS.items())
    return flops / (FLOPS_PER_SM_CLOCK * clocks[limit]), limit


def memory_bound(flops, dram_bytes):
    """The share of the FP32 peak that `flops` over `dram_bytes` of DRAM
    traffic allows at the HBM bandwidth (at most 1)."""
    return min(1.0, flops / dram_bytes * HBM_BYTES_PER_S / PEAK_FLOPS)


def kernel_work(kernel, shapes):
    """(flops, minimum DRAM bytes) of a bench kernel from its argument
    shapes (bench.kernel_signature): the useful FP32 work, each argument
    moved once."""
    dram_bytes = 4 * sum(math.prod(shape) for shape in shapes)
    if kernel == "vector_add":
        flops = math.prod(shapes[0])
    elif kernel == "transpose":
        flops = 0
    elif kernel == "softmax":
        # max, subtract, exp, sum and scale: 5 per element.
        flops = 5 * math.prod(shapes[0])
    elif kernel == "matmul":
        (m, k), (_, n) = shapes[0], shapes[1]
        flops = 2 * m * n * k
    elif kernel == "attention":
        # Q K^T and P V, each 2 * queries * keys * head dim per head.
        heads, queries, dim = math.prod(shapes[0][:-2]), *shapes[0][-2:]
        flops = 4 * heads * queries * queries * dim
    else:
        raise ValueError("no work model for kernel %r" % kernel)
    return flops, dram_bytes


def estimate(usage, flops, dram_bytes):
    """The estimate for one kernel's side (bench.assemble's usage): a dict
    with the loop's mix, its shared wavefronts, the issue bound and its
    limit (None without a main loop), the memory bound and the estimate
    (the lower bound; 0 for a kernel without flops)."""
    memory = memory_bound(flops, dram_bytes)
    mix = loop_mix(usage["opcodes"])
    result = {"memory": memory, "mix": mix, "issue": None, "limit": None,
              "wavefronts": wavefronts(usage["shared accesses"])}
    if mix is not None:
        result["issue"], result["limit"] = issue_bound(
            mix, result["wavefronts"])
    result["estimate"] = min(memory, result["issue"]
                             if result["issue"] is not None else 1.0)
    if flops == 0:
        result["estimate"] = 0.0
    return result


def describe(side):
    """A cell: the estimate, its bound and the loop's mix."""
    if side["mix"] is None or side["estimate"] == side["memory"]:
        return "%.1f%% (memory)" % (100 * side["estimate"])
    mix = side["mix"]
    return "%.0f%% (%s: %d instructions, %d FFMA, %d wavefronts, %d MUFU)" % (
        100 * side["estimate"], side["limit"], sum(mix.values()), mix[FFMA],
        side["wavefronts"], mix[MUFU])


def description():
    """The paragraph of RESULTS.md that states the model."""
    return (
        "Estimated share of the H200's FP32 peak (bench/peak_model.py; %.1f "
        "TFLOP/s: %d SMs x 128 FP32 lanes x 2 flops x %.2f GHz), the lower "
        "of two bounds. Memory: the kernel's flops over its minimum DRAM "
        "bytes (each argument moved once) at %.1f TB/s. Issue, per SM and "
        "clock: 4 warp instructions issued, 4 warp FP32 instructions (FFMA, "
        "FADD, FMUL), 1 shared-memory wavefront, half a warp MUFU; the main "
        "loop is the SASS from the first to the last FFMA, LDS or STS (the "
        "unrolled loop body), its wavefronts those bank_conflicts.py counts "
        "for the PTX's shared accesses (a 128-bit access is 4 phases of 8 "
        "lanes, a broadcast included); a warp's pass takes the most clocks "
        "any of these needs, and its flops (2 per FFMA lane, 1 per FADD or "
        "FMUL lane) over 256 per clock in that time is the share. It "
        "assumes enough resident warps to hide latency and grids that fill "
        "the chip (the bench sizes do not: matmul is 4 CTAs, attention "
        "16), and ignores the instructions outside the loop. The cells: "
        "the estimate, the limiting resource and the loop's mix per "
        "warp.\n" % (PEAK_FLOPS / 1e12, SMS, CLOCK_HZ / 1e9,
                      HBM_BYTES_PER_S / 1e12))


def table(codegen_rows, shapes):
    """RESULTS.md's table: per kernel of bench.codegen's rows, the memory
    bound and the estimate for vx and for the CUDA kernel; `shapes` maps
    each kernel to its argument shapes (bench.kernel_signature)."""
    lines = ["| kernel | flops per DRAM byte | memory bound | vx | CUDA |",
             "| --- | ---: | ---: | --- | --- |"]
    for kernel, _, vx, nvcc in codegen_rows:
        flops, dram_bytes = kernel_work(kernel, shapes[kernel])
        lines.append("| %s | %.2f | %.1f%% | %s | %s |" % (
            kernel, flops / dram_bytes,
            100 * memory_bound(flops, dram_bytes),
            describe(estimate(vx, flops, dram_bytes)),
            describe(estimate(nvcc, flops, dram_bytes))))
    return lines


def main(argv):
    import bench
    if len(argv) != 2:
        sys.exit("usage: python3 bench/peak_model.py VX_OPT")
    os.environ["PATH"] = bench.LLVM_BIN + os.pathsep + os.environ["PATH"]
    with tempfile.TemporaryDirectory(prefix="vx-peak-") as work:
        rows = bench.codegen(argv[1], work, bench.KERNELS)
    print("\n".join(table(rows, bench.kernel_shapes(bench.KERNELS))))


if __name__ == "__main__":
    main(sys.argv)

# The PTX simulator's tensor-core instructions (lib/PTXSim/TensorCore.cpp)
# against numpy: ldmatrix / stmatrix, mma.sync and wgmma.mma_async, each in
# a hand-written kernel that ptxas must accept for the chip it names, and
# the errors of their asynchronous and collective rules.

import ctypes
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from test_ptx_sim import (LIBRARY, assert_ptxas_refuses,  # noqa: F401
                          encode_tiled, gpu_binary, launch, sim, take_error)

pytestmark = pytest.mark.skipif(LIBRARY is None,
                                reason="libvx_ptx_sim.so is not built")

SM80 = ".version 7.0\n.target sm_80\n.address_size 64\n"
SM90A = ".version 8.0\n.target sm_90a\n.address_size 64\n"
CHIPS = {SM80: "sm_80", SM90A: "sm_90a", "": "sm_90a"}  # "": MLIR's own


def assert_ptxas_accepts(text, chip):
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.path.exists(ptxas):
        return
    result = subprocess.run([ptxas, f"-arch={chip}", "-o", os.devnull, "-"],
                            input=text.encode(), capture_output=True)
    assert result.returncode == 0, result.stderr.decode()


def simulate(lib, header, ptx, kernel, threads, args, chip=None):
    """Runs `kernel` on one block of `threads` after ptxas accepted it for
    the header's chip (or `chip`); returns the simulator's error or None."""
    assert_ptxas_accepts(header + ptx, chip or CHIPS[header])
    return launch(lib, ptx, kernel, (1, 1, 1), (threads, 1, 1), args,
                  header=header)


def bf16_bits(values):
    """The bf16 encoding of values that bf16 holds exactly."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    assert not (bits & 0xffff).any()
    return (bits >> 16).astype(np.uint16)


def f16_bits(values):
    return np.asarray(values, dtype=np.float16).view(np.uint16)


def small_integers(shape, seed):
    """Values whose products and sums every format here holds exactly."""
    return np.random.default_rng(seed).integers(-4, 5, shape).astype(
        np.float32)


# ldmatrix / stmatrix: lane t's 16-byte row sits in the tile at slot
# 5t mod 32, and each lane passes its own row's address.
MATRIX_COPY = """
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 5;
  and.b32 %r2, %r2, 31;
  shl.b32 %r2, %r2, 4;
  mov.u32 %r3, tile;
  add.u32 %r4, %r3, %r2;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
"""


def ldmatrix_ptx(count, trans):
    opcode = f"ldmatrix.sync.aligned.m8n8.x{count}" + (
        ".trans" if trans else "") + ".shared.b16"
    regs = ", ".join(f"%r{10 + i}" for i in range(count))
    stores = "\n".join(f"  st.global.b32 [%rd5+{4 * i}], %r{10 + i};"
                       for i in range(count))
    return f"""
.visible .entry ldm(.param .u64 in, .param .u64 out)
{{
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 tile[512];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
{MATRIX_COPY}
  ld.global.v4.b32 {{%r5, %r6, %r7, %r8}}, [%rd4];
  st.shared.v4.b32 [%r4], {{%r5, %r6, %r7, %r8}};
  bar.sync 0;
  {opcode} {{{regs}}}, [%r4];
{stores}
  ret;
}}
"""


def stmatrix_ptx(count, trans):
    opcode = f"stmatrix.sync.aligned.m8n8.x{count}" + (
        ".trans" if trans else "") + ".shared.b16"
    regs = ", ".join(f"%r{10 + i}" for i in range(count))
    loads = "\n".join(f"  ld.global.b32 %r{10 + i}, [%rd4+{4 * i}];"
                      for i in range(count))
    return f"""
.visible .entry stm(.param .u64 in, .param .u64 out)
{{
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 tile[512];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
{MATRIX_COPY}
{loads}
  {opcode} [%r4], {{{regs}}};
  bar.sync 0;
  ld.shared.v4.b32 {{%r5, %r6, %r7, %r8}}, [%r4];
  st.global.v4.b32 [%rd5], {{%r5, %r6, %r7, %r8}};
  ret;
}}
"""


def fragment_index(lane, half, trans):
    """The (row, column) of an 8x8 matrix that half `half` of a lane's
    register holds (PTX ISA ldmatrix: row lane/4, columns 2(lane%4) + half;
    .trans swaps them)."""
    row, col = lane // 4, 2 * (lane % 4) + half
    return (col, row) if trans else (row, col)


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_ldmatrix(sim, count, trans):
    data = np.arange(32 * 8, dtype=np.uint16) * 7 + 3
    out = np.zeros((32, 4), dtype=np.uint32)
    assert simulate(sim, SM80, ldmatrix_ptx(count, trans), "ldm", 32,
                    [data, out]) is None
    # Lane 8i + r's row is row r of matrix i.
    matrices = data.reshape(4, 8, 8)
    expected = np.zeros_like(out)
    for lane in range(32):
        for i in range(count):
            low, high = (matrices[i][fragment_index(lane, half, trans)]
                         for half in (0, 1))
            expected[lane, i] = int(low) | int(high) << 16
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_stmatrix(sim, count, trans):
    fragments = np.random.default_rng(count).integers(
        0, 1 << 32, (32, 4), dtype=np.uint64).astype(np.uint32)
    out = np.zeros((32, 8), dtype=np.uint16)
    assert simulate(sim, SM90A, stmatrix_ptx(count, trans), "stm", 32,
                    [fragments, out]) is None
    expected = np.zeros((4, 8, 8), dtype=np.uint16)
    for lane in range(32):
        for i in range(count):
            for half in (0, 1):
                expected[i][fragment_index(lane, half, trans)] = (
                    fragments[lane, i] >> (16 * half)) & 0xffff
    np.testing.assert_array_equal(out[:8 * count],
                                  expected.reshape(32, 8)[:8 * count])


def test_ldmatrix_needs_the_whole_warp(sim):
    ptx = ldmatrix_ptx(4, False).replace(
        "  ldmatrix", "  setp.lt.u32 %p1, %r1, 31;\n  @%p1 ldmatrix").replace(
        ".reg .b32", ".reg .pred %p<2>;\n  .reg .b32")
    error = simulate(sim, SM80, ptx, "ldm", 32,
                     [np.zeros(256, np.uint16), np.zeros(128, np.uint32)])
    assert ("thread (0,0,0): divergent ldmatrix: thread (31,0,0) of the warp "
            "has exited") in error


def test_ldmatrix_that_a_lane_never_reaches(sim):
    ptx = ldmatrix_ptx(4, False).replace(
        "  ldmatrix", "  setp.lt.u32 %p1, %r1, 31;\n  @!%p1 bar.sync 1;\n"
        "  @%p1 ldmatrix").replace(".reg .b32",
                                   ".reg .pred %p<2>;\n  .reg .b32")
    error = simulate(sim, SM80, ptx, "ldm", 32,
                     [np.zeros(256, np.uint16), np.zeros(128, np.uint32)])
    assert ("deadlock: divergent ldmatrix, not every thread of the warp "
            "reaches it; thread (31,0,0) waits at PTX line") in error


# mma.sync m16n8k16: A (16x16, row-major) through ldmatrix.x4, B (16x8,
# row-major, so K x N) through ldmatrix.x2.trans, C and D at row
# groupID (+8), columns 2 threadID_in_group (+1).
MMA_K16 = """
.visible .entry mma(.param .u64 a, .param .u64 b, .param .u64 c,
                    .param .u64 d)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<40>;
  .reg .f32 %f<10>;
  .reg .b64 %rd<16>;
  .shared .align 16 .b8 sa[512];
  .shared .align 16 .b8 sb[256];
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u64 %rd4, [d];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.v4.b32 {{%r2, %r3, %r4, %r5}}, [%rd6];
  mov.u32 %r6, sa;
  shl.b32 %r7, %r1, 4;
  add.u32 %r8, %r6, %r7;
  st.shared.v4.b32 [%r8], {{%r2, %r3, %r4, %r5}};
  setp.lt.u32 %p1, %r1, 16;
  add.s64 %rd7, %rd2, %rd5;
  @%p1 ld.global.v4.b32 {{%r2, %r3, %r4, %r5}}, [%rd7];
  mov.u32 %r9, sb;
  add.u32 %r10, %r9, %r7;
  @%p1 st.shared.v4.b32 [%r10], {{%r2, %r3, %r4, %r5}};
  bar.sync 0;
  and.b32 %r11, %r1, 15;
  shl.b32 %r12, %r11, 5;
  shr.u32 %r13, %r1, 4;
  shl.b32 %r13, %r13, 4;
  add.u32 %r14, %r6, %r12;
  add.u32 %r14, %r14, %r13;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{%r15, %r16, %r17, %r18}}, [%r14];
  shl.b32 %r19, %r11, 4;
  add.u32 %r19, %r9, %r19;
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {{%r20, %r21}}, [%r19];
  shr.u32 %r22, %r1, 2;
  and.b32 %r23, %r1, 3;
  shl.b32 %r24, %r22, 3;
  shl.b32 %r25, %r23, 1;
  add.u32 %r26, %r24, %r25;
  mul.wide.u32 %rd8, %r26, {c_bytes};
  add.s64 %rd9, %rd3, %rd8;
  mul.wide.u32 %rd11, %r26, {d_bytes};
  add.s64 %rd10, %rd4, %rd11;
{load_c}
  mma.sync.aligned.m16n8k16.row.col.{d}.{ab}.{ab}.{c} {{{d_regs}}}, {{%r15, %r16, %r17, %r18}}, {{%r20, %r21}}, {{{c_regs}}};
{store_d}
  ret;
}}
"""


def accumulator_access(kind, regs, address, row_bytes, store):
    """Loads or stores a thread's C/D fragment: f32 as two v2 accesses,
    f16 as two packed words, 8 rows apart."""
    op = "st" if store else "ld"
    if kind == "f32":
        pairs = [f"{{{regs[0]}, {regs[1]}}}", f"{{{regs[2]}, {regs[3]}}}"]
        width = ".v2.f32"
    else:
        pairs, width = regs, ".b32"
    lines = []
    for i, pair in enumerate(pairs):
        where = f"[{address}+{8 * row_bytes * i}]"
        lines.append(f"  {op}.global{width} {where}, {pair};" if store else
                     f"  {op}.global{width} {pair}, {where};")
    return "\n".join(lines)


def mma_k16_ptx(d, ab, c):
    def regs(kind, first_f32, first_f16):
        return ([f"%f{first_f32 + i}" for i in range(4)] if kind == "f32"
                else [f"%r{first_f16 + i}" for i in range(2)])

    c_regs, d_regs = regs(c, 1, 30), regs(d, 5, 32)
    return MMA_K16.format(
        c_bytes=4 if c == "f32" else 2, d_bytes=4 if d == "f32" else 2,
        d=d, ab=ab, c=c,
        c_regs=", ".join(c_regs), d_regs=", ".join(d_regs),
        load_c=accumulator_access(c, c_regs, "%rd9", 32 if c == "f32" else 16,
                                  False),
        store_d=accumulator_access(d, d_regs, "%rd10",
                                   32 if d == "f32" else 16, True))


@pytest.mark.parametrize("d,ab,c", [("f32", "bf16", "f32"),
                                    ("f32", "f16", "f32"),
                                    ("f16", "f16", "f16")])
def test_mma_sync_m16n8k16(sim, d, ab, c):
    a, b = small_integers((16, 16), 1), small_integers((16, 8), 2)
    acc = small_integers((16, 8), 3) * 8
    encode = bf16_bits if ab == "bf16" else f16_bits
    c_data = acc.astype(np.float16) if c == "f16" else acc
    out = np.zeros((16, 8), np.float16 if d == "f16" else np.float32)
    assert simulate(sim, SM80, mma_k16_ptx(d, ab, c), "mma", 32,
                    [encode(a), encode(b), c_data, out]) is None
    np.testing.assert_array_equal(out, (a @ b + acc).astype(out.dtype))


MMA_TF32 = """
.visible .entry mma(.param .u64 a, .param .u64 b, .param .u64 c,
                    .param .u64 d)
{
  .reg .b32 %r<40>;
  .reg .f32 %f<10>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u64 %rd4, [d];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 2;
  and.b32 %r3, %r1, 3;
  shl.b32 %r4, %r2, 3;
  add.u32 %r5, %r4, %r3;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.b32 %r10, [%rd6];
  ld.global.b32 %r11, [%rd6+256];
  ld.global.b32 %r12, [%rd6+16];
  ld.global.b32 %r13, [%rd6+272];
  shl.b32 %r6, %r3, 3;
  add.u32 %r6, %r6, %r2;
  mul.wide.u32 %rd7, %r6, 4;
  add.s64 %rd8, %rd2, %rd7;
  ld.global.b32 %r14, [%rd8];
  ld.global.b32 %r15, [%rd8+128];
  shl.b32 %r7, %r3, 1;
  add.u32 %r8, %r4, %r7;
  mul.wide.u32 %rd9, %r8, 4;
  add.s64 %rd10, %rd3, %rd9;
  add.s64 %rd11, %rd4, %rd9;
  ld.global.v2.f32 {%f1, %f2}, [%rd10];
  ld.global.v2.f32 {%f3, %f4}, [%rd10+256];
  mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f5, %f6, %f7, %f8}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%f1, %f2, %f3, %f4};
  st.global.v2.f32 [%rd11], {%f5, %f6};
  st.global.v2.f32 [%rd11+256], {%f7, %f8};
  ret;
}
"""


def test_mma_sync_m16n8k8_tf32(sim):
    # A is 16x8 and B 8x8, both row-major f32 holding tf32 values.
    a, b = small_integers((16, 8), 4) / 4, small_integers((8, 8), 5)
    acc = small_integers((16, 8), 6)
    out = np.zeros((16, 8), np.float32)
    assert simulate(sim, SM80, MMA_TF32, "mma", 32,
                    [a.astype(np.float32), b, acc, out]) is None
    np.testing.assert_array_equal(out, a @ b + acc)


# wgmma.mma_async: the kernel copies a prepared shared-memory image (A's
# and B's tiles in the layout under test) with plain stores, fences the
# generic proxy against the async one, and runs K / 16 chained MMAs of one
# group; each thread stores its accumulator fragment (row 16 warp + groupID
# (+8), columns 8j + 2 threadID_in_group (+1)).
WGMMA = """
.visible .entry wg(.param .u64 image, .param .u64 adata, .param .u64 out)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<80>;
  .reg .{acc_type} %f<{f_count}>;
  .reg .b64 %rd<40>;
  .shared .align 1024 .b8 smem[{smem_bytes}];
  ld.param.u64 %rd1, [image];
  ld.param.u64 %rd2, [adata];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r8, smem;
  mov.u32 %r2, %r1;
$copy:
  setp.ge.u32 %p1, %r2, {chunks};
  @%p1 bra $copied;
  mul.wide.u32 %rd4, %r2, 16;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.v4.b32 {{%r3, %r4, %r5, %r6}}, [%rd5];
  shl.b32 %r7, %r2, 4;
  add.u32 %r9, %r8, %r7;
  st.shared.v4.b32 [%r9], {{%r3, %r4, %r5, %r6}};
  add.u32 %r2, %r2, 128;
  bra $copy;
$copied:
{proxy_fence}
  bar.sync 0;
  shr.u32 %r30, %r1, 5;
  and.b32 %r31, %r1, 31;
  shr.u32 %r32, %r31, 2;
  and.b32 %r33, %r31, 3;
  shl.b32 %r34, %r30, 4;
  add.u32 %r34, %r34, %r32;
  shl.b32 %r36, %r33, 1;
  mul.lo.u32 %r35, %r34, {k};
  add.u32 %r35, %r35, %r36;
  mul.wide.u32 %rd20, %r35, 2;
  add.s64 %rd21, %rd2, %rd20;
  mul.lo.u32 %r37, %r34, {n};
  add.u32 %r37, %r37, %r36;
  mul.wide.u32 %rd22, %r37, {out_bytes};
  add.s64 %rd23, %rd3, %rd22;
  cvt.u64.u32 %rd10, %r8;
  setp.ne.u32 %p2, %r1, 1024;
{body}
  wgmma.commit_group.sync.aligned;
{before_wait}
  wgmma.wait_group.sync.aligned 0;
{store}
  ret;
}}
"""


def descriptor_ptx(register, start, constant):
    """The 64-bit matrix descriptor of the operand at smem + start: the
    start address >> 4 in bits 0-13, or'ed with LBO, SBO and swizzle."""
    return "\n".join([
        f"  add.s64 {register}, %rd10, {start};",
        f"  shr.u64 {register}, {register}, 4;",
        f"  and.b64 {register}, {register}, 16383;",
        f"  or.b64 {register}, {register}, {constant:#x};"])


def descriptor_bits(lbo, sbo, swizzle):
    mode = {0: 0, 128: 1, 64: 2, 32: 3}[swizzle]
    return (lbo >> 4) << 16 | (sbo >> 4) << 32 | mode << 62


class Operand:
    """An operand tile (`rows` x `k`, K-major, or MN-major when
    `transposed`) laid out in shared memory as the PTX ISA's canonical
    layouts put it, with the descriptor that reads it."""

    def __init__(self, rows, k, swizzle, transposed=False, far_k=False):
        self.rows, self.k, self.swizzle = rows, k, swizzle
        self.transposed = transposed
        core = 128  # eight 16-byte rows
        if swizzle:
            width = swizzle
            atom = 8 * width
            if not transposed:
                assert 2 * k == width
                self.lbo, self.sbo = 16, atom
                self.step = 32  # the next 16 k along the swizzled row
            else:
                assert rows * 2 % width == 0 and k % 8 == 0
                self.sbo = atom  # the next 8 k
                self.lbo = atom * (k // 8)  # the next width / 2 columns
                self.step = 2 * atom
        elif not transposed:
            # Core matrices along K `lbo` apart, along M/N `sbo` apart.
            if far_k:
                self.lbo, self.sbo = core * (rows // 8), core
            else:
                self.lbo, self.sbo = core, core * (k // 8)
            self.step = 2 * self.lbo
        else:
            self.lbo, self.sbo = core * (rows // 8), core
            self.step = 2 * self.lbo
        self.bytes = rows * k * 2

    def offset(self, mn, k):
        """The byte offset of element (mn, k), swizzled as TMA writes."""
        if self.swizzle and not self.transposed:
            offset = ((mn % 8) * self.swizzle + mn // 8 * self.sbo + 2 * k)
        elif self.swizzle:
            per_row = self.swizzle // 2
            offset = ((k % 8) * self.swizzle + k // 8 * self.sbo +
                      (mn % per_row) * 2 + mn // per_row * self.lbo)
        elif not self.transposed:
            offset = ((mn % 8) * 16 + mn // 8 * self.sbo + (k % 8) * 2 +
                      k // 8 * self.lbo)
        else:
            offset = ((k % 8) * 16 + k // 8 * self.lbo + (mn % 8) * 2 +
                      mn // 8 * self.sbo)
        bits = {0: 0, 32: 1, 64: 2, 128: 3}[self.swizzle]
        return offset ^ (((offset >> 7) & ((1 << bits) - 1)) << 4)

    def place(self, image, base, bits):
        """Writes `bits` (rows x k, b16) into the byte image at `base`."""
        for mn in range(self.rows):
            for k in range(self.k):
                at = base + self.offset(mn, k)
                image[at:at + 2] = np.frombuffer(
                    bits[mn, k].tobytes(), np.uint8)

    def constant(self):
        return descriptor_bits(self.lbo, self.sbo, self.swizzle)


def wgmma_ptx(n, k, a_operand, b_operand, b_base, register_a=False, ab="bf16",
              dtype="f32", proxy_fence=True, wgmma_fence=True,
              init_after=False, before_wait="", divergent=False,
              trans_b=False, negate_a=False, clear_first=False):
    # f32 accumulators: N / 2 registers; f16: N / 4 of two halves each.
    regs = n // 2 if dtype == "f32" else n // 4
    # With clear_first, the accumulators start as garbage (1.0 or 1.0h
    # pairs) that the first MMA's scale-d = false ignores.
    garbage = 0x3c003c00 if dtype == "f16" else 0x3f800000
    init = "\n".join(f"  mov.b32 %f{i + 1}, {garbage if clear_first else 0};"
                     for i in range(regs))
    init += "\n  setp.eq.u32 %p3, %r1, 1024;" if clear_first else ""
    fence = "  wgmma.fence.sync.aligned;" if wgmma_fence else ""
    # A's fragments (row 16 warp + groupID (+8), columns 2 threadID_in_group
    # (+1) (+8)) load before the fence that orders them before the MMAs.
    if register_a:
        init += "".join(
            f"\n  ld.global.b32 %r{40 + 4 * step + r}, "
            f"[%rd21+{(8 * (r % 2) * k + 8 * (r // 2) + 16 * step) * 2}];"
            for step in range(k // 16) for r in range(4))
    body = [fence, init] if init_after else [init, fence]
    accumulators = ", ".join(f"%f{i + 1}" for i in range(regs))
    guard = ""
    if divergent:
        body.append("  setp.lt.u32 %p1, %r1, 64;")
        guard = "@%p1 "
    for step in range(k // 16):
        b_start = b_base + step * b_operand.step
        body.append(descriptor_ptx("%rd12", b_start, b_operand.constant()))
        if register_a:
            a = ", ".join(f"%r{40 + 4 * step + r}" for r in range(4))
            a = "{" + a + "}"
            tail = f"{-1 if negate_a else 1}, 1, {int(trans_b)}"
        else:
            body.append(descriptor_ptx("%rd11", step * a_operand.step,
                                       a_operand.constant()))
            a = "%rd11"
            tail = f"{-1 if negate_a else 1}, 1, 0, {int(trans_b)}"
        body.append(
            f"  {guard}wgmma.mma_async.sync.aligned.m64n{n}k16.{dtype}.{ab}"
            f".{ab} {{{accumulators}}}, {a}, %rd12, "
            f"{'%p3' if clear_first and step == 0 else '%p2'}, {tail};")
    # Per 8 columns: row groupID, then groupID + 8 (N rows on), two
    # elements each.
    store = []
    out_bytes = 4 if dtype == "f32" else 2
    for j in range(n // 8):
        for half in range(2):
            at = (8 * j + 8 * n * half) * out_bytes
            if dtype == "f32":
                first = 4 * j + 2 * half + 1
                store.append(f"  st.global.v2.f32 [%rd23+{at}], "
                             f"{{%f{first}, %f{first + 1}}};")
            else:
                store.append(f"  st.global.b32 [%rd23+{at}], "
                             f"%f{2 * j + half + 1};")
    smem_bytes = b_base + b_operand.bytes
    return WGMMA.format(
        acc_type="f32" if dtype == "f32" else "b32", out_bytes=out_bytes,
        f_count=regs + 1, smem_bytes=smem_bytes, chunks=smem_bytes // 16,
        k=k, n=n,
        proxy_fence="  fence.proxy.async.shared::cta;" if proxy_fence else "",
        body="\n".join(body), before_wait=before_wait,
        store="\n".join(store))


def run_wgmma(lib, n, k, a_operand, b_operand, register_a=False, ab="bf16",
              dtype="f32", **options):
    """Runs wgmma_ptx on A (64 x k) and B (k x n, stored as B's N x K
    operand) of small integers; returns the error (or None), the output
    and numpy's product."""
    a, b = small_integers((64, k), n), small_integers((k, n), k)
    encode = bf16_bits if ab == "bf16" else f16_bits
    b_base = -(-a_operand.bytes // 1024) * 1024 if a_operand else 0
    image = np.zeros(b_base + b_operand.bytes, np.uint8)
    if a_operand:
        a_operand.place(image, 0, encode(a))
    b_operand.place(image, b_base, encode(b.T))
    out = np.full((64, n), -1, np.float32 if dtype == "f32" else np.float16)
    ptx = wgmma_ptx(n, k, a_operand, b_operand, b_base,
                    register_a=register_a, trans_b=b_operand.transposed,
                    ab=ab, dtype=dtype, **options)
    error = simulate(lib, SM90A, ptx, "wg", 128, [image, encode(a), out])
    return error, out, (a @ b).astype(out.dtype)


@pytest.mark.parametrize("n", [64, 128])
@pytest.mark.parametrize("swizzle", [128, 64, 32])
def test_wgmma_swizzled_descriptors(sim, n, swizzle):
    k = swizzle // 2
    error, out, expected = run_wgmma(sim, n, k, Operand(64, k, swizzle),
                                     Operand(n, k, swizzle))
    assert error is None
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("far_k", [False, True])
def test_wgmma_without_swizzle(sim, far_k):
    error, out, expected = run_wgmma(sim, 64, 32,
                                     Operand(64, 32, 0, far_k=far_k),
                                     Operand(64, 32, 0, far_k=not far_k))
    assert error is None
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("swizzle", [0, 128])
def test_wgmma_transposed_b(sim, swizzle):
    error, out, expected = run_wgmma(sim, 128, 32, Operand(64, 32, 0),
                                     Operand(128, 32, swizzle,
                                             transposed=True))
    assert error is None
    np.testing.assert_array_equal(out, expected)


def test_wgmma_a_from_registers(sim):
    error, out, expected = run_wgmma(sim, 128, 64, None,
                                     Operand(128, 64, 128),
                                     register_a=True)
    assert error is None
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_wgmma_f16(sim, dtype):
    for register_a in (False, True):
        error, out, expected = run_wgmma(
            sim, 64, 32, None if register_a else Operand(64, 32, 64),
            Operand(64, 32, 64), register_a=register_a, ab="f16",
            dtype=dtype)
        assert error is None
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("register_a", [False, True])
def test_wgmma_scale_d_and_negated_a(sim, register_a):
    error, out, expected = run_wgmma(
        sim, 64, 64, None if register_a else Operand(64, 64, 128),
        Operand(64, 64, 128), register_a=register_a, negate_a=True,
        clear_first=True)
    assert error is None
    np.testing.assert_array_equal(out, -expected)


def test_wgmma_n256_and_n8(sim):
    for n in (8, 256):
        error, out, expected = run_wgmma(sim, n, 64, Operand(64, 64, 128),
                                         Operand(n, 64, 128))
        assert error is None
        np.testing.assert_array_equal(out, expected)


def wgmma_error(lib, **options):
    error, _, _ = run_wgmma(lib, 64, 64, Operand(64, 64, 128),
                            Operand(64, 64, 128), **options)
    return error


def test_read_of_wgmma_accumulator_before_wait(sim):
    error = wgmma_error(sim, before_wait="  mov.b32 %r60, %f3;")
    assert "thread (0,0,0): access of register %f3 of the wgmma.mma_async " \
        "at PTX line" in error
    assert "before a wgmma.wait_group completes it" in error


def test_write_of_wgmma_operand_before_wait(sim):
    error = wgmma_error(sim, before_wait="  st.shared.b32 [%r8+1040], %r1;")
    assert ("thread (0,0,0): write to smem+1040, an operand of a "
            "wgmma.mma_async that no wgmma.wait_group has completed") in error


def test_divergent_wgmma(sim):
    error = wgmma_error(sim, divergent=True)
    assert "divergent wgmma.mma_async: thread (64,0,0) of the warpgroup" \
        in error


def test_wgmma_operand_written_without_proxy_fence(sim):
    error = wgmma_error(sim, proxy_fence=False)
    assert ("wgmma.mma_async reads smem+0, which the generic proxy wrote "
            "after the last fence.proxy.async") in error


def test_wgmma_without_wgmma_fence(sim):
    error = wgmma_error(sim, wgmma_fence=False)
    assert "wgmma.mma_async without a wgmma.fence before it" in error


def test_wgmma_accumulator_written_after_fence(sim):
    # ptxas orders these writes before the MMA, and MLIR emits them.
    error, out, expected = run_wgmma(sim, 64, 64, Operand(64, 64, 128),
                                     Operand(64, 64, 128), init_after=True)
    assert error is None
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("instruction,header,needs", [
    ("wgmma.fence.sync.aligned;",
     ".version 8.0\n.target sm_90\n.address_size 64\n", "sm_90a"),
    ("wgmma.fence.sync.aligned;",
     ".version 7.8\n.target sm_90a\n.address_size 64\n", "8.0"),
    ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
     "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, "
     "{%f1, %f2, %f3, %f4};",
     ".version 7.0\n.target sm_75\n.address_size 64\n", "sm_80"),
    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];",
     ".version 6.4\n.target sm_75\n.address_size 64\n", "6.5"),
    ("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r5], {%r1, %r2, %r3, %r4};",
     ".version 7.8\n.target sm_80\n.address_size 64\n", "sm_90"),
])
def test_tensor_core_targets(sim, instruction, header, needs):
    ptx = (".visible .entry k()\n{\n  .reg .b32 %r<8>;\n  .reg .f32 %f<8>;\n"
           f"  {instruction}\n  ret;\n}}\n")
    error = launch(sim, ptx, "k", (1, 1, 1), (32, 1, 1), [], header=header)
    assert "requires" in error and needs in error, error
    assert_ptxas_refuses(header + ptx, CHIPS.get(header, header.split()[3]))


MLIR_OPT = shutil.which("mlir-opt") or "/usr/lib/llvm-22/bin/mlir-opt"


def lower_to_ptx(name, chip, ptx_version, replacements=()):
    """The PTX that MLIR 22 emits for Inputs/`name` (after the textual
    `replacements`) through mlir-opt's gpu-lower-to-nvvm-pipeline."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs",
                        name)
    with open(path) as source:
        text = source.read()
    for old, new in replacements:
        text = text.replace(old, new)
    lowered = subprocess.run(
        [MLIR_OPT, f"-gpu-lower-to-nvvm-pipeline=cubin-chip={chip} "
         f"cubin-features=+ptx{ptx_version} cubin-format=isa "
         "kernel-bare-ptr-calling-convention=1"],
        input=text, capture_output=True, text=True)
    assert lowered.returncode == 0, lowered.stderr
    return gpu_binary(lowered.stdout).decode()


def lower_warpgroup_mma(wait_group, transpose_b):
    attributes = [f"waitGroup = {wait_group}"] + (
        ["transposeB"] if transpose_b else [])
    return lower_to_ptx("warpgroup_mma.mlir", "sm_90a", 80,
                        [("WAIT_GROUP TRANSPOSE_B", ", ".join(attributes))])


def run_mlir_warpgroup_mma(lib, wait_group, transpose_b, edit=None):
    """Runs the lowered Inputs/warpgroup_mma.mlir on A and B (64x64, bf16,
    row-major, loaded by TMA with the 128-byte swizzle); returns the error
    (or None), the output, A and B."""
    ptx = lower_warpgroup_mma(wait_group, transpose_b)
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16" in ptx
    if edit:
        ptx = edit(ptx)
    a, b = small_integers((64, 64), 7), small_integers((64, 64), 8)
    a_bits, b_bits = bf16_bits(a), bf16_bits(b)
    out = np.zeros((64, 64), np.float32)
    maps = []
    for tensor in (a_bits, b_bits):
        lib.mgpuMemHostRegister(tensor.ctypes.data, tensor.nbytes)
        # CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, the 128-byte swizzle.
        maps.append(encode_tiled(lib, tensor, (64, 64), swizzle=3,
                                 data_type=9))
        assert maps[-1], take_error(lib)
    # The module has its own header.
    error = simulate(lib, "", ptx, "gemm", 128,
                     [ctypes.c_uint64(maps[0]), ctypes.c_uint64(maps[1]),
                      out])
    for tensor in (a_bits, b_bits):
        lib.mgpuMemHostUnregister(tensor.ctypes.data)
    return error, out, a, b


needs_mlir_opt = pytest.mark.skipif(not os.path.exists(MLIR_OPT),
                                    reason="no mlir-opt")


@needs_mlir_opt
def test_mlir_ldmatrix_and_mma_sync(sim):
    ptx = lower_to_ptx("mma_sync.mlir", "sm_80", 70)
    assert "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16" in ptx
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
    a, b = small_integers((16, 16), 9), small_integers((16, 8), 10)
    out = np.zeros((16, 8), np.float32)
    assert simulate(sim, "", ptx, "mma", 32,
                    [f16_bits(a), f16_bits(b), out], chip="sm_80") is None
    np.testing.assert_array_equal(out, a @ b)


@needs_mlir_opt
def test_mlir_warpgroup_mma(sim):
    # B is K x N in shared memory, read MN-major (imm-trans-b 1).
    error, out, a, b = run_mlir_warpgroup_mma(sim, 0, True)
    assert error is None
    np.testing.assert_array_equal(out, a @ b)


@needs_mlir_opt
def test_mlir_warpgroup_mma_default_wait_group(sim):
    # waitGroup defaults to 1: the store reads the accumulators of the
    # only group while it may be in flight (ptxas inserts a wait and warns
    # of serialized wgmma, C7514).
    error, _, _, _ = run_mlir_warpgroup_mma(sim, 1, True)
    assert "access of register %r7 of the wgmma.mma_async at PTX line" \
        in error
    assert "st.global.b32 \t[%rd27], %r7;" in error


@needs_mlir_opt
def test_mlir_warpgroup_mma_without_transpose_b(sim):
    # MLIR 22 steps B's descriptor as for a K x N tile (2048 bytes per k16)
    # also when B is K-major, where the next k16 is 32 bytes on: the third
    # step reads past the tile.
    error, _, _, _ = run_mlir_warpgroup_mma(sim, 0, False)
    assert "wgmma operand chunk at shared offset 17408 is out of bounds" \
        in error


@needs_mlir_opt
def test_tma_into_wgmma_operand_in_flight(sim):
    # Thread 0 reloads A's tile while the MMAs that read it are in flight.
    def reload_a(ptx):
        copy = re.search(r"cp\.async\.bulk\.tensor[^\n]*\[%rd2,[^\n]*", ptx)
        return ptx.replace("wgmma.commit_group.sync.aligned;",
                           "wgmma.commit_group.sync.aligned;\n"
                           f"@!%p1 {copy.group(0)}")
    error, _, _, _ = run_mlir_warpgroup_mma(sim, 0, True, reload_a)
    assert ("thread (0,0,0): write to tileA+0, an operand of a "
            "wgmma.mma_async that no wgmma.wait_group has completed") in error

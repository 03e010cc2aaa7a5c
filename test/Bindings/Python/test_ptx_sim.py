# The PTX simulator (libvx_ptx_sim) through its C ABI, with ctypes:
# hand-written PTX it must run to numpy's numbers, PTX it must reject with
# the right message, and every PTX file Vx emits for the examples, the
# benchmark kernels and the integration tests must parse.

import ctypes
import glob
import os
import re
import shutil
import struct
import subprocess

import numpy as np
import pytest

import vx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
PACKAGE = os.path.dirname(os.path.abspath(vx.__file__))
LIBRARY = next((path for path in (
    os.path.join(PACKAGE, "libvx_ptx_sim.so"),
    os.path.join(PACKAGE, "..", "..", "lib", "libvx_ptx_sim.so"))
    if os.path.exists(path)), None)

pytestmark = pytest.mark.skipif(LIBRARY is None,
                                reason="libvx_ptx_sim.so is not built")

c_void_p, c_size_t = ctypes.c_void_p, ctypes.c_size_t


@pytest.fixture(scope="module")
def sim():
    lib = ctypes.CDLL(LIBRARY)
    lib.vxCudaReportErrors()
    lib.vxCudaTakeError.restype = ctypes.c_char_p
    lib.mgpuModuleLoadJIT.restype = c_void_p
    lib.mgpuModuleLoadJIT.argtypes = [ctypes.c_char_p, ctypes.c_int, c_size_t]
    lib.mgpuModuleLoad.restype = c_void_p
    lib.mgpuModuleLoad.argtypes = [ctypes.c_char_p, c_size_t]
    lib.mgpuModuleUnload.argtypes = [c_void_p]
    lib.mgpuModuleGetFunction.restype = c_void_p
    lib.mgpuModuleGetFunction.argtypes = [c_void_p, ctypes.c_char_p]
    lib.mgpuLaunchKernel.argtypes = (
        [c_void_p] + [ctypes.c_ssize_t] * 6 +
        [ctypes.c_int32, c_void_p, ctypes.POINTER(c_void_p), c_void_p,
         c_size_t])
    lib.mgpuMemHostRegister.argtypes = [c_void_p, ctypes.c_uint64]
    lib.mgpuMemHostUnregister.argtypes = [c_void_p]
    lib.mgpuTensorMapEncodeTiledMemref.restype = c_void_p
    lib.mgpuTensorMapEncodeTiledMemref.argtypes = (
        [ctypes.c_int64, c_void_p] + [ctypes.c_int64] * 5 + [c_void_p])
    lib.vxSimSetOrder.argtypes = [ctypes.c_char_p]
    yield lib
    lib.vxSimSetOrder(b"forward")


def take_error(lib):
    error = lib.vxCudaTakeError()
    return error.decode() if error else None


# PTX 8.3: fence.proxy.tensormap (the TMA tests' descriptor fence).
HEADER = ".version 8.3\n.target sm_90a\n.address_size 64\n"


def launch(lib, ptx, kernel, grid, block, args, smem=0, order=None,
           header=HEADER):
    """Loads `header` + `ptx`, registers the numpy arrays among `args` as
    global memory and launches `kernel`, its blocks and warps in `order`
    (vxSimSetOrder) if given, then back in forward order; returns the error
    message or None."""
    module = lib.mgpuModuleLoadJIT((header + ptx).encode(), 0, 0)
    if not module:
        return take_error(lib)
    function = lib.mgpuModuleGetFunction(module, kernel.encode())
    assert function, take_error(lib)
    values = []
    for arg in args:
        if isinstance(arg, np.ndarray):
            lib.mgpuMemHostRegister(arg.ctypes.data, arg.nbytes)
            values.append(ctypes.c_uint64(arg.ctypes.data))
        else:
            values.append(arg)
    params = (c_void_p * len(values))(
        *[ctypes.addressof(value) for value in values])
    if order is not None:
        lib.vxSimSetOrder(order.encode())
    try:
        lib.mgpuLaunchKernel(function, *grid, *block, smem, None, params,
                             None, len(values))
    finally:
        if order is not None:
            lib.vxSimSetOrder(b"forward")
    for arg in args:
        if isinstance(arg, np.ndarray):
            lib.mgpuMemHostUnregister(arg.ctypes.data)
    lib.mgpuModuleUnload(module)
    return take_error(lib)


AXPY = """
.visible .entry axpy(.param .u64 x, .param .u64 y, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<9>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra $L__done;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.nc.f32 %r6, [%rd6];
  ld.global.f32 %r7, [%rd7];
  fma.rn.f32 %r8, %r6, 0f40000000, %r7;
  st.global.f32 [%rd7], %r8;
$L__done:
  ret;
}
"""


def test_elementwise_with_bounds_guard(sim):
    x = np.arange(1000, dtype=np.float32) / 7
    y = np.ones(1000, dtype=np.float32)
    expected = 2 * x + y
    assert launch(sim, AXPY, "axpy", (8, 1, 1), (128, 1, 1),
                  [x, y, ctypes.c_uint32(1000)]) is None
    np.testing.assert_array_equal(y, expected)


REDUCE = """
.visible .entry reduce(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 partial[8];
  .shared .align 4 .f32 staging[64];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  shl.b32 %r3, %r2, 6;
  add.s32 %r4, %r3, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %r5, [%rd4];
  mov.u32 %r6, staging;
  shl.b32 %r7, %r1, 2;
  add.s32 %r7, %r6, %r7;
  st.shared.f32 [%r7], %r5;
  bar.sync 0;
  sub.s32 %r8, 63, %r1;
  shl.b32 %r8, %r8, 2;
  add.s32 %r8, %r6, %r8;
  ld.shared.f32 %r10, [%r8];
  shfl.sync.bfly.b32 %r11, %r10, 16, 31, -1;
  add.f32 %r10, %r10, %r11;
  shfl.sync.bfly.b32 %r11, %r10, 8, 31, -1;
  add.f32 %r10, %r10, %r11;
  shfl.sync.bfly.b32 %r11, %r10, 4, 31, -1;
  add.f32 %r10, %r10, %r11;
  shfl.sync.bfly.b32 %r11, %r10, 2, 31, -1;
  add.f32 %r10, %r10, %r11;
  shfl.sync.bfly.b32 %r11, %r10, 1, 31, -1;
  add.f32 %r10, %r10, %r11;
  and.b32 %r12, %r1, 31;
  setp.eq.u32 %p1, %r12, 0;
  shr.u32 %r13, %r1, 5;
  shl.b32 %r13, %r13, 2;
  mov.u32 %r14, partial;
  add.s32 %r13, %r14, %r13;
  @%p1 st.shared.f32 [%r13], %r10;
  bar.sync 0;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra $L__done;
  ld.shared.f32 %r15, [partial];
  ld.shared.f32 %r16, [partial+4];
  add.f32 %r17, %r15, %r16;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.f32 [%rd6], %r17;
$L__done:
  ret;
}
"""


@pytest.mark.parametrize("order", ["forward", "reverse", "shuffle:7"])
def test_shared_reduction_with_barriers_and_shuffles(sim, order):
    data = np.arange(256, dtype=np.float32) % 13
    out = np.zeros(4, dtype=np.float32)
    assert launch(sim, REDUCE, "reduce", (4, 1, 1), (64, 1, 1), [data, out],
                  order=order) is None
    np.testing.assert_array_equal(out, data.reshape(4, 64).sum(axis=1))


def test_unknown_order_is_an_error(sim):
    sim.vxSimSetOrder(b"sideways")
    assert "unknown order 'sideways'" in take_error(sim)


CP_ASYNC = """
.visible .entry rotate(.param .u64 in, .param .u64 out, .param .u32 size)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .shared .align 16 .b8 tile[512];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r9, [size];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  mov.u64 %rd5, tile;
  add.s64 %rd6, %rd5, %rd3;
  cp.async.cg.shared.global.L2::128B [%rd6], [%rd4], 16, %r9;
  cp.async.commit_group;
  WAIT
  bar.sync 0;
  add.u32 %r2, %r1, 1;
  and.b32 %r2, %r2, 31;
  mul.wide.u32 %rd7, %r2, 16;
  add.s64 %rd8, %rd5, %rd7;
  ld.shared.v4.b32 {%r3, %r4, %r5, %r6}, [%rd8];
  add.s64 %rd9, %rd2, %rd3;
  st.global.v4.b32 [%rd9], {%r3, %r4, %r5, %r6};
  ret;
}
"""


@pytest.mark.parametrize("size", [16, 8])
def test_cp_async_lands_at_wait_group(sim, size):
    data = np.arange(128, dtype=np.float32).reshape(32, 4)
    out = np.zeros_like(data)
    ptx = CP_ASYNC.replace("WAIT", "cp.async.wait_group 0;")
    assert launch(sim, ptx, "rotate", (1, 1, 1), (32, 1, 1),
                  [data, out, ctypes.c_uint32(size)]) is None
    expected = np.roll(data, -1, axis=0)
    expected[:, size // 4:] = 0  # zero-filled past the source size
    np.testing.assert_array_equal(out, expected)


def test_read_of_cp_async_destination_before_wait(sim):
    data = np.zeros((32, 4), dtype=np.float32)
    ptx = CP_ASYNC.replace("WAIT", "")
    error = launch(sim, ptx, "rotate", (1, 1, 1), (32, 1, 1),
                   [data, np.zeros_like(data), ctypes.c_uint32(16)])
    assert ("kernel rotate, block (0,0,0), thread (0,0,0): read of a cp.async "
            "destination before its wait_group (tile+16, copied by thread "
            "(1,0,0)) at PTX line 26: ld.shared.v4.b32") in error


TMA = """
.visible .entry tile_copy(.param .u64 map, .param .u64 out, .param .u32 x,
                          .param .u32 y)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  TILE
  .shared .align 8 .b64 mbar;
  ld.param.u64 %rd1, [map];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [x];
  ld.param.u32 %r2, [y];
  mov.u32 %r3, %tid.x;
  setp.eq.u32 %p1, %r3, 0;
  mov.u32 %r4, mbar;
  @%p1 mbarrier.init.shared.b64 [%r4], 1;
  INIT_FENCE
  bar.sync 0;
  MAP_FENCE
  mov.u32 %r5, tile;
  BEFORE
  @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r4], BYTES;
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], [%rd1, {%r1, %r2}], [%r4];
  EARLY
$L__wait:
  mbarrier.try_wait.parity.shared.b64 %p2, [%r4], 0;
  @!%p2 bra $L__wait;
  mov.u32 %r6, %r3;
$L__loop:
  setp.ge.u32 %p1, %r6, WORDS;
  @%p1 bra $L__done;
  shl.b32 %r7, %r6, 2;
  add.s32 %r8, %r5, %r7;
  ld.shared.b32 %r9, [%r8];
  mul.wide.u32 %rd4, %r6, 4;
  add.s64 %rd5, %rd2, %rd4;
  st.global.b32 [%rd5], %r9;
  add.u32 %r6, %r6, 32;
  bra $L__loop;
$L__done:
  ret;
}
"""

# Box columns (f32) per swizzle mode: the inner box may not exceed the span.
SWIZZLE_COLUMNS = {0: 32, 1: 8, 2: 16, 3: 32}
ROWS = 8


def tma_ptx(columns, tile=None, init_fence=True, map_fence=True, early="",
            before=""):
    bytes_ = columns * ROWS * 4
    tile = tile or f".shared .align 1024 .b8 tile[{bytes_}];"
    return (TMA.replace("TILE", tile)
            .replace("INIT_FENCE", "@%p1 fence.mbarrier_init.release.cluster;"
                     if init_fence else "")
            .replace("MAP_FENCE",
                     "@%p1 fence.proxy.tensormap::generic.acquire.gpu "
                     "[%rd1], 128;" if map_fence else "")
            .replace("EARLY", early)
            .replace("BEFORE", before)
            .replace("BYTES", str(bytes_))
            .replace("WORDS", str(columns * ROWS)))


def encode_tiled(lib, view, box, swizzle=0, data_type=7):
    """mgpuTensorMapEncodeTiledMemref for a numpy view (any rank and
    strides, outermost first like a memref) of CUtensorMapDataType
    `data_type` (7: FLOAT32, 9: BFLOAT16), as the host code of
    nvgpu.tma.create.descriptor calls it."""
    strides = [stride // view.itemsize for stride in view.strides]
    descriptor = (ctypes.c_int64 * (3 + 2 * view.ndim))(
        view.ctypes.data, view.ctypes.data, 0, *view.shape, *strides)
    box = (ctypes.c_int64 * view.ndim)(*box)
    return lib.mgpuTensorMapEncodeTiledMemref(
        view.ndim, ctypes.addressof(descriptor), data_type, 0, swizzle, 0, 0,
        ctypes.addressof(box))


def encode_map(lib, tensor, columns, swizzle):
    """The tensor map of a registered 2-D tensor, ROWS x `columns` boxes."""
    lib.mgpuMemHostRegister(tensor.ctypes.data, tensor.nbytes)
    return encode_tiled(lib, tensor, (ROWS, columns), swizzle)


def run_tma(lib, ptx, swizzle, x, y, smem=0):
    columns = SWIZZLE_COLUMNS[swizzle]
    tensor = np.arange(20 * 40, dtype=np.float32).reshape(20, 40)
    out = np.full(columns * ROWS, -1, dtype=np.float32)
    tensor_map = encode_map(lib, tensor, columns, swizzle)
    assert tensor_map, take_error(lib)
    error = launch(lib, ptx, "tile_copy", (1, 1, 1), (32, 1, 1),
                   [ctypes.c_uint64(tensor_map), out, ctypes.c_int32(x),
                    ctypes.c_int32(y)], smem)
    lib.mgpuMemHostUnregister(tensor.ctypes.data)
    return error, tensor, out


@pytest.mark.parametrize("swizzle", [0, 1, 2, 3])
def test_tma_tile_copy_lands_swizzled(sim, swizzle):
    columns = SWIZZLE_COLUMNS[swizzle]
    # The box hangs over the tensor's bottom and right edges: zeros there.
    x, y = 40 - columns // 2, 16
    error, tensor, out = run_tma(sim, tma_ptx(columns), swizzle, x, y)
    assert error is None
    box = np.zeros((ROWS, columns), dtype=np.float32)
    inside = tensor[y:y + ROWS, x:x + columns]
    box[:inside.shape[0], :inside.shape[1]] = inside
    # The 16-byte chunk index (address bits 4..6) is XORed with bits 7..9.
    expected = np.empty_like(out)
    for word, value in enumerate(box.reshape(-1)):
        offset = word * 4
        offset ^= ((offset >> 7) & ((1 << swizzle) - 1)) << 4
        expected[offset // 4] = value
    np.testing.assert_array_equal(out, expected)


def test_read_of_tma_destination_before_its_phase(sim):
    early = "ld.shared.b32 %r10, [%r5+4];"
    error, _, _ = run_tma(sim, tma_ptx(32, early=early), 0, 0, 0)
    assert ("thread (0,0,0): read of a TMA destination before its mbarrier "
            "phase completed (tile+4, copied by the TMA) at PTX line 28: "
            "ld.shared.b32 %r10, [%r5+4];") in error


def test_tma_into_a_slot_that_holds_its_mbarrier(sim):
    # The layout of issue 26: a one-byte static "dynamic base" with the
    # mbarrier 8 bytes after it, the tile written from that base.
    ptx = tma_ptx(32, tile=".shared .align 128 .b8 tile;")
    error, _, _ = run_tma(sim, ptx, 0, 0, 0, smem=32 * ROWS * 4)
    assert ("TMA destination overlaps mbarrier at mbar+0 (destination "
            "tile+0, 1024 bytes) at PTX line 27") in error


def test_mbarrier_without_init_fence(sim):
    error, _, _ = run_tma(sim, tma_ptx(32, init_fence=False), 0, 0, 0)
    assert ("the mbarrier at mbar+0 (initialized at PTX line 20) is used by "
            "the async proxy without a fence.mbarrier_init.release.cluster or "
            "fence.proxy.async after its initialization") in error


def test_tensor_map_without_descriptor_fence(sim):
    error, _, _ = run_tma(sim, tma_ptx(32, map_fence=False), 0, 0, 0)
    assert re.search(r"tensor map at 0x[0-9a-f]+ used without a prior "
                     r"fence\.proxy\.tensormap::generic\.acquire", error)


def test_tensor_map_encoding_checks(sim):
    tensor = np.zeros((20, 40), dtype=np.float32)
    assert not encode_map(sim, tensor, 300, 0)
    assert "box size 300 is not 1 to 256" in take_error(sim)
    assert not encode_map(sim, tensor, 64, 3)
    assert ("the inner box dimension (256 bytes) exceeds the swizzle span of "
            "128 bytes") in take_error(sim)


CONVERT = """
.visible .entry convert(.param .u64 in, .param .u64 half, .param .u64 back,
                        .param .u64 bhalf, .param .u64 trunc)
{
  .reg .b16 %rs<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [half];
  ld.param.u64 %rd3, [back];
  ld.param.u64 %rd4, [bhalf];
  ld.param.u64 %rd5, [trunc];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd6, %r1, 4;
  mul.wide.u32 %rd7, %r1, 2;
  add.s64 %rd8, %rd1, %rd6;
  ld.global.f32 %r2, [%rd8];
  cvt.rn.f16.f32 %rs1, %r2;
  add.s64 %rd9, %rd2, %rd7;
  st.global.b16 [%rd9], %rs1;
  cvt.f32.f16 %r3, %rs1;
  add.s64 %rd10, %rd3, %rd6;
  st.global.f32 [%rd10], %r3;
  cvt.rn.bf16.f32 %rs2, %r2;
  add.s64 %rd11, %rd4, %rd7;
  st.global.b16 [%rd11], %rs2;
  cvt.rzi.s32.f32 %r4, %r2;
  add.s64 %rd12, %rd5, %rd6;
  st.global.b32 [%rd12], %r4;
  ret;
}
"""


def test_half_and_bfloat16_conversions(sim):
    rng = np.random.default_rng(3)
    values = np.concatenate([
        rng.normal(0, 1000, 60).astype(np.float32),
        np.array([65520.0, 1e-8, -2.5, 3.5], dtype=np.float32)])
    half = np.zeros(64, dtype=np.uint16)
    back = np.zeros(64, dtype=np.float32)
    bhalf = np.zeros(64, dtype=np.uint16)
    trunc = np.zeros(64, dtype=np.int32)
    assert launch(sim, CONVERT, "convert", (1, 1, 1), (64, 1, 1),
                  [values, half, back, bhalf, trunc]) is None
    with np.errstate(over="ignore"):  # 65520 rounds to infinity
        as_half = values.astype(np.float16)
    np.testing.assert_array_equal(half, as_half.view(np.uint16))
    np.testing.assert_array_equal(back, as_half.astype(np.float32))
    # bf16: the top 16 bits of the f32, rounded to nearest even.
    bits = values.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7fff + ((bits >> 16) & 1)) >> 16
    np.testing.assert_array_equal(bhalf, rounded.astype(np.uint16))
    np.testing.assert_array_equal(trunc, np.trunc(values).astype(np.int32))



HEX_AND_HALF_NAN = """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.b32 %r1, 0xFFFFFFFE;
  st.global.b32 [%rd1], %r1;
  mov.b16 %rs1, 0x7e00;
  mov.b16 %rs2, 0x3C00;
  min.f16 %rs3, %rs1, %rs2;
  cvt.u32.u16 %r2, %rs3;
  st.global.b32 [%rd1+4], %r2;
  mov.b32 %r3, 0x7E007E00;
  mov.b32 %r4, 0x40003C00;
  max.f16x2 %r5, %r3, %r4;
  st.global.b32 [%rd1+8], %r5;
  mov.b32 %r3, 0x7E003C00;
  mov.b32 %r4, 0;
  setp.nan.f16x2 %p1|%p2, %r3, %r4;
  selp.b32 %r6, 1, 0, %p1;
  selp.b32 %r7, 2, 0, %p2;
  or.b32 %r6, %r6, %r7;
  st.global.b32 [%rd1+12], %r6;
  ret;
}
"""


def test_hex_immediates_with_e_digits_and_half_nan_operands(sim):
    # 0x...E... is an integer (a float's exponent only in decimal forms);
    # half min/max of NaN and x is x, setp.nan.f16x2 tests each half (PTX
    # ISA 9.7.4).
    out = np.zeros(4, dtype=np.uint32)
    assert launch(sim, HEX_AND_HALF_NAN, "k", (1, 1, 1), (1, 1, 1),
                  [out]) is None
    assert [hex(v) for v in out] == ["0xfffffffe", "0x3c00", "0x40003c00",
                                     "0x2"]


RACY = """
.visible .entry racy(.param .u64 out)
{
  .reg .b32 %r<8>;
  .shared .align 4 .b8 s[128];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  st.shared.b32 [%r4], %r1;
  BARRIER
  add.u32 %r5, %r2, 4;
  and.b32 %r5, %r5, 127;
  add.s32 %r5, %r3, %r5;
  ld.shared.b32 %r6, [%r5];
  ret;
}
"""


def test_missing_barrier_is_a_race(sim):
    error = launch(sim, RACY.replace("BARRIER", ""), "racy", (1, 1, 1),
                   (32, 1, 1), [np.zeros(1)])
    assert ("kernel racy, block (0,0,0), thread (1,0,0): race on shared memory "
            "s+4: write conflicts with a read by thread (0,0,0) at PTX line "
            "18: ld.shared.b32 %r6, [%r5];, with no barrier between them at "
            "PTX line 13: st.shared.b32 [%r4], %r1;") in error
    assert launch(sim, RACY.replace("BARRIER", "bar.sync 0;"), "racy",
                  (1, 1, 1), (32, 1, 1), [np.zeros(1)]) is None


READERS_THEN_WRITER = """
.visible .entry readers(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .shared .align 4 .b32 word;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shr.u32 %r3, %r1, 5;
  mov.u32 %r4, word;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.b32 [%r4], 7;
  bar.sync 0;
  setp.eq.u32 %p2, %r2, 0;
  @%p2 ld.shared.b32 %r5, [%r4];
  setp.eq.u32 %p3, %r3, 1;
  @%p3 bra $L__done;
  BARRIER
  setp.eq.u32 %p1, %r1, 64;
  @%p1 st.shared.b32 [%r4], 8;
$L__done:
  ret;
}
"""


@pytest.mark.parametrize("order", ["forward", "reverse", "shuffle:3"])
def test_write_after_three_unordered_reads(sim, order):
    # Threads 0, 32 and 64 read the word; warps 0 and 2 then meet at
    # barrier 1 and thread 64 writes it: ordered after the reads of threads
    # 0 and 64, not after thread 32's. Two read slots per byte lost one of
    # the three reads, in forward order thread 32's.
    error = launch(sim, READERS_THEN_WRITER.replace("BARRIER",
                                                    "bar.sync 1, 64;"),
                   "readers", (1, 1, 1), (96, 1, 1), [np.zeros(1)],
                   order=order)
    assert ("kernel readers, block (0,0,0), thread (64,0,0): race on shared "
            "memory word+0: write conflicts with a read by thread (32,0,0) at "
            "PTX line 18: @%p2 ld.shared.b32 %r5, [%r4];, with no barrier "
            "between them at PTX line 23: @%p1 st.shared.b32 [%r4], 8;"
            ) in error
    # With every warp at the barrier, no race.
    ordered = (READERS_THEN_WRITER.replace("BARRIER", "bar.sync 1, 96;")
               .replace("@%p3 bra $L__done;", ""))
    assert launch(sim, ordered, "readers", (1, 1, 1), (96, 1, 1),
                  [np.zeros(1)]) is None


DIVERGENT = """
.visible .entry divergent()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra $L__done;
  SYNC
$L__done:
  ret;
}
"""


def test_divergent_barrier_is_a_deadlock(sim):
    error = launch(sim, DIVERGENT.replace("SYNC", "bar.sync 0;"), "divergent",
                   (1, 1, 1), (32, 1, 1), [])
    assert ("thread (0,0,0): deadlock: barrier 0 can never complete, 16 "
            "thread(s) never arrive; thread (16,0,0) has exited (at PTX line "
            "14)") in error


def test_divergent_full_mask_shuffle(sim):
    sync = "shfl.sync.idx.b32 %r2, %r1, 0, 31, 0xffffffff;"
    error = launch(sim, DIVERGENT.replace("SYNC", sync), "divergent",
                   (1, 1, 1), (32, 1, 1), [])
    assert ("divergent warp collective: member lane 16 (thread (16,0,0)) has "
            "exited (at PTX line 14) at PTX line 12: shfl.sync.idx.b32") in error


def test_out_of_bounds_shared_memory(sim):
    ptx = """
.visible .entry oob()
{
  .reg .b32 %r<2>;
  .shared .align 4 .b8 s[64];
  ld.shared.b32 %r1, [s+64];
  ret;
}
"""
    error = launch(sim, ptx, "oob", (1, 1, 1), (1, 1, 1), [])
    assert ("out-of-bounds shared memory access of 4 bytes at offset 64 (the "
            "block has 64 bytes: 64 static, 0 dynamic) at PTX line 9") in error


def test_unsupported_instruction_is_named(sim):
    # The m8n8k4 shape of mma (sm_70) is not implemented.
    opcode = "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32"
    ptx = f".visible .entry tensor_core()\n{{\n  {opcode} {{%f1}};\n}}\n"
    error = launch(sim, ptx, "tensor_core", (1, 1, 1), (1, 1, 1), [])
    assert error == ("vx_ptx_sim: error: PTX line 6: unsupported PTX "
                     f"instruction '{opcode}'")


@pytest.mark.parametrize("instruction", [
    "mul.lo.s16x2 %r1, %r1, %r1",  # packed integers: add, sub, min, max
    "bar.arrive 0, 32",
    "barrier.cta.sync.aligned.all 0",
    "shfl.up.b32 %r1, %r1, 1, 0",  # without .sync and a member mask
    "vote.sync.uni.pred %p1, %p1, -1",
    "atom.global.exch.f16x2 %r1, [%rd1], %r1",
    "mbarrier.arrive.shared::cluster.global.b64 %rd1, [%rd1]",
    "cp.async.bulk.tensor.6d.shared::cluster.global.mbarrier::complete_tx"
    "::bytes [%rd1], [%rd1, {%r1}], [%rd1]",
    "cvta.to.shared %rd1, %rd1",
    "fence.proxy.alias",
])
def test_unimplemented_forms_are_named(sim, instruction):
    # Each family's decoder refuses the forms it does not implement.
    ptx = (".visible .entry k()\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;"
           "\n  .reg .pred %p<2>;\n  " + instruction + ";\n  ret;\n}\n")
    error = launch(sim, ptx, "k", (1, 1, 1), (1, 1, 1), [])
    assert error == ("vx_ptx_sim: error: PTX line 9: unsupported PTX "
                     "instruction '" + instruction.split()[0] + "'")


def test_a_cubin_is_rejected(sim):
    assert not sim.mgpuModuleLoad(b"\x7fELF" + b"\0" * 60, 64)
    assert "got a cubin; the simulator runs PTX" in take_error(sim)


def fatbin(*entries):
    """A fatbin of (kind, payload) entries: 1 PTX, 2 ELF."""
    body = b"".join(struct.pack("<HHIQ", kind, 0x101, 64, len(payload)) +
                    b"\0" * 48 + payload for kind, payload in entries)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


def test_the_ptx_of_a_fatbin_runs(sim):
    image = fatbin((2, b"\x7fELF" + b"\0" * 60),
                   (1, (HEADER + AXPY).encode() + b"\0" * 3))
    module = sim.mgpuModuleLoad(image, len(image))
    assert module and sim.mgpuModuleGetFunction(module, b"axpy")
    sim.mgpuModuleUnload(module)
    image = fatbin((2, b"\x7fELF" + b"\0" * 60))
    assert not sim.mgpuModuleLoad(image, len(image))
    assert "got a fatbin without PTX" in take_error(sim)


def gpu_binary(text):
    """The bytes of the first gpu.binary object in printed MLIR."""
    literal = re.search(r'#gpu\.object<#nvvm\.target<[^>]*>, '
                        r'(?:properties = \{[^}]*\}, )?(?:assembly = )?'
                        r'"((?:[^"\\]|\\.)*)"',
                        text).group(1)
    return re.sub(rb"\\([0-9A-Fa-f]{2}|\\|\")",
                  lambda m: (bytes.fromhex(m.group(1).decode())
                             if len(m.group(1)) == 2 else m.group(1)),
                  literal.encode("latin-1"))


def test_a_vx_fatbin_with_compressed_ptx_runs(sim):
    # fatbinary compresses the PTX with zstd: libzstd.so.1 reads it.
    with open(os.path.join(ROOT, "examples", "softmax.mlir")) as f:
        module = vx.parse(f.read())
    try:
        lowered = module.lower("ptx", chip="sm_80", format="fatbin")
    except vx.VxError:
        pytest.skip("no CUDA toolkit (fatbinary)")
    image = gpu_binary(str(lowered))
    handle = sim.mgpuModuleLoad(image, len(image))
    assert handle, take_error(sim)
    assert sim.mgpuModuleGetFunction(handle, b"softmax_kernel")
    sim.mgpuModuleUnload(handle)


def corpus_inputs():
    """Each example, benchmark kernel and integration test, as its first RUN
    line concatenates it (`cat A %s B | vx-opt`)."""
    files = (glob.glob(os.path.join(ROOT, "examples", "*.mlir")) +
             glob.glob(os.path.join(ROOT, "bench", "kernels", "*.mlir")))
    inputs = [(os.path.relpath(f, ROOT), [f]) for f in files]
    for test in sorted(glob.glob(os.path.join(ROOT, "test", "Integration",
                                              "*.mlir")) +
                       glob.glob(os.path.join(ROOT, "test", "Integration",
                                              "GPU", "*.mlir"))):
        with open(test) as f:
            run = re.search(r"RUN: cat (.*?) \|", f.read())
        directory = os.path.dirname(test)
        parts = (run.group(1).split() if run else ["%s"])
        inputs.append((os.path.relpath(test, ROOT),
                       [p.replace("%s", test).replace("%S", directory)
                        for p in parts]))
    return inputs


@pytest.mark.parametrize("name,paths", corpus_inputs(),
                         ids=[name for name, _ in corpus_inputs()])
def test_every_emitted_ptx_parses(sim, name, paths):
    text = "".join(open(path).read() for path in paths)
    try:
        module = vx.parse(text, name)
    except vx.VxError:
        pytest.skip("not a standalone vx input")  # expected-error tests
    for chip in ("sm_80", "sm_90a"):
        for stages in (1, 3):
            try:
                ptx = module.ptx(chip=chip, stages=stages)
            except vx.VxError:
                continue  # rejected for this chip (e.g. a launch limit)
            for kernel, text in ptx.items():
                handle = sim.mgpuModuleLoadJIT(text.encode(), 0, 0)
                if not handle:
                    error = take_error(sim)
                    # Hand-written tests may use instructions newer than
                    # the chip (mbarrier.try_wait at sm_80): ptxas must
                    # refuse them too.
                    assert "requires .target" in error, \
                        f"{kernel} ({chip}, stages={stages}): {error}"
                    assert_ptxas_refuses(text, chip)
                    continue
                sim.mgpuModuleUnload(handle)


def assert_ptxas_refuses(text, chip):
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.path.exists(ptxas):
        return
    result = subprocess.run([ptxas, f"-arch={chip}", "-o", os.devnull, "-"],
                            input=text.encode(), capture_output=True)
    assert result.returncode != 0
    assert re.search(rb"requires (\.target|PTX ISA \.version)|"
                     rb"not supported on \.target", result.stderr)


CALLS = """
.func (.param .b32 result) scale(.param .b32 value, .param .b32 factor)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [value];
  ld.param.b32 %r2, [factor];
  mul.rn.f32 %r3, %r1, %r2;
  st.param.b32 [result], %r3;
  ret;
}

.func (.param .b32 result) twice_plus_one(.param .b32 value)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [value];
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 param1;
  st.param.b32 [param1], 0f40000000;
  .param .b32 retval0;
  call.uni (retval0), scale, (param0, param1);
  ld.param.b32 %r2, [retval0];
  }
  add.rn.f32 %r3, %r2, 0f3F800000;
  st.param.b32 [result], %r3;
  ret;
}

.visible .entry apply(.param .u64 data)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [data];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.b32 %r2, [%rd3];
  {
  .param .b32 param0;
  st.param.b32 [param0], %r2;
  .param .b32 retval0;
  call.uni (retval0), twice_plus_one, (param0);
  ld.param.b32 %r3, [retval0];
  }
  st.global.b32 [%rd3], %r3;
  ret;
}
"""


def test_calls_pass_parameters_and_results(sim):
    data = np.arange(32, dtype=np.float32) / 3
    expected = data * 2 + 1
    assert launch(sim, CALLS, "apply", (1, 1, 1), (32, 1, 1), [data]) is None
    np.testing.assert_array_equal(data, expected)


def test_call_of_an_undefined_function(sim):
    ptx = CALLS.replace("call.uni (retval0), scale,",
                        "call.uni (retval0), vprintf,")
    error = launch(sim, ptx, "apply", (1, 1, 1), (1, 1, 1), [np.zeros(1)])
    assert error == ("vx_ptx_sim: error: PTX line 25: call of 'vprintf', "
                     "which is not a .func defined in the module")


WARP = """
.visible .entry warp(.param .u64 out, .param .u32 c)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r10, [c];
  mov.u32 %r1, %laneid;
  mul.lo.s32 %r2, %r1, 10;
  shfl.sync.up.b32 %r3|%p1, %r2, 3, 0, 0xffffffff;
  shfl.sync.down.b32 %r4|%p2, %r2, 5, %r10, 0xffffffff;
  shfl.sync.idx.b32 %r5, %r2, 7, %r10, 0xffffffff;
  setp.gt.u32 %p3, %r1, 20;
  vote.sync.ballot.b32 %r6, %p3, 0xffffffff;
  selp.u32 %r7, 1, 0, %p1;
  selp.u32 %r8, 1, 0, %p2;
  mul.wide.u32 %rd2, %r1, 24;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.b32 [%rd3], {%r3, %r4};
  st.global.v2.b32 [%rd3+8], {%r5, %r6};
  st.global.v2.b32 [%rd3+16], {%r7, %r8};
  ret;
}
"""


@pytest.mark.parametrize("c", [0x1f, 0x0c07])
def test_shuffle_modes_and_ballot(sim, c):
    out = np.zeros((32, 6), dtype=np.uint32)
    assert launch(sim, WARP, "warp", (1, 1, 1), (32, 1, 1),
                  [out, ctypes.c_uint32(c)]) is None
    # PTX ISA shfl.sync: segments of the clamp's mask, bounds from c.
    lanes = np.arange(32)
    segment = (c >> 8) & 0x1f
    max_lane = (lanes & segment) | ((c & 0x1f) & ~segment)
    min_lane = lanes & segment
    up_valid = lanes - 3 >= 0  # c = 0 for up: maxLane is the segment start
    down = lanes + 5
    down_valid = down <= max_lane
    index = min_lane | (7 & ~segment)
    expected = np.stack([
        np.where(up_valid, lanes - 3, lanes) * 10,
        np.where(down_valid, down, lanes) * 10,
        np.where(index <= max_lane, index, lanes) * 10,
        np.full(32, 0xffe00000),
        up_valid, down_valid], axis=1)
    np.testing.assert_array_equal(out, expected.astype(np.uint32))


ATOMICS = """
.visible .entry histogram(.param .u64 keys, .param .u64 counts,
                          .param .u64 total)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 bins[32];
  ld.param.u64 %rd1, [keys];
  ld.param.u64 %rd2, [counts];
  ld.param.u64 %rd3, [total];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 8;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, bins;
  add.s32 %r4, %r3, %r2;
  @%p1 st.shared.b32 [%r4], 0;
  bar.sync 0;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.b32 %r5, [%rd5];
  shl.b32 %r6, %r5, 2;
  add.s32 %r6, %r3, %r6;
  atom.shared.add.u32 %r7, [%r6], 1;
  cvt.rn.f32.u32 %r8, %r5;
  red.global.add.f32 [%rd3], %r8;
  bar.sync 0;
  @!%p1 bra $L__done;
  ld.shared.b32 %r9, [%r4];
  add.s64 %rd6, %rd2, %rd4;
  st.global.b32 [%rd6], %r9;
$L__done:
  ret;
}
"""


def test_shared_and_global_atomics(sim):
    keys = (np.arange(128, dtype=np.uint32) * 5) % 8
    counts = np.zeros(8, dtype=np.uint32)
    total = np.zeros(1, dtype=np.float32)
    assert launch(sim, ATOMICS, "histogram", (1, 1, 1), (128, 1, 1),
                  [keys, counts, total]) is None
    np.testing.assert_array_equal(counts, np.bincount(keys, minlength=8))
    assert total[0] == keys.sum()


MBARRIER_DEADLOCK = """
.visible .entry starved()
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .shared .align 8 .b64 mbar;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r2, mbar;
  @%p1 mbarrier.init.shared.b64 [%r2], 64;
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd1, [%r2];
$L__wait:
  mbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;
  @!%p2 bra $L__wait;
  ret;
}
"""


def test_mbarrier_phase_that_can_never_complete(sim):
    error = launch(sim, MBARRIER_DEADLOCK, "starved", (1, 1, 1), (32, 1, 1),
                   [])
    assert ("thread (0,0,0): deadlock: the mbarrier phase at mbar+0 can never "
            "complete (32 arrival(s) pending, tx count 0 bytes, 0 bytes of "
            "copies in flight) at PTX line 18") in error
    # With every expected arrival, the same code runs through.
    assert launch(sim, MBARRIER_DEADLOCK.replace("64;", "32;"), "starved",
                  (1, 1, 1), (32, 1, 1), []) is None


def test_polling_loop_on_a_starved_mbarrier_is_a_deadlock(sim):
    # A test_wait spin loop polls without blocking: once nothing else can
    # run, polling again is the same deadlock, not an endless loop.
    ptx = MBARRIER_DEADLOCK.replace(
        "mbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;",
        "mbarrier.test_wait.shared.b64 %p2, [%r2], %rd1;")
    error = launch(sim, ptx, "starved", (1, 1, 1), (32, 1, 1), [])
    assert "deadlock: the mbarrier phase at mbar+0 can never complete" in error


def test_a_kept_error_stops_later_launches(sim):
    y = np.ones(4, dtype=np.float32)
    module = sim.mgpuModuleLoadJIT((HEADER + AXPY).encode(), 0, 0)
    assert not sim.mgpuModuleGetFunction(module, b"missing")
    sim.mgpuModuleUnload(module)
    assert take_error(sim) == ("vx_ptx_sim: error: mgpuModuleGetFunction: no "
                               "kernel named 'missing'")
    # An error not yet taken: the next calls do nothing.
    sim.vxSimSetOrder(b"sideways")
    assert launch(sim, AXPY, "axpy", (1, 1, 1), (4, 1, 1),
                  [np.ones(4, dtype=np.float32), y, ctypes.c_uint32(4)]) \
        == "vx_ptx_sim: error: vxSimSetOrder: unknown order 'sideways' " \
           "(forward, reverse, shuffle or shuffle:SEED)"
    np.testing.assert_array_equal(y, np.ones(4))


EXIT_CLIENT = """
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.mgpuModuleLoadJIT.restype = ctypes.c_void_p
lib.mgpuModuleGetFunction.restype = ctypes.c_void_p
lib.mgpuModuleGetFunction.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
lib.mgpuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_ssize_t] * 6 + [
    ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
    ctypes.c_size_t]
module = lib.mgpuModuleLoadJIT(sys.argv[2].encode(), 0, 0)
function = lib.mgpuModuleGetFunction(module, b"divergent")
lib.mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, None, None, None, 0)
print("not reached")
"""


@pytest.mark.parametrize("order", ["forward", "shuffle:3", "bogus"])
def test_errors_print_and_exit_by_default(order):
    import subprocess
    import sys
    ptx = HEADER + DIVERGENT.replace("SYNC", "bar.sync 0;")
    result = subprocess.run(
        [sys.executable, "-c", EXIT_CLIENT, LIBRARY, ptx],
        capture_output=True, text=True,
        env=dict(os.environ, VX_SIM_ORDER=order))
    assert result.returncode == 1 and not result.stdout
    if order == "bogus":
        assert result.stderr == (
            "vx_ptx_sim: error: VX_SIM_ORDER: unknown order 'bogus' (forward, "
            "reverse, shuffle or shuffle:SEED)\n")
    else:
        assert result.stderr.startswith(
            "vx_ptx_sim: error: kernel divergent, block (0,0,0), thread ")
        assert "deadlock: barrier 0 can never complete" in result.stderr


HALF2 = """
.visible .entry half2(.param .u64 a, .param .u64 b, .param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  ld.global.v2.f32 {%r2, %r3}, [%rd5];
  ld.global.v2.f32 {%r4, %r5}, [%rd6];
  cvt.rn.f16x2.f32 %r6, %r3, %r2;
  cvt.rn.f16x2.f32 %r7, %r5, %r4;
  fma.rn.f16x2 %r8, %r6, %r7, %r6;
  neg.f16x2 %r9, %r8;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd7, %rd3, %rd4;
  st.global.b32 [%rd7], %r9;
  ret;
}
"""


def test_packed_half_precision(sim):
    rng = np.random.default_rng(5)
    a = rng.normal(0, 4, (32, 2)).astype(np.float32)
    b = rng.normal(0, 4, (32, 2)).astype(np.float32)
    out = np.zeros((32, 2), dtype=np.float16)
    assert launch(sim, HALF2, "half2", (1, 1, 1), (32, 1, 1),
                  [a, b, out]) is None
    ha, hb = a.astype(np.float16), b.astype(np.float16)
    # One rounding of the exact a * b + a (exact in f64 for halves).
    exact = ha.astype(np.float64) * hb.astype(np.float64) + ha
    np.testing.assert_array_equal(out, -exact.astype(np.float16))


SETP_HALF2 = """
.visible .entry setp_half2(.param .u64 a, .param .u64 b, .param .u64 out)
{
  .reg .pred %p<5>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  ld.global.b32 %r2, [%rd5];
  ld.global.b32 %r3, [%rd6];
  setp.TYPE.f16x2 %p1|%p2, %r2, %r3;
  selp.u32 %r4, 1, 0, %p1;
  selp.u32 %r5, 2, 0, %p2;
  or.b32 %r6, %r4, %r5;
  add.s64 %rd7, %rd3, %rd4;
  st.global.b32 [%rd7], %r6;
  ret;
}
"""


@pytest.mark.parametrize("cmp", ["lt", "nan", "geu"])
def test_packed_half_comparison_sets_a_predicate_per_half(sim, cmp):
    # setp.f16x2 p|q: p from the low halves, q from the high ones.
    a = np.array([1, 2, np.nan, -1, 3, 3, -np.inf, 0] * 4, dtype=np.float16)
    b = np.array([2, 1, 0, np.nan, 3, 4, 0, -0.0] * 4, dtype=np.float16)
    out = np.full(16, -1, dtype=np.int32)
    assert launch(sim, SETP_HALF2.replace("TYPE", cmp), "setp_half2",
                  (1, 1, 1), (16, 1, 1), [a, b, out]) is None
    with np.errstate(invalid="ignore"):
        result = {"lt": a < b, "nan": np.isnan(a) | np.isnan(b),
                  "geu": ~(a < b)}[cmp]
    pairs = result.reshape(16, 2).astype(np.int32)
    np.testing.assert_array_equal(out, pairs[:, 0] | 2 * pairs[:, 1])


@pytest.mark.parametrize("op", ["add.s16x2", "sub.s16x2", "min.s16x2",
                                "max.s16x2", "min.u16x2", "max.u16x2"])
def test_packed_16_bit_integers(sim, op):
    # sm_90's add/sub/min/max on two 16-bit halves, wrapping.
    rng = np.random.default_rng(6)
    signed = op.endswith("s16x2")
    dtype = np.int16 if signed else np.uint16
    info = np.iinfo(dtype)
    a, b = (rng.integers(info.min, info.max, 32, endpoint=True).astype(dtype)
            for _ in range(2))
    out = np.zeros(32, dtype=dtype)
    compare = SETP_HALF2[SETP_HALF2.index("setp.TYPE"):
                         SETP_HALF2.index("add.s64 %rd7")]
    ptx = SETP_HALF2.replace("setp_half2", "packed").replace(
        compare, f"{op} %r6, %r2, %r3;\n  ")
    assert launch(sim, ptx, "packed", (1, 1, 1), (16, 1, 1),
                  [a, b, out]) is None
    wide_a, wide_b = a.astype(np.int64), b.astype(np.int64)
    expected = {"add": wide_a + wide_b, "sub": wide_a - wide_b,
                "min": np.minimum(wide_a, wide_b),
                "max": np.maximum(wide_a, wide_b)}[op[:3]]
    np.testing.assert_array_equal(out, expected.astype(dtype))


def test_trap_aborts_the_kernel(sim):
    ptx = ".visible .entry aborts()\n{\n  trap;\n  ret;\n}\n"
    error = launch(sim, ptx, "aborts", (1, 1, 1), (1, 1, 1), [])
    assert error.endswith("thread (0,0,0): trap: the kernel aborted at PTX "
                          "line 6: trap;")


ROUNDING = """
.visible .entry rounding(.param .u64 out)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.b64 %rd2, 0d3FF0000004000000;
  cvt.rn.f32.f64 %r1, %rd2;
  cvt.rz.f32.f64 %r2, %rd2;
  cvt.rp.f32.f64 %r3, %rd2;
  neg.f64 %rd3, %rd2;
  cvt.rm.f32.f64 %r4, %rd3;
  cvt.rp.f32.f64 %r5, %rd3;
  cvt.rpi.s32.f32 %r6, 0f40200000;
  cvt.rpi.s32.f32 %r7, 0fC0200000;
  cvt.rni.s32.f32 %r8, 0f40200000;
  cvt.rni.s32.f32 %r9, 0f40600000;
  cvt.rzi.s32.f32 %r10, 0f4F32D05E;
  cvt.rzi.s32.f32 %r11, 0f7FC00000;
  cvt.sat.u8.s32 %r12, 300;
  cvt.sat.u8.s32 %r13, -5;
  cvt.sat.f32.f32 %r14, 0f3FC00000;
  cvt.rmi.f32.f32 %r15, 0fC0200000;
  mov.b64 %rd2, 16777217;
  cvt.rz.f32.s64 %r16, %rd2;
  cvt.rp.f32.u32 %r17, 16777217;
  cvt.ftz.f32.f32 %r18, 0f00000001;
  cvt.s64.s8 %rd3, 200;
  cvt.u32.u64 %r19, %rd3;
  st.global.v4.b32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v4.b32 [%rd1+16], {%r5, %r6, %r7, %r8};
  st.global.v4.b32 [%rd1+32], {%r9, %r10, %r11, %r12};
  st.global.v4.b32 [%rd1+48], {%r13, %r14, %r15, %r16};
  st.global.v4.b32 [%rd1+64], {%r17, %r18, %r19, %r19};
  ret;
}
"""


def test_conversion_rounding_and_saturation(sim):
    out = np.zeros(20, dtype=np.uint32)
    assert launch(sim, ROUNDING, "rounding", (1, 1, 1), (1, 1, 1),
                  [out]) is None
    def f32(value):
        return int(np.array(value, dtype=np.float32).view(np.uint32))
    up = 1 + 2.0 ** -23  # the f32 after 1.0; the input is 1 + 2^-30
    expected = [f32(1.0), f32(1.0), f32(up), f32(-up), f32(-1.0),
                3, (-2) & 0xffffffff, 2, 4, 0x7fffffff, 0, 255, 0, f32(1.0),
                f32(-3.0), f32(16777216.0), f32(16777218.0), f32(0.0),
                (-56) & 0xffffffff, (-56) & 0xffffffff]
    np.testing.assert_array_equal(out, np.array(expected, dtype=np.uint32))


def test_tma_into_bytes_the_generic_proxy_wrote(sim):
    write = "@%p1 st.shared.b32 [%r5+8], %r3;"
    error, _, _ = run_tma(sim, tma_ptx(32, before=write), 0, 0, 0)
    assert ("TMA write into tile+8, which the generic proxy wrote (PTX line "
            "25) with no fence.proxy.async since at PTX line 27") in error
    fenced = write + "\n  @%p1 fence.proxy.async.shared::cta;"
    error, tensor, out = run_tma(sim, tma_ptx(32, before=fenced), 0, 0, 0)
    assert error is None
    np.testing.assert_array_equal(out, tensor[:ROWS, :32].reshape(-1))


def test_copies_stay_inside_device_allocations(sim):
    sim.mgpuMemAlloc.restype = c_void_p
    sim.mgpuMemAlloc.argtypes = [ctypes.c_uint64, c_void_p, ctypes.c_bool]
    sim.mgpuMemcpy.argtypes = [c_void_p, c_void_p, c_size_t, c_void_p]
    sim.mgpuMemFree.argtypes = [c_void_p, c_void_p]
    device = sim.mgpuMemAlloc(64, None, False)
    host = np.arange(32, dtype=np.float32)
    sim.mgpuMemcpy(device, host.ctypes.data, 64, None)
    back = np.zeros(16, dtype=np.float32)
    sim.mgpuMemcpy(back.ctypes.data, device, 64, None)
    np.testing.assert_array_equal(back, host[:16])
    assert take_error(sim) is None
    sim.mgpuMemcpy(device, host.ctypes.data, 128, None)
    assert take_error(sim).endswith("run past the end of their allocation")
    sim.mgpuMemFree(device, None)
    sim.mgpuMemFree(device, None)
    assert take_error(sim) == ("vx_ptx_sim: error: mgpuMemFree: the pointer "
                               "is not from mgpuMemAlloc")


def test_tma_with_negative_coordinates(sim):
    error, tensor, out = run_tma(sim, tma_ptx(32), 0, -5, -3)
    assert error is None
    box = np.zeros((ROWS, 32), dtype=np.float32)
    box[3:, 5:] = tensor[:ROWS - 3, :32 - 5]
    np.testing.assert_array_equal(out, box.reshape(-1))


def tma_4d_ptx():
    """tma_ptx(32) with a 4-d copy at coordinates (x, y, z, w), innermost
    first as cp.async.bulk.tensor takes them (PTX ISA 9.7.9.27)."""
    return (tma_ptx(32)
            .replace(".param .u32 y)",
                     ".param .u32 y, .param .u32 z, .param .u32 w)")
            .replace("ld.param.u32 %r2, [y];", "ld.param.u32 %r2, [y];\n"
                     "  ld.param.u32 %r10, [z];\n  ld.param.u32 %r11, [w];")
            .replace("tensor.2d", "tensor.4d")
            .replace("{%r1, %r2}", "{%r1, %r2, %r10, %r11}"))


def run_tma_4d(lib, register):
    """A 2x2x8x8 box of a 3x4x20x40 view whose outer strides are padded
    (the second dimension is 4 of 5), at an origin that hangs over the
    edge of every dimension but the outermost."""
    base = np.arange(3 * 5 * 20 * 40, dtype=np.float32).reshape(3, 5, 20, 40)
    view = base[:, :4]
    if register:
        lib.mgpuMemHostRegister(base.ctypes.data, base.nbytes)
    tensor_map = encode_tiled(lib, view, (2, 2, ROWS, 8))
    assert tensor_map, take_error(lib)
    out = np.full(2 * 2 * ROWS * 8, -1, dtype=np.float32)
    x, y, z, w = 36, 14, 3, 1
    error = launch(lib, tma_4d_ptx(), "tile_copy", (1, 1, 1), (32, 1, 1),
                   [ctypes.c_uint64(tensor_map), out] +
                   [ctypes.c_int32(c) for c in (x, y, z, w)])
    if register:
        lib.mgpuMemHostUnregister(base.ctypes.data)
    box = np.zeros((2, 2, ROWS, 8), dtype=np.float32)
    inside = view[w:w + 2, z:z + 2, y:y + ROWS, x:x + 8]
    box[tuple(slice(0, n) for n in inside.shape)] = inside
    return error, view, out, box


def test_tma_4d_box_dimensions_and_strides(sim):
    # Attention's K/V maps are 4-d (SIM_BUGS.md): dims and box innermost
    # first, byte strides of all but the innermost, out-of-bound zeros.
    error, _, out, box = run_tma_4d(sim, register=True)
    assert error is None
    np.testing.assert_array_equal(out, box.reshape(-1))


def test_tma_from_unregistered_host_memory(sim):
    error, view, _, _ = run_tma_4d(sim, register=False)
    # The first element of the box: {x, y, z, w} = {36,14,3,1}.
    address = view.ctypes.data + 4 * (36 + 14 * 40 + 3 * 800 + 1 * 4000)
    assert (f"TMA source element {{36,14,3,1}} of the tensor at "
            f"{view.ctypes.data:#x} ({address:#x}) is outside every "
            f"allocation (host memory not registered, or freed?) at PTX "
            f"line 29: @%p1 cp.async.bulk.tensor.4d") in error


TMA_AT_SM80 = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 map)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 128 .b8 tile[256];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [map];
  mov.u32 %r1, bar;
  mov.u32 %r2, tile;
  mov.u32 %r3, 0;
  INSTRUCTION
  ret;
}
"""


@pytest.mark.parametrize("target,instruction,expected", [
    # SIM_BUGS.md item 1: ptxas refuses it, the simulator ran it.
    ("sm_80", "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::"
     "complete_tx::bytes [%r2], [%rd1, {%r3}], [%r1];",
     "'cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx"
     "::bytes' (cp.async.bulk.tensor) requires .target sm_90 or higher, the "
     "module's is sm_80"),
    ("sm_80", "mbarrier.arrive.expect_tx.shared.b64 %rd2, [%r1], 16;",
     "(mbarrier expect_tx) requires .target sm_90"),
    ("sm_80", "fence.proxy.async.shared::cta;",
     "(fence.proxy.async) requires .target sm_90"),
    ("sm_80", "prefetch.tensormap [%rd1];",
     "(prefetch.tensormap) requires .target sm_90"),
    ("sm_75", "cp.async.ca.shared.global [%r2], [%rd1], 4;",
     "(cp.async) requires .target sm_80 or higher, the module's is sm_75"),
    ("sm_90", "fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;",
     "'fence.proxy.tensormap::generic.acquire.gpu' (fence.proxy.tensormap) "
     "requires PTX ISA .version 8.3 or later, the module's is 8.0"),
])
def test_instructions_above_the_target_are_refused(sim, target, instruction,
                                                   expected):
    text = (TMA_AT_SM80.replace("sm_80", target)
            .replace("INSTRUCTION", instruction))
    assert not sim.mgpuModuleLoadJIT(text.encode(), 0, 0)
    error = take_error(sim)
    assert "PTX line 14: '" in error and expected in error
    assert_ptxas_refuses(text, target)
    # At sm_90a and PTX 8.3 the same module loads.
    text = (text.replace(f".target {target}", ".target sm_90a")
            .replace(".version 8.0", ".version 8.3"))
    module = sim.mgpuModuleLoadJIT(text.encode(), 0, 0)
    assert module, take_error(sim)
    sim.mgpuModuleUnload(module)


def test_mbarrier_used_before_its_init_is_visible(sim):
    ptx = MBARRIER_DEADLOCK.replace("64;", "32;").replace(
        "  bar.sync 0;\n  mbarrier.arrive", "  mbarrier.arrive")
    error = launch(sim, ptx, "starved", (1, 1, 1), (32, 1, 1), [])
    assert ("thread (1,0,0): the mbarrier at mbar+0 is used before its "
            "initialization (PTX line 14 by thread (0,0,0)) is visible: no "
            "barrier between them at PTX line 15") in error


def test_spin_wait_without_synchronization_is_reported(sim):
    # Waits for a flag that a later thread sets: the GPU might run them
    # concurrently; one thread at a time, it never ends.
    ptx = """
.visible .entry spin(.param .u64 flag)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [flag];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 st.volatile.global.b32 [%rd1], 1;
  @%p1 bra $L__done;
$L__spin:
  ld.volatile.global.b32 %r2, [%rd1];
  setp.eq.u32 %p2, %r2, 0;
  @%p2 bra $L__spin;
$L__done:
  ret;
}
"""
    error = launch(sim, ptx, "spin", (1, 1, 1), (2, 1, 1),
                   [np.zeros(1, dtype=np.int32)])
    assert ("thread (0,0,0): more than 2^26 backward branches without a "
            "synchronization point") in error


LAST_BLOCK = """
.visible .entry last(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  st.global.b32 [%rd1], %r1;
  ret;
}
"""


@pytest.mark.parametrize("order,last", [("forward", 3), ("reverse", 0)])
def test_blocks_run_in_the_launch_order(sim, order, last):
    out = np.full(1, -1, dtype=np.int32)
    assert launch(sim, LAST_BLOCK, "last", (4, 1, 1), (1, 1, 1), [out],
                  order=order) is None
    assert out[0] == last


def test_shared_memory_beyond_the_chip(sim):
    # 227 KiB on sm_90a; one byte more does not launch.
    error = launch(sim, LAST_BLOCK, "last", (1, 1, 1), (1, 1, 1),
                   [np.zeros(1, dtype=np.int32)], smem=227 * 1024 + 1)
    assert error == ("vx_ptx_sim: error: kernel last: 232449 bytes of shared "
                     "memory exceed the 232448 bytes of sm_90a")


def test_vector_access_with_the_wrong_register_count(sim):
    ptx = AXPY.replace("ld.global.f32 %r7, [%rd7];",
                       "ld.global.v2.f32 {%r7}, [%rd7];")
    error = launch(sim, ptx, "axpy", (1, 1, 1), (1, 1, 1), [])
    assert error == ("vx_ptx_sim: error: PTX line 25: 'ld.global.v2.f32' "
                     "moves 2 element(s), its operand has 1")

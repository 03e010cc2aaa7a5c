# The PTX simulator (libvx_ptx_sim) through its C ABI, with ctypes:
# hand-written PTX it must run to numpy's numbers, PTX it must reject with
# the right message, and every PTX file Vx emits for the examples, the
# benchmark kernels and the integration tests must parse.

import ctypes
import glob
import os
import re

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


HEADER = ".version 8.0\n.target sm_90a\n.address_size 64\n"


def launch(lib, ptx, kernel, grid, block, args, smem=0):
    """Loads `ptx`, registers the numpy arrays among `args` as global memory
    and launches `kernel`; returns the error message or None."""
    module = lib.mgpuModuleLoadJIT((HEADER + ptx).encode(), 0, 0)
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
    lib.mgpuLaunchKernel(function, *grid, *block, smem, None, params, None,
                         len(values))
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
    sim.vxSimSetOrder(order.encode())
    try:
        assert launch(sim, REDUCE, "reduce", (4, 1, 1), (64, 1, 1),
                      [data, out]) is None
    finally:
        sim.vxSimSetOrder(b"forward")
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
  cp.async.cg.shared.global [%rd6], [%rd4], 16, %r9;
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
  @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r4], BYTES;
  mov.u32 %r5, tile;
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


def tma_ptx(columns, tile=None, init_fence=True, map_fence=True, early=""):
    bytes_ = columns * ROWS * 4
    tile = tile or f".shared .align 1024 .b8 tile[{bytes_}];"
    return (TMA.replace("TILE", tile)
            .replace("INIT_FENCE", "@%p1 fence.mbarrier_init.release.cluster;"
                     if init_fence else "")
            .replace("MAP_FENCE",
                     "@%p1 fence.proxy.tensormap::generic.acquire.gpu "
                     "[%rd1], 128;" if map_fence else "")
            .replace("EARLY", early)
            .replace("BYTES", str(bytes_))
            .replace("WORDS", str(columns * ROWS)))


def encode_map(lib, tensor, columns, swizzle):
    """mgpuTensorMapEncodeTiledMemref for a 2-D f32 tensor, as the host code
    of nvgpu.tma.create.descriptor calls it."""
    descriptor = (ctypes.c_int64 * 7)(
        tensor.ctypes.data, tensor.ctypes.data, 0, *tensor.shape,
        tensor.shape[1], 1)
    box = (ctypes.c_int64 * 2)(ROWS, columns)
    lib.mgpuMemHostRegister(tensor.ctypes.data, tensor.nbytes)
    # CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7.
    return lib.mgpuTensorMapEncodeTiledMemref(
        2, ctypes.addressof(descriptor), 7, 0, swizzle, 0, 0,
        ctypes.addressof(box))


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
            "phase completed (tile+4, copied by the TMA) at PTX line 27: "
            "ld.shared.b32 %r10, [%r5+4];") in error


def test_tma_into_a_slot_that_holds_its_mbarrier(sim):
    # The layout of issue 26: a one-byte static "dynamic base" with the
    # mbarrier 8 bytes after it, the tile written from that base.
    ptx = tma_ptx(32, tile=".shared .align 128 .b8 tile;")
    error, _, _ = run_tma(sim, ptx, 0, 0, 0, smem=32 * ROWS * 4)
    assert ("TMA destination overlaps mbarrier at mbar+0 (destination "
            "tile+0, 1024 bytes) at PTX line 26") in error


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
    ptx = ".visible .entry tensor_core()\n{\n  wgmma.fence.sync.aligned;\n}\n"
    error = launch(sim, ptx, "tensor_core", (1, 1, 1), (1, 1, 1), [])
    assert error == ("vx_ptx_sim: error: PTX line 6: unsupported PTX "
                     "instruction 'wgmma.fence.sync.aligned'")


def test_a_cubin_is_rejected(sim):
    assert not sim.mgpuModuleLoad(b"\x7fELF" + b"\0" * 60, 64)
    assert "got a cubin; the simulator runs PTX" in take_error(sim)


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
                assert handle, f"{kernel} ({chip}, stages={stages}): " + \
                    take_error(sim)
                sim.mgpuModuleUnload(handle)

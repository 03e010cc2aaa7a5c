"""Compiled Vx libraries from Python, without MLIR.

    lib = vx.runtime.load("kernels.so")   # a library from vx.compile
    lib.matmul(a, b, c)                   # numpy arrays (cpu), CUDA arrays (cuda)

Pure Python over ctypes: importing this module loads neither libMLIR nor the
vx._vx extension, so it runs where only numpy, or only the NVIDIA driver and
torch or cupy, are installed. numpy is imported only for CPU libraries (and,
when present, for the exact overlap test of CUDA arguments).

A library describes itself (the `vx_metadata` section, JSON): its target and
each exported function's signature. Every call is checked against it before
anything runs: argument count; for memrefs the element type, shape, strides
and, for CUDA, the device; scalars by type and range; and memref arguments
must not overlap (Vx's aliasing contract: distinct memref arguments of a
kernel do not overlap). See docs/design.md, "Compiled libraries".

CPU libraries take numpy arrays, updated in place; an array whose strides
the memref's layout cannot take is copied to a row-major buffer for the call
and back after it. CUDA libraries take objects with __cuda_array_interface__
or __dlpack__ on a CUDA device (torch and cupy arrays). A call launches on
the legacy default stream and waits for its kernels; `stream=` (a CUstream
handle as an int, a torch.cuda.Stream or a cupy Stream) launches on that
stream without waiting, as torch and cupy operations do. A machine without a
driver or GPU gets CudaError, not a crash.

`load(path, simulate=True)` runs a CUDA library on the PTX simulator
(libvx_ptx_sim, in the vx package) instead of a GPU: its kernels' PTX,
embedded beside the cubin or fatbin, executes on the CPU, numpy arrays are
its device memory, and what the simulator reports raises SimulationError.
The library is bound to the simulator through a private copy whose
DT_NEEDED names libvx_ptx_sim.so instead of libvx_cuda_runtime.so, so CUDA
libraries loaded without simulate=True in the same process still reach the
GPU (docs/design.md, "Compiled libraries").
"""

import ctypes
import numbers
import os
import shutil
import struct
import tempfile
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import Diagnostic, KernelReport, SimulationError, VxError, _diagnostic

__all__ = ["CudaError", "Function", "Library", "load", "read_metadata"]

#: The version of the library ABI this module calls (docs/design.md).
ABI_VERSION = 1
#: The ELF section holding a library's metadata.
METADATA_SECTION = "vx_metadata"
#: The runtime that CUDA libraries link, found beside them.
CUDA_RUNTIME = "libvx_cuda_runtime.so"
#: The driver's library.
CUDA_DRIVER = "libcuda.so.1"
#: The PTX simulator, with the mgpu* functions of CUDA_RUNTIME, in the
#: package.
PTX_SIM = "libvx_ptx_sim.so"


class CudaError(VxError):
    """A failure of the CUDA driver: no driver or GPU, a module that does not
    load on this GPU, a failed launch."""


# -- metadata ----------------------------------------------------------------

def _section_headers(elf: bytes):
    """(name offset, type, link, offset, size, entry size) of each section
    of a 64-bit little-endian ELF image."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise VxError("not a 64-bit little-endian ELF file")
    section_offset, = struct.unpack_from("<Q", elf, 0x28)
    entry_size, count = struct.unpack_from("<HH", elf, 0x3A)
    headers = []
    for index in range(count):
        name, kind, _flags, _address, offset, size, link, _info, _align, \
            entsize = struct.unpack_from("<IIQQQQIIQQ", elf,
                                         section_offset + index * entry_size)
        headers.append((name, kind, link, offset, size, entsize))
    return headers


def _section(path: str, name: str) -> Optional[bytes]:
    """The contents of section `name` of the 64-bit little-endian ELF file
    at `path`, or None if it has none."""
    with open(path, "rb") as elf:
        image = elf.read()
    try:
        headers = _section_headers(image)
    except VxError:
        raise VxError(f"{path} is not a 64-bit little-endian ELF file") from None
    names_index, = struct.unpack_from("<H", image, 0x3E)
    names_offset = headers[names_index][3]
    wanted = name.encode() + b"\0"
    for name_offset, _, _, offset, size, _ in headers:
        start = names_offset + name_offset
        if image[start:start + len(wanted)] == wanted:
            return image[offset:offset + size]
    return None


def read_metadata(path: str) -> Dict[str, Any]:
    """The metadata of the library at `path` (docs/design.md), read from
    the file without loading it."""
    import json
    data = _section(path, METADATA_SECTION)
    if data is None:
        raise VxError(f"{path} is not a Vx library (no {METADATA_SECTION} "
                      f"section)")
    metadata = json.loads(data.split(b"\0", 1)[0])
    if metadata.get("abi") != ABI_VERSION:
        raise VxError(f"{path} has library ABI {metadata.get('abi')}; this "
                      f"vx.runtime calls ABI {ABI_VERSION}")
    return metadata


_SHT_DYNAMIC, _SHT_DYNSYM, _SHT_GNU_VERNEED = 6, 11, 0x6FFFFFFE
_DT_NEEDED, _DT_STRING_TAGS = 1, (1, 14, 15, 29)  # NEEDED SONAME RPATH RUNPATH


def _replace_needed(elf: bytearray, old: str, new: str) -> None:
    """Renames the DT_NEEDED entry `old` of the ELF image to `new` (not
    longer) in place, in .dynstr. Refuses where another name shares the
    bytes of `old` (a linker may merge string tails)."""
    headers = _section_headers(elf)
    [(_, _, link, dynamic_offset, dynamic_size, _)] = [
        h for h in headers if h[1] == _SHT_DYNAMIC]
    strings_offset = headers[link][3]

    def name_at(offset):
        start = strings_offset + offset
        return elf[start:elf.index(b"\0", start)].decode()

    references, needed = [], None
    for position in range(dynamic_offset, dynamic_offset + dynamic_size, 16):
        tag, value = struct.unpack_from("<qQ", elf, position)
        if tag in _DT_STRING_TAGS:
            references.append(value)
            if tag == _DT_NEEDED and name_at(value) == old:
                needed = value
    for _, kind, _, offset, size, entsize in headers:
        if kind == _SHT_DYNSYM:
            references += [struct.unpack_from("<I", elf, at)[0]
                           for at in range(offset, offset + size, entsize)]
        elif kind == _SHT_GNU_VERNEED:
            entry = offset
            while True:  # Elf64_Verneed, each with its Elf64_Vernaux list.
                _, count, file, aux, following = struct.unpack_from(
                    "<HHIII", elf, entry)
                references.append(file)
                position = entry + aux
                for _ in range(count):
                    name, = struct.unpack_from("<I", elf, position + 8)
                    references.append(name)
                    position += struct.unpack_from("<I", elf, position + 12)[0]
                if not following:
                    break
                entry += following
    if needed is None:
        raise VxError(f"the library does not link {old}")
    if len(new) > len(old) or any(needed < r < needed + len(old)
                                  for r in references):
        raise VxError(f"cannot rename {old} to {new} in the library's "
                      f"dynamic section")
    start = strings_offset + needed
    elf[start:start + len(old)] = new.encode().ljust(len(old), b"\0")


# -- scalars -----------------------------------------------------------------

_FLOAT_FORMATS = {"f16": "<e", "f32": "<f", "f64": "<d"}


def _integer_width(type_text: str) -> Optional[int]:
    if type_text == "index":
        return 64
    if type_text.startswith("i") and type_text[1:].isdigit():
        width = int(type_text[1:])
        return width if 1 <= width <= 64 else None
    return None


def _scalar_bits(position: int, type_text: str, value: Any) -> int:
    """The bits of `value` as the scalar type `type_text`, in the low bytes
    of a 64-bit slot."""
    if type_text in _FLOAT_FORMATS:
        if not isinstance(value, numbers.Real):
            raise TypeError(f"argument {position} is {type_text}: expected a "
                            f"number, got {type(value).__name__}")
        packed = struct.pack(_FLOAT_FORMATS[type_text], float(value))
        return int.from_bytes(packed, "little")
    width = _integer_width(type_text)
    if width is None:
        raise TypeError(f"argument {position} has type {type_text}, which "
                        f"cannot be passed from Python")
    if not isinstance(value, numbers.Integral):
        raise TypeError(f"argument {position} is {type_text}: expected an "
                        f"int, got {type(value).__name__}")
    value = int(value)
    lowest = 0 if width == 1 else -(1 << (width - 1))
    if not lowest <= value < (1 << width):
        raise OverflowError(f"argument {position}: {value} does not fit "
                            f"{type_text}")
    return value & ((1 << width) - 1)


def _scalar_from_bits(type_text: str, bits: int) -> Any:
    if type_text in _FLOAT_FORMATS:
        size = struct.calcsize(_FLOAT_FORMATS[type_text])
        return struct.unpack(_FLOAT_FORMATS[type_text],
                             (bits & ((1 << (8 * size)) - 1)).to_bytes(size, "little"))[0]
    width = _integer_width(type_text)
    bits &= (1 << width) - 1
    if width == 1:
        return bool(bits)
    return bits - (1 << width) if bits >> (width - 1) else bits


# -- memrefs -----------------------------------------------------------------

# The element types of memref arguments and the array dtypes that hold them
# (numpy's names; bfloat16 only from CUDA arrays).
_MEMREF_DTYPES = {
    "f16": ("float16",), "bf16": ("bfloat16",), "f32": ("float32",),
    "f64": ("float64",), "i1": ("bool",), "i8": ("int8", "uint8"),
    "i16": ("int16", "uint16"), "i32": ("int32", "uint32"),
    "i64": ("int64", "uint64"), "index": ("int64",),
}
# __cuda_array_interface__ type strings and DLPack (type code, bits).
_TYPESTRS = {"<f2": "float16", "<f4": "float32", "<f8": "float64",
             "|b1": "bool", "|i1": "int8", "|u1": "uint8", "<i2": "int16",
             "<u2": "uint16", "<i4": "int32", "<u4": "uint32",
             "<i8": "int64", "<u8": "uint64"}
_DLPACK_DTYPES = {(2, 16): "float16", (2, 32): "float32", (2, 64): "float64",
                  (4, 16): "bfloat16", (6, 8): "bool", (0, 8): "int8",
                  (1, 8): "uint8", (0, 16): "int16", (1, 16): "uint16",
                  (0, 32): "int32", (1, 32): "uint32", (0, 64): "int64",
                  (1, 64): "uint64"}
_DLPACK_CPU, _DLPACK_CUDA, _DLPACK_CUDA_MANAGED = 1, 2, 13


class _ArrayView:
    """What a call needs of an array argument: address, dtype name,
    itemsize, shape and strides in bytes, and the object that owns it."""

    def __init__(self, address, dtype, itemsize, shape, strides, owner,
                 readonly=False, device=None, stream=None):
        self.address = address
        self.dtype = dtype
        self.itemsize = itemsize
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.owner = owner
        self.readonly = readonly
        self.device = device
        self.stream = stream

    @property
    def size(self):
        count = 1
        for extent in self.shape:
            count *= extent
        return count

    def span(self):
        """[first byte, past the last byte) of the elements."""
        low = high = self.address
        for extent, stride in zip(self.shape, self.strides):
            if stride < 0:
                low += (extent - 1) * stride
            else:
                high += (extent - 1) * stride
        return low, high + self.itemsize


def _row_major_strides(shape: Sequence[int]) -> List[int]:
    strides, stride = [], 1
    for size in reversed(shape):
        strides.append(stride)
        stride *= size
    return list(reversed(strides))


def _admits(view: _ArrayView, layout_strides) -> bool:
    """Whether a memref layout with `layout_strides` (None: the identity,
    row-major; an entry None: dynamic) can take the view's strides."""
    if any(s % view.itemsize for s in view.strides):
        return False
    strides = [s // view.itemsize for s in view.strides]
    wanted = layout_strides or _row_major_strides(view.shape)
    return view.size == 0 or all(
        want is None or want == have or size == 1
        for want, have, size in zip(wanted, strides, view.shape))


def _check_view(position: int, view: _ArrayView, description) -> None:
    type_text, element = description["type"], description["element"]
    dtypes = _MEMREF_DTYPES.get(element)
    if dtypes is None:
        raise TypeError(f"argument {position} is {type_text}: memrefs of "
                        f"{element} cannot be passed from Python")
    if view.dtype not in dtypes:
        raise TypeError(f"argument {position} is {type_text}: expected a "
                        f"{dtypes[0]} array, got {view.dtype}")
    shape = description["shape"]
    if len(view.shape) != len(shape) or any(
            size is not None and size != actual
            for size, actual in zip(shape, view.shape)):
        raise TypeError(f"argument {position} is {type_text}: got an array of "
                        f"shape {view.shape}")
    if view.readonly:
        raise TypeError(f"argument {position}: the array is read-only; "
                        f"kernels update their memref arguments in place")


def _descriptor(view: _ArrayView, description):
    """A memref descriptor {allocated, aligned, offset, sizes, strides} for
    the view; the aligned pointer plus the offset addresses element 0."""
    rank = len(view.shape)
    offset = description["offset"] or 0
    aligned = view.address - offset * view.itemsize
    values = [aligned, aligned, offset] + list(view.shape) + [
        s // view.itemsize for s in view.strides]
    return (ctypes.c_int64 * (3 + 2 * rank))(*[
        ctypes.c_int64(v).value for v in values])


def _host_array(position: int, array, description):
    """`array` as a numpy array over the same memory: itself, or for a CPU
    array with __dlpack__ (a torch CPU tensor) a writable view of its DLPack
    tensor, which holds the capsule (numpy's own from_dlpack is read-only)."""
    import numpy as np
    if isinstance(array, np.ndarray):
        return array
    if not (hasattr(array, "__dlpack__") and hasattr(array, "__dlpack_device__")):
        raise TypeError(f"argument {position} is {description['type']}: "
                        f"expected a numpy array or a CPU array with "
                        f"__dlpack__, got {type(array).__name__}")
    device_type, _ = array.__dlpack_device__()
    if device_type != _DLPACK_CPU:
        raise TypeError(f"argument {position} is {description['type']}: "
                        f"expected an array in host memory, got a "
                        f"{type(array).__name__} on DLPack device type "
                        f"{device_type}; CUDA arrays go to CUDA libraries")
    view = _dlpack_view(array, None)
    if view.dtype not in _NUMPY_DTYPES:
        raise TypeError(f"argument {position} is {description['type']}: "
                        f"{view.dtype} has no numpy dtype")
    return np.asarray(_HostMemory(view))


# The dtypes (numpy's names) that DLPack CPU arrays can be viewed as.
_NUMPY_DTYPES = {"float16", "float32", "float64", "bool", "int8", "uint8",
                 "int16", "uint16", "int32", "uint32", "int64", "uint64"}


class _HostMemory:
    """An __array_interface__ over a view's memory, keeping its owner (the
    DLPack capsule and the array) alive as long as the numpy array."""

    def __init__(self, view: _ArrayView):
        import numpy as np
        self.owner = view.owner
        self.__array_interface__ = {
            "data": (view.address, False), "shape": view.shape,
            "strides": view.strides, "typestr": np.dtype(view.dtype).str,
            "version": 3}


def _numpy_view(position: int, array, description) -> _ArrayView:
    return _ArrayView(array.__array_interface__["data"][0], array.dtype.name,
                      array.itemsize, array.shape, array.strides, array,
                      readonly=not array.flags.writeable)


def _cuda_array_interface_view(array, interface) -> _ArrayView:
    typestr = interface["typestr"]
    dtype = _TYPESTRS.get(typestr, typestr)
    itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 0
    shape = tuple(interface["shape"])
    strides = interface.get("strides")
    if strides is None:
        strides = [s * itemsize for s in _row_major_strides(shape)]
    address, readonly = interface["data"]
    return _ArrayView(address or 0, dtype, itemsize, shape, strides, array,
                      readonly=readonly, stream=interface.get("stream"))


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


def _dlpack_view(array, consumer_stream) -> _ArrayView:
    """The view of an unversioned DLPack capsule of `array`. The capsule is
    not consumed: it stays with the view (its owner), and its destructor
    releases the tensor when the call is done."""
    if consumer_stream is None:
        capsule = array.__dlpack__()
    else:
        capsule = array.__dlpack__(stream=consumer_stream)
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    # DLManagedTensor starts with its DLTensor.
    tensor = _DLTensor.from_address(get_pointer(capsule, b"dltensor"))
    code, bits, lanes = tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes
    dtype = _DLPACK_DTYPES.get((code, bits), f"DLPack type ({code}, {bits})")
    if lanes != 1:
        dtype += f" x{lanes}"
    itemsize = bits * lanes // 8
    shape = [tensor.shape[d] for d in range(tensor.ndim)]
    if tensor.strides:
        strides = [tensor.strides[d] * itemsize for d in range(tensor.ndim)]
    else:
        strides = [s * itemsize for s in _row_major_strides(shape)]
    address = (tensor.data or 0) + tensor.byte_offset
    return _ArrayView(address, dtype, itemsize, shape, strides, (array, capsule),
                      device=(tensor.device.device_type, tensor.device.device_id))


def _cuda_view(position: int, array, description, launch_stream) -> _ArrayView:
    type_text = description["type"]
    try:
        interface = array.__cuda_array_interface__
    except Exception:
        # Absent, or refused for this array (torch: bfloat16): DLPack may
        # still take it.
        interface = None
    if interface is not None:
        return _cuda_array_interface_view(array, interface)
    if hasattr(array, "__dlpack__") and hasattr(array, "__dlpack_device__"):
        device_type, device_id = array.__dlpack_device__()
        if device_type not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
            where = "host memory" if device_type == _DLPACK_CPU else \
                f"DLPack device type {device_type}"
            raise TypeError(f"argument {position} is {type_text}: expected a "
                            f"CUDA array, got a {type(array).__name__} in "
                            f"{where}")
        # DLPack names the legacy default stream 1 (0 is ambiguous there).
        return _dlpack_view(array, launch_stream or 1)
    raise TypeError(f"argument {position} is {type_text}: expected a CUDA "
                    f"array (__cuda_array_interface__ or __dlpack__), got "
                    f"{type(array).__name__}")


def _overlaps_itself(view: _ArrayView) -> bool:
    """Whether two elements of `view` share memory: sorted by stride, each
    dimension must step over everything the smaller ones span."""
    span = view.itemsize
    for stride, size in sorted((abs(stride), size) for stride, size in
                               zip(view.strides, view.shape) if size > 1):
        if stride < span:
            return True
        span += stride * (size - 1)
    return False


def _check_no_overlap(views: List[Tuple[int, _ArrayView]]) -> None:
    """Refuses memref arguments that share an element: exactly where numpy
    can tell (numpy.shares_memory on the addresses, no data touched), by
    their spans where it is missing."""
    try:
        import numpy as np
    except ImportError:
        np = None

    def as_numpy(view):
        class Interface:
            __array_interface__ = {
                "data": (view.address, False), "shape": view.shape,
                "strides": view.strides, "typestr": f"|V{view.itemsize}",
                "version": 3}
        return np.asarray(Interface())

    for position, view in views:
        if view.size and _overlaps_itself(view):
            raise ValueError(f"argument {position} overlaps itself (zero or "
                             f"overlapping strides); the memref arguments of a "
                             f"call must not overlap (Vx's aliasing contract)")
    for first in range(len(views)):
        for second in range(first + 1, len(views)):
            (i, a), (j, b) = views[first], views[second]
            if a.size == 0 or b.size == 0:
                continue
            (a_low, a_high), (b_low, b_high) = a.span(), b.span()
            if a_high <= b_low or b_high <= a_low:
                continue
            if np is not None:
                try:
                    if not np.shares_memory(as_numpy(a), as_numpy(b),
                                            max_work=100000):
                        continue
                except np.TooHardError:
                    pass
            raise ValueError(f"arguments {i} and {j} overlap in memory; the "
                             f"memref arguments of a call must not overlap "
                             f"(Vx's aliasing contract)")


# -- detect_races -------------------------------------------------------------

def _race_reports(handle):
    """The race detector that a library compiled with detect_races links
    (looked up through the library: the copy it uses), set to record the
    first race for _raise_race instead of ending the process. The kernel
    then runs to completion: its numbers are wrong, and the call raises."""
    runtime = ctypes.CDLL(None, handle=handle._handle)
    runtime.vxRaceSetMode.argtypes = [ctypes.c_int]
    runtime.vxRaceSetMode.restype = None
    runtime.vxRaceTakeReport.restype = ctypes.c_char_p
    runtime.vxRaceSetMode(1)
    return runtime


def _raise_race(runtime) -> None:
    report = runtime.vxRaceTakeReport() if runtime else None
    if report:
        raise VxError(report.decode())


# -- CUDA ----------------------------------------------------------------------

_cuda_lock = threading.Lock()
_cuda_runtime = None


def _declare_runtime(runtime) -> None:
    """Declares the vxCuda* controls that libvx_cuda_runtime and the PTX
    simulator share, and makes errors reported to us."""
    runtime.vxCudaReportErrors.restype = None
    runtime.vxCudaReportErrors()
    runtime.vxCudaTakeError.restype = ctypes.c_char_p
    runtime.vxCudaSetStream.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    runtime.vxCudaSetStream.restype = None
    runtime.vxCudaResetStream.restype = None
    runtime.vxCudaPointerDevice.argtypes = [ctypes.c_void_p]
    runtime.vxCudaPointerDevice.restype = ctypes.c_int32
    runtime.vxCudaDefaultDevice.restype = ctypes.c_int32
    runtime.vxCudaStreamWaitStream.argtypes = [ctypes.c_void_p,
                                               ctypes.c_void_p]
    runtime.vxCudaStreamWaitStream.restype = None


def _load_cuda_runtime(directory: str):
    """libvx_cuda_runtime, once per process, with errors reported to us;
    CudaError where the driver is missing."""
    global _cuda_runtime
    with _cuda_lock:
        if _cuda_runtime is not None:
            return _cuda_runtime
        path = os.path.join(directory, CUDA_RUNTIME)
        if not os.path.exists(path):
            raise VxError(f"{CUDA_RUNTIME} is missing beside the library in "
                          f"{directory} (vx.compile copies it there)")
        try:
            ctypes.CDLL(CUDA_DRIVER)
        except OSError as error:
            raise CudaError(f"no NVIDIA driver: {CUDA_DRIVER} cannot be "
                            f"loaded ({error})") from None
        runtime = ctypes.CDLL(path)
        _declare_runtime(runtime)
        _cuda_runtime = runtime
        return runtime


def _raise_pending(runtime, what: str) -> None:
    error = runtime.vxCudaTakeError()
    if error:
        raise CudaError(f"{what}: {error.decode()}")


# -- the PTX simulator -----------------------------------------------------------

_simulator = None


def _package_file(name: str) -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), name)


class _Simulator:
    """libvx_ptx_sim, loaded once per process from the package (the copy
    that vx.run's libraries link and that simulated CUDA libraries bind to
    by its soname), with errors reported to us."""

    def __init__(self):
        path = _package_file(PTX_SIM)
        if not os.path.exists(path):
            raise VxError(f"{PTX_SIM} is missing from the vx package in "
                          f"{os.path.dirname(path)}")
        self.runtime = runtime = ctypes.CDLL(path)
        _declare_runtime(runtime)
        runtime.vxSimSetOrder.argtypes = [ctypes.c_char_p]
        runtime.vxSimSetOrder.restype = None
        runtime.mgpuMemHostRegister.argtypes = [ctypes.c_void_p,
                                                ctypes.c_uint64]
        runtime.mgpuMemHostRegister.restype = None
        runtime.mgpuMemHostUnregister.argtypes = [ctypes.c_void_p]
        runtime.mgpuMemHostUnregister.restype = None

    def raise_pending(self) -> None:
        """Raises the error the simulator reported, if any."""
        error = self.runtime.vxCudaTakeError()
        if error:
            raise SimulationError(error.decode())

    def set_order(self, order: Optional[str]) -> None:
        """The simulator's thread order for the next launches; None is the
        default, $VX_SIM_ORDER or else forward."""
        order = order or os.environ.get("VX_SIM_ORDER") or "forward"
        self.runtime.vxSimSetOrder(order.encode())
        error = self.runtime.vxCudaTakeError()
        if error:
            raise ValueError(f"sim_order: {error.decode()}")

    def run(self, call: Callable[[], Any], views: Sequence[_ArrayView],
            order: Optional[str]) -> Any:
        """Runs `call` with the memory of `views` as the kernels' global
        memory (registered for the call only) and `order`; raises what the
        simulator reports."""
        self.raise_pending()
        self.set_order(order)
        starts = []
        try:
            for view in views:
                if view.size:
                    low, high = view.span()
                    self.runtime.mgpuMemHostRegister(low, high - low)
                    starts.append(low)
            result = call()
        finally:
            # Taken first: while an error is pending the simulator ignores
            # every call, unregistering included.
            error = self.runtime.vxCudaTakeError()
            for start in starts:
                self.runtime.mgpuMemHostUnregister(start)
        if error:
            raise SimulationError(error.decode())
        return result


def _load_simulator() -> _Simulator:
    global _simulator
    with _cuda_lock:
        if _simulator is None:
            _simulator = _Simulator()
        return _simulator


def _simulated_copy(path: str, directory: str) -> str:
    """A copy of the CUDA library at `path` in `directory` that binds to the
    PTX simulator: DT_NEEDED names libvx_ptx_sim.so, which the already
    loaded simulator provides by its soname."""
    with open(path, "rb") as source:
        image = bytearray(source.read())
    try:
        _replace_needed(image, CUDA_RUNTIME, PTX_SIM)
    except VxError as error:
        raise VxError(f"{path} cannot be simulated: {error}") from None
    copy = os.path.join(directory, os.path.basename(path))
    with open(copy, "wb") as output:
        output.write(image)
    return copy


def _stream_handle(stream) -> Optional[int]:
    """A CUstream handle from an int, a torch.cuda.Stream (cuda_stream) or
    a cupy Stream (ptr)."""
    if stream is None:
        return None
    for attribute in ("cuda_stream", "ptr"):
        if hasattr(stream, attribute):
            stream = getattr(stream, attribute)
            break
    if not isinstance(stream, numbers.Integral):
        raise TypeError(f"stream must be a CUstream handle (int), a "
                        f"torch.cuda.Stream or a cupy Stream, got "
                        f"{type(stream).__name__}")
    return int(stream)


# What vxCudaPointerDevice returns where the driver does not work.
_NO_WORKING_DRIVER = -2

# The stream values of __cuda_array_interface__ version 3.
_CAI_LEGACY_STREAM, _CAI_PER_THREAD_STREAM = 1, 2
_CU_STREAM_PER_THREAD = 0x2


# -- libraries -----------------------------------------------------------------

class Function:
    """One exported function of a Library; call it with the arguments of its
    signature (see the module's docstring)."""

    def __init__(self, library: "Library", description: Dict[str, Any]):
        self._library = library
        self.name: str = description["name"]
        self.arguments: List[Dict[str, Any]] = description["arguments"]
        self.results: List[Dict[str, Any]] = description["results"]
        self.size_requirements: List[Dict[str, Any]] = description.get(
            "size_requirements", [])
        self._entry = None

    def __repr__(self) -> str:
        types = ", ".join(a["type"] for a in self.arguments)
        results = ", ".join(r["type"] for r in self.results)
        return f"<vx function @{self.name}({types}){' -> ' + results if results else ''}>"

    def _check_count(self, args) -> None:
        if len(args) != len(self.arguments):
            raise TypeError(
                f"@{self.name} takes {len(self.arguments)} arguments "
                f"({', '.join(a['type'] for a in self.arguments)}), got "
                f"{len(args)}")

    def __call__(self, *args, stream=None):
        """Calls the function on `args` (checked first) and returns its
        scalar result or None."""
        return self.bind(*args, stream=stream)()

    def bind(self, *args, stream=None) -> Callable[[], Any]:
        """Checks `args` once and returns a call without arguments that runs
        the function on them, as often as wanted: the launch overhead of
        the compiled code alone (repeated calls, timing loops). The arrays
        must stay alive and unmoved while the bound call is used."""
        self._check_count(args)
        if self._library.target == "cuda" and not self._library.simulated:
            return self._bind_cuda(args, _stream_handle(stream))
        if stream is not None:
            raise TypeError("stream= applies to CUDA libraries only" if
                            self._library.target == "cpu" else
                            "stream= does not apply on the PTX simulator, "
                            "whose launches complete before the call returns")
        return self._bind_cpu(args)

    def _scalar_slot(self, position, value, description):
        return ctypes.c_uint64(_scalar_bits(position, description["type"],
                                            value))

    def _pack(self, slots):
        """The packed argument array over `slots` (ctypes objects), plus a
        result slot when the function has a result."""
        result = ctypes.c_uint64(0)
        pointers = [ctypes.cast(ctypes.pointer(s), ctypes.c_void_p)
                    for s in slots] + [ctypes.cast(ctypes.pointer(result),
                                                   ctypes.c_void_p)]
        return (ctypes.c_void_p * len(pointers))(*[p.value for p in pointers]), result

    def _finish(self, result):
        if not self.results:
            return None
        return _scalar_from_bits(self.results[0]["type"], result.value)

    def _slots(self, args, memref_view):
        """The packed-call slots of `args` and the checked memref views.
        `memref_view(position, value, description)` returns the view of a
        memref argument and the view passed for it (a copy, or itself)."""
        slots, keep, views = [], [], []
        for position, (value, description) in enumerate(zip(args, self.arguments)):
            if description["kind"] == "scalar":
                slots.append(self._scalar_slot(position, value, description))
                continue
            view, passed = memref_view(position, value, description)
            views.append((position, view))
            descriptor = _descriptor(passed, description)
            keep.append((passed.owner, descriptor))
            slots.append(ctypes.c_void_p(ctypes.addressof(descriptor)))
        _check_no_overlap(views)
        self._check_sizes(dict(views))
        return slots, keep, views

    def _check_sizes(self, views: Dict[int, _ArrayView]) -> None:
        """Refuses arrays smaller than the kernel indexes them with: each
        of the function's size requirements (docs/design.md, "Size
        requirements") whose extents are all positive."""
        for requirement in self.size_requirements:
            (argument, dim), (bound, bound_dim) = (requirement["argument"],
                                                   requirement["at_least"])
            size = views[argument].shape[dim]
            needed = views[bound].shape[bound_dim]
            if size >= needed or any(views[a].shape[d] < 1 for a, d in
                                     requirement["when_positive"]):
                continue
            raise ValueError(
                f"argument {argument} has {size} elements along dim {dim}, "
                f"fewer than argument {bound} has along dim {bound_dim} "
                f"({needed}): @{self.name} indexes argument {argument} along "
                f"dim {dim} over the range of argument {bound}'s dim "
                f"{bound_dim}")

    def _bind_cpu(self, args):
        """numpy arrays, in place; on the simulator they are the kernels'
        global memory (registered for each call)."""
        import numpy as np
        copies, passed_views = [], []

        def memref_view(position, value, description):
            value = _host_array(position, value, description)
            view = _numpy_view(position, value, description)
            _check_view(position, view, description)
            if _admits(view, description["strides"]):
                passed_views.append(view)
                return view, view
            copy = np.ascontiguousarray(value)
            passed = _numpy_view(position, copy, description)
            if not _admits(passed, description["strides"]):
                raise TypeError(
                    f"argument {position} is {description['type']}: "
                    f"neither the array's strides {value.strides} nor "
                    f"row-major ones fit its layout")
            copies.append((value, copy))
            passed_views.append(passed)
            return view, passed

        slots, keep, _ = self._slots(args, memref_view)
        packed, result = self._pack(slots)
        entry = self._library._entry(self.name)
        simulator = self._library._simulator

        def run():
            if simulator is None:
                return entry(packed)
            return simulator.run(lambda: entry(packed), passed_views,
                                 self._library.sim_order)

        races = self._library._races

        def call():
            for original, copy in copies:
                copy[...] = original
            if races:
                races.vxRaceTakeReport()  # A stale report is not ours.
            run()
            for original, copy in copies:
                original[...] = copy
            _raise_race(races)
            return self._finish(result)
        call.keep_alive = (slots, keep)   # what `packed` points to
        return call

    def _bind_cuda(self, args, stream):
        runtime = self._library._open()
        launch_stream = stream or 0

        def memref_view(position, value, description):
            view = _cuda_view(position, value, description, stream)
            _check_view(position, view, description)
            if not _admits(view, description["strides"]):
                raise TypeError(
                    f"argument {position} is {description['type']}: its "
                    f"strides {view.strides} do not fit the memref's layout "
                    f"(row-major wanted); pass a contiguous copy")
            return view, view

        slots, keep, views = self._slots(args, memref_view)
        device = runtime.vxCudaDefaultDevice()
        for position, view in views:
            if view.size == 0:
                continue
            owner = runtime.vxCudaPointerDevice(ctypes.c_void_p(view.address))
            if owner == _NO_WORKING_DRIVER:
                _raise_pending(runtime, f"@{self.name}: the CUDA driver does "
                                        f"not work")
                raise CudaError(f"@{self.name}: the CUDA driver does not work")
            if owner < 0:
                error = runtime.vxCudaTakeError()
                raise TypeError(f"argument {position}: its memory is not "
                                f"CUDA device memory ({error.decode() if error else 'unknown'})")
            if owner != device:
                raise ValueError(f"argument {position} is on CUDA device "
                                 f"{owner}; the library's kernels run on "
                                 f"device {device}")
        producers = []
        for position, view in views:
            producer = {_CAI_LEGACY_STREAM: 0,
                        _CAI_PER_THREAD_STREAM: _CU_STREAM_PER_THREAD}.get(
                            view.stream, view.stream)
            if view.stream not in (None, 0) and producer != launch_stream:
                producers.append(producer)
        packed, result = self._pack(slots)
        entry = self._library._entry(self.name)
        synchronize = 1 if stream is None else 0

        def call():
            for producer in producers:
                runtime.vxCudaStreamWaitStream(launch_stream, producer)
            _raise_pending(runtime, f"@{self.name}: could not order the "
                                    f"launch after its arguments' streams")
            runtime.vxCudaSetStream(launch_stream, synchronize)
            try:
                entry(packed)
            finally:
                runtime.vxCudaResetStream()
            _raise_pending(runtime, f"@{self.name} failed")
            return self._finish(result)
        call.keep_alive = (slots, keep)   # what `packed` points to
        return call


class Library:
    """A compiled Vx library: `path`, `target` ("cpu" or "cuda"),
    `metadata`, and one Function per exported function, as an attribute
    (`lib.matmul`) or by `lib.function("matmul")`. `simulated`: its kernels
    run on the PTX simulator (a CUDA library loaded with simulate=True, or
    vx.run's library of ptx_sim=True), in `sim_order` (None: the
    simulator's default)."""

    def __init__(self, path: str, metadata: Dict[str, Any],
                 load_path: Optional[str] = None, simulate: bool = False,
                 sim_order: Optional[str] = None):
        self.path: str = path
        self.metadata: Dict[str, Any] = metadata
        self.target: str = metadata["target"]
        options = metadata.get("options", {})
        self.simulated: bool = simulate or bool(options.get("ptx_sim"))
        self.sim_order: Optional[str] = sim_order or options.get("sim_order")
        self._load_path = load_path or path
        self._handle = None
        self._runtime = None
        self._simulator = None
        self._load_error: Optional[CudaError] = None
        self._races = None
        self._functions = {f["name"]: f for f in metadata["functions"]}
        self._callables: Dict[str, Function] = {}

    def __repr__(self) -> str:
        return f"<vx.Library {self.target} {self.path!r}: {', '.join(self.functions)}>"

    @property
    def report(self) -> List[KernelReport]:
        """What the compiler did with each kernel of a CUDA library (see
        vx.KernelReport; empty for CPU libraries), from the metadata."""
        return [KernelReport.from_json(r) for r in self.metadata.get("report", [])]

    @property
    def diagnostics(self) -> List[Diagnostic]:
        """The warnings and remarks of the compile, from the metadata."""
        return [_diagnostic(d) for d in self.metadata.get("diagnostics", [])]

    @property
    def functions(self) -> List[str]:
        """The names of the functions the library can call."""
        return [name for name, f in self._functions.items()
                if "unsupported" not in f]

    def __dir__(self):
        return list(super().__dir__()) + self.functions

    def function(self, name: str) -> Function:
        """The function @name; ValueError if the library has none,
        TypeError if its signature cannot be called from Python."""
        description = self._functions.get(name)
        if description is None:
            raise ValueError(f"the library has no function @{name}; it has: "
                             f"{', '.join(self.functions) or 'none'}")
        if "unsupported" in description:
            raise TypeError(f"@{name} {description['unsupported']}")
        if name not in self._callables:
            self._callables[name] = Function(self, description)
        return self._callables[name]

    def __getattr__(self, name: str) -> Function:
        if name.startswith("_") or name not in self.__dict__.get("_functions", {}):
            raise AttributeError(name)
        return self.function(name)

    def _open(self):
        """Loads the shared object (for CUDA, the runtime first, then the
        kernels' modules); returns the CUDA runtime, if any."""
        if self._load_error is not None:
            raise self._load_error
        if self._handle is not None:
            return self._runtime
        if self.simulated:
            self._open_simulated()
            return None
        if self.target == "cuda":
            self._runtime = _load_cuda_runtime(os.path.dirname(self._load_path))
        self._handle = ctypes.CDLL(self._load_path)
        if self.metadata.get("options", {}).get("detect_races"):
            self._races = _race_reports(self._handle)
        if self._runtime is not None:
            try:
                _raise_pending(self._runtime, f"could not load the kernels "
                                              f"of {self.path}")
            except CudaError as error:
                # A process loads a library once: later calls fail alike.
                self._load_error = error
                raise
        return self._runtime

    def _open_simulated(self):
        # The simulator first: the library's constructors load the kernels'
        # modules into it, and their errors must come to us.
        self._simulator = _load_simulator()
        if self.target != "cuda":
            self._handle = ctypes.CDLL(self._load_path)
        else:
            # The private copy may go once loaded: the mapping stays.
            directory = tempfile.mkdtemp(prefix="vx-simulated-")
            try:
                self._handle = ctypes.CDLL(
                    _simulated_copy(self._load_path, directory))
            finally:
                shutil.rmtree(directory, ignore_errors=True)
        self._simulator.raise_pending()

    def _entry(self, name: str):
        self._open()
        entry = getattr(self._handle, f"vx_call_{name}")
        if entry.restype is not None:
            entry.argtypes = [ctypes.c_void_p]
            entry.restype = None
        return entry


def load(path: str, simulate: bool = False,
         sim_order: Optional[str] = None) -> Library:
    """Loads the library at `path` (a vx.compile output). For a CUDA library
    this loads its kernels onto the GPU: CudaError where the driver, a GPU
    or a matching binary is missing. With simulate=True the kernels of a
    CUDA library run on the PTX simulator instead, on numpy arrays, in
    `sim_order` ("forward", "reverse", "shuffle" or "shuffle:SEED"; default
    $VX_SIM_ORDER, else forward); what it reports raises SimulationError."""
    path = os.path.abspath(path)
    metadata = read_metadata(path)
    if simulate and metadata["target"] != "cuda":
        raise ValueError(f"simulate=True runs the kernels of a CUDA library "
                         f"on the PTX simulator; {path} is a "
                         f"{metadata['target']!r} library")
    if sim_order is not None and not simulate:
        raise ValueError("sim_order applies only with simulate=True")
    library = Library(path, metadata, simulate=simulate, sim_order=sim_order)
    if simulate:
        _load_simulator().set_order(sim_order)  # Checks the order.
    library._open()
    return library

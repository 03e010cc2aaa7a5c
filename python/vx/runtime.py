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
"""

import ctypes
import numbers
import os
import struct
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import VxError

__all__ = ["CudaError", "Function", "Library", "load", "read_metadata"]

#: The version of the library ABI this module calls (docs/design.md).
ABI_VERSION = 1
#: The ELF section holding a library's metadata.
METADATA_SECTION = "vx_metadata"
#: The runtime that CUDA libraries link, found beside them.
CUDA_RUNTIME = "libvx_cuda_runtime.so"
#: The driver's library.
CUDA_DRIVER = "libcuda.so.1"


class CudaError(VxError):
    """A failure of the CUDA driver: no driver or GPU, a module that does not
    load on this GPU, a failed launch."""


# -- metadata ----------------------------------------------------------------

def _section(path: str, name: str) -> Optional[bytes]:
    """The contents of section `name` of the 64-bit little-endian ELF file
    at `path`, or None if it has none."""
    with open(path, "rb") as elf:
        header = elf.read(64)
        if header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
            raise VxError(f"{path} is not a 64-bit little-endian ELF file")
        section_offset, = struct.unpack_from("<Q", header, 0x28)
        entry_size, count, names_index = struct.unpack_from("<HHH", header, 0x3A)
        elf.seek(section_offset)
        table = elf.read(entry_size * count)

        def entry(index):
            _name, _type, _flags, _address, offset, size = struct.unpack_from(
                "<IIQQQQ", table, index * entry_size)
            return _name, offset, size

        _, names_offset, names_size = entry(names_index)
        elf.seek(names_offset)
        names = elf.read(names_size)
        wanted = name.encode()
        for index in range(count):
            name_offset, offset, size = entry(index)
            if names[name_offset:names.index(b"\0", name_offset)] == wanted:
                elf.seek(offset)
                return elf.read(size)
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


def _numpy_view(position: int, array, description) -> _ArrayView:
    import numpy as np
    if not isinstance(array, np.ndarray):
        raise TypeError(f"argument {position} is {description['type']}: "
                        f"expected a numpy array, got {type(array).__name__}")
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
        _cuda_runtime = runtime
        return runtime


def _raise_pending(runtime, what: str) -> None:
    error = runtime.vxCudaTakeError()
    if error:
        raise CudaError(f"{what}: {error.decode()}")


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
        if self._library.target == "cuda":
            return self._bind_cuda(args, _stream_handle(stream))
        if stream is not None:
            raise TypeError("stream= applies to CUDA libraries only")
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
        return slots, keep, views

    def _bind_cpu(self, args):
        import numpy as np
        copies = []

        def memref_view(position, value, description):
            view = _numpy_view(position, value, description)
            _check_view(position, view, description)
            if _admits(view, description["strides"]):
                return view, view
            copy = np.ascontiguousarray(value)
            passed = _numpy_view(position, copy, description)
            if not _admits(passed, description["strides"]):
                raise TypeError(
                    f"argument {position} is {description['type']}: "
                    f"neither the array's strides {value.strides} nor "
                    f"row-major ones fit its layout")
            copies.append((value, copy))
            return view, passed

        slots, keep, _ = self._slots(args, memref_view)
        packed, result = self._pack(slots)
        entry = self._library._entry(self.name)

        races = self._library._races

        def call():
            for original, copy in copies:
                copy[...] = original
            if races:
                races.vxRaceTakeReport()  # A stale report is not ours.
            entry(packed)
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
    (`lib.matmul`) or by `lib.function("matmul")`."""

    def __init__(self, path: str, metadata: Dict[str, Any],
                 load_path: Optional[str] = None):
        self.path: str = path
        self.metadata: Dict[str, Any] = metadata
        self.target: str = metadata["target"]
        self._load_path = load_path or path
        self._handle = None
        self._runtime = None
        self._races = None
        self._functions = {f["name"]: f for f in metadata["functions"]}
        self._callables: Dict[str, Function] = {}

    def __repr__(self) -> str:
        return f"<vx.Library {self.target} {self.path!r}: {', '.join(self.functions)}>"

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
        if self._handle is not None:
            return self._runtime
        if self.target == "cuda":
            self._runtime = _load_cuda_runtime(os.path.dirname(self._load_path))
        self._handle = ctypes.CDLL(self._load_path)
        if self.metadata.get("options", {}).get("detect_races"):
            self._races = _race_reports(self._handle)
        if self._runtime is not None:
            _raise_pending(self._runtime, f"could not load the kernels of "
                                          f"{self.path}")
        return self._runtime

    def _entry(self, name: str):
        self._open()
        entry = getattr(self._handle, f"vx_call_{name}")
        if entry.restype is not None:
            entry.argtypes = [ctypes.c_void_p]
            entry.restype = None
        return entry


def load(path: str) -> Library:
    """Loads the library at `path` (a vx.compile output). For a CUDA library
    this loads its kernels onto the GPU: CudaError where the driver, a GPU
    or a matching binary is missing."""
    path = os.path.abspath(path)
    library = Library(path, read_metadata(path))
    library._open()
    return library

"""Vx from Python: parse vx IR, lower it stage by stage, read the launch
geometry and the PTX, and run kernels on the CPU on numpy arrays.

    import vx
    m = vx.parse(text)                 # a vx.Module at stage "vx"
    g = m.lower("gpu")                 # a new Module; m is unchanged
    g.launches()                       # [vx.Launch(kernel, grid, block)]
    m.ptx(chip="sm_90")                # {device module name: PTX text}
    vx.run(m, "fn", *args)             # CPU execution through --vx-to-llvm

Keyword options are the options of the stage's vx-opt pipeline with `_` for
`-`: `m.lower("ptx", chip="sm_100a", threads_per_block=128)` runs
`--vx-to-ptx="chip=sm_100a threads-per-block=128"`.
"""

import ctypes
import numbers
import os
import struct
from typing import NamedTuple, Optional, Tuple

import numpy as np

from . import _vx
from ._config import LLVM_LIBRARY_DIR as _LLVM_LIBRARY_DIR
from ._config import VX_RACE_RUNTIME as _VX_RACE_RUNTIME
from ._overlap import find_overlap as _find_overlap

__all__ = ["STAGES", "Diagnostic", "Launch", "Module", "VxError", "parse",
           "pipeline", "run"]

#: The stages of a module, from the vx input to the CPU path's LLVM dialect.
STAGES = tuple(_vx.stages())

class Diagnostic(NamedTuple):
    """One diagnostic of a parse, verification or pass run."""
    severity: str   # "error", "warning", "remark" or "note"
    message: str
    location: str   # "file:line:col" where the IR has one

    def __str__(self):
        return f"{self.location}: {self.severity}: {self.message}"


class VxError(Exception):
    """A parse, verification, pipeline or JIT failure, with every diagnostic
    that the failing step reported (`diagnostics`, a list of Diagnostic)."""

    def __init__(self, summary, diagnostics=()):
        self.summary = summary
        self.diagnostics = [Diagnostic(*d) for d in diagnostics]
        # Multi-line messages (an op dump in a "see current operation" note)
        # stay whole in `diagnostics`; the message shows their first line.
        lines = [summary] + ["  " + str(d).split("\n")[0] for d in self.diagnostics]
        super().__init__("\n".join(lines))


class Launch(NamedTuple):
    """One gpu.launch_func: the kernel's name and its grid and block sizes,
    (x, y, z) with an int where static and None where dynamic."""
    kernel: str
    grid: Tuple[Optional[int], Optional[int], Optional[int]]
    block: Tuple[Optional[int], Optional[int], Optional[int]]


def _check_stage(stage):
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; the stages are "
                         f"{', '.join(STAGES)}")


def _option_text(stage, options):
    """The pipeline-option text of keyword options, checked by name and
    type."""
    known = _vx.stage_options(stage)
    entries = []
    for key, value in options.items():
        name = key.replace("_", "-")
        if name not in known:
            valid = ", ".join(n.replace("-", "_") for n in known) or "none"
            raise TypeError(f"stage {stage!r} has no option {key!r}; its "
                            f"options are: {valid}")
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, numbers.Integral):
            text = str(int(value))
        elif isinstance(value, str):
            text = value
        else:
            raise TypeError(f"option {key!r} must be a bool, an int or a str, "
                            f"got {type(value).__name__}")
        if not text or any(c in text for c in " {}="):
            raise ValueError(f"option {key!r}: invalid value {value!r}")
        entries.append(f"{name}={text}")
    return " ".join(entries)


def pipeline(stage, **options):
    """The textual pass pipeline (for `vx-opt --pass-pipeline=`) that takes
    vx input to `stage` with `options`."""
    _check_stage(stage)
    return _vx.stage_pipeline(stage, _option_text(stage, options))


def parse(text, filename="<string>"):
    """Parses and verifies vx IR; raises VxError with the diagnostics."""
    if not isinstance(text, str):
        raise TypeError(f"vx.parse takes the IR as a str, got "
                        f"{type(text).__name__}")
    return Module(_vx.parse(text, filename), "vx")


class Module:
    """A module at one of STAGES. Lowering returns a new Module; a Module is
    never changed in place."""

    def __init__(self, native, stage, diagnostics=()):
        self._native = native
        self._stage = stage
        self._diagnostics = [Diagnostic(*d) for d in diagnostics]

    @property
    def stage(self):
        """The stage this module is at."""
        return self._stage

    @property
    def diagnostics(self):
        """The warnings and remarks of the lowering that made this module."""
        return list(self._diagnostics)

    def __str__(self):
        return str(self._native)

    def __repr__(self):
        return f"<vx.Module at stage {self._stage!r}>"

    def verify(self):
        """Verifies the module; raises VxError with the diagnostics."""
        self._native.verify()

    def lower(self, stage, **options):
        """A new Module at `stage`, by the stage's pipeline with `options`."""
        _check_stage(stage)
        later = _vx.later_stages(self._stage)
        if stage not in later:
            raise ValueError(f"a module at stage {self._stage!r} cannot be "
                             f"lowered to {stage!r}; from {self._stage!r} the "
                             f"stages are: {', '.join(later) or 'none'}")
        native, diagnostics = self._native.run_pipeline(pipeline(stage, **options))
        return Module(native, stage, diagnostics)

    def launches(self, **options):
        """The gpu.launch_func ops as vx.Launch, in program order. A module at
        stage "vx" is first lowered to "gpu" with `options`; the CPU stages
        have no launches."""
        module = self
        if self._stage == "vx":
            module = self.lower("gpu", **options)
        elif options:
            raise TypeError("options apply only to a module at stage 'vx'")
        return [Launch(kernel, tuple(grid), tuple(block))
                for kernel, grid, block in module._native.launches()]

    def ptx(self, **options):
        """{device module name: PTX text}. A module before stage "ptx" is
        first lowered to it (format=isa) with `options`."""
        module = self
        if self._stage != "ptx":
            if options.get("format", "isa") != "isa":
                raise ValueError("ptx() produces PTX: format must be 'isa'")
            module = self.lower("ptx", **dict(options, format="isa"))
        elif options:
            raise TypeError("options apply only to a module before stage "
                            "'ptx'")
        result = {}
        for name, _target, kind, data in module._native.binaries():
            if kind != "assembly":
                raise ValueError(f"device module {name!r} holds a {kind!r} "
                                 f"object, not PTX; lower with format='isa'")
            result[name] = data.decode()
        return result


# Element types of memref arguments and the numpy dtypes that hold them.
_MEMREF_DTYPES = {
    "f16": (np.float16,), "f32": (np.float32,), "f64": (np.float64,),
    "i1": (np.bool_,), "i8": (np.int8, np.uint8), "i16": (np.int16, np.uint16),
    "i32": (np.int32, np.uint32), "i64": (np.int64, np.uint64),
    "index": (np.int64,),
}
_FLOAT_FORMATS = {"f16": "<e", "f32": "<f", "f64": "<d"}


def _integer_width(type_text):
    if type_text == "index":
        return 64
    if type_text.startswith("i") and type_text[1:].isdigit():
        width = int(type_text[1:])
        return width if 1 <= width <= 64 else None
    return None


def _scalar_bits(position, type_text, value):
    if type_text in _FLOAT_FORMATS:
        if not isinstance(value, numbers.Real):
            raise TypeError(f"argument {position} is {type_text}: expected a "
                            f"number, got {type(value).__name__}")
        packed = struct.pack(_FLOAT_FORMATS[type_text], float(value))
        return int.from_bytes(packed, "little")
    width = _integer_width(type_text)
    if width is None:
        raise TypeError(f"argument {position} has type {type_text}, which "
                        f"vx.run cannot pass")
    if not isinstance(value, numbers.Integral):
        raise TypeError(f"argument {position} is {type_text}: expected an "
                        f"int, got {type(value).__name__}")
    value = int(value)
    lowest = 0 if width == 1 else -(1 << (width - 1))
    if not lowest <= value < (1 << width):
        raise OverflowError(f"argument {position}: {value} does not fit "
                            f"{type_text}")
    return value & ((1 << width) - 1)


def _scalar_from_bits(type_text, bits):
    if type_text in _FLOAT_FORMATS:
        size = struct.calcsize(_FLOAT_FORMATS[type_text])
        return struct.unpack(_FLOAT_FORMATS[type_text],
                             (bits & ((1 << (8 * size)) - 1)).to_bytes(size, "little"))[0]
    width = _integer_width(type_text)
    bits &= (1 << width) - 1
    if width == 1:
        return bool(bits)
    return bits - (1 << width) if bits >> (width - 1) else bits


def _row_major_strides(shape):
    strides, stride = [], 1
    for size in reversed(shape):
        strides.append(stride)
        stride *= size
    return list(reversed(strides))


def _memref_argument(position, array, description):
    """("memref", array, offset) for the call and the (original, copy) pair
    to copy back, or None. Strides are passed as they are when the memref's
    layout admits them (any strides for a dynamic strided layout, the
    row-major ones for the identity layout); otherwise the data is copied
    into a row-major buffer for the call and back afterwards, so the
    update is still in place."""
    _, type_text, element, shape, layout_strides, offset = description
    if not isinstance(array, np.ndarray):
        raise TypeError(f"argument {position} is {type_text}: expected a "
                        f"numpy array, got {type(array).__name__}")
    dtypes = _MEMREF_DTYPES.get(element)
    if dtypes is None:
        raise TypeError(f"argument {position} is {type_text}: vx.run cannot "
                        f"pass memrefs of {element}")
    if array.dtype.type not in dtypes:
        raise TypeError(f"argument {position} is {type_text}: expected a "
                        f"{np.dtype(dtypes[0]).name} array, got {array.dtype.name}")
    if array.ndim != len(shape) or any(
            size is not None and size != actual
            for size, actual in zip(shape, array.shape)):
        raise TypeError(f"argument {position} is {type_text}: got an array of "
                        f"shape {array.shape}")
    if not array.flags.writeable:
        raise TypeError(f"argument {position}: the array is read-only; "
                        f"vx.run passes arrays to be updated in place")

    def admitted(candidate):
        if any(s % candidate.itemsize for s in candidate.strides):
            return False
        strides = [s // candidate.itemsize for s in candidate.strides]
        wanted = layout_strides or _row_major_strides(candidate.shape)
        return candidate.size == 0 or all(
            want is None or want == have or size == 1
            for want, have, size in zip(wanted, strides, candidate.shape))

    call_offset = offset or 0
    if admitted(array):
        return ("memref", array, call_offset), None
    copy = np.ascontiguousarray(array)
    if not admitted(copy):
        raise TypeError(f"argument {position} is {type_text}: neither the "
                        f"array's strides {array.strides} nor row-major ones "
                        f"fit its layout")
    return ("memref", copy, call_offset), (array, copy)


def _shared_libraries(openmp, detect_races):
    names = ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so"]
    if openmp:
        names.append("libomp.so")
    paths = [os.path.join(_LLVM_LIBRARY_DIR, name) for name in names]
    if detect_races:
        paths.append(_VX_RACE_RUNTIME)
    return [path for path in paths if os.path.exists(path)]


_race_runtime = None


def _race_detector():
    """The race detector's runtime, set to record the first race instead of
    ending the process (vx.run raises it as a VxError)."""
    global _race_runtime
    if _race_runtime is None:
        if not os.path.exists(_VX_RACE_RUNTIME):
            raise VxError(f"detect_races needs {_VX_RACE_RUNTIME}, which is "
                          f"not built")
        runtime = ctypes.CDLL(_VX_RACE_RUNTIME)
        runtime.vxRaceSetMode.argtypes = [ctypes.c_int]
        runtime.vxRaceTakeReport.restype = ctypes.c_char_p
        runtime.vxRaceSetMode(1)
        _race_runtime = runtime
    return _race_runtime


def run(module, fn, *args, **options):
    """Runs func.func @fn of `module` on the CPU through --vx-to-llvm with
    `options` (openmp, reverse_parallel, via_gpu, threads_per_block,
    allow_races, detect_races). numpy arrays are passed as memrefs and updated
    in place; ints and floats as scalars. Arrays that overlap each other or
    themselves are refused (distinct memref arguments do not alias). With
    detect_races=True a data race raises VxError naming the buffer, the
    element and both instances. Returns the function's scalar result, or
    None."""
    if not isinstance(module, Module):
        raise TypeError(f"vx.run takes a vx.Module, got {type(module).__name__}")
    if module.stage not in ("vx", "scf"):
        raise ValueError(f"a module at stage {module.stage!r} cannot be run; "
                         f"run the vx module (via_gpu=True runs the GPU "
                         f"mapping on the CPU)")
    lowering = pipeline("llvm", **options)
    parameters, results = module._native.signature(fn)
    if len(results) > 1 or any(r[0] != "scalar" for r in results):
        raise TypeError(f"@{fn} returns {', '.join(r[1] for r in results)}: "
                        f"vx.run takes functions with no result or one scalar")
    if len(args) != len(parameters):
        raise TypeError(f"@{fn} takes {len(parameters)} arguments "
                        f"({', '.join(p[1] for p in parameters)}), got {len(args)}")
    arrays = [(position, value) for position, (value, description)
              in enumerate(zip(args, parameters))
              if description[0] == "memref" and isinstance(value, np.ndarray)]
    overlap = _find_overlap(arrays)
    if overlap:
        first, second = overlap
        what = (f"argument {first} overlaps itself" if first == second else
                f"arguments {first} and {second} share memory")
        raise VxError(f"@{fn}: {what}; distinct memref arguments must not "
                      f"overlap")
    call_arguments, copies = [], []
    for position, (value, description) in enumerate(zip(args, parameters)):
        if description[0] == "memref":
            argument, copy = _memref_argument(position, value, description)
            call_arguments.append(argument)
            if copy:
                copies.append(copy)
        elif description[0] == "scalar":
            call_arguments.append(
                ("scalar", _scalar_bits(position, description[1], value)))
        else:
            raise TypeError(f"argument {position} has type {description[1]}, "
                            f"which vx.run cannot pass")
    detect_races = options.get("detect_races", False)
    if detect_races:
        _race_detector().vxRaceTakeReport()  # A stale report is not ours.
    bits = module._native.execute(
        fn, lowering, call_arguments,
        _shared_libraries(options.get("openmp", False), detect_races))
    for original, copy in copies:
        original[...] = copy
    if detect_races:
        report = _race_detector().vxRaceTakeReport()
        if report:
            raise VxError(report.decode())
    return None if bits is None else _scalar_from_bits(results[0][1], bits)

"""Kernels written in Python: `@vx.kernel` (VX_SPEC 4.1).

    @vx.kernel
    def softmax(x, y):
        rows, cols = x.shape
        with vx.spawn(grid=[rows], semantics=[vx.parallel], threads=128) as (r,):
            m = vx.thread_reduce(cols, "max", init=-math.inf, body=lambda t: x[r, t])
            ...

A tracer: calling the kernel runs the function once per specialization (the
arguments' dtypes and shapes, the `vx.Const` values), with arrays standing
for memrefs and numbers for scalars; every operation on them appends an op
to vx IR text, each with the Python line it came from as its location
(`loc("file.py":line:col)`, a `callsite` through helper functions). The text
then takes the path of hand-written IR: `vx.parse`, the pipelines, the
compile cache, `vx.runtime`. Python control flow runs at trace time; the
constructs of this module are the run-time control flow.

Pure Python: nothing here needs MLIR bindings, and the compiler half
(`vx._compiler`) is imported on the first call.

Arithmetic on traced values follows numpy's promotion with "weak" Python
scalars (NEP 50): a Python number takes the type of the traced operand
(except a float with an integer operand: f32); two traced operands meet at
the wider type of their kind, f16 with bf16 at f32, an integer with a float
at the float, `index` with a fixed-width integer at `index`, i1 with
anything at the other. `/` of integers is f32, `//` and `%` are Python's
floor division and modulo.
"""

import functools
import inspect
import linecache
import math
import os
import re
import struct
import sys
import threading
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import VxError

__all__ = [
    "Const", "DType", "Kernel", "Ref", "Scalar", "Token", "TraceError",
    "arbitrary", "bf16", "copy_async", "exp", "exp2", "f16", "f32", "f64",
    "fori", "grid_dim", "i1", "i8", "i16", "i32", "i64", "index", "kernel",
    "log", "matmul", "maximum", "minimum", "otherwise", "parallel", "range",
    "scratch", "spawn", "sqrt", "thread_reduce", "threads", "when", "where",
]

_builtin_range = range

#: A kernel warns after this many specializations.
SPECIALIZATION_WARNING = 8


class TraceError(VxError):
    """What the tracer cannot turn into vx IR, reported at the user's line:
    `file.py:LINE: message`, then the line and a caret."""

    def __init__(self, message: str):
        super().__init__(message)


# -- dtypes --------------------------------------------------------------------

class DType:
    """A scalar type of vx IR. `vx.f32(1.5)` inside a kernel is a constant of
    the type; as a parameter annotation (`a: vx.f64`) it types a scalar
    argument."""

    def __init__(self, name: str, kind: str, bits: int, numpy: Sequence[str]):
        self.name = name    # the MLIR spelling
        self.kind = kind    # "f" float, "i" integer, "index", "b" i1
        self.bits = bits
        self.numpy = tuple(numpy)

    def __repr__(self) -> str:
        return f"vx.{self.name}"

    def __call__(self, value) -> "Scalar":
        return _cast(_as_scalar(value, self), self)

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.kind in ("i", "index")


f64 = DType("f64", "f", 64, ["float64"])
f32 = DType("f32", "f", 32, ["float32"])
f16 = DType("f16", "f", 16, ["float16"])
bf16 = DType("bf16", "f", 16, ["bfloat16"])
i64 = DType("i64", "i", 64, ["int64", "uint64"])
i32 = DType("i32", "i", 32, ["int32", "uint32"])
i16 = DType("i16", "i", 16, ["int16", "uint16"])
i8 = DType("i8", "i", 8, ["int8", "uint8"])
i1 = DType("i1", "b", 1, ["bool"])
index = DType("index", "index", 64, [])

_DTYPES = (f64, f32, f16, bf16, i64, i32, i16, i8, i1)
_BY_NUMPY = {name: dtype for dtype in _DTYPES for name in dtype.numpy}

#: The grid dimension semantics (`semantics=[vx.parallel, vx.arbitrary]`).
parallel = "parallel"
arbitrary = "arbitrary"


class Const:
    """A parameter baked into the IR: its value is part of the
    specialization, so a new value traces again. Either the argument
    (`k(x, vx.Const(4))`) or the parameter's annotation (`def k(x, n:
    vx.Const)`)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self) -> str:
        return f"vx.Const({self.value!r})"

    def __eq__(self, other):
        return isinstance(other, Const) and _const_key(self.value) == \
            _const_key(other.value)

    def __hash__(self):
        return hash(_const_key(self.value))


def _const_key(value):
    try:
        hash(value)
        return (type(value), value)
    except TypeError:
        return (type(value), repr(value))


# -- source locations ----------------------------------------------------------

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_internal_files: Dict[str, bool] = {}
_positions: Dict[Any, list] = {}


def _is_internal(filename: str) -> bool:
    internal = _internal_files.get(filename)
    if internal is None:
        internal = os.path.dirname(os.path.abspath(filename)) == _PACKAGE
        _internal_files[filename] = internal
    return internal


def _position(frame) -> Tuple[str, int, int]:
    """(file, line, 1-based column) of the instruction a frame is at."""
    code = frame.f_code
    positions = _positions.get(code)
    if positions is None:
        positions = _positions[code] = list(code.co_positions())
    line, _end, column, _end_column = positions[frame.f_lasti // 2]
    if line is None:
        line, column = frame.f_lineno, 0
    return code.co_filename, line, (column or 0) + 1


def _user_positions() -> List[Tuple[str, int, int]]:
    """The user's frames from the innermost out to the kernel's, as
    positions, with consecutive ones on the same line (a lambda on the line
    that passes it) merged."""
    trace = _current()
    frame = sys._getframe(1)
    result = []
    while frame is not None:
        code = frame.f_code
        if not _is_internal(code.co_filename):
            position = _position(frame)
            if not result or result[-1][:2] != position[:2]:
                result.append(position)
            if trace is None or code is trace.code:
                break
        frame = frame.f_back
    if trace is not None:
        trace.files.update(position[0] for position in result)
    return result


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _location_text(positions) -> str:
    if not positions:
        return "loc(unknown)"

    def one(position):
        filename, line, column = position
        return f"{_quote(filename)}:{line}:{column}"

    text = one(positions[-1])
    for position in reversed(positions[:-1]):
        text = f"callsite({one(position)} at {text})"
    return f"loc({text})"


def _source_excerpt(filename: str, line: int, column: int) -> str:
    """The source line, dedented, and a caret under `column`."""
    source = linecache.getline(filename, line).rstrip("\n")
    if not source.strip():
        return ""
    indent = len(source) - len(source.lstrip())
    caret = max(column - 1 - indent, 0)
    return f"\n    {source.strip()}\n    {' ' * caret}^"


def _at(positions, message: str) -> str:
    """`file:line: message`, the source line and a caret, and the callers."""
    if not positions:
        return message
    filename, line, column = positions[0]
    text = f"{filename}:{line}: {message}{_source_excerpt(filename, line, column)}"
    for filename, line, _column in positions[1:]:
        text += f"\n  called from {filename}:{line}"
    return text


def _error(message: str) -> TraceError:
    return TraceError(_at(_user_positions(), message))


# -- the trace -----------------------------------------------------------------

class _Region:
    """A region being traced: its lines (strings, or nested _Op nodes) and
    the constants defined in it (reused by later ops of the region and of
    regions inside it)."""

    def __init__(self, kind: str, parent: Optional["_Region"], op=None):
        self.kind = kind
        self.parent = parent
        self.op = op
        self.items: List[Any] = []
        self.constants: Dict[Tuple[str, str], "Scalar"] = {}

    def encloses(self, other: "_Region") -> bool:
        while other is not None:
            if other is self:
                return True
            other = other.parent
        return False


class _Op:
    """An op with regions: `header {` region `} else {` region `} tail loc`."""

    def __init__(self, header: str, location: str, positions):
        self.header = header
        self.location = location
        self.positions = positions
        self.regions: List[_Region] = []
        self.tail = ""


class _Spawn:
    def __init__(self, rank: int):
        self.rank = rank
        self.body: Optional[_Region] = None
        self.index_names: List[Optional[str]] = [None] * rank


class _Trace:
    """The IR text of one specialization, while the function runs."""

    def __init__(self, code):
        self.code = code
        self.counter = 0
        self.root = _Region("func", None)
        self.region = self.root
        self.spawn: Optional[_Spawn] = None
        self.spawns: List[_Spawn] = []
        self.argument_names: List[str] = []
        self.files = {code.co_filename}   # of every location in the IR

    def fresh(self) -> str:
        self.counter += 1
        return f"%{self.counter}"

    def emit(self, text: str, positions=None) -> None:
        if positions is None:
            positions = _user_positions()
        self.region.items.append(f"{text} {_location_text(positions)}")

    def open(self, header: str, kind: str) -> _Op:
        positions = _user_positions()
        op = _Op(header, _location_text(positions), positions)
        self.region.items.append(op)
        self.enter(op, kind)
        return op

    def enter(self, op: _Op, kind: str) -> _Region:
        region = _Region(kind, self.region, op)
        op.regions.append(region)
        self.region = region
        return region

    def leave(self) -> None:
        self.region = self.region.parent

    def render(self, items, depth: int, out: List[str]) -> None:
        indent = "  " * depth
        for item in items:
            if isinstance(item, str):
                out.append(indent + item)
                continue
            if isinstance(item, list):   # ops spliced in before a later one
                self.render(item, depth, out)
                continue
            out.append(f"{indent}{item.header} {{")
            for number, region in enumerate(item.regions):
                if number:
                    out.append(f"{indent}}} else {{")
                self.render(region.items, depth + 1, out)
            out.append(f"{indent}}}{item.tail} {item.location}")


class _Tracing(threading.local):
    """The traces under way in this thread (a kernel traced while another
    is: one per level)."""

    def __init__(self):
        self.stack: List[_Trace] = []


_tracing = _Tracing()


def _current() -> Optional[_Trace]:
    stack = _tracing.stack
    return stack[-1] if stack else None


def _trace() -> _Trace:
    trace = _current()
    if trace is None:
        raise TraceError(_at(_user_positions(), "vx kernel constructs work "
                             "only inside a function decorated with "
                             "@vx.kernel, while it is traced"))
    return trace


# -- traced values -------------------------------------------------------------

class Scalar:
    """A run-time scalar of the kernel: an SSA value of a scalar type.
    Arithmetic and comparisons on it append ops; it cannot be a Python bool
    (use `vx.when`), an int or a float."""

    __slots__ = ("name", "dtype", "region", "offset")

    def __init__(self, name: str, dtype: DType, region: _Region, offset=None):
        self.name = name
        self.dtype = dtype
        self.region = region
        # (base SSA name, int): this index value is the base plus a
        # constant, which gives slices `a:a + 64` their static size.
        self.offset = offset if offset is not None else (name, 0)

    def __repr__(self) -> str:
        return f"<vx traced {self.dtype.name} {self.name}>"

    def astype(self, dtype: DType) -> "Scalar":
        """This value converted to `dtype` (numpy's astype: floats to integers
        truncate toward zero, i1 is 0 or 1)."""
        if not isinstance(dtype, DType):
            raise _error(f"astype takes a vx dtype (vx.f32, vx.i32, ...), "
                         f"got {dtype!r}")
        return _cast(_use(self), dtype)

    def __add__(self, other): return _arith("add", self, other)
    def __radd__(self, other): return _arith("add", other, self)
    def __sub__(self, other): return _arith("sub", self, other)
    def __rsub__(self, other): return _arith("sub", other, self)
    def __mul__(self, other): return _arith("mul", self, other)
    def __rmul__(self, other): return _arith("mul", other, self)
    def __truediv__(self, other): return _arith("truediv", self, other)
    def __rtruediv__(self, other): return _arith("truediv", other, self)
    def __floordiv__(self, other): return _arith("floordiv", self, other)
    def __rfloordiv__(self, other): return _arith("floordiv", other, self)
    def __mod__(self, other): return _arith("mod", self, other)
    def __rmod__(self, other): return _arith("mod", other, self)
    def __and__(self, other): return _arith("and", self, other)
    def __rand__(self, other): return _arith("and", other, self)
    def __or__(self, other): return _arith("or", self, other)
    def __ror__(self, other): return _arith("or", other, self)
    def __xor__(self, other): return _arith("xor", self, other)
    def __rxor__(self, other): return _arith("xor", other, self)
    def __lt__(self, other): return _compare("lt", self, other)
    def __le__(self, other): return _compare("le", self, other)
    def __gt__(self, other): return _compare("gt", self, other)
    def __ge__(self, other): return _compare("ge", self, other)
    def __eq__(self, other): return _compare("eq", self, other)
    def __ne__(self, other): return _compare("ne", self, other)
    __hash__ = object.__hash__

    def __neg__(self):
        value = _use(self)
        if value.dtype.is_float:
            return _op1("arith.negf", value, value.dtype)
        return _arith("sub", 0, value)

    def __invert__(self):
        if self.dtype.kind != "b":
            raise _error(f"~ applies to i1 conditions, not {self.dtype.name}")
        return _arith("xor", self, True)

    def __abs__(self):
        value = _use(self)
        name = "math.absf" if value.dtype.is_float else "math.absi"
        return _op1(name, value, value.dtype)

    def __pow__(self, exponent):
        if not isinstance(exponent, int) or isinstance(exponent, bool) \
                or not 1 <= exponent <= 16:
            raise _error("** takes a Python int exponent from 1 to 16; "
                         "use vx.exp / vx.log for others")
        result = self
        for _ in _builtin_range(exponent - 1):
            result = result * self
        return result

    def __bool__(self):
        raise _error(f"a traced value ({self.dtype.name}, known only when "
                     f"the kernel runs) is used as a Python bool: Python "
                     f"`if`/`while`/`and`/`or` run at trace time; use `with "
                     f"vx.when(cond):` (and `vx.otherwise()`) or "
                     f"vx.where(cond, a, b)")

    def __index__(self):
        raise _error(f"a traced value ({self.dtype.name}) is used as a Python "
                     f"int (range(), a list index, a shape): use vx.range / "
                     f"vx.threads for run-time loop bounds")

    def __int__(self):
        return self.__index__()

    def __float__(self):
        raise _error(f"a traced value ({self.dtype.name}) is used as a Python "
                     f"float: math.* functions run at trace time; use vx.exp, "
                     f"vx.log, vx.sqrt, ... on traced values")

    def __iter__(self):
        raise _error(f"a traced {self.dtype.name} scalar is not iterable")


def _use(value: Scalar) -> Scalar:
    """`value`, checked to be visible where ops are appended now."""
    trace = _trace()
    if not value.region.encloses(trace.region):
        kind = value.region.kind
        raise _error(f"a value computed inside a {kind} region is used "
                     f"outside it (traced values do not leave vx.range / "
                     f"vx.threads / vx.when bodies): carry it out with "
                     f"vx.fori or vx.thread_reduce, or store it to a scratch")
    return value


def _new(dtype: DType, offset=None) -> Scalar:
    trace = _trace()
    return Scalar(trace.fresh(), dtype, trace.region, offset)


def _float_literal(value: float, dtype: DType) -> str:
    if math.isfinite(value):
        if dtype in (f32, f64) or abs(value) < 65504:
            return repr(float(value))
    if dtype is f64:
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
    if dtype is f16:
        if math.isfinite(value) and abs(value) > 65504:   # rounds to inf
            value = math.copysign(math.inf, value)
        return "0x%04X" % struct.unpack("<H", struct.pack("<e", value))[0]
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if dtype is bf16:
        return "0x%04X" % (bits >> 16)
    return "0x%08X" % bits


def _constant(value, dtype: DType) -> Scalar:
    """The constant `value` of `dtype`, reused within its region."""
    trace = _trace()
    if dtype.is_float:
        literal = _float_literal(float(value), dtype)
    elif dtype.kind == "b":
        literal = "true" if value else "false"
    else:
        value = int(value)
        if dtype.kind == "i":
            low, high = -(1 << (dtype.bits - 1)), 1 << dtype.bits
            if not low <= value < high:
                raise _error(f"{value} does not fit {dtype.name}")
        literal = str(value)
    key = (literal, dtype.name)
    region = trace.region
    while region is not None:
        found = region.constants.get(key)
        if found is not None:
            return found
        region = region.parent
    result = _new(dtype)
    if dtype.is_integer:
        result.offset = ("", value)
    # An i1 literal (true/false) carries its type.
    typed = literal if dtype.kind == "b" else f"{literal} : {dtype.name}"
    trace.emit(f"{result.name} = arith.constant {typed}")
    trace.region.constants[key] = result
    return result


def _python_dtype(value) -> Optional[DType]:
    if isinstance(value, bool):
        return i1
    if isinstance(value, int):
        return index
    if isinstance(value, float):
        return f32
    return None


def _is_number(value) -> bool:
    return isinstance(value, (bool, int, float))


def _as_scalar(value, dtype: Optional[DType] = None) -> Scalar:
    """A traced value, or a Python number as a constant (of `dtype`, else
    of its default type)."""
    if isinstance(value, Scalar):
        return _use(value)
    if _is_number(value):
        if dtype is None or (isinstance(value, float) and not dtype.is_float):
            dtype = _python_dtype(value)
        return _constant(value, dtype)
    if isinstance(value, Ref):
        raise _error(f"a whole array ({value.type}) is used as a scalar: "
                     f"index it (ref[i, j])")
    raise _error(f"cannot use a {type(value).__name__} as a value in a "
                 f"kernel: use traced values, Python numbers, or a vx.Const")


def _join(a: DType, b: DType) -> DType:
    """The common type of two traced operands (the module docstring)."""
    if a is b:
        return a
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    if a.is_float and b.is_float:
        if a.bits == b.bits:
            return f32   # f16 with bf16
        return a if a.bits > b.bits else b
    if a.is_float:
        return a
    if b.is_float:
        return b
    if index in (a, b):
        return index
    return a if a.bits > b.bits else b


def _operands(x, y) -> Tuple[Scalar, Scalar, DType]:
    """Both operands as traced values of their common type."""
    if isinstance(x, Scalar) and isinstance(y, Scalar):
        dtype = _join(x.dtype, y.dtype)
    elif isinstance(x, Scalar) or isinstance(y, Scalar):
        traced, other = (x, y) if isinstance(x, Scalar) else (y, x)
        if not _is_number(other):
            _as_scalar(other)  # raises the error that names its type
        dtype = traced.dtype
        if isinstance(other, float) and not dtype.is_float:
            dtype = f32
        elif isinstance(other, int) and not isinstance(other, bool) \
                and dtype.kind == "b":
            dtype = index
    else:
        raise _error("no traced operand")
    return _cast(_as_scalar(x, dtype), dtype), _cast(_as_scalar(y, dtype), dtype), dtype


def _op1(name: str, value: Scalar, dtype: DType) -> Scalar:
    result = _new(dtype)
    _trace().emit(f"{result.name} = {name} {value.name} : {dtype.name}")
    return result


def _op2(name: str, a: Scalar, b: Scalar, dtype: DType, offset=None) -> Scalar:
    result = _new(dtype, offset)
    _trace().emit(f"{result.name} = {name} {a.name}, {b.name} : {a.dtype.name}")
    return result


_ARITH = {"add": ("arith.addf", "arith.addi"), "sub": ("arith.subf", "arith.subi"),
          "mul": ("arith.mulf", "arith.muli")}


def _arith(kind: str, x, y) -> Scalar:
    a, b, dtype = _operands(x, y)
    if kind in _ARITH:
        name = _ARITH[kind][0 if dtype.is_float else 1]
        offset = None
        if dtype is index and kind in ("add", "sub"):
            offset = _offset_sum(a, b, 1 if kind == "add" else -1)
        return _op2(name, a, b, dtype, offset)
    if kind == "truediv":
        if not dtype.is_float:
            dtype = f32
            a, b = _cast(a, f32), _cast(b, f32)
        return _op2("arith.divf", a, b, dtype)
    if kind in ("floordiv", "mod"):
        if dtype.is_float:
            quotient = _op1("math.floor", _op2("arith.divf", a, b, dtype), dtype)
        else:
            if dtype.kind == "b":
                raise _error(f"{'//' if kind == 'floordiv' else '%'} of i1 values")
            quotient = _op2("arith.floordivsi", a, b, dtype)
        if kind == "floordiv":
            return quotient
        return _arith("sub", a, _arith("mul", quotient, b))
    # and, or, xor
    if dtype.is_float:
        raise _error(f"bitwise {kind} of {dtype.name} values: it applies to "
                     f"i1 conditions and integers")
    return _op2(f"arith.{kind}i", a, b, dtype)


def _offset_sum(a: Scalar, b: Scalar, sign: int):
    """The (base, constant) form of a + sign * b where one side is a
    constant, else None."""
    (base_a, k_a), (base_b, k_b) = a.offset, b.offset
    if base_b == "":
        return (base_a, k_a + sign * k_b)
    if base_a == "" and sign == 1:
        return (base_b, k_a + k_b)
    return None


_FLOAT_PREDICATES = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge",
                     "eq": "oeq", "ne": "une"}
_INT_PREDICATES = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge",
                   "eq": "eq", "ne": "ne"}


def _compare(kind: str, x, y) -> Scalar:
    a, b, dtype = _operands(x, y)
    if dtype.is_float:
        name, predicate = "arith.cmpf", _FLOAT_PREDICATES[kind]
    else:
        name, predicate = "arith.cmpi", _INT_PREDICATES[kind]
        if dtype.kind == "b":
            predicate = predicate.replace("s", "u", 1)   # i1 is unsigned
    result = _new(i1)
    _trace().emit(f"{result.name} = {name} {predicate}, {a.name}, {b.name} : "
                  f"{dtype.name}")
    return result


def _convert(name: str, value: Scalar, dtype: DType) -> Scalar:
    result = _new(dtype)
    _trace().emit(f"{result.name} = {name} {value.name} : {value.dtype.name} "
                  f"to {dtype.name}")
    return result


def _cast(value: Scalar, dtype: DType) -> Scalar:
    """`value` converted to `dtype` (numpy's astype)."""
    source = value.dtype
    if source is dtype:
        return value
    if dtype.kind == "b":
        return _compare("ne", value, 0)
    if source.kind == "b":
        if dtype.is_float:
            return _convert("arith.uitofp", value, dtype)
        wide = _convert("arith.extui", value, i64 if dtype is index else dtype)
        return _cast(wide, dtype)
    if source is index or dtype is index:
        if source.is_float:
            wide = _convert("arith.fptosi", value, i64)
            return _convert("arith.index_cast", wide, index)
        if dtype.is_float:
            return _cast(_convert("arith.index_cast", value, i64), dtype)
        return _convert("arith.index_cast", value, dtype)
    if source.is_float and dtype.is_float:
        if source.bits == dtype.bits:   # f16 <-> bf16
            return _cast(_cast(value, f32), dtype)
        return _convert("arith.extf" if dtype.bits > source.bits else "arith.truncf",
                        value, dtype)
    if source.is_float:
        return _convert("arith.fptosi", value, dtype)
    if dtype.is_float:
        return _convert("arith.sitofp", value, dtype)
    return _convert("arith.extsi" if dtype.bits > source.bits else "arith.trunci",
                    value, dtype)


def where(condition, a, b) -> Scalar:
    """`a` where `condition` (i1) holds, else `b` (arith.select); numpy's
    where on scalars."""
    condition = _as_scalar(condition, i1)
    if condition.dtype.kind != "b":
        raise _error(f"vx.where takes an i1 condition, got {condition.dtype.name}")
    if not isinstance(a, Scalar) and not isinstance(b, Scalar):
        a = _as_scalar(a)     # two numbers: promoted as a traced a and b
    a, b, dtype = _operands(a, b)
    result = _new(dtype)
    _trace().emit(f"{result.name} = arith.select {condition.name}, {a.name}, "
                  f"{b.name} : {dtype.name}")
    return result


def _float_operand(value) -> Scalar:
    value = _as_scalar(value)
    return value if value.dtype.is_float else _cast(value, f32)


def _math(name: str):
    def function(x) -> Scalar:
        value = _float_operand(x)
        return _op1(f"math.{name}", value, value.dtype)
    function.__name__ = name
    function.__doc__ = (f"math.{name} of a traced float (an integer operand "
                        f"is converted to f32 first).")
    return function


exp = _math("exp")
exp2 = _math("exp2")
log = _math("log")
sqrt = _math("sqrt")


def maximum(a, b) -> Scalar:
    """The larger of a and b (NaN if either is NaN, as numpy.maximum)."""
    a, b, dtype = _operands(a, b)
    return _op2("arith.maximumf" if dtype.is_float else "arith.maxsi", a, b, dtype)


def minimum(a, b) -> Scalar:
    """The smaller of a and b (NaN if either is NaN, as numpy.minimum)."""
    a, b, dtype = _operands(a, b)
    return _op2("arith.minimumf" if dtype.is_float else "arith.minsi", a, b, dtype)


# -- memory --------------------------------------------------------------------

def _row_major(shape: Sequence[int]) -> Tuple[int, ...]:
    strides, stride = [], 1
    for size in reversed(shape):
        strides.append(stride)
        stride *= size
    return tuple(reversed(strides))


class Ref:
    """A memref of the kernel: an array argument, a scratch buffer or a
    slice of one. `ref[i, j]` loads, `ref[i, j] = v` stores (`+=` too),
    `ref[a:b, c]` is a static-size slice (memref.subview)."""

    def __init__(self, name: str, shape: Sequence[int], dtype: DType,
                 region: Optional[_Region], strides=None, offset=0,
                 memory: str = "argument", label: str = ""):
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtype
        self.region = region
        self.strides = None if strides is None else tuple(strides)
        self.offset = offset
        self.memory = memory
        self.label = label

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def type(self) -> str:
        dims = "".join(f"{size}x" for size in self.shape)
        layout = ""
        if self.strides is not None:
            offset = "?" if self.offset is None else self.offset
            layout = f", strided<[{', '.join(map(str, self.strides))}], offset: {offset}>"
        return f"memref<{dims}{self.dtype.name}{layout}>"

    def __repr__(self) -> str:
        return f"<vx traced {self.type} {self.name}>"

    def _strides(self) -> Tuple[int, ...]:
        return self.strides if self.strides is not None else _row_major(self.shape)

    def _indices(self, key):
        """The index tuple of a subscript: ints, traced indices and slices
        (as (start, size)), one per dimension."""
        if not isinstance(key, tuple):
            key = (key,)
        if len(key) > self.ndim:
            raise _error(f"{len(key)} indices for a {self.ndim}-d array {self.type}")
        key = key + (slice(None),) * (self.ndim - len(key))
        result = []
        for dim, (entry, size) in enumerate(zip(key, self.shape)):
            if not isinstance(entry, (slice, Scalar, bool)) and \
                    hasattr(entry, "__index__"):
                entry = entry.__index__()    # numpy integers
            if isinstance(entry, slice):
                result.append(self._slice(dim, entry, size))
            elif isinstance(entry, bool) or not (isinstance(entry, (int, Scalar))):
                raise _error(f"index {dim} is a {type(entry).__name__}: indices "
                             f"are ints, traced integers or slices")
            elif isinstance(entry, int):
                if not -size <= entry < size:
                    raise _error(f"index {entry} is out of bounds for dimension "
                                 f"{dim} of size {size}")
                result.append(entry % size)
            else:
                result.append(_index_value(entry))
        return result

    def _slice(self, dim: int, entry: slice, size: int):
        if entry.step not in (None, 1):
            raise _error("slices with a step are not supported; use vx.range "
                         "over the elements")
        start, stop = entry.start, entry.stop
        if start is None:
            start = 0
        if isinstance(start, int) and not isinstance(start, bool):
            start = start + size if start < 0 else start
            stop = size if stop is None else (stop + size if stop < 0 else stop) \
                if isinstance(stop, int) else stop
            if isinstance(stop, int):
                if not 0 <= start <= stop <= size:
                    raise _error(f"slice {start}:{stop} is out of bounds for "
                                 f"dimension {dim} of size {size}")
                return (start, stop - start)
        if not isinstance(start, Scalar) or not isinstance(stop, Scalar):
            raise _error(f"slice of dimension {dim}: the size must be static: "
                         f"write a:a + SIZE with a traced start a (got "
                         f"{entry.start!r}:{entry.stop!r})")
        (base, low), (stop_base, high) = start.offset, stop.offset
        if base != stop_base:
            raise _error(f"slice of dimension {dim}: the size must be static: "
                         f"write a:a + SIZE with a traced start a")
        if not 0 < high - low <= size:
            raise _error(f"slice of dimension {dim} has size {high - low}; "
                         f"the dimension has {size}")
        return (_index_value(start), high - low)

    def __getitem__(self, key):
        trace = _trace()
        self._check_visible()
        indices = self._indices(key)
        if any(isinstance(entry, tuple) for entry in indices):
            return self._subview(indices)
        result = _new(self.dtype)
        trace.emit(f"{result.name} = memref.load {self.name}[{_index_list(indices)}] "
                   f": {self.type}")
        return result

    def __setitem__(self, key, value):
        trace = _trace()
        self._check_visible()
        indices = self._indices(key)
        if any(isinstance(entry, tuple) for entry in indices):
            raise _error("assigning to a slice is not supported: store element "
                         "by element (vx.threads) or vx.copy_async into it")
        value = _cast(_as_scalar(value, self.dtype), self.dtype)
        trace.emit(f"memref.store {value.name}, {self.name}[{_index_list(indices)}] "
                   f": {self.type}")

    def _check_visible(self):
        if self.region is not None and not self.region.encloses(_trace().region):
            raise _error(f"{self.label or 'this buffer'} is used outside the "
                         f"region that defines it")

    def _subview(self, indices) -> "Ref":
        strides = self._strides()
        offsets, sizes, kept_shape, kept_strides = [], [], [], []
        static_offset = self.offset
        for entry, stride in zip(indices, strides):
            start, size, kept = (entry[0], entry[1], True) if isinstance(entry, tuple) \
                else (entry, 1, False)
            if isinstance(start, Scalar):
                offsets.append(start.name)
                static_offset = None
            else:
                offsets.append(str(start))
                if static_offset is not None:
                    static_offset += start * stride
            sizes.append(str(size))
            if kept:
                kept_shape.append(size)
                kept_strides.append(stride)
        result = Ref(_trace().fresh(), kept_shape, self.dtype, _trace().region,
                     kept_strides, static_offset, self.memory,
                     f"a slice of {self.label}")
        _trace().emit(f"{result.name} = memref.subview {self.name}[{', '.join(offsets)}] "
                      f"[{', '.join(sizes)}] [{', '.join('1' for _ in sizes)}] : "
                      f"{self.type} to {result.type}")
        return result

    def __bool__(self):
        raise _error("a traced array is used as a Python bool")

    def _whole_array(self, *_):
        raise _error(f"arithmetic on a whole array ({self.type}) is not "
                     f"traced: compute element by element (vx.threads, "
                     f"vx.range) or use vx.matmul")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _whole_array
    __truediv__ = __rtruediv__ = __matmul__ = __neg__ = _whole_array

    def __iter__(self):
        raise _error("a traced array is not iterable: loop with vx.range or "
                     "vx.threads over its indices")


def _index_value(value) -> Scalar:
    """A loop bound or subscript as an index value."""
    if isinstance(value, bool):
        raise _error("a bool is used as an index")
    if isinstance(value, int):
        return _constant(value, index)
    if isinstance(value, Scalar):
        value = _use(value)
        if value.dtype is index:
            return value
        if value.dtype.kind == "i":
            return _cast(value, index)
        raise _error(f"an index must be an integer, got {value.dtype.name}")
    raise _error(f"an index must be an int or a traced integer, got "
                 f"{type(value).__name__}")


def _index_list(indices) -> str:
    return ", ".join(entry.name if isinstance(entry, Scalar) else
                     _constant(entry, index).name for entry in indices)


# -- spawn, scratch, grid ------------------------------------------------------

class spawn:
    """`with vx.spawn(grid=[...], semantics=[...]) as (i, j):` a vx.spawn;
    the block is its body and `i, j` its grid indices. `on` is the topology
    ("tensor_core", "tensor_core5", "host"); `threads` and `stages` the
    optional clauses (VX_SPEC 2.1, 2.2)."""

    def __init__(self, grid, semantics=None, on: str = "tensor_core",
                 threads: Optional[int] = None, stages: Optional[int] = None):
        trace = _trace()
        if isinstance(grid, (int, Scalar)):
            grid = [grid]
        grid = list(grid)
        if not grid:
            raise _error("vx.spawn needs a grid of at least one dimension")
        if semantics is None:
            semantics = [arbitrary] * len(grid)
        semantics = [semantics] if isinstance(semantics, str) else list(semantics)
        if len(semantics) != len(grid):
            raise _error(f"vx.spawn: {len(semantics)} semantics for a grid of "
                         f"rank {len(grid)}")
        for entry in semantics:
            if entry not in (parallel, arbitrary):
                raise _error(f"vx.spawn: semantics are vx.parallel or "
                             f"vx.arbitrary, got {entry!r}")
        if on not in ("tensor_core", "tensor_core5", "host"):
            raise _error(f"vx.spawn: on= is 'tensor_core', 'tensor_core5' or "
                         f"'host', got {on!r}")
        if trace.spawn is not None:
            raise _error("vx.spawn inside another vx.spawn body")
        sizes = []
        for size in grid:
            if isinstance(size, int) and not isinstance(size, bool):
                if size < 1:
                    raise _error(f"vx.spawn: grid sizes are >= 1, got {size}")
                sizes.append(str(size))
            else:
                sizes.append(_index_value(size).name)
        header = (f"vx.spawn on {on} grid [{', '.join(sizes)}] semantics "
                  f"[{', '.join(semantics)}]")
        for clause, value in (("threads", threads), ("stages", stages)):
            if value is not None:
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise _error(f"vx.spawn: {clause}= takes an int >= 1, got "
                                 f"{value!r}")
                header += f" {clause} {value}"
        self._header = header
        self._rank = len(grid)
        self._positions = _user_positions()

    def __enter__(self):
        trace = _trace()
        state = _Spawn(self._rank)
        op = _Op(self._header, _location_text(self._positions), self._positions)
        trace.region.items.append(op)
        state.body = trace.enter(op, "vx.spawn")
        state.index_names = _bound_names(self._positions, self._rank)
        trace.spawn = state
        trace.spawns.append(state)
        indices = []
        for dim in _builtin_range(self._rank):
            value = _new(index)
            trace.emit(f"{value.name} = vx.grid_index {dim}", self._positions)
            indices.append(value)
        return tuple(indices)

    def __exit__(self, kind, value, traceback):
        trace = _current()
        if trace is None or trace.spawn is None:
            return False
        if kind is None and trace.region is not trace.spawn.body:
            raise _error("a vx.range / vx.threads loop in this spawn was left "
                         "with break or return")
        trace.region = trace.spawn.body.parent
        trace.spawn = None
        return False


def _bound_names(positions, rank: int) -> List[Optional[str]]:
    """The names a `with vx.spawn(...) as (a, b):` binds, read from its
    source line, for diagnostics."""
    if not positions:
        return [None] * rank
    filename, line, _ = positions[0]
    source = linecache.getline(filename, line)
    for extra in _builtin_range(1, 8):
        if re.search(r"\bas\b[^:]*:", source):
            break
        source += linecache.getline(filename, line + extra)
    match = re.search(r"\bas\s*\(?\s*([A-Za-z_][\w\s,]*?)\s*,?\s*\)?\s*:", source)
    names = [n.strip() for n in match.group(1).split(",")] if match else []
    names = [n for n in names if n]
    return names + [None] * (rank - len(names)) if len(names) <= rank else [None] * rank


def _spawn_body(construct: str) -> _Spawn:
    trace = _trace()
    if trace.spawn is None:
        raise _error(f"{construct} is only allowed inside a `with vx.spawn(...)` body")
    return trace.spawn


def grid_dim(d: int) -> Scalar:
    """The size of grid dimension `d` of the enclosing spawn (vx.grid_dim)."""
    state = _spawn_body("vx.grid_dim")
    if not isinstance(d, int) or not 0 <= d < state.rank:
        raise _error(f"vx.grid_dim({d!r}): the spawn has dimensions 0 to "
                     f"{state.rank - 1}")
    result = _new(index)
    _trace().emit(f"{result.name} = vx.grid_dim {d}")
    return result


def _static_shape(shape) -> Tuple[int, ...]:
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    if not shape or any(not isinstance(s, int) or isinstance(s, bool) or s < 1
                        for s in shape):
        raise _error(f"a static shape of ints >= 1 is needed, got {shape!r}")
    return shape


def _dtype(dtype) -> DType:
    if isinstance(dtype, DType):
        return dtype
    # numpy and torch dtypes, numpy scalar types (np.float32), or names.
    name = getattr(dtype, "name", None) or getattr(dtype, "__name__", None) \
        or str(dtype)
    found = _BY_NUMPY.get(str(name).replace("torch.", ""))
    if found is None:
        raise _error(f"{dtype!r} is not a vx dtype (vx.f32, vx.f16, vx.bf16, "
                     f"vx.i32, ...)")
    return found


def scratch(shape, dtype=f32, smem: bool = False) -> Ref:
    """A per-instance buffer (vx.scratch), directly in a spawn body: private
    (registers or local memory, each element owned by one thread) or, with
    smem=True, shared by the instance's threads."""
    state = _spawn_body("vx.scratch")
    trace = _trace()
    if trace.region is not state.body:
        raise _error(f"vx.scratch must be directly in the vx.spawn body, not "
                     f"inside a {trace.region.kind} region: declare it at the "
                     f"top of the `with vx.spawn(...)` block")
    shape, dtype = _static_shape(shape), _dtype(dtype)
    memory = "smem" if smem else "private"
    result = Ref(trace.fresh(), shape, dtype, trace.region, memory=memory,
                 label=f"the {memory} scratch")
    trace.emit(f"{result.name} = vx.scratch {'smem ' if smem else ''}: {result.type}")
    return result


class Token:
    """An outstanding vx.copy_async; `.wait()` is vx.await."""

    def __init__(self, name: str, region: _Region):
        self.name = name
        self.region = region

    def wait(self) -> None:
        trace = _trace()
        if not self.region.encloses(trace.region):
            raise _error("the token is awaited outside the region of its "
                         "vx.copy_async")
        trace.emit(f"vx.await {self.name}")


def copy_async(src: Ref, dst: Ref) -> Token:
    """An asynchronous copy of `src` into `dst` (vx.transfer_async), by the
    whole instance; `dst` may be read after the token's `.wait()`."""
    _spawn_body("vx.copy_async")
    for name, ref in (("source", src), ("destination", dst)):
        if not isinstance(ref, Ref):
            raise _error(f"vx.copy_async: the {name} must be an array or a "
                         f"slice, got {type(ref).__name__}")
        ref._check_visible()
    if src.shape != dst.shape or src.dtype is not dst.dtype:
        raise _error(f"vx.copy_async: the source is {src.type} and the "
                     f"destination {dst.type}; they need the same shape and "
                     f"element type")
    trace = _trace()
    token = Token(trace.fresh(), trace.region)
    trace.emit(f"{token.name} = vx.transfer_async {src.name} to {dst.name} : "
               f"{src.type} to {dst.type}")
    return token


def matmul(a: Ref, b: Ref, acc: Ref) -> None:
    """acc += a @ b on tiles (linalg.matmul; VX_SPEC 2.3): a (M, K), b (K, N),
    acc (M, N), once per instance."""
    _spawn_body("vx.matmul")
    for name, ref in (("a", a), ("b", b), ("acc", acc)):
        if not isinstance(ref, Ref) or ref.ndim != 2:
            raise _error(f"vx.matmul: {name} must be a 2-d array or slice")
        ref._check_visible()
    (m, k), (k2, n), (m2, n2) = a.shape, b.shape, acc.shape
    if k != k2 or (m, n) != (m2, n2):
        raise _error(f"vx.matmul: shapes {a.shape} x {b.shape} -> {acc.shape} "
                     f"do not chain: (M, K) x (K, N) -> (M, N)")
    _trace().emit(f"linalg.matmul ins({a.name}, {b.name} : {a.type}, {b.type}) "
                  f"outs({acc.name} : {acc.type})")


# -- control flow --------------------------------------------------------------

class _Loop:
    """The iterator of a traced loop: the first step opens the op and yields
    its induction variables, the second closes it."""

    def __init__(self, header: Callable[[List[str]], str], rank: int, kind: str,
                 single: bool):
        self._header = header
        self._rank = rank
        self._kind = kind
        self._single = single
        self._op = None

    def __iter__(self):
        return self

    def __next__(self):
        trace = _trace()
        if self._op is None:
            names = [trace.fresh() for _ in _builtin_range(self._rank)]
            self._op = trace.open(self._header(names), self._kind)
            ivs = [Scalar(name, index, trace.region) for name in names]
            return ivs[0] if self._single else tuple(ivs)
        if trace.region.op is not self._op:
            raise _error(f"the {self._kind} loop's body left a region open "
                         f"(a break or return out of an inner loop)")
        trace.leave()
        raise StopIteration


def _bounds(args, name: str) -> Tuple[Scalar, Scalar, Scalar]:
    if not 1 <= len(args) <= 3:
        raise _error(f"{name} takes (stop), (start, stop) or (start, stop, step)")
    if len(args) == 1:
        args = (0,) + tuple(args)
    start, stop = args[0], args[1]
    step = args[2] if len(args) == 3 else 1
    if isinstance(step, int) and step < 1:
        raise _error(f"{name}: the step must be positive, got {step}")
    return _index_value(start), _index_value(stop), _index_value(step)


def range(*args) -> _Loop:
    """`for i in vx.range(stop)` / `(start, stop[, step])`: a run-time loop
    (scf.for); its body is traced once."""
    lower, upper, step = _bounds(args, "vx.range")
    return _Loop(lambda names: f"scf.for {names[0]} = {lower.name} to "
                 f"{upper.name} step {step.name}", 1, "vx.range", True)


def _thread_bounds(sizes, name: str):
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    if not sizes:
        raise _error(f"{name} needs at least one trip count")
    zero, one = _index_value(0), _index_value(1)
    uppers = [_index_value(size) for size in sizes]
    return zero, one, uppers


def threads(*sizes) -> _Loop:
    """`for t in vx.threads(n)` / `for ty, tx in vx.threads(16, 16)`: a thread
    loop (scf.parallel, VX_SPEC 2.1): its iterations are spread across the
    instance's threads and must be independent."""
    _spawn_body("vx.threads")
    zero, one, uppers = _thread_bounds(sizes, "vx.threads")
    rank = len(uppers)
    return _Loop(lambda names: _parallel_header(names, zero, one, uppers), rank,
                 "vx.threads", rank == 1)


def _parallel_header(names, zero: Scalar, one: Scalar, uppers) -> str:
    """`scf.parallel (names) = (0, ...) to (uppers) step (1, ...)`."""
    rank = len(uppers)
    return (f"scf.parallel ({', '.join(names)}) = ({', '.join([zero.name] * rank)}) "
            f"to ({', '.join(u.name for u in uppers)}) step "
            f"({', '.join([one.name] * rank)})")


_REDUCTIONS = ("add", "max", "min")


def thread_reduce(n, kind: str, init=0.0, body: Callable = None) -> Scalar:
    """`kind` ("add", "max" or "min") of `body(t)` over t in [0, n) and
    `init`, as a thread loop with scf.reduce (VX_SPEC 2.1): a reduction
    across the instance's threads, whose result every thread sees. `n` may
    be a tuple (a multi-dimensional loop; body takes one index per dim)."""
    _spawn_body("vx.thread_reduce")
    if kind not in _REDUCTIONS:
        raise _error(f"vx.thread_reduce: kind is one of {', '.join(_REDUCTIONS)}, "
                     f"got {kind!r}")
    if not callable(body):
        raise _error("vx.thread_reduce needs body=, a function of the index")
    trace = _trace()
    sizes = tuple(n) if isinstance(n, (tuple, list)) else (n,)
    zero, one, uppers = _thread_bounds(sizes, "vx.thread_reduce")
    before: List[Any] = []       # where init's constant goes
    trace.region.items.append(before)
    names = [trace.fresh() for _ in uppers]
    op = trace.open("", "vx.thread_reduce")
    body_region = trace.region
    value = body(*[Scalar(name, index, body_region) for name in names])
    if trace.region is not body_region:
        raise _error("vx.thread_reduce's body left a region open")
    value = _as_scalar(value)
    dtype = value.dtype
    if dtype.kind == "b":
        raise _error("vx.thread_reduce of i1 values")
    lhs, rhs, combined = trace.fresh(), trace.fresh(), trace.fresh()
    if kind == "add":
        combine = [f"{combined} = arith.add{'f' if dtype.is_float else 'i'} "
                   f"{lhs}, {rhs} : {dtype.name}"]
    else:
        # Compare and select: the form convert-scf-to-openmp recognizes.
        predicate = ("ogt" if kind == "max" else "olt") if dtype.is_float else \
            ("sgt" if kind == "max" else "slt")
        compare = "arith.cmpf" if dtype.is_float else "arith.cmpi"
        test = trace.fresh()
        combine = [f"{test} = {compare} {predicate}, {lhs}, {rhs} : {dtype.name}",
                   f"{combined} = arith.select {test}, {lhs}, {rhs} : {dtype.name}"]
    location = op.location
    trace.region.items += (
        [f"scf.reduce({value.name} : {dtype.name}) {{",
         f"^bb0({lhs}: {dtype.name}, {rhs}: {dtype.name}):"] +
        [f"  {line} {location}" for line in combine] +
        [f"  scf.reduce.return {combined} : {dtype.name} {location}",
         f"}} {location}"])
    trace.leave()
    # init, of the body's type, is computed before the loop.
    outer = trace.region
    trace.region = _Region("vx.thread_reduce", outer)
    trace.region.items = before
    initial = _cast(_as_scalar(init, dtype), dtype)
    initial.region = trace.region = outer
    result = _new(dtype)
    op.header = (f"{result.name} = {_parallel_header(names, zero, one, uppers)} "
                 f"init ({initial.name}) -> {dtype.name}")
    return result


class when:
    """`with vx.when(cond):` runs its block where the i1 `cond` holds
    (scf.if); a `with vx.otherwise():` right after it is the else block."""

    def __init__(self, condition):
        value = _as_scalar(condition, i1)
        if value.dtype.kind != "b":
            raise _error(f"vx.when takes an i1 condition (a comparison), got "
                         f"{value.dtype.name}")
        self._condition = value
        self._positions = _user_positions()

    def __enter__(self):
        trace = _trace()
        op = _Op(f"scf.if {self._condition.name}", _location_text(self._positions),
                 self._positions)
        trace.region.items.append(op)
        self._region = trace.enter(op, "vx.when")
        return None

    def __exit__(self, kind, value, traceback):
        return _leave_block(self._region, kind, "vx.when")


class otherwise:
    """`with vx.otherwise():` the else block of the vx.when block just
    before it."""

    def __enter__(self):
        trace = _trace()
        items = trace.region.items
        op = items[-1] if items else None
        if not isinstance(op, _Op) or not op.header.startswith("scf.if ") \
                or len(op.regions) != 1:
            raise _error("vx.otherwise() must directly follow a `with "
                         "vx.when(...)` block (no other operation between them)")
        self._region = trace.enter(op, "vx.otherwise")
        return None

    def __exit__(self, kind, value, traceback):
        return _leave_block(self._region, kind, "vx.otherwise")


def _leave_block(region: _Region, kind, name: str) -> bool:
    trace = _current()
    if trace is None:
        return False
    if kind is None and trace.region is not region:
        raise _error(f"a loop in this {name} block was left with break or return")
    trace.region = region.parent
    return False


def fori(n, init=0.0, body: Callable = None, start=0, step=1):
    """A run-time loop carrying values (scf.for with iter_args): `carry =
    body(i, carry)` for i in range(start, n, step), starting from `init`; a
    tuple `init` carries several values (`body` takes and returns a tuple).
    Returns the final carry."""
    if not callable(body):
        raise _error("vx.fori needs body=, a function (i, carry) -> carry")
    trace = _trace()
    lower, upper, stride = _bounds((start, n, step), "vx.fori")
    several = isinstance(init, (tuple, list))
    inits = [_as_scalar(value) for value in (init if several else (init,))]
    if not inits:
        raise _error("vx.fori needs at least one carried value")
    iv = trace.fresh()
    carries = [trace.fresh() for _ in inits]
    results = trace.fresh()
    types = ", ".join(value.dtype.name for value in inits)
    pairs = ", ".join(f"{c} = {v.name}" for c, v in zip(carries, inits))
    target = results if len(inits) == 1 else f"{results}:{len(inits)}"
    op = trace.open(f"{target} = scf.for {iv} = {lower.name} to {upper.name} step "
                    f"{stride.name} iter_args({pairs}) -> ({types})", "vx.fori")
    region = trace.region
    carried = [Scalar(c, v.dtype, region) for c, v in zip(carries, inits)]
    produced = body(Scalar(iv, index, region), tuple(carried) if several else carried[0])
    if trace.region is not region:
        raise _error("vx.fori's body left a region open")
    produced = list(produced) if several and isinstance(produced, (tuple, list)) \
        else [produced]
    if len(produced) != len(inits):
        raise _error(f"vx.fori's body returns {len(produced)} values for "
                     f"{len(inits)} carried ones")
    yielded = []
    for value, initial in zip(produced, inits):
        if isinstance(value, Scalar) and value.dtype is not initial.dtype:
            raise _error(f"vx.fori's body returns {value.dtype.name} for a "
                         f"carried {initial.dtype.name}: .astype() it, or "
                         f"start from an init of that type")
        yielded.append(_cast(_as_scalar(value, initial.dtype), initial.dtype))
    trace.region.items.append(
        f"scf.yield {', '.join(v.name for v in yielded)} : {types} {op.location}")
    trace.leave()
    outputs = [Scalar(results if len(inits) == 1 else f"{results}#{number}",
                      value.dtype, trace.region) for number, value in enumerate(inits)]
    return tuple(outputs) if several else outputs[0]


# -- arguments -----------------------------------------------------------------

def _annotation(parameter, globals_):
    annotation = parameter.annotation
    if isinstance(annotation, str):
        try:
            annotation = eval(annotation, globals_)
        except Exception:
            return None
    if annotation is Const or isinstance(annotation, DType):
        return annotation
    return None


def _cuda_key(value):
    """("cuda", dtype name, shape) of a CUDA array, else None."""
    interface = None
    try:
        interface = value.__cuda_array_interface__
    except Exception:
        pass
    if interface is not None:
        from .runtime import _TYPESTRS
        typestr = interface["typestr"]
        return ("cuda", _TYPESTRS.get(typestr, typestr), tuple(interface["shape"]))
    device = getattr(value, "__dlpack_device__", None)
    if device is not None and hasattr(value, "__dlpack__"):
        from .runtime import _DLPACK_CUDA, _DLPACK_CUDA_MANAGED
        kind, _ = device()
        if kind in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
            name = str(value.dtype).replace("torch.", "")
            return ("cuda", name, tuple(value.shape))
    return None


def _argument_key(value, annotation):
    """What a specialization depends on for one argument: ("array", target,
    dtype name, shape), ("scalar", dtype) or ("const", value)."""
    if annotation is Const or isinstance(value, Const):
        return ("const", _const_key(value.value if isinstance(value, Const) else value))
    if isinstance(value, bool):
        return ("const", _const_key(value))
    if isinstance(value, (int, float)):
        dtype = annotation if isinstance(annotation, DType) else _python_dtype(value)
        return ("scalar", dtype.name)
    cuda = _cuda_key(value)
    if cuda is not None:
        return ("array",) + cuda
    dtype, shape = getattr(value, "dtype", None), getattr(value, "shape", None)
    if dtype is not None and shape is not None:
        name = str(getattr(dtype, "name", dtype)).replace("torch.", "")
        if tuple(shape) == ():
            return ("scalar", _BY_NUMPY[name].name if name in _BY_NUMPY else name)
        return ("array", "cpu", name, tuple(int(s) for s in shape))
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"cannot pass a {type(value).__name__} to a vx kernel: "
                        f"pass arrays, ints, floats, or wrap it in vx.Const") from None
    return ("const", _const_key(value))


#: numpy.ndarray, once an argument has been one (numpy is not imported
#: here: vx.runtime works without it).
_ndarray = None


def _fast_key(value):
    """The cache key of one argument on the fast path (no annotated
    parameter): numpy arrays and Python numbers with two lookups at most."""
    kind = type(value)
    if kind is _ndarray:
        return (value.dtype, value.shape)
    if kind is float or kind is int:
        return kind
    return _first_key(value)


def _first_key(value):
    global _ndarray
    kind = type(value)
    if kind.__name__ == "ndarray" and kind.__module__ == "numpy":
        _ndarray = kind
        return (value.dtype, value.shape)
    return ("other", _argument_key(value, None))


_chips: Dict[int, str] = {}


def _device_chip(device: int = 0) -> str:
    """sm_XY of CUDA device `device`, from the driver."""
    chip = _chips.get(device)
    if chip is None:
        import ctypes
        from .runtime import CUDA_DRIVER, CudaError
        try:
            driver = ctypes.CDLL(CUDA_DRIVER)
        except OSError as error:
            raise CudaError(f"no NVIDIA driver: {CUDA_DRIVER} cannot be loaded "
                            f"({error})") from None
        handle, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        if driver.cuInit(0) or driver.cuDeviceGet(ctypes.byref(handle), device) or \
                driver.cuDeviceGetAttribute(ctypes.byref(major), 75, handle) or \
                driver.cuDeviceGetAttribute(ctypes.byref(minor), 76, handle):
            raise CudaError(f"cannot query CUDA device {device}")
        chip = _chips[device] = f"sm_{major.value}{minor.value}"
    return chip


# -- kernels -------------------------------------------------------------------

class _Specialization:
    """One trace: the IR text, its module (parsed on first use), and what
    diagnostics need to speak in the user's names."""

    def __init__(self, text: str, trace: _Trace, runtime_positions: List[int],
                 symbol: str):
        self.text = text
        self.argument_names = trace.argument_names
        self.spawns = trace.spawns
        # "file:line[:col]" of the trace's files, in diagnostics.
        files = "|".join(re.escape(name) for name in sorted(trace.files, key=len,
                                                             reverse=True))
        self.locations = re.compile(rf"({files}):(\d+)(?::(\d+))?")
        self.runtime_positions = runtime_positions
        self.symbol = symbol
        self.module = None
        self.checked = False   # its verifier warnings were shown


class Kernel:
    """A function decorated with @vx.kernel (see the module docstring).
    Call it on arrays (numpy: the CPU, CUDA arrays: the GPU) with the
    options of vx.run as keywords; `mlir(*args)` is the traced IR and
    `compile(*args, target=, **options)` a vx.compile Library."""

    def __init__(self, function: Callable):
        if not inspect.isfunction(function):
            raise TypeError(f"@vx.kernel decorates a function, got "
                            f"{type(function).__name__}")
        functools.update_wrapper(self, function)
        self._function = function
        parameters = list(inspect.signature(function).parameters.values())
        for parameter in parameters:
            if parameter.kind not in (parameter.POSITIONAL_ONLY,
                                      parameter.POSITIONAL_OR_KEYWORD):
                raise TypeError(f"@vx.kernel {function.__name__}: parameter "
                                f"{parameter.name!r} must be positional "
                                f"(no *args, **kwargs or keyword-only)")
        self._names = [p.name for p in parameters]
        self._defaults = [p.default for p in parameters]
        self._annotations = [_annotation(p, function.__globals__) for p in parameters]
        self._simple = all(a is None for a in self._annotations)
        self._specializations: Dict[tuple, _Specialization] = {}
        self._calls: Dict[tuple, Callable] = {}
        self._trace_count = 0
        self._warned = False

    def __repr__(self) -> str:
        return f"<vx.kernel {self.__name__}>"

    def cache_info(self) -> Dict[str, int]:
        """{"traces": functions traced, "specializations": distinct
        signatures, "calls": prepared (signature, options) calls}."""
        return {"traces": self._trace_count,
                "specializations": len(self._specializations),
                "calls": len(self._calls)}

    # The fast path: a dict lookup on the arguments' dtypes and shapes.
    def __call__(self, *args, **options):
        if self._simple and len(args) == len(self._names):
            try:
                key = (tuple(map(_fast_key, args)), tuple(options.items()))
                call = self._calls.get(key)
            except TypeError:
                key = call = None
        else:
            self._check_keywords(options)
            args = self._complete(args)
            key = (self._signature(args), tuple(options.items()))
            call = self._calls.get(key)
        if call is not None:
            return call(args)    # args are complete on both paths
        self._check_keywords(options)
        args = self._complete(args)
        return self._prepare(args, options, key)(args)

    def mlir(self, *args) -> str:
        """The traced vx IR text for these arguments (arrays, or objects with
        `shape` and `dtype`), with Python source locations."""
        return self._specialize(self._complete(args)).text

    def compile(self, *args, target: str = "cpu", **options):
        """A vx.Library (vx.compile) of the kernel for these arguments'
        types, for `target` ("cpu" or "cuda") with the compile options."""
        from . import _compiler
        specialization = self._specialize(self._complete(args))
        module = self._module(specialization)
        _warn_at_lines(module, specialization)
        with self._diagnosed(specialization):
            return _compiler.compile(module, target, **options)

    # -- specialization ----------------------------------------------------

    def _check_keywords(self, options) -> None:
        for name in options:
            if name in self._names:
                raise TypeError(f"{self.__name__}(): pass the kernel argument "
                                f"{name!r} by position; keywords are vx.run's "
                                f"options")

    def _complete(self, args) -> tuple:
        """The arguments with the parameters' defaults filled in."""
        if len(args) > len(self._names):
            raise TypeError(f"{self.__name__}() takes {len(self._names)} "
                            f"arguments, got {len(args)}")
        missing = self._defaults[len(args):]
        if any(d is inspect.Parameter.empty for d in missing):
            names = ", ".join(n for n, d in zip(self._names[len(args):], missing)
                              if d is inspect.Parameter.empty)
            raise TypeError(f"{self.__name__}() is missing arguments: {names}")
        return tuple(args) + tuple(missing)

    def _signature(self, args) -> tuple:
        return tuple(_argument_key(value, annotation)
                     for value, annotation in zip(args, self._annotations))

    def _specialize(self, args) -> _Specialization:
        signature = self._signature(args)
        specialization = self._specializations.get(signature)
        if specialization is None:
            specialization = self._trace(args, signature)
            self._specializations[signature] = specialization
            if len(self._specializations) >= SPECIALIZATION_WARNING and not self._warned:
                self._warned = True
                warnings.warn(self._churn_message(), stacklevel=4)
        return specialization

    def _churn_message(self) -> str:
        signatures = list(self._specializations)
        changing = max(_builtin_range(len(self._names)), key=lambda position: len(
            {signature[position] for signature in signatures}))
        values = [signature[changing] for signature in signatures]
        kinds = {value[0] for value in values}
        if kinds == {"array"}:
            if len({value[2] for value in values}) > 1:
                what = "dtypes " + ", ".join(sorted({value[2] for value in values}))
            else:
                what = "shapes " + ", ".join(str(value[3]) for value in values[-4:])
        elif kinds == {"const"}:
            what = "values " + ", ".join(repr(value[1][1]) for value in values[-4:])
        else:
            what = "types " + ", ".join(str(value[1]) for value in values[-4:])
        return (f"vx kernel {self.__name__!r} has been specialized "
                f"{len(signatures)} times (each traces and compiles it): its "
                f"argument {self._names[changing]!r} keeps changing ({what}, "
                f"...); pass it as a run-time value, or use a few sizes")

    def _trace(self, args, signature) -> _Specialization:
        trace = _Trace(self._function.__code__)
        values, parameters, runtime_positions = [], [], []
        for position, (name, value, key, annotation) in enumerate(zip(
                self._names, args, signature, self._annotations)):
            if key[0] == "const":
                values.append(value.value if isinstance(value, Const) else value)
                continue
            ssa = f"%{name}" if re.fullmatch(r"[A-Za-z_]\w*", name, re.ASCII) \
                else f"%arg{position}"
            if key[0] == "array":
                dtype = _BY_NUMPY.get(key[2])
                if dtype is None:
                    raise TypeError(f"argument {name!r}: arrays of {key[2]} "
                                    f"cannot be passed to a vx kernel")
                values.append(Ref(ssa, key[3], dtype, None,
                                  label=f"argument {name!r}"))
                parameters.append(f"{ssa}: {values[-1].type}")
            else:
                dtype = annotation if isinstance(annotation, DType) else \
                    _BY_NAME.get(key[1])
                values.append(Scalar(ssa, dtype, trace.root))
                parameters.append(f"{ssa}: {dtype.name}")
            trace.argument_names.append(name)
            runtime_positions.append(position)
        code = self._function.__code__
        start = [(code.co_filename, code.co_firstlineno, 1)]
        _tracing.stack.append(trace)
        try:
            result = self._function(*values)
            if trace.region is not trace.root:
                op = trace.region.op
                raise TraceError(_at(op.positions, f"this {trace.region.kind} "
                                     f"block was left early (break or return "
                                     f"inside it): its ops cannot be closed"))
            if result is not None:
                raise TraceError(_at(start, f"vx kernel {self.__name__!r} "
                                     f"returned {type(result).__name__}: "
                                     f"kernels return nothing, they write "
                                     f"into their array arguments"))
        finally:
            _tracing.stack.pop()
        self._trace_count += 1
        symbol = re.sub(r"\W", "_", self.__name__, flags=re.ASCII)
        location = _location_text(start)
        lines = [f"func.func @{symbol}({', '.join(parameters)}) {{"]
        trace.render(trace.root.items, 1, lines)
        lines += [f"  return {location}", f"}} {location}", ""]
        return _Specialization("\n".join(lines), trace, runtime_positions, symbol)

    def _module(self, specialization: _Specialization):
        if specialization.module is None:
            from . import _compiler
            with self._diagnosed(specialization):
                specialization.module = _compiler.parse(
                    specialization.text, self._function.__code__.co_filename)
        return specialization.module

    # -- calls -------------------------------------------------------------

    def _prepare(self, args, options, key) -> Callable:
        """The call for these arguments' signature and `options`, made once
        and kept under `key` (the fast path's)."""
        from . import _compiler
        specialization = self._specialize(args)
        module = self._module(specialization)
        signature = self._signature(args)
        targets = {key[1] for key in signature if key[0] == "array"}
        if len(targets) > 1:
            raise TypeError(f"{self.__name__}(): numpy and CUDA arrays in one "
                            f"call; pass all arrays on one device")
        positions = specialization.runtime_positions
        diagnosed = self._diagnosed(specialization)
        _warn_at_lines(module, specialization)
        symbol = specialization.symbol
        if targets == {"cuda"}:
            options = dict(options)
            options.setdefault("chip", _device_chip())
            with diagnosed:
                function = _compiler.compile(module, "cuda", **options).function(symbol)
        elif set(options) <= _compiler.PLAIN_RUN_OPTIONS:
            _compiler.pipeline("llvm", **options)   # checks the options
            with diagnosed:
                function = _compiler._run_library(module, options).function(symbol)
        else:
            # Options that change how vx.run runs (detect_races, ...): every
            # call goes through it.
            def function(*values):
                return _compiler.run(module, symbol, *values, **options)

        if len(positions) == len(args):
            def call(values):
                with diagnosed:
                    return function(*values)
        else:
            def call(values):
                with diagnosed:
                    return function(*[values[p] for p in positions])
        if key is not None:
            self._calls[key] = call
        return call

    def _diagnosed(self, specialization: _Specialization) -> "_Diagnosed":
        return _Diagnosed(self, specialization)


class _Diagnosed:
    """Re-raises a VxError about a traced kernel at the user's line, with IR
    names turned into the Python ones."""

    __slots__ = ("kernel", "specialization")

    def __init__(self, kernel: Kernel, specialization: _Specialization):
        self.kernel = kernel
        self.specialization = specialization

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is None or not issubclass(kind, VxError) or \
                isinstance(error, TraceError) or getattr(error, "_vx_kernel", False):
            return False
        raised = _translate(error, self.kernel, self.specialization)
        raise raised from None


def _warn_at_lines(module, specialization: _Specialization) -> None:
    """The verifier's warnings (a race for some argument values, ownership
    it cannot prove, ...) as Python warnings at the kernel's lines, once
    per specialization. An error is left to the compile, which reports it
    with its options."""
    if specialization.checked:
        return
    specialization.checked = True
    try:
        lowered = module.lower("scf")
    except VxError:
        return
    for diagnostic in lowered.diagnostics:
        if diagnostic.severity != "warning":
            continue
        positions = [p for c in (diagnostic.chain or (diagnostic.location,))
                     for p in _python_locations(c, specialization)]
        message = _rename(diagnostic.message, specialization)
        if positions:
            # The warnings module shows the source line itself.
            filename, line, _ = positions[0]
            text = f"{filename}:{line}: warning: {message}" + "".join(
                f"\n  called from {f}:{n}" for f, n, _ in positions[1:])
            warnings.warn_explicit(text, UserWarning, filename, line)
        else:
            warnings.warn(message, stacklevel=4)


def _python_locations(text: str, specialization: _Specialization):
    return [(m.group(1), int(m.group(2)), int(m.group(3) or 1))
            for m in specialization.locations.finditer(text or "")]


def _rename(message: str, specialization: _Specialization) -> str:
    """IR names in a diagnostic as the user wrote them."""
    names = specialization.argument_names

    def argument(match):
        position = int(match.group(1))
        if position >= len(names):
            return match.group(0)
        return f"argument {names[position]!r}"
    message = re.sub(rf"argument (\d+) of @{re.escape(specialization.symbol)}\b",
                     argument, message)

    def block_argument(match):    # the function's arguments, as printed
        position = int(match.group(1))
        return names[position] if position < len(names) else match.group(0)
    message = re.sub(r"%arg(\d+)\b", block_argument, message)

    def index_name(dim: int) -> Optional[str]:
        found = {spawn.index_names[dim] for spawn in specialization.spawns
                 if dim < spawn.rank}
        return found.pop() if len(found) == 1 and None not in found else None

    def grid_index(match):
        name = index_name(int(match.group(1)))
        return name if name else match.group(0)
    message = re.sub(r"vx\.grid_index (\d+)", grid_index, message)

    def dimension(match):
        name = index_name(int(match.group(2)))
        return f"{match.group(0)} ({name!r})" if name else match.group(0)
    message = re.sub(r"(dimensions?) (\d+)(?! \()", dimension, message)

    def coordinates(text: str) -> str:
        """"(3, 1)" as "(r=3, c=1)" where the grid indices have names."""
        values = [v.strip() for v in text.split(",")]
        names = [index_name(dim) for dim in _builtin_range(len(values))]
        ranks = {spawn.rank for spawn in specialization.spawns}
        if ranks != {len(values)} or None in names:
            return f"({text})"
        return "(" + ", ".join(f"{n}={v}" for n, v in zip(names, values)) + ")"
    message = re.sub(r"\binstances \(([-\d, ]+)\) and \(([-\d, ]+)\)",
                     lambda m: f"instances {coordinates(m.group(1))} and "
                               f"{coordinates(m.group(2))}", message)
    return re.sub(r"\binstance \(([-\d, ]+)\)",
                  lambda m: f"instance {coordinates(m.group(1))}", message)


def _translate(error: VxError, kernel: Kernel, specialization) -> VxError:
    from . import Diagnostic
    diagnostics = []
    for diagnostic in error.diagnostics:
        chain = getattr(diagnostic, "chain", ()) or (diagnostic.location,)
        diagnostics.append((diagnostic, [p for c in chain
                                         for p in _python_locations(c, specialization)]))
    code = kernel._function.__code__
    located = [d for d in diagnostics if d[1]]
    primary = next((d for d in located if d[0].severity == "error"),
                   located[0] if located else None)
    if primary is not None:
        diagnostic, positions = primary
        text = _at(positions, f"{diagnostic.severity}: "
                   f"{_rename(diagnostic.message, specialization)}")
        for other, other_positions in diagnostics:
            if other is diagnostic:
                continue
            message = f"{other.severity}: {_rename(other.message, specialization)}"
            text += "\n" + (_at(other_positions, message) if other_positions
                            else f"  {message}")
    else:
        summary = _rename(error.summary, specialization)
        positions = _python_locations(summary, specialization)
        # The race detector names the spawn, then both accesses: the last
        # is the one that raced.
        ordered = positions[::-1] or [(code.co_filename, code.co_firstlineno, 1)]
        first, rest = summary.split("\n", 1) if "\n" in summary else (summary, "")
        text = _at(ordered[:1], first)
        if rest:
            text += "\n" + rest
        seen = {ordered[0][:2]}
        for filename, line, column in ordered[1:]:
            if (filename, line) not in seen:
                seen.add((filename, line))
                text += f"\n{filename}:{line}:{_source_excerpt(filename, line, column)}"
    translated = [Diagnostic(d.severity, _rename(d.message, specialization),
                             d.location, *d[3:]) for d, _ in diagnostics]
    raised = type(error).__new__(type(error))
    VxError.__init__(raised, text, translated)
    raised.args = (text,)
    raised._vx_kernel = True
    return raised


_BY_NAME = {dtype.name: dtype for dtype in _DTYPES + (index,)}


def kernel(function: Callable) -> Kernel:
    """Decorates a kernel written in Python (VX_SPEC 4.1; the module
    docstring of vx.tracer): calls trace it per specialization and run it."""
    return Kernel(function)

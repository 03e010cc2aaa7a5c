"""Vx from Python: parse vx IR, lower it stage by stage, read the launch
geometry and the PTX, run kernels on the CPU on numpy arrays, and compile
them to libraries that run without MLIR.

    import vx
    m = vx.parse(text)                 # a vx.Module at stage "vx"
    g = m.lower("gpu")                 # a new Module; m is unchanged
    g.launches()                       # [vx.Launch(kernel, grid, block)]
    m.ptx(chip="sm_90")                # {device module name: PTX text}
    vx.run(m, "fn", *args)             # CPU execution through --vx-to-llvm
    vx.run(m, "fn", *args, ptx_sim=True, chip="sm_90a")   # the PTX, simulated
    lib = vx.compile(m, target="cuda", chip="sm_90")   # a vx.Library
    lib = vx.runtime.load(path)        # pure Python: no MLIR in the process
    lib = vx.runtime.load(path, simulate=True)   # a CUDA library on the simulator

    @vx.kernel                         # kernels in Python (vx/tracer.py)
    def saxpy(a, x, y):
        with vx.spawn(grid=[x.shape[0]], semantics=[vx.parallel]) as (i,):
            y[i] = a * x[i] + y[i]

Keyword options are the options of the stage's vx-opt pipeline with `_` for
`-`: `m.lower("ptx", chip="sm_100a", threads_per_block=128)` runs
`--vx-to-ptx="chip=sm_100a threads-per-block=128"`.

This module itself is pure Python: the names that need the compiler (the
`_vx` extension, linked with libMLIR) load it on first use, so that
`import vx.runtime` works on a machine without MLIR.
"""

from typing import NamedTuple, Optional, Tuple

# The names of @vx.kernel (vx.tracer: vx.kernel, vx.spawn, ...) load on
# first use too.
__all__ = ["STAGES", "Diagnostic", "Launch", "Library", "Module",
           "SimulationError", "VxError", "compile", "parse", "pipeline", "run"]

from ._config import VERSION as __version__

class Diagnostic(NamedTuple):
    """One diagnostic of a parse, verification or pass run."""
    severity: str   # "error", "warning", "remark" or "note"
    message: str
    location: str   # "file:line:col" where the IR has one
    # Every "file:line:col" of the location, innermost first: a call-site
    # location's callee, then its callers (traced helper functions).
    chain: Tuple[str, ...] = ()

    def __str__(self):
        return f"{self.location}: {self.severity}: {self.message}"


def _diagnostic(fields) -> Diagnostic:
    severity, message, location, *chain = fields
    return Diagnostic(severity, message, location, tuple(chain[0]) if chain else ())


class VxError(Exception):
    """A parse, verification, pipeline, compile or run failure, with every
    diagnostic that the failing step reported (`diagnostics`, a list of
    Diagnostic)."""

    def __init__(self, summary, diagnostics=()):
        self.summary = summary
        self.diagnostics = [_diagnostic(d) for d in diagnostics]
        # Multi-line messages (an op dump in a "see current operation" note)
        # stay whole in `diagnostics`; the message shows their first line.
        lines = [summary] + ["  " + str(d).split("\n")[0] for d in self.diagnostics]
        super().__init__("\n".join(lines))


class SimulationError(VxError):
    """What the PTX simulator (libvx_ptx_sim) reports of a run: a kernel
    that reads outside its memory, deadlocks at a barrier, races, reads an
    asynchronous copy's destination too early or executes PTX the simulator
    does not support. The message is the simulator's, naming the kernel,
    block, thread and PTX line."""


class Launch(NamedTuple):
    """One gpu.launch_func: the kernel's name (its device module's, the key
    of `Module.ptx()`), its grid and block sizes, (x, y, z) with an int where
    static and None where dynamic, and the location of its spawn
    ("file:line:col")."""
    kernel: str
    grid: Tuple[Optional[int], Optional[int], Optional[int]]
    block: Tuple[Optional[int], Optional[int], Optional[int]]
    location: str


_COMPILER_NAMES = ("STAGES", "Module", "compile", "parse", "pipeline", "run")


def _tracer():
    """vx.tracer (@vx.kernel), or None in a package with only vx.runtime
    (vx.compile's runtime-only copies)."""
    import importlib
    try:
        # Not `from . import tracer`: its hasattr(vx, "tracer") would come
        # back to __getattr__.
        return importlib.import_module(".tracer", __name__)
    except ImportError:
        return None


def __getattr__(name):
    if name in _COMPILER_NAMES:
        from . import _compiler
        return getattr(_compiler, name)
    if name == "Library":
        from .runtime import Library
        return Library
    if name == "runtime":
        from . import runtime
        return runtime
    tracer = _tracer()
    if tracer is not None and name in tracer.__all__:
        # Kept here: kernels look vx.exp & co. up on every traced op.
        value = globals()[name] = getattr(tracer, name)
        return value
    raise AttributeError(f"module 'vx' has no attribute {name!r}")


def __dir__():
    tracer = _tracer()
    return sorted(list(globals()) + list(_COMPILER_NAMES) + ["Library", "runtime"]
                  + (tracer.__all__ if tracer else []))

"""The compiler half of the vx package (loads the `_vx` extension and with
it libMLIR): parsing, lowering, vx.run and vx.compile with their compile
cache. `vx/__init__.py` re-exports the public names lazily.

Compile cache: a compiled library is kept in memory and on disk, keyed on
the module's text (without locations, except under detect_races, whose
reports name them), the target, the options, Vx's version (and the build of
the extension) and the host CPU. The disk cache is `$VX_CACHE_DIR`, else
`$XDG_CACHE_HOME/vx`, else `~/.cache/vx`; an entry is a directory written
under a temporary name and renamed into place, so concurrent processes see
either nothing or a complete entry.
"""

import ctypes
import hashlib
import json
import numbers
import os
import re
import shutil
import subprocess
import tempfile
import threading
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import Diagnostic, Launch, VxError, _config, _diagnostic, _vx
from .runtime import ABI_VERSION, CUDA_RUNTIME, Library

__all__ = ["STAGES", "Module", "compile", "parse", "pipeline", "run"]

#: The stages of a module, from the vx input to the CPU path's LLVM dialect.
STAGES: Tuple[str, ...] = tuple(_vx.stages())


def _check_stage(stage):
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; the stages are "
                         f"{', '.join(STAGES)}")


def _option_kind(default):
    """The Python type an option takes, from its default's text."""
    if default in ("true", "false"):
        return bool
    if default.lstrip("-").isdigit():
        return int
    return str


def _option_text(stage, options):
    """The pipeline-option text of keyword options, checked by name and by
    the kind of value each option takes."""
    known = _vx.stage_options(stage)
    defaults = _vx.stage_option_defaults(stage)
    entries = []
    for key, value in options.items():
        name = key.replace("_", "-")
        if name not in known:
            valid = ", ".join(n.replace("-", "_") for n in known) or "none"
            raise TypeError(f"stage {stage!r} has no option {key!r}; its "
                            f"options are: {valid}")
        kind = _option_kind(defaults[name])
        if kind is bool and isinstance(value, bool):
            text = "true" if value else "false"
        elif (kind is int and isinstance(value, numbers.Integral)
              and not isinstance(value, bool)):
            text = str(int(value))
        elif kind is str and isinstance(value, str):
            text = value
        else:
            article = "an" if kind is int else "a"
            raise TypeError(f"option {key!r} takes {article} {kind.__name__}, "
                            f"got {type(value).__name__}")
        if not text or any(c in text for c in " {}="):
            raise ValueError(f"option {key!r}: invalid value {value!r}")
        entries.append(f"{name}={text}")
    return " ".join(entries)


def pipeline(stage: str, **options: Any) -> str:
    """The textual pass pipeline (for `vx-opt --pass-pipeline=`) that takes
    vx input to `stage` with `options`."""
    _check_stage(stage)
    return _vx.stage_pipeline(stage, _option_text(stage, options))


def parse(text: str, filename: str = "<string>") -> "Module":
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
        self._diagnostics = [_diagnostic(d) for d in diagnostics]
        self._text = None

    @property
    def stage(self) -> str:
        """The stage this module is at."""
        return self._stage

    @property
    def diagnostics(self) -> List[Diagnostic]:
        """The warnings and remarks of the lowering that made this module."""
        return list(self._diagnostics)

    def __str__(self) -> str:
        return str(self._native)

    def __repr__(self):
        return f"<vx.Module at stage {self._stage!r}>"

    def verify(self) -> None:
        """Verifies the module; raises VxError with the diagnostics."""
        self._native.verify()

    def lower(self, stage: str, **options: Any) -> "Module":
        """A new Module at `stage`, by the stage's pipeline with `options`."""
        _check_stage(stage)
        later = _vx.later_stages(self._stage)
        if stage not in later:
            raise ValueError(f"a module at stage {self._stage!r} cannot be "
                             f"lowered to {stage!r}; from {self._stage!r} the "
                             f"stages are: {', '.join(later) or 'none'}")
        native, diagnostics = self._native.run_pipeline(pipeline(stage, **options))
        return Module(native, stage, diagnostics)

    def launches(self, **options: Any) -> List[Launch]:
        """The gpu.launch_func ops as vx.Launch, in program order. A module at
        stage "vx" is first lowered to "gpu" with `options`; the CPU stages
        have no launches."""
        module = self
        if self._stage == "vx":
            module = self.lower("gpu", **options)
        elif options:
            raise TypeError("options apply only to a module at stage 'vx'")
        return [Launch(kernel, tuple(grid), tuple(block), location)
                for kernel, grid, block, location in module._native.launches()]

    def ptx(self, **options: Any) -> Dict[str, str]:
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


# -- compiled libraries --------------------------------------------------------

#: Bumped when the layout of cache entries or the library ABI changes.
_CACHE_FORMAT = 1
_LIBRARY = "library.so"
_TARGET_STAGES = {"cpu": "llvm", "cuda": "ptx"}
_lock = threading.Lock()
_memory_cache: Dict[str, Tuple[str, Dict[str, Any]]] = {}
_run_libraries: Dict[str, Library] = {}


def _version() -> str:
    """Vx's version and the identity of this build (the extension and this
    file, which writes the metadata), so that a rebuilt or edited package
    never reuses another build's libraries."""
    version = getattr(_config, "__version__", getattr(_config, "VERSION", "unknown"))
    build = [os.stat(path) for path in (_vx.__file__, __file__)]
    return " ".join([version] + [f"{s.st_size}:{s.st_mtime_ns}" for s in build])


def _cache_root() -> str:
    root = os.environ.get("VX_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "vx")
    try:
        os.makedirs(root, exist_ok=True)
    except OSError:
        root = tempfile.mkdtemp(prefix="vx-cache-")
    return root


def _module_text(module: "Module") -> str:
    # A Module never changes, so its text is printed once.
    if module._text is None:
        module._text = str(module)
    return module._text


def _linker() -> str:
    for name in ("clang-22", "clang", "cc"):
        found = shutil.which(name)
        if found:
            return found
    raise VxError("vx.compile needs a C toolchain to link the shared library "
                  "(clang-22, clang or cc on PATH)")


def _cuda_runtime_path() -> str:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), CUDA_RUNTIME)
    if not os.path.exists(path):
        raise VxError(f"{CUDA_RUNTIME} was not built with this vx package (no "
                      f"CUDA toolkit at build time): CUDA libraries need it")
    return path


#: The runtime of detect-races (lib/Runtime/RaceDetector.cpp), in the package.
RACE_RUNTIME = "libvx_race_runtime.so"


def _race_runtime_path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), RACE_RUNTIME)


def _describe(kind_tuple) -> Dict[str, Any]:
    kind, type_text = kind_tuple[0], kind_tuple[1]
    if kind == "memref":
        _, _, element, shape, strides, offset = kind_tuple
        return {"kind": "memref", "type": type_text, "element": element,
                "shape": list(shape), "strides": strides, "offset": offset}
    return {"kind": kind, "type": type_text}


def _function_descriptions(native) -> List[Dict[str, Any]]:
    """Each public function's signature; the ones Python cannot call say
    why under "unsupported"."""
    functions = []
    for name in native.public_functions():
        parameters, results = native.signature(name)
        description = {"name": name,
                       "arguments": [_describe(p) for p in parameters],
                       "results": [_describe(r) for r in results]}
        unsupported = [a["type"] for a in description["arguments"]
                       if a["kind"] not in ("memref", "scalar")]
        if len(results) > 1 or any(r["kind"] != "scalar"
                                   for r in description["results"]):
            description["unsupported"] = (
                f"returns {', '.join(r['type'] for r in description['results'])}"
                f": a library function has no result or one scalar")
        elif unsupported:
            description["unsupported"] = (
                f"takes {', '.join(unsupported)}, which cannot be passed "
                f"from Python")
        functions.append(description)
    return functions


_UNDEFINED = re.compile(r"undefined (?:reference to|symbol:) [`']?([\w.$]+)")
_IN_FUNCTION = re.compile(r"in function [`']([\w.$]+)'")


def _link(work: str, target: str, options: Dict[str, Any], for_run: bool,
          calls: Sequence[Tuple[str, str]]) -> List[str]:
    """Links work/library.o into work/library.so and puts the runtime
    libraries it needs beside it; returns their names."""
    command = [_linker(), "-shared", "-o", os.path.join(work, _LIBRARY),
               os.path.join(work, "library.o"), "-Wl,-z,defs",
               "-Wl,--as-needed", "-lm"]
    companions = []
    llvm_libraries = _config.LLVM_LIBRARY_DIR
    if target == "cuda":
        runtime = _cuda_runtime_path()
        shutil.copy2(runtime, os.path.join(work, CUDA_RUNTIME))
        companions.append(CUDA_RUNTIME)
        command += ["-L" + work, "-lvx_cuda_runtime"]
    if options.get("detect_races"):
        if for_run:
            # The package's copy.
            package = os.path.dirname(_race_runtime_path())
            command += ["-L" + package, "-Wl,-rpath," + package]
        else:
            shutil.copy2(_race_runtime_path(), os.path.join(work, RACE_RUNTIME))
            companions.append(RACE_RUNTIME)
            command += ["-L" + work]
        command.append("-lvx_race_runtime")
    if options.get("openmp"):
        command += ["-L" + llvm_libraries, "-lomp"]
        if not for_run:
            # Under its soname, which the library's DT_NEEDED names.
            shutil.copy2(os.path.realpath(os.path.join(llvm_libraries, "libomp.so")),
                         os.path.join(work, "libomp.so.5"))
            companions.append("libomp.so.5")
    if for_run:
        # vx.run's process has libMLIR already: the runner utilities that
        # the JIT used to offer stay available (they need libMLIR).
        command += ["-L" + llvm_libraries, "-lmlir_c_runner_utils",
                    "-lmlir_runner_utils", "-Wl,-rpath," + llvm_libraries]
    else:
        command.append("-Wl,-rpath,$ORIGIN")
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        missing = sorted(set(_UNDEFINED.findall(result.stderr)))
        users = {}
        for callee, caller in calls:
            if not caller.startswith("vx_call_"):
                users.setdefault(callee, caller.replace("_mlir_ciface_", ""))
        # A routine the code generator calls (no call in the module): the
        # linker names the function that needs it.
        function = None
        for line in result.stderr.splitlines():
            caller = _IN_FUNCTION.search(line)
            if caller:
                function = caller.group(1)
            for name in _UNDEFINED.findall(line):
                if function:
                    users.setdefault(name, function.replace("_mlir_ciface_", ""))
        if missing:
            needs = "; ".join(f"@{users[name]} needs @{name}" if name in users
                              else f"the generated code needs @{name}"
                              for name in missing)
            raise VxError(f"{needs}, which neither the module nor the "
                          f"libraries it is linked with define",
                          [("error", line, "linker")
                           for line in result.stderr.splitlines()[:20]])
        raise VxError("could not link the library: " + result.stderr[-2000:])
    return companions


def _build(module: "Module", target: str, options: Dict[str, Any],
           for_run: bool, work: str) -> Dict[str, Any]:
    """Compiles `module` into work/library.so; returns its metadata."""
    native = module._native
    if target == "cuda":
        native.verify_host_code_for_devices()
    functions = _function_descriptions(native)
    metadata = {
        "abi": ABI_VERSION, "target": target, "vx": _version(),
        "options": options, "host": _vx.host_target(native=for_run),
        "functions": functions,
        "runtime": ([CUDA_RUNTIME] if target == "cuda" else []) +
                   (["libomp.so.5"] if options.get("openmp") else []) +
                   ([RACE_RUNTIME] if options.get("detect_races") and not for_run
                    else []),
    }
    entry_points = [f["name"] for f in functions if "unsupported" not in f]
    text = pipeline(_TARGET_STAGES[target], **options)
    # vx.run's libraries stay on this machine: they may use all of its CPU.
    object_bytes, calls, _warnings = native.emit_library_object(
        text, entry_points, json.dumps(metadata, sort_keys=True), for_run)
    with open(os.path.join(work, "library.o"), "wb") as output:
        output.write(object_bytes)
    _link(work, target, options, for_run, calls)
    os.remove(os.path.join(work, "library.o"))
    return metadata


def _compiled(module: "Module", target: str, options: Dict[str, Any],
              for_run: bool = False) -> Tuple[str, Dict[str, Any]]:
    """(library path, metadata) of `module` compiled for `target`, from the
    memory or disk cache when there."""
    # The text has no locations (a kernel moved in its file compiles to the
    # same library), except where the code reports them: detect-races.
    text = (module._native.text_with_locations() if options.get("detect_races")
            else _module_text(module))
    key = hashlib.sha256(json.dumps(
        [_CACHE_FORMAT, _version(), _vx.host_target(native=for_run), target, for_run,
         sorted(options.items()), text]).encode()).hexdigest()
    with _lock:
        if key in _memory_cache:
            return _memory_cache[key]
    root = _cache_root()
    entry = os.path.join(root, key)
    library = os.path.join(entry, _LIBRARY)
    metadata_path = os.path.join(entry, "metadata.json")
    if not os.path.exists(metadata_path):
        work = tempfile.mkdtemp(prefix=".build-", dir=root)
        try:
            metadata = _build(module, target, options, for_run, work)
            with open(os.path.join(work, "metadata.json"), "w") as output:
                json.dump(metadata, output)
            try:
                os.rename(work, entry)
            except OSError:
                # Another process stored the same entry first.
                if not os.path.exists(metadata_path):
                    raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
    with open(metadata_path) as source:
        result = (library, json.load(source))
    with _lock:
        _memory_cache[key] = result
    return result


def _check_compilable(module, target: str) -> None:
    if not isinstance(module, Module):
        raise TypeError(f"expected a vx.Module, got {type(module).__name__}")
    if target not in _TARGET_STAGES:
        raise ValueError(f"unknown target {target!r}; the targets are "
                         f"{', '.join(_TARGET_STAGES)}")
    stages = ("vx", "scf") if target == "cpu" else ("vx",)
    if module.stage not in stages:
        raise ValueError(f"a module at stage {module.stage!r} cannot be "
                         f"compiled for {target!r}; compile the vx module")


def compile(module: "Module", target: str = "cpu", *,
            output: Optional[str] = None,
            functions: Optional[Sequence[str]] = None,
            **options: Any) -> Library:
    """Compiles `module` to a shared library that runs without MLIR and
    returns it as a vx.Library (`.path`, one callable per function).

    target "cpu" lowers with --vx-to-llvm (options openmp, reverse_parallel,
    via_gpu, threads_per_block, stages, allow_races); the library needs libc,
    libm and, with openmp, libomp (copied beside it). target "cuda" lowers
    with --vx-to-ptx (options chip, features, format (default fatbin),
    threads_per_block, stages): the host code is compiled ahead of time with the
    device binary embedded, and the library needs libvx_cuda_runtime.so
    (copied beside it) and the driver's libcuda.so.1. `functions` keeps only
    those functions (and what they call). `output` is where the library is
    written (its runtime libraries beside it); without it the library stays
    in the compile cache. Nothing is loaded until a function is called."""
    _check_compilable(module, target)
    if target == "cuda":
        options.setdefault("format", "fatbin")
    pipeline(_TARGET_STAGES[target], **options)
    if functions is not None:
        if isinstance(functions, str):
            functions = [functions]
        module = Module(module._native.keep_only(list(functions)), module.stage)
    library, metadata = _compiled(module, target, options)
    path = library
    if output is not None:
        path = os.path.abspath(output)
        directory = os.path.dirname(path)
        os.makedirs(directory, exist_ok=True)
        for name in metadata["runtime"]:
            _copy_atomically(os.path.join(os.path.dirname(library), name),
                             os.path.join(directory, name))
        _copy_atomically(library, path)
    # Loaded from the cache entry: a process loads a path only once, and
    # `output` may be rewritten by a later compile.
    return Library(path, metadata, load_path=library)


def _copy_atomically(source: str, destination: str) -> None:
    temporary = f"{destination}.{os.getpid()}.tmp"
    shutil.copy2(source, temporary)
    os.replace(temporary, destination)


#: The options after which vx.run is a plain call of the library's function
#: (`vx.kernel` calls that function directly, the fast path).
PLAIN_RUN_OPTIONS = frozenset({"openmp", "reverse_parallel", "via_gpu",
                               "threads_per_block", "stages", "allow_races",
                               "chip", "tf32"})


def _run_library(module: "Module", options: Dict[str, Any]) -> Library:
    """The CPU library that vx.run calls `module`'s functions in, with
    `options` (compiled and loaded once; the compile checks the options)."""
    library, metadata = _compiled(module, "cpu", options, for_run=True)
    with _lock:
        loaded = _run_libraries.get(library)
        if loaded is None:
            loaded = _run_libraries[library] = Library(library, metadata)
    return loaded


def run(module: "Module", fn: str, *args: Any, **options: Any) -> Any:
    """Runs func.func @fn of `module` on the CPU through --vx-to-llvm with
    `options` (openmp, reverse_parallel, via_gpu, threads_per_block, stages,
    allow_races, detect_races): the module is compiled to a CPU library
    (cached, see the module docstring) and @fn called through vx.runtime.
    numpy arrays are passed as memrefs and updated in place; ints and floats
    as scalars. Arrays that overlap each other or themselves are refused
    (distinct memref arguments do not alias). With detect_races=True a data
    race raises VxError naming the buffer, the element and both instances,
    and the interpreter lives on. Returns the function's scalar result, or
    None."""
    if not isinstance(module, Module):
        raise TypeError(f"vx.run takes a vx.Module, got {type(module).__name__}")
    if module.stage not in ("vx", "scf"):
        raise ValueError(f"a module at stage {module.stage!r} cannot be run; "
                         f"run the vx module (via_gpu=True runs the GPU "
                         f"mapping on the CPU)")
    pipeline("llvm", **options)
    module._native.signature(fn)
    # A race raises VxError from vx.runtime (detect_races in the metadata).
    return _run_library(module, options).function(fn)(*args)

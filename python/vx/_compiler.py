"""The compiler half of the vx package (loads the `_vx` extension and with
it libMLIR): parsing, lowering, vx.run and vx.compile with their compile
cache. `vx/__init__.py` re-exports the public names lazily.

Compile cache: a compiled library is kept in memory and on disk (_cache.py:
the directory, locking, size limit), keyed on the module's text (without
locations, except under detect_races, whose reports name them), the target,
the options (those equal to their default left out), Vx's version (and the
build of the extension), the CUDA toolkit (ptxas's path and version) and
the host CPU.
"""

import ctypes
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import (Diagnostic, KernelReport, Launch, VxError, _cache, _config,
               _diagnostic, _vx)
from .runtime import ABI_VERSION, CUDA_RUNTIME, Library

__all__ = ["STAGES", "Module", "compile", "parse", "pipeline", "run"]

#: The stages of a module, from the vx input to the CPU path's LLVM dialect.
STAGES: Tuple[str, ...] = tuple(_vx.stages())


def _check_stage(stage):
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; the stages are "
                         f"{', '.join(STAGES)}")


def _stage_pipeline(stage, options):
    """The pipeline of `stage` with keyword `options`, built once in C++:
    each option is checked against its typed field there (TypeError for a
    wrong kind or an unknown name, ValueError for a value the pipeline text
    cannot spell, VxError for what the stage refuses)."""
    _check_stage(stage)
    return _vx.StagePipeline(stage, options)


def pipeline(stage: str, **options: Any) -> str:
    """The textual pass pipeline (for `vx-opt --pass-pipeline=`) that takes
    vx input to `stage` with `options`."""
    return _stage_pipeline(stage, options).text()


def parse(text: str, filename: str = "<string>") -> "Module":
    """Parses and verifies vx IR; raises VxError with the diagnostics."""
    if not isinstance(text, str):
        raise TypeError(f"vx.parse takes the IR as a str, got "
                        f"{type(text).__name__}")
    return Module(_vx.parse(text, filename), "vx", sources={filename: text})


class Module:
    """A module at one of STAGES. Lowering returns a new Module; a Module is
    never changed in place."""

    def __init__(self, native, stage, diagnostics=(), sources=None):
        self._native = native
        self._stage = stage
        self._diagnostics = [_diagnostic(d) for d in diagnostics]
        self._text = None
        # {file name: text} of what was parsed, for diagnostics' source
        # lines.
        self._sources = dict(sources or {})

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
        native, diagnostics = self._native.lower(_stage_pipeline(stage, options))
        return Module(native, stage, diagnostics, self._sources)

    def render_diagnostics(self, diagnostics=None) -> str:
        """`diagnostics` (default: this module's) as vx-opt prints them,
        with source lines and carets."""
        if diagnostics is None:
            diagnostics = self._diagnostics
        return "".join(d.render(self._sources) + "\n" for d in diagnostics)

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

    def report(self, **options: Any) -> List[KernelReport]:
        """What the compiler does with each kernel, as vx.KernelReport, in
        program order. A module at stage "vx" is first lowered with
        `options` to "ptx" with PTX (format=isa), whose ptxas gives the
        registers, spills and stack; without a CUDA toolkit to "nvvm" (the
        same mapping; those fields None). A module at a later stage is
        reported as it is."""
        module = self
        if self._stage == "vx":
            if options.get("format", "isa") != "isa":
                raise ValueError("report() asks ptxas about the PTX: format "
                                 "must be 'isa'")
            if _vx.cuda_toolkit():
                module = self.lower("ptx", **dict(options, format="isa"))
            else:
                options.pop("format", None)
                module = self.lower("nvvm", **options)
        elif options:
            raise TypeError("options apply only to a module at stage 'vx'")
        return [KernelReport(*entry) for entry in module._native.kernel_reports()]


# -- compiled libraries --------------------------------------------------------

#: Bumped when the layout of cache entries or the library ABI changes.
_CACHE_FORMAT = 3
_LIBRARY = "library.so"
_TARGET_STAGES = {"cpu": "llvm", "cuda": "ptx"}
_lock = threading.Lock()
_memory_cache: Dict[str, Tuple[str, Dict[str, Any]]] = {}
_run_libraries: Dict[str, Library] = {}


_identity: Optional[str] = None


def _version() -> str:
    """Vx's version and a hash of the contents of this build (the extension
    and this file, which writes the metadata), so that a rebuilt or edited
    package never reuses another build's libraries, and two builds of the
    same sources write the same library bytes (no sizes or mtimes)."""
    global _identity
    if _identity is None:
        version = getattr(_config, "__version__",
                          getattr(_config, "VERSION", "unknown"))
        digest = hashlib.sha256()
        for path in (_vx.__file__, __file__):
            with open(path, "rb") as source:
                for chunk in iter(lambda: source.read(1 << 20), b""):
                    digest.update(chunk)
        _identity = f"{version} {digest.hexdigest()[:32]}"
    return _identity


def _cuda_toolkit() -> str:
    """The CUDA toolkit that compiles device code now: ptxas's path and
    version (a library built by another ptxas is another cache entry)."""
    toolkit = _vx.cuda_toolkit()
    if not toolkit:
        return "no CUDA toolkit"
    ptxas = os.path.realpath(os.path.join(toolkit, "bin", "ptxas"))
    try:
        status = os.stat(ptxas)
    except OSError as error:
        return f"{ptxas}: {error.strerror}"
    return _ptxas_version(ptxas, status.st_size, status.st_mtime_ns)


@functools.lru_cache(maxsize=None)
def _ptxas_version(ptxas: str, size: int, mtime_ns: int) -> str:
    """`ptxas --version`, asked once per process and ptxas file."""
    try:
        result = subprocess.run([ptxas, "--version"], capture_output=True,
                                text=True, timeout=60)
        version = result.stdout.strip() or result.stderr.strip()
    except (OSError, subprocess.SubprocessError) as error:
        version = f"unusable: {error}"
    return f"{ptxas} {size}:{mtime_ns} {version}"


def _module_text(module: "Module") -> str:
    # A Module never changes, so its text is printed once, without
    # locations: a kernel moved in its file compiles to the same library.
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
                       "results": [_describe(r) for r in results],
                       "size_requirements": [
                           {"argument": list(argument), "at_least": list(bound),
                            "when_positive": [list(d) for d in guards]}
                           for argument, bound, guards in
                           native.size_requirements(name)]}
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
    if options.get("ptx_sim"):
        # vx.run's libraries only (vx.compile refuses ptx_sim): the
        # package's copy, the one vx.runtime loads first.
        package = os.path.dirname(os.path.abspath(__file__))
        command += ["-L" + package, "-Wl,-rpath," + package, "-lvx_ptx_sim"]
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


#: The options of a CUDA compile that the report's lowering takes.
_REPORT_OPTIONS = ("chip", "features", "threads_per_block", "stages", "fma",
                   "tf32")


def _build(module: "Module", target: str, built, options: Dict[str, Any],
           for_run: bool, work: str) -> Dict[str, Any]:
    """Compiles `module` with the stage pipeline `built` (of `options`)
    into work/library.so; returns its metadata."""
    native = module._native
    report = []
    if target == "cuda":
        native.verify_host_code_for_devices()
        report = [r._asdict() for r in module.report(**{
            k: v for k, v in options.items() if k in _REPORT_OPTIONS})]
    functions = _function_descriptions(native)
    metadata = {
        "abi": ABI_VERSION, "target": target, "vx": _version(),
        "options": built.options(),
        "host": _vx.host_target(native=for_run),
        "functions": functions, "report": report,
        # Whose locations the diagnostics name (_compiled).
        "source_digest": hashlib.sha256(
            native.text_with_locations().encode()).hexdigest(),
        "runtime": ([CUDA_RUNTIME] if target == "cuda" else []) +
                   (["libomp.so.5"] if options.get("openmp") else []) +
                   ([RACE_RUNTIME] if options.get("detect_races") and not for_run
                    else []),
    }
    entry_points = [f["name"] for f in functions if "unsupported" not in f]
    # A CUDA library carries its kernels' PTX for the PTX simulator
    # (vx.runtime.load(path, simulate=True)): a fatbin's PTX is compressed.
    simulator_ptx = []
    if target == "cuda" and options.get("format") != "isa":
        simulator_ptx = sorted(module.ptx(**dict(options, format="isa")).items())
    # vx.run's libraries stay on this machine: they may use all of its CPU.

    def with_diagnostics(diagnostics):
        metadata["diagnostics"] = [list(d) for d in diagnostics]
        return json.dumps(metadata, sort_keys=True)

    object_bytes, calls, _ = native.emit_library_object(
        built, entry_points, with_diagnostics, for_run, simulator_ptx)
    with open(os.path.join(work, "library.o"), "wb") as output:
        output.write(object_bytes)
    _link(work, target, options, for_run, calls)
    os.remove(os.path.join(work, "library.o"))
    return metadata


def _compiled(module: "Module", target: str, options: Dict[str, Any],
              for_run: bool = False) -> Tuple[str, Dict[str, Any]]:
    """(library path, metadata) of `module` compiled for `target` with
    `options` (checked here, the pipeline built once), from the memory or
    disk cache when there."""
    built = _stage_pipeline(_TARGET_STAGES[target], options)
    # Options at their default values are left out: the same compile,
    # spelt differently, is one cache entry.
    options = built.options(changed_only=True)
    # The text has no locations (a kernel moved in its file compiles to the
    # same library), except where the code reports them: detect-races.
    located = module._native.text_with_locations()
    text = located if options.get("detect_races") else _module_text(module)
    key = hashlib.sha256(json.dumps(
        [_CACHE_FORMAT, _version(), _cuda_toolkit(),
         _vx.host_target(native=for_run), target, for_run,
         sorted(options.items()), text]).encode()).hexdigest()
    library, metadata = _cache_entry(key, module, target, built, options,
                                     for_run)
    # A library keeps its diagnostics, which name locations: one with
    # diagnostics of the same code elsewhere is not this source's library.
    digest = hashlib.sha256(located.encode()).hexdigest()
    if metadata["diagnostics"] and metadata["source_digest"] != digest:
        key = hashlib.sha256((key + digest).encode()).hexdigest()
        library, metadata = _cache_entry(key, module, target, built, options,
                                         for_run)
    return library, metadata


def _cache_entry(key: str, module: "Module", target: str, built,
                 options: Dict[str, Any],
                 for_run: bool) -> Tuple[str, Dict[str, Any]]:
    """(library path, metadata) of the cache entry `key`, built from
    `module` when missing."""
    with _lock:
        cached = _memory_cache.get(key)
    # Another process may have evicted the entry since.
    if cached is not None and _cache.touch(os.path.dirname(cached[0])):
        return cached

    def build(work):
        metadata = _build(module, target, built, options, for_run, work)
        with open(os.path.join(work, "metadata.json"), "w") as output:
            json.dump(metadata, output)

    entry = _cache.entry(key, build)
    with open(os.path.join(entry, "metadata.json")) as source:
        result = (os.path.join(entry, _LIBRARY), json.load(source))
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
    threads_per_block, stages, fma, tf32): the host code is compiled ahead
    of time with the device binary embedded (and the PTX, for
    vx.runtime.load(path, simulate=True)), and the library needs
    libvx_cuda_runtime.so (copied beside it) and the driver's libcuda.so.1.
    `functions` keeps only those functions (and what they call). `output` is
    where the library is written (its runtime libraries beside it); without
    it the library stays in the compile cache. Nothing is loaded until a function is called."""
    _check_compilable(module, target)
    if options.get("ptx_sim"):
        raise ValueError("ptx_sim applies to vx.run; to run a compiled "
                         "library on the PTX simulator, compile it for "
                         "target='cuda' and load it with "
                         "vx.runtime.load(path, simulate=True)")
    if target == "cuda":
        options.setdefault("format", "fatbin")
    if functions is not None:
        if isinstance(functions, str):
            functions = [functions]
        module = Module(module._native.keep_only(list(functions)),
                        module.stage, sources=module._sources)
    library, metadata = _compiled(module, target, options)
    sys.stderr.write(module.render_diagnostics(
        [_diagnostic(d) for d in metadata["diagnostics"]]))
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
    `options` (openmp, reverse_parallel, via_gpu, ptx_sim, chip, sim_order,
    threads_per_block, stages, allow_races, detect_races): the module is
    compiled to a CPU library (cached, see the module docstring) and @fn
    called through vx.runtime. numpy arrays are passed as memrefs and
    updated in place; ints and floats as scalars. Arrays that overlap each
    other or themselves are refused (distinct memref arguments do not
    alias). With detect_races=True a data race raises VxError naming the
    buffer, the element and both instances, and the interpreter lives on.
    With ptx_sim=True the device code is compiled to PTX for `chip` (default
    sm_90) and every launch runs on the PTX simulator, the arrays being its
    global memory; what the simulator reports raises vx.SimulationError.
    Returns the function's scalar result, or None."""
    if not isinstance(module, Module):
        raise TypeError(f"vx.run takes a vx.Module, got {type(module).__name__}")
    if module.stage not in ("vx", "scf"):
        raise ValueError(f"a module at stage {module.stage!r} cannot be run; "
                         f"run the vx module (via_gpu=True runs the GPU "
                         f"mapping on the CPU)")
    module._native.signature(fn)
    # A race raises VxError from vx.runtime (detect_races in the metadata).
    return _run_library(module, options).function(fn)(*args)

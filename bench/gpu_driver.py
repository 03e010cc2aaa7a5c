"""The running half of scripts/gpu-bench.sh, copied into the prepared
directory as driver.py. Needs only python3, torch with CUDA and the NVIDIA
driver (triton and compute-sanitizer are used where present):

    python3 DIR/driver.py [--repeats 20] [--warmup 3] [--budget 420]
                          [--timeout 120] [--timeout-for PATTERN=SECONDS]
                          [--only PATTERN ...]
    python3 DIR/driver.py --simulate # the CUDA libraries on the PTX simulator
    python3 DIR/driver.py --cpu      # a `--target cpu` directory, with numpy

Each entry runs in its own process, killed after --timeout seconds (or
those of the first --timeout-for pattern its name matches: a kernel that
hangs costs that entry only, recorded as TIMED OUT), and
DIR/results.json is rewritten after every entry (a temporary file renamed
into place: valid JSON whenever the run stops). --simulate checks the
prepared CUDA libraries on this CPU (vx.runtime.load(..., simulate=True),
numpy inputs and references, no timing), so that a package is known to be
right before GPU time is spent on it.

The entries of kind "expert" are the expert tensor-core kernels of
bench/cuda (DIR/expert.py): launched through the same mgpu* entry points,
checked against torch in float64 and timed against torch.matmul (bf16,
cuBLAS) and scaled_dot_product_attention (flash backend); --simulate runs
them at small sizes on the PTX simulator.

For each entry of DIR/manifest.json: makes the inputs, calls the compiled
kernel through vx.runtime, checks its output against the reference
operation (torch's, or numpy's with --cpu), and times it: CUDA events around
back-to-back launches on torch's current stream, the median of the repeats
after the warm-up. The same operation through torch (matmul with TF32 off,
softmax, scaled_dot_product_attention, add, a transposing copy) and through
triton (where it imports) is timed in the same run, and a device-to-device
copy gives the bandwidth that is reachable. compute-sanitizer's memcheck and
racecheck run one launch of every kernel. Prints a table and writes
DIR/results.json. Exit status 1 when any output is wrong.
"""

import argparse
import fnmatch
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

ATTENTION_SCALE = 0.125   # bench/kernels/attention.mlir: 1 / sqrt(64)
COPY_BYTES = 1 << 28


# -- backends ------------------------------------------------------------------

class NumpyBackend:
    """CPU libraries on numpy arrays, wall-clock timing: tests the driver's
    logic without a GPU. Its numbers are CPU numbers and labelled so."""

    device = "cpu"
    timed = True

    def __init__(self):
        import numpy
        self.np = numpy
        self.rng = numpy.random.default_rng(0)

    def describe(self):
        return {"device": "cpu", "name": platform.processor() or platform.machine(),
                "cores": os.cpu_count(), "numpy": self.np.__version__}

    def make(self, spec):
        shape, dtype = spec["shape"], spec["dtype"]
        if spec["init"] == "normal":
            return self.rng.standard_normal(shape).astype(dtype)
        if spec["init"] == "small_integers":
            return self.rng.integers(-4, 5, shape).astype(dtype)
        return self.np.zeros(shape, dtype)

    def reference(self, name, inputs, entry):
        np = self.np
        if name == "vector_add":
            return inputs[0] + inputs[1]
        if name == "transpose":
            return inputs[0].T
        if name == "softmax":
            x = inputs[0].astype(np.float64)
            e = np.exp(x - x.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
        if name == "matmul":
            return inputs[0].astype(np.float64) @ inputs[1].astype(np.float64)
        if name == "attention":
            q, k, v = (a.astype(np.float64) for a in inputs)
            scores = np.einsum("bhqd,bhkd->bhqk", q, k) * ATTENTION_SCALE
            weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
            weights /= weights.sum(axis=-1, keepdims=True)
            return np.einsum("bhqk,bhkd->bhqd", weights, v)
        raise KeyError(name)

    def error(self, got, expected):
        np = self.np
        got, expected = np.asarray(got, np.float64), np.asarray(expected, np.float64)
        scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
        return float(np.abs(got - expected).max(initial=0.0)) / scale

    def to_list(self, array):
        return array.tolist()

    def call(self, function, arguments):
        function(*arguments)

    def time(self, run, warmup, repeats):
        for _ in range(warmup):
            run()
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            run()
            samples.append(time.perf_counter() - start)
        return statistics.median(samples)

    def baselines(self, name, inputs, output):
        return {}

    def copy_bandwidth(self):
        source = self.np.ones(COPY_BYTES // 4 // 16, self.np.float32)
        target = self.np.empty_like(source)
        seconds = self.time(lambda: self.np.copyto(target, source), 1, 5)
        return {"bytes": 2 * source.nbytes, "seconds": seconds}

    def peaks(self):
        return {"source": "none: CPU run, no peak stated"}


class SimulatedBackend(NumpyBackend):
    """CUDA libraries on the PTX simulator (vx.runtime.load(path,
    simulate=True)), on numpy arrays: checks, no timing."""

    device = "ptx-sim"
    timed = False

    def describe(self):
        return dict(super().describe(), device="ptx-sim",
                    name="libvx_ptx_sim on " + (platform.processor() or
                                                platform.machine()))

    def peaks(self):
        return {"source": "none: simulated, not timed"}


class TorchBackend(NumpyBackend):
    """CUDA libraries on torch tensors, CUDA-event timing."""

    device = "cuda"

    def __init__(self):
        try:
            import torch
        except ImportError as error:
            raise SystemExit(f"driver: needs torch with CUDA ({error}); "
                             f"--cpu runs a --target cpu directory on numpy")
        if not torch.cuda.is_available():
            raise SystemExit("driver: torch sees no CUDA device")
        self.torch = torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self.generator = torch.Generator(device="cuda").manual_seed(0)
        try:
            import triton  # noqa: F401
            self.triton = triton
        except Exception:
            self.triton = None

    def describe(self):
        torch = self.torch
        properties = torch.cuda.get_device_properties(0)
        return {"device": "cuda", "name": properties.name,
                "compute_capability": f"{properties.major}.{properties.minor}",
                "sms": properties.multi_processor_count,
                "memory_gib": round(properties.total_memory / 2**30, 1),
                "torch": torch.__version__, "cuda": torch.version.cuda,
                "triton": getattr(self.triton, "__version__", None)}

    def make(self, spec):
        torch = self.torch
        dtype = getattr(torch, spec["dtype"])
        if spec["init"] == "normal":
            return torch.randn(spec["shape"], generator=self.generator,
                               device="cuda", dtype=dtype)
        if spec["init"] == "small_integers":
            return torch.randint(-4, 5, spec["shape"], generator=self.generator,
                                 device="cuda").to(dtype)
        return torch.zeros(spec["shape"], device="cuda", dtype=dtype)

    def reference(self, name, inputs, entry):
        torch = self.torch
        wide = [a.double() for a in inputs]
        if name == "vector_add":
            return wide[0] + wide[1]
        if name == "transpose":
            return inputs[0].t()
        if name == "softmax":
            return torch.softmax(wide[0], dim=-1)
        if name == "matmul":
            return wide[0] @ wide[1]
        if name == "attention":
            return torch.nn.functional.scaled_dot_product_attention(
                *wide, scale=ATTENTION_SCALE)
        raise KeyError(name)

    def error(self, got, expected):
        got, expected = got.double(), expected.double()
        scale = max(1.0, expected.abs().max().item() if expected.numel() else 0.0)
        return ((got - expected).abs().max().item() if got.numel() else 0.0) / scale

    def to_list(self, array):
        return array.cpu().tolist()

    def call(self, function, arguments):
        function(*arguments)
        self.torch.cuda.synchronize()

    def time(self, run, warmup, repeats):
        torch = self.torch
        for _ in range(warmup):
            run()
        torch.cuda.synchronize()
        # Enough launches between two events to dwarf their resolution.
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        inner = max(1, min(100, int(2.0 / max(start.elapsed_time(end), 1e-3))))
        samples = []
        for _ in range(repeats):
            start.record()
            for _ in range(inner):
                run()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) / 1e3 / inner)
        return statistics.median(samples)

    def baselines(self, name, inputs, output):
        """{label: callable} of the same operation through torch (and
        triton where it imports), writing `output`."""
        torch = self.torch
        functional = torch.nn.functional
        ops = {
            "vector_add": ("torch.add", lambda: torch.add(inputs[0], inputs[1], out=output)),
            "transpose": ("torch copy_(x.t())", lambda: output.copy_(inputs[0].t())),
            "softmax": ("torch.softmax", lambda: torch.softmax(inputs[0], dim=-1)),
            "matmul": ("torch.matmul (TF32 off)",
                       lambda: torch.matmul(inputs[0], inputs[1], out=output)),
            "attention": ("torch scaled_dot_product_attention", lambda:
                          functional.scaled_dot_product_attention(
                              *inputs, scale=ATTENTION_SCALE)),
        }
        result = {}
        if name in ops:
            result["torch"] = ops[name]
        if self.triton is not None and name in TRITON_KERNELS:
            try:
                result["triton"] = (f"triton {name}", TRITON_KERNELS[name](inputs, output))
            except Exception as error:  # a triton version we do not fit
                result["triton"] = (f"triton {name}", error)
        return result

    def copy_bandwidth(self):
        torch = self.torch
        source = torch.ones(COPY_BYTES // 4, device="cuda")
        target = torch.empty_like(source)
        seconds = self.time(lambda: target.copy_(source), 3, 20)
        return {"bytes": 2 * COPY_BYTES, "seconds": seconds}

    def peaks(self):
        """The chip's peak DRAM bandwidth and FP32 rate, from the device's
        attributes (the driver API): 2 x memory clock x bus width, and SMs x
        FP32 lanes per SM x 2 (an FMA) x clock."""
        import ctypes
        try:
            driver = ctypes.CDLL("libcuda.so.1")
            device = ctypes.c_int()
            driver.cuInit(0)
            driver.cuDeviceGet(ctypes.byref(device), 0)

            def attribute(code):
                value = ctypes.c_int()
                if driver.cuDeviceGetAttribute(ctypes.byref(value), code, device):
                    raise OSError(f"attribute {code}")
                return value.value
            clock_khz, sms = attribute(13), attribute(16)
            memory_khz, bus_bits = attribute(36), attribute(37)
            major, minor = attribute(75), attribute(76)
        except OSError as error:
            return {"source": f"unavailable ({error})"}
        lanes = {(7, 0): 64, (8, 0): 64}.get((major, minor), 128 if major >= 8 else 64)
        return {"bandwidth": 2.0 * memory_khz * 1e3 * bus_bits / 8,
                "fp32": sms * lanes * 2.0 * clock_khz * 1e3,
                "source": f"device attributes: {sms} SMs x {lanes} FP32 lanes at "
                          f"{clock_khz / 1e3:.0f} MHz; {bus_bits}-bit memory at "
                          f"{memory_khz / 1e3:.0f} MHz"}


def _triton_vector_add(inputs, output):
    import triton
    import triton.language as tl

    @triton.jit
    def add(a, b, c, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(c + offsets, tl.load(a + offsets, mask=mask) +
                 tl.load(b + offsets, mask=mask), mask=mask)
    n = output.numel()
    return lambda: add[(triton.cdiv(n, 1024),)](inputs[0], inputs[1], output, n,
                                                BLOCK=1024)


def _triton_softmax(inputs, output):
    import triton
    import triton.language as tl

    @triton.jit
    def softmax(x, y, columns, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offsets = tl.arange(0, BLOCK)
        mask = offsets < columns
        v = tl.load(x + row * columns + offsets, mask=mask, other=-float("inf"))
        e = tl.exp(v - tl.max(v, axis=0))
        tl.store(y + row * columns + offsets, e / tl.sum(e, axis=0), mask=mask)
    rows, columns = inputs[0].shape
    block = triton.next_power_of_2(columns)
    return lambda: softmax[(rows,)](inputs[0], output, columns, BLOCK=block)


def _triton_matmul(inputs, output):
    import triton
    import triton.language as tl

    @triton.jit
    def matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
            y = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
            acc += tl.dot(x, y, input_precision="ieee")
        tl.store(c + rm[:, None] * N + rn[None, :], acc)
    (m, k), n = inputs[0].shape, inputs[1].shape[1]
    return lambda: matmul[(m // 64, n // 64)](inputs[0], inputs[1], output, m, n, k,
                                               BM=64, BN=64, BK=32)


TRITON_KERNELS = {"vector_add": _triton_vector_add, "softmax": _triton_softmax,
                  "matmul": _triton_matmul}


# -- the run -----------------------------------------------------------------------

def load_library(name, simulate):
    """The library DIR/lib/`name`, on the PTX simulator with `simulate`."""
    # The copy of vx.runtime beside this script (bench.py imports this file
    # for `table` alone).
    sys.path.insert(0, os.path.join(HERE, "python"))
    import vx.runtime
    return vx.runtime.load(os.path.join(HERE, "lib", name), simulate=simulate)


def arguments_of(backend, entry):
    return [spec["scalar"] if "scalar" in spec else backend.make(spec)
            for spec in entry["arguments"]]


def check(backend, entry, arguments):
    """(ok, error) of the entry's output against its reference."""
    output_index = next(i for i, spec in enumerate(entry["arguments"])
                        if spec.get("output"))
    output = arguments[output_index]
    if entry["reference"] == "instance_ids":
        values = backend.to_list(output)
        count = entry["instances"]
        wrong = sum(1 for index, value in enumerate(values)
                    if value != (index + 1 if index < count else 0))
        return wrong == 0, float(wrong)
    inputs = [a for i, a in enumerate(arguments)
              if i != output_index and "scalar" not in entry["arguments"][i]]
    error = backend.error(output, backend.reference(entry["reference"], inputs, entry))
    return error <= 1e-4, error


def run_entry(backend, library, entry, options):
    function = library.function(entry["function"])
    arguments = arguments_of(backend, entry)
    backend.call(function, arguments)
    ok, error = check(backend, entry, arguments)
    row = {"name": entry["name"], "kind": entry["kind"],
           "check": "ok" if ok else "WRONG", "error": error}
    if entry["kind"] != "bench" or not ok or not backend.timed:
        return row
    stream = {}
    if backend.device == "cuda":
        stream = {"stream": backend.torch.cuda.current_stream().cuda_stream}
    # Checked once: the timing loop pays the compiled call alone.
    row["vx_seconds"] = backend.time(function.bind(*arguments, **stream),
                                     options.warmup, options.repeats)
    row["bytes"], row["flops"] = entry["bytes"], entry["flops"]
    output_index = len(arguments) - 1
    inputs, output = arguments[:output_index], arguments[output_index]
    for label, (what, run) in backend.baselines(entry["reference"], inputs,
                                                output).items():
        if isinstance(run, Exception):
            row[label] = {"op": what, "error": str(run)}
            continue
        try:
            row[label] = {"op": what, "seconds": backend.time(run, options.warmup,
                                                              options.repeats)}
        except Exception as error:
            row[label] = {"op": what, "error": f"{type(error).__name__}: {error}"}
    return row


def sanitize(budget_seconds):
    """compute-sanitizer memcheck and racecheck over one launch of every
    entry (`driver.py --once`), where the tool exists."""
    tool = shutil.which("compute-sanitizer") or next(
        (path for path in ("/usr/local/cuda/bin/compute-sanitizer",)
         if os.path.exists(path)), None)
    if tool is None:
        return {"status": "compute-sanitizer not found"}
    result = {}
    for check_name in ("memcheck", "racecheck"):
        command = [tool, "--tool", check_name, "--error-exitcode", "99",
                   sys.executable, os.path.abspath(__file__), "--once"]
        try:
            process = subprocess.run(command, capture_output=True, text=True,
                                     timeout=max(30, budget_seconds / 2))
            summary = [line for line in process.stdout.splitlines()
                       if "ERROR SUMMARY" in line or "RACECHECK SUMMARY" in line]
            result[check_name] = {"exit": process.returncode,
                                  "summary": summary[-1] if summary else
                                  process.stdout.strip().splitlines()[-1:]}
        except subprocess.TimeoutExpired:
            result[check_name] = {"exit": None, "summary": "timed out"}
    return result


def rate(amount, seconds):
    return amount / seconds if amount and seconds else None


def table(results):
    machine = results["machine"]
    peaks = results["peaks"]
    lines = [f"GPU benchmark on {machine.get('name')} ({machine['device']}); "
             f"peaks: {peaks.get('source')}", "",
             "| kernel | check | vx (ms) | GB/s | % peak BW | GFLOP/s | % peak FP32 "
             "| torch (ms) | triton (ms) |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]

    def milliseconds(row, label):
        value = row.get(label)
        if not value:
            return "-"
        if "seconds" not in value:
            return "error"
        return f"{1e3 * value['seconds']:.4f}"

    tensor_core = [row for row in results["kernels"]
                   if row["kind"] in ("tensor_core", "expert")]
    for row in results["kernels"]:
        if row["kind"] in ("tensor_core", "expert"):
            continue
        seconds = row.get("vx_seconds")
        bandwidth = rate(row.get("bytes"), seconds)
        flops = rate(row.get("flops"), seconds)

        def percent(value, peak):
            return f"{100 * value / peak:.1f}%" if value and peak else "-"
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            row["name"], row["check"],
            f"{1e3 * seconds:.4f}" if seconds else "-",
            f"{bandwidth / 1e9:.1f}" if bandwidth else "-",
            percent(bandwidth, peaks.get("bandwidth")),
            f"{flops / 1e9:.1f}" if flops else "-",
            percent(flops, peaks.get("fp32")),
            milliseconds(row, "torch"), milliseconds(row, "triton")))
    if tensor_core:
        lines += ["", "Tensor-core kernels, vx's (vx_*) and the expert ones of "
                  "bench/cuda (expert_*), against torch:",
                  ""] + expert_module().table(tensor_core)
    copy = results.get("copy")
    if copy:
        lines.append(f"\n{machine['device']} copy, {copy['bytes'] / 2**20:.0f} MiB read + written: "
                     f"{copy['bytes'] / copy['seconds'] / 1e9:.1f} GB/s.")
    for name, error in results.get("load_errors", {}).items():
        lines.append(f"\n{name} did not load: {error}")
    if "sanitizer" in results:
        lines.append(f"\ncompute-sanitizer: {json.dumps(results['sanitizer'])}")
    return "\n".join(lines)


def make_backend(mode):
    return {"cpu": NumpyBackend, "simulate": SimulatedBackend,
            "cuda": TorchBackend}[mode]()


def expert_module():
    """expert.py: beside driver.py in a prepared directory, in bench/cuda
    when bench.py imports this file."""
    sys.path[:0] = [HERE, os.path.join(HERE, "cuda")]
    import expert
    return expert


def run_expert(entry, backend, mode, options):
    """The row of an expert tensor-core entry (DIR/expert.py)."""
    return expert_module().run(entry, mode, HERE, options, backend)


def run_tensor_core(entry, backend, mode, options):
    """The row of a vx tensor-core entry: on the simulator its f16 twin at
    simulate_shape against numpy; on a GPU the bf16 library at `shape`,
    checked and timed against torch as the expert kernels are."""
    expert = expert_module()
    row = {"name": entry["name"], "kind": entry["kind"]}
    op, tolerance = entry["op"], expert.TOLERANCE[entry["op"]]
    if mode == "simulate":
        np = backend.np
        shape = entry["simulate_shape"]
        if op == "gemm":
            m, n, k = shape
            sizes, output_shape = [(m, k), (n, k)], (m, n)
        else:
            batch, heads, queries, keys, dim = shape
            sizes = [(batch, heads, queries, dim)] + [(batch, heads, keys, dim)] * 2
            output_shape = sizes[0]
        inputs = [backend.rng.standard_normal(size).astype(np.float16)
                  for size in sizes]
        # The f16 twin's output: bf16 became f16.
        output = np.zeros(output_shape, {"f32": np.float32, "bf16": np.float16}[
            entry["output_type"]])
        load_library(entry["simulate_library"], True).function(
            entry["function"])(*inputs, output)
        expected = expert.numpy_reference(
            op, [a.astype(np.float64) for a in inputs])
        error = backend.error(output, expected)
        return dict(row, check="ok" if error <= tolerance else "WRONG",
                    error=error, shape=shape)
    torch = backend.torch
    shape = entry["shape"]
    problem = expert.torch_problem(op, shape, backend)
    output = torch.empty(*(shape[:2] if op == "gemm" else shape[:3] + shape[4:]),
                         device="cuda", dtype={"f32": torch.float32,
                                               "bf16": torch.bfloat16}[
                                                   entry["output_type"]])
    function = load_library(entry["library"], False).function(entry["function"])
    arguments = problem["inputs"] + [output]
    backend.call(function, arguments)
    error = backend.error(problem["checked"](output), problem["expected"]())
    row.update(check="ok" if error <= tolerance else "WRONG", error=error,
               shape=shape, flops=expert.flops(entry))
    if row["check"] != "ok" or options.once:
        return row
    stream = torch.cuda.current_stream().cuda_stream
    expert.time_against_torch(row, function.bind(*arguments, stream=stream),
                              problem, backend, options)
    return row


def run_row(entry, backend, mode, options):
    """The row of one entry (an exception is the caller's)."""
    if entry["kind"] == "expert":
        return run_expert(entry, backend, mode, options)
    if entry["kind"] == "tensor_core":
        return run_tensor_core(entry, backend, mode, options)
    try:
        library = load_library(entry["library"], mode == "simulate")
    except Exception as error:
        return {"name": entry["name"], "kind": entry["kind"],
                "check": "NOT LOADED",
                "load_error": f"{type(error).__name__}: {error}"}
    return run_entry(backend, library, entry, options)


def run_one(manifest, index, mode, options):
    """`--entry INDEX`: runs one entry in this process and prints its row
    (JSON) as the last line."""
    entry = manifest["entries"][index]
    try:
        row = run_row(entry, make_backend(mode), mode, options)
    except Exception as error:
        row = {"name": entry["name"], "kind": entry["kind"],
               "check": f"FAILED: {type(error).__name__}: {error}"}
    print(json.dumps(row))
    return 0


def entry_timeout(name, options):
    """Seconds entry `name` may run: those of the first --timeout-for
    pattern it matches, else --timeout."""
    for pattern, seconds in options.timeout_for or []:
        if fnmatch.fnmatchcase(name, pattern):
            return seconds
    return options.timeout


def timeout_for(text):
    """--timeout-for's PATTERN=SECONDS."""
    pattern, _, seconds = text.rpartition("=")
    try:
        return pattern, float(seconds)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected PATTERN=SECONDS, got {text!r}") from None


def run_isolated(index, entry, mode, options):
    """The row of entry `index`, run by a child process killed after its
    timeout (entry_timeout)."""
    command = [sys.executable, os.path.abspath(__file__), "--entry", str(index),
               "--repeats", str(options.repeats), "--warmup", str(options.warmup)]
    if mode != "cuda":
        command.append("--" + mode)
    row = {"name": entry["name"], "kind": entry["kind"]}
    timeout = entry_timeout(entry["name"], options)
    try:
        process = subprocess.run(command, capture_output=True, text=True,
                                 timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(row, check="TIMED OUT", timeout=timeout)
    lines = process.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        last = (process.stderr.strip().splitlines() or ["no output"])[-1]
        return dict(row, check=f"FAILED: exit {process.returncode}: {last}")


def write_results(results):
    """DIR/results.json, replaced whole: valid JSON whenever the run stops."""
    path = os.path.join(HERE, "results.json")
    temporary = path + ".tmp"
    with open(temporary, "w") as output:
        json.dump(results, output, indent=1)
    os.replace(temporary, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--cpu", action="store_true",
                       help="a directory prepared with --target cpu, on numpy")
    modes.add_argument("--simulate", action="store_true",
                       help="check the CUDA libraries on the PTX simulator, "
                            "on numpy (no timing)")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--budget", type=float, default=420.0,
                        help="seconds for the whole run; extras stop first")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds an entry may take before it is killed")
    parser.add_argument("--timeout-for", action="append", type=timeout_for,
                        metavar="PATTERN=SECONDS",
                        help="the timeout of the entries whose names match "
                             "(fnmatch; repeatable, the first match counts)")
    parser.add_argument("--only", action="append", metavar="PATTERN",
                        help="run the entries whose names match (fnmatch; "
                             "repeatable)")
    parser.add_argument("--once", action="store_true",
                        help="launch every entry once (under compute-sanitizer)")
    parser.add_argument("--entry", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--no-sanitizer", action="store_true")
    options = parser.parse_args()
    started = time.monotonic()
    with open(os.path.join(HERE, "manifest.json")) as source:
        manifest = json.load(source)
    mode = "cpu" if options.cpu else "simulate" if options.simulate else "cuda"
    expected = "cpu" if options.cpu else "cuda"
    if manifest["target"] != expected:
        raise SystemExit(f"driver: the directory holds {manifest['target']} "
                         f"libraries; run {'with' if manifest['target'] == 'cpu' else 'without'} --cpu")
    if options.entry is not None:
        return run_one(manifest, options.entry, mode, options)
    backend = make_backend(mode)
    if options.once:
        for entry in manifest["entries"]:
            if entry["kind"] == "expert":
                run_expert(entry, backend, mode, options)
                continue
            if entry["kind"] == "tensor_core":
                run_tensor_core(entry, backend, mode, options)
                continue
            backend.call(load_library(entry["library"], False)
                         .function(entry["function"]), arguments_of(backend, entry))
        return 0
    selected = [(index, entry) for index, entry in enumerate(manifest["entries"])
                if not options.only or any(fnmatch.fnmatchcase(entry["name"], p)
                                           for p in options.only)]
    results = {"machine": backend.describe(), "peaks": backend.peaks(),
               "manifest": {"target": manifest["target"], "chip": manifest["chip"]},
               "mode": mode, "complete": False, "kernels": [], "load_errors": {}}
    for count, (index, entry) in enumerate(selected, 1):
        entry_started = time.monotonic()
        row = run_isolated(index, entry, mode, options)
        if "load_error" in row:
            results["load_errors"][entry["library"]] = row["load_error"]
        results["kernels"].append(row)
        write_results(results)
        print(f"driver: [{count}/{len(selected)}] {entry['name']}: {row['check']} "
              f"({time.monotonic() - entry_started:.1f} s)", file=sys.stderr)
    if backend.timed:
        results["copy"] = backend.copy_bandwidth()
    remaining = options.budget - (time.monotonic() - started)
    if backend.device == "cuda" and not options.no_sanitizer and remaining > 60:
        results["sanitizer"] = sanitize(remaining)
    results["seconds"] = time.monotonic() - started
    results["complete"] = True
    write_results(results)
    print(table(results))
    print(f"\ndriver: {len(results['kernels'])} entries in {results['seconds']:.0f} s; "
          f"results in {os.path.join(HERE, 'results.json')}")
    wrong = [row["name"] for row in results["kernels"] if row["check"] != "ok"]
    if wrong:
        print(f"driver: not ok: {', '.join(wrong)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

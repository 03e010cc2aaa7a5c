"""The expert tensor-core kernels of bench/cuda (wgmma_gemm.cu,
flash_attention.cu, flash_attention_wgmma.cu) for scripts/gpu-bench.sh:
how each is compiled, its launch geometry, and a runner that launches it
through the `mgpu*` entry points that libvx_cuda_runtime.so (on a GPU) and
libvx_ptx_sim.so (the PTX simulator) both export, so that `driver.py
--simulate` checks on this CPU the very launches that `driver.py` times on
a GPU.

gpu_bench.py compiles each source with nvcc into a fatbin (SASS for the
GPU, PTX for the simulator) and copies this file beside driver.py, which
imports it for the entries of kind "expert".
"""

import ctypes
import os
import re
import subprocess
import sys

# wgmma_gemm.cu: kTileM, kTileN, kTileK, kThreads and kSharedBytes.
GEMM_TILE = (128, 256, 64)
GEMM_THREADS = 384
GEMM_SHARED = 4 * (128 + 256) * 64 * 2 + 2 * 4 * 8 + 1024
# flash_attention.cu: kTileQ, kThreads; sharedBytes(dim): Q's tile and two
# buffers each of K's and V's, 64 rows of `dim` bf16 each.
ATTENTION_TILE_Q, ATTENTION_THREADS = 64, 128


def attention_shared(dim):
    return (64 + 4 * 64) * dim * 2


# flash_attention_wgmma.cu: sharedBytes(dim): Q's tile, 2 stages of K's
# and V's, 3 mbarriers, 1 KiB of alignment; its CTA is one warpgroup of
# ATTENTION_THREADS for ATTENTION_TILE_Q queries.
def attention_wgmma_shared(dim):
    return 5 * 64 * dim * 2 + 3 * 8 + 1024


# CUtensorMapDataType BFLOAT16, CUtensorMapSwizzle 128B.
BFLOAT16, SWIZZLE_128B = 9, 3

# The sources, the nvcc -gencode of each (SASS for the GPU, the PTX that
# the simulator runs), and the benchmark entries: sizes timed on the GPU
# and the smaller ones checked on the simulator. GEMM: (M, N, K);
# attention: (batch, heads, queries, keys, d).
SOURCES = {
    "wgmma_gemm.cu": ["arch=compute_90a,code=[sm_90a,compute_90a]"],
    "flash_attention.cu": ["arch=compute_80,code=[sm_80,compute_80]",
                           "arch=compute_90,code=sm_90"],
    "flash_attention_wgmma.cu": ["arch=compute_90a,code=[sm_90a,compute_90a]"],
}
ENTRIES = [
    {"name": "expert_gemm_bf16", "source": "wgmma_gemm.cu",
     "kernel": "wgmmaGemm", "op": "gemm", "shape": [4096, 4096, 4096],
     "simulate_shape": [128, 256, 128]},
] + [
    {"name": f"expert_attention_d{dim}", "source": "flash_attention.cu",
     "kernel": f"flashAttention{dim}", "op": "attention",
     "shape": [4, 16, 4096, 4096, dim], "simulate_shape": [1, 1, 64, 128, dim]}
    for dim in (64, 128)] + [
    {"name": f"expert_attention_wgmma_d{dim}",
     "source": "flash_attention_wgmma.cu",
     "kernel": f"flashAttentionWgmma{dim}",
     "op": "attention_wgmma", "shape": [4, 16, 4096, 4096, dim],
     "simulate_shape": [1, 1, 64, 192, dim]}
    for dim in (64, 128)]


def compile_fatbin(nvcc, source, output):
    """nvcc -O3 -fatbin of bench/cuda/`source` (compressed: the simulator
    reads zstd)."""
    command = [nvcc, "-O3", "-fatbin", "-Xfatbin=-compress-all", "-o", output,
               os.path.join(os.path.dirname(os.path.abspath(__file__)), source)]
    for gencode in SOURCES[source]:
        command += ["-gencode", gencode]
    # nvcc does not run under scripts/sanitize.sh's ASan LD_PRELOAD.
    environment = {name: value for name, value in os.environ.items()
                   if name != "LD_PRELOAD"}
    subprocess.run(command, check=True, capture_output=True, text=True,
                   env=environment)


def flops(entry):
    shape = entry["shape"]
    if entry["op"] == "gemm":
        m, n, k = shape
        return 2 * m * n * k
    batch, heads, queries, keys, dim = shape
    return 4 * batch * heads * queries * keys * dim


# -- launching through the mgpu* entry points ----------------------------

c_void_p, c_int64 = ctypes.c_void_p, ctypes.c_int64


class Runtime:
    """libvx_cuda_runtime.so or libvx_ptx_sim.so, its mgpu* entry points
    declared and its errors reported to us (vxCudaTakeError)."""

    def __init__(self, path):
        lib = self.lib = ctypes.CDLL(path)
        lib.vxCudaReportErrors.restype = None
        lib.vxCudaReportErrors()
        lib.vxCudaTakeError.restype = ctypes.c_char_p
        lib.mgpuModuleLoad.restype = c_void_p
        lib.mgpuModuleLoad.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        lib.mgpuModuleGetFunction.restype = c_void_p
        lib.mgpuModuleGetFunction.argtypes = [c_void_p, ctypes.c_char_p]
        lib.mgpuLaunchKernel.restype = None
        lib.mgpuLaunchKernel.argtypes = (
            [c_void_p] + [ctypes.c_ssize_t] * 6 +
            [ctypes.c_int32, c_void_p, ctypes.POINTER(c_void_p), c_void_p,
             ctypes.c_size_t])
        lib.mgpuTensorMapEncodeTiledMemref.restype = c_void_p
        lib.mgpuTensorMapEncodeTiledMemref.argtypes = (
            [c_int64, c_void_p] + [c_int64] * 5 + [c_void_p])

    def check(self, what):
        error = self.lib.vxCudaTakeError()
        if error:
            raise RuntimeError(f"{what}: {error.decode()}")

    def function(self, fatbin_path, name):
        with open(fatbin_path, "rb") as source:
            image = source.read()
        module = self.lib.mgpuModuleLoad(image, len(image))
        self.check(f"loading {os.path.basename(fatbin_path)}")
        function = self.lib.mgpuModuleGetFunction(module, name.encode())
        self.check(f"finding {name}")
        return function

    def tensor_map(self, address, rows, columns, box_rows, box_columns):
        """The 128B-swizzled bf16 tensor map of a row-major rows x columns
        matrix at `address`, boxes of box_rows x box_columns; its address
        (device memory on a GPU)."""
        descriptor = (c_int64 * 7)(address, address, 0, rows, columns,
                                   columns, 1)
        box = (c_int64 * 2)(box_rows, box_columns)
        tensor_map = self.lib.mgpuTensorMapEncodeTiledMemref(
            2, ctypes.addressof(descriptor), BFLOAT16, 0, SWIZZLE_128B, 0, 0,
            ctypes.addressof(box))
        self.check("encoding a tensor map")
        return tensor_map

    def launcher(self, function, grid, block, shared, arguments, stream):
        """A callable that launches `function` once with `arguments`
        (ctypes values) on `stream` (a CUstream handle or None)."""
        params = (c_void_p * len(arguments))(
            *[ctypes.addressof(argument) for argument in arguments])

        def launch():
            self.lib.mgpuLaunchKernel(function, *grid, *block, shared, stream,
                                      params, None, len(arguments))
        launch.keep = (arguments, params)
        return launch


def gemm_launcher(runtime, function, a, b, c, shape, stream=None):
    """C (m x n) = A (m x k) B^T (B n x k), bf16, at device (or registered
    host) addresses a, b, c."""
    m, n, k = shape
    tile_m, tile_n, tile_k = GEMM_TILE
    maps = (runtime.tensor_map(a, m, k, tile_m, tile_k),
            runtime.tensor_map(b, n, k, tile_n, tile_k))
    return runtime.launcher(
        function, (n // tile_n, m // tile_m, 1), (GEMM_THREADS, 1, 1),
        GEMM_SHARED, [ctypes.c_uint64(maps[0]), ctypes.c_uint64(maps[1]),
                      ctypes.c_uint64(c), ctypes.c_int32(n),
                      ctypes.c_int32(k)], stream)


def attention_launcher(runtime, function, q, k, v, o, shape, scale,
                       stream=None):
    """O = softmax(Q K^T scale) V over batch x heads, bf16 [b][h][seq][d]."""
    batch, heads, queries, keys, dim = shape
    return runtime.launcher(
        function, (queries // ATTENTION_TILE_Q, batch * heads, 1),
        (ATTENTION_THREADS, 1, 1), attention_shared(dim),
        [ctypes.c_uint64(q), ctypes.c_uint64(k), ctypes.c_uint64(v),
         ctypes.c_uint64(o), ctypes.c_int32(keys), ctypes.c_float(scale)],
        stream)


def attention_wgmma_launcher(runtime, function, q, k, v, o, shape, scale,
                             stream=None):
    """attention_launcher's computation by flash_attention_wgmma.cu: Q, K
    and V through 128B-swizzled tensor maps of 64 x 64 boxes."""
    batch, heads, queries, keys, dim = shape
    maps = [runtime.tensor_map(address, batch * heads * rows, dim, 64, 64)
            for address, rows in ((q, queries), (k, keys), (v, keys))]
    return runtime.launcher(
        function, (queries // ATTENTION_TILE_Q, batch * heads, 1),
        (ATTENTION_THREADS, 1, 1), attention_wgmma_shared(dim),
        [ctypes.c_uint64(address) for address in maps] +
        [ctypes.c_uint64(o), ctypes.c_int32(keys), ctypes.c_float(scale)],
        stream)


LAUNCHERS = {"attention": attention_launcher,
             "attention_wgmma": attention_wgmma_launcher}


# -- the driver's entries ------------------------------------------------

def to_bf16(values):
    """The bf16 bits (numpy uint16) of values, rounded to nearest even."""
    import numpy as np
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7fff + ((bits >> 16) & 1)) >> 16
    return bits.astype(np.uint16)


def from_bf16(bits):
    import numpy as np
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _simulated(entry, directory):
    """Runs the entry at its simulate_shape on the PTX simulator (numpy
    inputs, registered as host memory); returns its error against numpy's
    float64 result, relative to max(1, max |reference|)."""
    import numpy as np
    runtime = Runtime(os.path.join(directory, "python", "vx",
                                   "libvx_ptx_sim.so"))
    runtime.lib.mgpuMemHostRegister.argtypes = [c_void_p, ctypes.c_uint64]
    runtime.lib.mgpuMemHostUnregister.argtypes = [c_void_p]
    function = runtime.function(os.path.join(directory, "lib", entry["binary"]),
                                entry["kernel"])
    shape = entry["simulate_shape"]
    rng = np.random.default_rng(0)
    if entry["op"] == "gemm":
        m, n, k = shape
        inputs = [to_bf16(rng.standard_normal(s)) for s in ((m, k), (n, k))]
        output = np.zeros((m, n), np.uint16)
    else:
        batch, heads, queries, keys, dim = shape
        inputs = [to_bf16(rng.standard_normal((batch, heads, s, dim)))
                  for s in (queries, keys, keys)]
        output = np.zeros((batch, heads, queries, dim), np.uint16)
    arrays = inputs + [output]
    for array in arrays:
        runtime.lib.mgpuMemHostRegister(array.ctypes.data, array.nbytes)
    try:
        addresses = [array.ctypes.data for array in arrays]
        if entry["op"] == "gemm":
            launch = gemm_launcher(runtime, function, *addresses, shape)
        else:
            launch = LAUNCHERS[entry["op"]](runtime, function, *addresses,
                                            shape, shape[-1] ** -0.5)
        launch()
        runtime.check(entry["kernel"])
    finally:
        for array in arrays:
            runtime.lib.mgpuMemHostUnregister(array.ctypes.data)
    wide = [from_bf16(array).astype(np.float64) for array in arrays]
    expected = numpy_reference(entry["op"], wide[:-1])
    scale = max(1.0, np.abs(expected).max())
    return float(np.abs(wide[-1] - expected).max() / scale)


def numpy_reference(op, inputs):
    """numpy's float64 result of `op` on float64 inputs: A B^T, or the
    attention of Q, K, V ([batch][heads][sequence][d]) scaled by d^-1/2."""
    import numpy as np
    if op == "gemm":
        return inputs[0] @ inputs[1].T
    q, k, v = inputs
    scores = np.einsum("bhqd,bhkd->bhqk", q, k) * q.shape[-1] ** -0.5
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return np.einsum("bhqk,bhkd->bhqd",
                     weights / weights.sum(axis=-1, keepdims=True), v)


# bf16 output (8-bit mantissa) and, for attention, P in bf16: the error
# relative to max(1, max |reference|).
TOLERANCE = {"gemm": 2**-7, "attention": 2**-6, "attention_wgmma": 2**-6}


def torch_problem(op, shape, backend):
    """A problem of `op` ("gemm" or an attention op) at `shape` on the GPU:
    its bf16 inputs, the float64 reference of the part of the output that
    is checked (a callable), that part of an output, and torch's kernel
    for it ((label, call, context manager or None))."""
    torch = backend.torch
    generator = backend.generator

    def normal(*size):
        return torch.randn(*size, generator=generator, device="cuda",
                           dtype=torch.bfloat16)
    functional = torch.nn.functional
    if op == "gemm":
        m, n, k = shape
        a, b = normal(m, k), normal(n, k)
        return {"inputs": [a, b],
                "expected": lambda: a.double() @ b.double().t(),
                "checked": lambda output: output,
                "baseline": ("torch.matmul bf16 (cuBLAS)",
                             lambda: torch.matmul(a, b.t()), None)}
    batch, heads, queries, keys, dim = shape
    q = normal(batch, heads, queries, dim)
    k, v = normal(batch, heads, keys, dim), normal(batch, heads, keys, dim)
    scale = dim ** -0.5
    from torch.nn.attention import SDPBackend, sdpa_kernel
    # The float64 reference of the first two heads (all of them would take
    # tens of GiB of scores).
    return {"inputs": [q, k, v],
            "expected": lambda: functional.scaled_dot_product_attention(
                q[:1, :2].double(), k[:1, :2].double(), v[:1, :2].double(),
                scale=scale),
            "checked": lambda output: output[:1, :2],
            "baseline": ("torch scaled_dot_product_attention (flash backend)",
                         lambda: functional.scaled_dot_product_attention(
                             q, k, v, scale=scale),
                         lambda: sdpa_kernel(SDPBackend.FLASH_ATTENTION))}


def time_against_torch(row, launch, problem, backend, options):
    """Times `launch` (row["seconds"]) and torch's kernel for the same
    problem (row["torch"])."""
    row["seconds"] = backend.time(launch, options.warmup, options.repeats)
    what, call, context = problem["baseline"]
    try:
        if context:
            with context():
                seconds = backend.time(call, options.warmup, options.repeats)
        else:
            seconds = backend.time(call, options.warmup, options.repeats)
        row["torch"] = {"op": what, "seconds": seconds}
    except Exception as error:
        row["torch"] = {"op": what, "error": f"{type(error).__name__}: {error}"}


def run(entry, mode, directory, options, backend=None):
    """The driver's row of an expert entry: checked (and on a GPU timed
    against torch) in `mode` ("cuda" or "simulate")."""
    row = {"name": entry["name"], "kind": "expert"}
    if mode == "simulate":
        error = _simulated(entry, directory)
        return dict(row, check="ok" if error <= TOLERANCE[entry["op"]]
                    else "WRONG", error=error, shape=entry["simulate_shape"])
    torch = backend.torch
    runtime = Runtime(os.path.join(directory, "lib", "libvx_cuda_runtime.so"))
    function = runtime.function(os.path.join(directory, "lib", entry["binary"]),
                                entry["kernel"])
    stream = torch.cuda.current_stream().cuda_stream
    shape = entry["shape"]
    problem = torch_problem(entry["op"], shape, backend)
    output = torch.empty(*(shape[:2] if entry["op"] == "gemm" else
                           shape[:3] + shape[4:]),
                         device="cuda", dtype=torch.bfloat16)
    addresses = [t.data_ptr() for t in problem["inputs"] + [output]]
    if entry["op"] == "gemm":
        launch = gemm_launcher(runtime, function, *addresses, shape, stream)
    else:
        launch = LAUNCHERS[entry["op"]](runtime, function, *addresses, shape,
                                        shape[-1] ** -0.5, stream)
    launch()
    runtime.check(entry["kernel"])
    torch.cuda.synchronize()
    error = backend.error(problem["checked"](output), problem["expected"]())
    row.update(check="ok" if error <= TOLERANCE[entry["op"]] else "WRONG",
               error=error, shape=shape, flops=flops(entry))
    if row["check"] != "ok" or options.once:
        return row
    time_against_torch(row, launch, problem, backend, options)
    runtime.check(entry["kernel"])
    return row


def table(rows):
    """The tensor-core rows of results.json (the expert kernels and vx's)
    as markdown lines."""
    lines = ["| kernel | shape | check | ms | TFLOP/s | torch (ms) | "
             "torch TFLOP/s | kernel / torch throughput |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        seconds = row.get("seconds")
        torch_seconds = (row.get("torch") or {}).get("seconds")
        amount = row.get("flops")

        def tflops(time):
            return f"{amount / time / 1e12:.1f}" if amount and time else "-"
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            row["name"], "x".join(str(s) for s in row.get("shape", [])),
            row["check"], f"{1e3 * seconds:.3f}" if seconds else "-",
            tflops(seconds),
            f"{1e3 * torch_seconds:.3f}" if torch_seconds else "-",
            tflops(torch_seconds),
            f"{torch_seconds / seconds:.2f}" if seconds and torch_seconds
            else "-"))
    return lines


# -- what ptxas makes of them (the expert rows of bench/RESULTS.md) ------------

# The kernels measured: (source, kernel, chip, threads per CTA, smem).
USAGE = [("wgmma_gemm.cu", "wgmmaGemm", "sm_90a", GEMM_THREADS, GEMM_SHARED)]
USAGE += [("flash_attention.cu", f"flashAttention{dim}", chip,
           ATTENTION_THREADS, attention_shared(dim))
          for dim in (64, 128) for chip in ("sm_80", "sm_90a")]
USAGE += [("flash_attention_wgmma.cu", f"flashAttentionWgmma{dim}", "sm_90a",
           ATTENTION_THREADS, attention_wgmma_shared(dim))
          for dim in (64, 128)]
# SASS opcodes (the low 12 bits, as bench.py reads them), identified on
# these kernels by their counts: HGMMA with A in shared memory (4 per GEMM
# K step, d / 16 per attention KV step) and with A in registers (4 per
# attention KV step), 64 (d = 64) or 128 (d = 128) HMMA and 36 or 72 LDSM
# per mma.sync attention KV step, the same on sm_80 and sm_90a.
SASS_OPCODES = {"HGMMA": (0x9f0, 0xdf0), "HMMA": (0x23c,), "LDSM": (0x83b,)}
# Shared memory per SM a CTA may use, and the 1 KiB each CTA reserves.
SHARED_PER_SM = {"sm_80": 167936, "sm_90a": 233472}
RESERVED_SHARED = 1024
# PTX instruction classes counted in the main loop, by opcode prefix.
LOOP_CLASSES = [("mma", ("mma.sync", "wgmma.mma_async")),
                ("ldmatrix", ("ldmatrix",)), ("ex2", ("ex2",)),
                ("shfl", ("shfl",)),
                ("sync", ("bar.", "barrier.", "mbarrier.", "wgmma.fence",
                          "wgmma.commit", "wgmma.wait", "cp.async.wait"))]


def main_loop_mix(ptx_lines):
    """The instruction mix of the main loop of a kernel's PTX (the lines of
    its body): the smallest loop (a branch back to an earlier label) that
    holds every MMA, with the loops inside it (the mbarrier spins).
    {class: count} with "instructions" the total."""
    label = re.compile(r"^\s*(\$?\w+):")
    branch = re.compile(r"^\s*(?:@!?%\w+\s+)?bra(?:\.uni)?\s+(\$?\w+);")
    opcode = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.:]*)")
    labels, loops, mmas = {}, [], []
    for index, line in enumerate(ptx_lines):
        if label.match(line):
            labels[label.match(line).group(1)] = index
        target = branch.match(line)
        if target and target.group(1) in labels:
            loops.append((labels[target.group(1)], index))
        if "mma.sync" in line or "wgmma.mma_async" in line:
            mmas.append(index)
    first, last = min((loop for loop in loops
                       if loop[0] < mmas[0] and mmas[-1] < loop[1]),
                      key=lambda loop: loop[1] - loop[0])
    mix = {"instructions": 0}
    mix.update((name, 0) for name, _ in LOOP_CLASSES)
    for line in ptx_lines[first:last + 1]:
        found = opcode.match(line.split("//")[0])
        if not found or found.group(1).startswith("."):
            continue
        mix["instructions"] += 1
        for name, prefixes in LOOP_CLASSES:
            if found.group(1).startswith(prefixes):
                mix[name] += 1
    return mix


def usage(directory):
    """ptxas -O3 -v, the SASS and the main loop of each kernel of USAGE,
    built in `directory`: one dict per kernel."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    import bench
    rows = []
    for source, kernel, chip, threads, shared in USAGE:
        ptx = os.path.join(directory, f"{kernel}.{chip}.ptx")
        cubin = ptx[:-4] + ".cubin"
        bench.run(["nvcc", "-O3", f"-arch={chip}", "-ptx", "-o", ptx,
                   os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                source)])
        log = bench.run(["ptxas", "-O3", f"-arch={chip}", "-v", ptx, "-o",
                         cubin]).stderr
        log = log[log.index(f"entry function '{kernel}'"):]
        row = dict(bench.ptxas_usage(log), kernel=kernel, chip=chip,
                   threads=threads, dynamic_smem=shared)
        opcodes = bench.sass_opcodes(cubin, kernel)
        row["sass"] = len(opcodes)
        row.update((name, sum(map(opcodes.count, codes)))
                   for name, codes in SASS_OPCODES.items())
        with open(ptx) as text:
            row["loop"] = main_loop_mix(bench.ptx_entry(text.read(), kernel))
        # CTAs per SM: registers (allocated per warp in units of 256) and
        # shared memory.
        warps = threads // 32
        per_warp = -(-row["registers"] * 32 // 256) * 256
        row["ctas_per_sm"] = min(
            65536 // (per_warp * warps),
            SHARED_PER_SM[chip] // (shared + row["smem"] + RESERVED_SHARED))
        rows.append(row)
    return rows


def markdown(rows):
    lines = ["| kernel | chip | registers | spills (bytes) | stack (bytes) | "
             "smem per CTA (bytes) | CTAs per SM | SASS | HGMMA / HMMA / LDSM "
             "in SASS | main loop (PTX): instructions, MMA, ldmatrix, ex2, "
             "shfl, barriers and waits |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | "
             "--- |"]
    for row in rows:
        loop = row["loop"]
        lines.append(
            "| expert %s | %s | %d | %d | %d | %d | %d | %d | %d / %d / %d | "
            "%d: %d, %d, %d, %d, %d |" % (
                row["kernel"], row["chip"], row["registers"], row["spills"],
                row["stack"], row["dynamic_smem"] + row["smem"],
                row["ctas_per_sm"], row["sass"], row["HGMMA"], row["HMMA"],
                row["LDSM"], loop["instructions"], loop["mma"],
                loop["ldmatrix"], loop["ex2"], loop["shfl"], loop["sync"]))
    return "\n".join(lines)


if __name__ == "__main__":
    import tempfile
    if sys.argv[1:] != ["usage"]:
        sys.exit("usage: python3 bench/cuda/expert.py usage  (needs nvcc, "
                 "ptxas and readelf)")
    with tempfile.TemporaryDirectory() as scratch:
        print(markdown(usage(scratch)))

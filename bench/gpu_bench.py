"""The preparing half of scripts/gpu-bench.sh: compiles every benchmark
kernel (bench/kernels) and every GPU integration test (test/Integration/GPU)
to libraries, with a manifest and the driver that runs them, into one
self-contained directory for a machine that has only the NVIDIA driver and
a python3 with torch:

    python3 bench/gpu_bench.py DIR [--target cuda|cpu] [--chip sm_90]

DIR/lib/*.so (+ libvx_cuda_runtime.so), DIR/manifest.json, DIR/driver.py
(bench/gpu_driver.py), DIR/expert.py and DIR/lib/*.fatbin (with --target
cuda where nvcc is found: the expert tensor-core kernels of bench/cuda,
bench/cuda/expert.py) and DIR/python/vx (vx.runtime, pure Python, with the
PTX simulator libvx_ptx_sim.so). Then `python3 DIR/driver.py` there runs,
checks and times everything; `python3 DIR/driver.py --simulate` here checks
the CUDA libraries on the simulator first. `--target cpu` builds CPU
libraries instead, so that the driver's logic runs here (`driver.py
--cpu`), with numpy in place of torch.
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys

from bench import threads_per_block

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, os.path.join(BENCH, "cuda"))
import expert  # noqa: E402  (bench/cuda/expert.py)
INTEGRATION = os.path.join(ROOT, "test", "Integration")
# The benchmark kernels: the torch operation each is checked and timed
# against, the bytes it must move, and its floating-point operations.
KERNELS = {
    "vector_add": {"reference": "vector_add"},
    "transpose": {"reference": "transpose"},
    "softmax": {"reference": "softmax"},
    "matmul": {"reference": "matmul",
               "flops": lambda a, b, c: 2 * a[0] * a[1] * b[1]},
    "attention": {"reference": "attention",
                  "flops": lambda q, k, v, o: 4 * q[0] * q[1] * q[2] * k[2] * q[3]},
}
# The GPU integration tests (test/Integration/GPU) as libraries: the files
# their RUN lines concatenate, the functions they call and how, and the
# options of each RUN line.
LIMITS_SIZE = 210000
TESTS = [
    {"name": "test_matmul",
     "sources": ["examples/matmul.mlir"], "options": [{}, {"threads_per_block": 4}],
     "calls": [{"function": "matmul", "reference": "matmul", "arguments": [
         {"shape": [256, 32], "dtype": "float32", "init": "small_integers"},
         {"shape": [32, 384], "dtype": "float32", "init": "small_integers"},
         {"shape": [256, 384], "dtype": "float32", "init": "zeros",
          "output": True}]}]},
    {"name": "test_limits",
     "sources": ["test/Integration/gpu-limits.mlir",
                 "test/Integration/Inputs/report.mlir",
                 "test/Integration/Inputs/gpu-memory.mlir"],
     "options": [{}, {"threads_per_block": 128}],
     "calls": [{"function": function, "reference": "instance_ids",
                "instances": instances, "arguments": [
                    {"shape": [LIMITS_SIZE], "dtype": "int64", "init": "zeros",
                     "output": True}] + [{"scalar": s} for s in scalars]}
               for function, instances, scalars in (
                   ("wide", 210000, ()), ("five", 720, ()),
                   ("dynamic", 1000, (25, 40)), ("dynamic", 0, (0, 40)),
                   ("ragged", 70, ()))]},
]

# The tile-op kernels on the tensor cores (VX_SPEC 2.3) beside the expert
# kernels of bench/cuda they are compared with: compiled for the expert's
# chip, timed on the GPU at the expert entries' sizes (bench/cuda/expert.py)
# and checked on the simulator at their sources' own sizes. GEMM: (M, N, K)
# in tiles of 128 x 256 x 64; attention: (batch, heads, sequence, sequence,
# d) in blocks of 64 queries and 64 keys.
TENSOR_CORE_KERNELS = [
    {"name": "vx_gemm_bf16", "source": "examples/gemm_bf16.mlir",
     "function": "gemm_bf16", "op": "gemm", "chip": "sm_90a",
     "shape": [4096, 4096, 4096], "simulate_shape": [256, 512, 512]},
] + [
    {"name": f"vx_attention_d{dim}_{chip}",
     "source": "bench/kernels/flash_attention.mlir",
     "function": f"flash_attention{dim}", "op": "attention", "chip": chip,
     "shape": [4, 16, 4096, 4096, dim], "simulate_shape": [1, 4, 256, 256, dim]}
    for dim in (64, 128) for chip in ("sm_80", "sm_90a")]


def size_forms(op, shape):
    """The text in a tensor-core source that states its problem size: the
    argument types (less the output's element type), the row pitch of the
    subviews and the grid."""
    if op == "gemm":
        m, n, k = shape
        return [f"memref<{m}x{k}xbf16>", f"memref<{n}x{k}xbf16>",
                f"memref<{m}x{n}x", f"strided<[{k}, 1]",
                f"grid [{m // 128}, {n // 256}, {k // 64}]"]
    batch, heads, queries, keys, dim = shape
    assert queries == keys
    return [f"memref<{batch}x{heads}x{queries}x{dim}x",
            f"grid [{batch}, {heads}, {queries // 64}, {keys // 64}]"]


def tensor_core_source(entry, shape):
    """The module of entry's function alone (its source's attribute aliases
    kept), its size changed from simulate_shape to `shape`: every form of
    size_forms must occur in it, so a source whose sizes are written
    otherwise is refused rather than half resized."""
    with open(os.path.join(ROOT, entry["source"])) as source:
        text = source.read()
    start = text.index(f"func.func @{entry['function']}(")
    end = text.find("\nfunc.func @", start)
    header = text[:text.index("func.func @")]
    body = text[start:] if end < 0 else text[start:end + 1]
    old = size_forms(entry["op"], entry["simulate_shape"])
    new = size_forms(entry["op"], shape)
    missing = [form for form in old if form not in body]
    if missing:
        sys.exit(f"gpu-bench: {entry['source']} @{entry['function']} does not "
                 f"state its size as {missing}")
    replacements = dict(zip(old, new))
    body = re.sub("|".join(map(re.escape, old)),
                  lambda found: replacements[found.group(0)], body)
    return header + body


SIGNATURE = re.compile(r"func\.func @(\w+)\(([^)]*)\)", re.S)
MEMREF = re.compile(r"memref<([0-9x]+)xf32>")


def kernel_arguments(text):
    """The function name and its memref<...xf32> arguments: every one but
    the last is an input."""
    name, arguments = SIGNATURE.search(text).groups()
    shapes = [[int(d) for d in dims.split("x")] for dims in MEMREF.findall(arguments)]
    return name, [{"shape": shape, "dtype": "float32",
                   "init": "zeros" if index == len(shapes) - 1 else "normal",
                   "output": index == len(shapes) - 1}
                  for index, shape in enumerate(shapes)]


def compile_library(vx, text, filename, target, output, functions=None, **options):
    module = vx.parse(text, filename)
    if target == "cuda":
        options.setdefault("format", "fatbin")
    else:
        options.pop("chip", None)
        options.pop("format", None)
        if "threads_per_block" in options:
            options["via_gpu"] = True
    vx.compile(module, target, output=output, functions=functions, **options)
    return os.path.basename(output)


def prepare(directory, target, chip):
    import vx
    import vx.runtime
    libraries = os.path.join(directory, "lib")
    os.makedirs(libraries, exist_ok=True)
    entries = []
    for kernel, facts in KERNELS.items():
        path = os.path.join(BENCH, "kernels", kernel + ".mlir")
        with open(path) as source:
            text = source.read()
        function, arguments = kernel_arguments(text)
        options = {"chip": chip}
        threads = threads_per_block(text)
        if threads:
            options["threads_per_block"] = threads
        library = compile_library(vx, text, path, target,
                                  os.path.join(libraries, kernel + ".so"),
                                  **options)
        shapes = [a["shape"] for a in arguments]
        elements = sum(math.prod(shape) for shape in shapes)
        entries.append({
            "name": kernel, "kind": "bench", "library": library,
            "function": function, "reference": facts["reference"],
            "arguments": arguments, "bytes": 4 * elements,
            "flops": facts["flops"](*shapes) if "flops" in facts else None,
            "options": options})
    for test in TESTS:
        text = ""
        for source in test["sources"]:
            with open(os.path.join(ROOT, source)) as part:
                text += part.read()
        functions = sorted({call["function"] for call in test["calls"]})
        for index, options in enumerate(test["options"]):
            name = f"{test['name']}_{index}"
            library = compile_library(vx, text, test["sources"][0], target,
                                      os.path.join(libraries, name + ".so"),
                                      functions=functions, chip=chip, **options)
            for call in test["calls"]:
                scalars = [str(a["scalar"]) for a in call["arguments"] if "scalar" in a]
                label = call["function"] + (f"({', '.join(scalars)})" if scalars else "")
                entries.append(dict(call, name=f"{name}.{label}",
                                    kind="test", library=library,
                                    options=dict(options, chip=chip)))
    if target == "cuda":
        entries += prepare_tensor_core(vx, libraries)
        entries += prepare_expert(libraries)
    with open(os.path.join(directory, "manifest.json"), "w") as manifest:
        json.dump({"target": target, "chip": chip, "entries": entries},
                  manifest, indent=1)
    shutil.copy(os.path.join(BENCH, "gpu_driver.py"),
                os.path.join(directory, "driver.py"))
    shutil.copy(expert.__file__, os.path.join(directory, "expert.py"))
    package = os.path.join(directory, "python", "vx")
    os.makedirs(package, exist_ok=True)
    for name in ("__init__.py", "_config.py", "runtime.py",
                 vx.runtime.PTX_SIM):
        shutil.copy(os.path.join(os.path.dirname(vx.__file__), name), package)
    return entries


def prepare_tensor_core(vx, libraries):
    """The entries of TENSOR_CORE_KERNELS: DIR/lib/<name>.so at the timed
    size, and DIR/lib/<name>_f16.so at the checked size with f16 in place of
    bf16 for the simulator (numpy has no bf16: the same tensor-core code
    but for the instructions' type, as test_tile_ops.py runs them)."""
    entries = []
    for entry in TENSOR_CORE_KERNELS:
        timed = tensor_core_source(entry, entry["shape"])
        checked = tensor_core_source(entry, entry["simulate_shape"])
        output_type = re.search(r"func\.func @\w+\([^)]*x(\w+)>\)",
                                timed).group(1)
        libraries_of = {}
        # The type bf16, not the names that spell it (@gemm_bf16).
        twin = re.sub(r"(?<![\w@])bf16|(?<=\dx)bf16", "f16", checked)
        for suffix, text in (("", timed), ("_f16", twin)):
            libraries_of[suffix] = compile_library(
                vx, text, entry["source"], "cuda",
                os.path.join(libraries, entry["name"] + suffix + ".so"),
                functions=[entry["function"]], chip=entry["chip"])
        entries.append(dict(entry, kind="tensor_core", library=libraries_of[""],
                            simulate_library=libraries_of["_f16"],
                            output_type=output_type))
    return entries


def prepare_expert(libraries):
    """The entries of the expert tensor-core kernels (bench/cuda/expert.py),
    each source compiled by nvcc to DIR/lib/<source>.fatbin; none without
    nvcc."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        print("gpu-bench: no nvcc, so no expert tensor-core kernels",
              file=sys.stderr)
        return []
    for source in expert.SOURCES:
        try:
            expert.compile_fatbin(nvcc, source, os.path.join(
                libraries, source + ".fatbin"))
        except subprocess.CalledProcessError as error:
            sys.exit(f"gpu-bench: nvcc failed on bench/cuda/{source}:\n"
                     f"{error.stderr}")
    return [dict(entry, kind="expert", binary=entry["source"] + ".fatbin")
            for entry in expert.ENTRIES]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--target", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--chip", default="sm_90")
    arguments = parser.parse_args()
    entries = prepare(arguments.directory, arguments.target, arguments.chip)
    size = sum(os.path.getsize(os.path.join(root, name))
               for root, _, names in os.walk(arguments.directory) for name in names)
    print(f"gpu-bench: {len(entries)} kernels and tests for {arguments.target} "
          f"({arguments.chip}) in {arguments.directory}, {size / 2**20:.1f} MiB; "
          f"run: python3 {os.path.join(arguments.directory, 'driver.py')}")


if __name__ == "__main__":
    sys.exit(main())

"""Drives the attention kernel through Vx from Python: every stage's summary,
the launch geometry, a CPU run against numpy, the PTX written to a file, and
compiled libraries (a CPU one called through vx.runtime, a CUDA one).

    PYTHONPATH=build/python_packages python3 python/examples/attention.py [OUT_DIR]
"""

import collections
import os
import re
import sys

import numpy as np

import vx
import vx.runtime

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def op_counts(module):
    """The five most frequent ops of a module's IR (the op name that starts
    each line, after any results)."""
    names = re.findall(r"^\s*(?:%[^=]*=\s*)?([a-z_0-9]+\.[a-z_0-9.]+)\b",
                       str(module), re.M)
    return ", ".join(f"{name} x{count}"
                     for name, count in collections.Counter(names).most_common(5))


def numpy_attention(q, k, v, scale):
    scores = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("bhqk,bhkd->bhqd", weights, v)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "demo")
    path = os.path.join(ROOT, "examples", "attention.mlir")
    with open(path) as source:
        module = vx.parse(source.read(), path)

    print("stages:")
    for stage in vx.STAGES:
        lowered = module.lower(stage)
        print(f"  {stage:5} {len(str(lowered).splitlines()):4} lines: {op_counts(lowered)}")

    for launch in module.launches():
        print(f"launch: {launch.kernel} grid={launch.grid} block={launch.block}")

    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 2, 128, 64)).astype(np.float32) for _ in range(3))
    reference = numpy_attention(q, k, v, scale=0.125)
    for options in ({}, {"openmp": True}, {"via_gpu": True}):
        out = np.zeros_like(q)
        vx.run(module, "attention", q, k, v, out, **options)
        error = float(np.abs(out - reference).max())
        print(f"CPU run {options or ''}: max |vx - numpy| = {error:.2e}")
        if error > 1e-5:
            sys.exit(f"attention differs from numpy by {error}")

    os.makedirs(out_dir, exist_ok=True)
    for name, text in module.ptx(chip="sm_90").items():
        ptx_path = os.path.join(out_dir, f"{name}.py.ptx")
        with open(ptx_path, "w") as output:
            output.write(text)
        target = re.search(r"^\.target (\S+)", text, re.M).group(1)
        print(f"PTX of {name} ({target}, {len(text.splitlines())} lines): {ptx_path}")

    # Libraries that run without MLIR (vx.runtime.load in another process).
    cpu = vx.compile(module, "cpu", output=os.path.join(out_dir, "attention_cpu.so"))
    out = np.zeros_like(q)
    vx.runtime.load(cpu.path).attention(q, k, v, out)
    print(f"CPU library {cpu.path}: max |vx - numpy| = "
          f"{float(np.abs(out - reference).max()):.2e}")
    cuda = vx.compile(module, "cuda", chip="sm_90",
                      output=os.path.join(out_dir, "attention_cuda.so"))
    print(f"CUDA library {cuda.path} ({', '.join(cuda.metadata['runtime'])} beside "
          f"it): {', '.join(cuda.functions)}")


if __name__ == "__main__":
    main()

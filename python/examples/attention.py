"""Flash attention as a Vx kernel written in Python (VX_SPEC 4.1), the
kernel of examples/attention.mlir, driven through Vx: every stage's
summary, the launch geometry, CPU runs against numpy, the PTX written to a
file, and compiled libraries (a CPU one called through vx.runtime, a CUDA
one).

    PYTHONPATH=build/python_packages python3 python/examples/attention.py [OUT_DIR]

One instance per (batch, head, block of queries) on a CTA of BLOCK threads;
the KV blocks run along the arbitrary last grid dimension, so the online
softmax state (running max m, denominator l, accumulators acc) persists in
private scratch from one KV block to the next. K and V tiles are staged in
shared memory by instance-wide copies; query row r belongs to thread r. The
scores are in base 2: the scale carries log2(e).
"""

import collections
import math
import os
import re
import sys

import numpy as np

import vx
import vx.runtime
from vx import arbitrary, parallel

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@vx.kernel
def attention(q, k, v, o, block: vx.Const = 64):
    batch, heads, seq, dim = q.shape
    scale = math.log2(math.e) / math.sqrt(dim)   # a Python float: a constant
    with vx.spawn(grid=[batch, heads, seq // block, seq // block],
                  semantics=[parallel, parallel, parallel, arbitrary],
                  threads=block) as (b, h, qb, kvb):
        q_rows = vx.scratch((block, dim))
        scores = vx.scratch((block, block))
        acc = vx.scratch((block, dim))
        m = vx.scratch(block)
        l = vx.scratch(block)
        k_tile = vx.scratch((block, dim), smem=True)
        v_tile = vx.scratch((block, dim), smem=True)
        q0, kv0 = qb * block, kvb * block
        tk = vx.copy_async(k[b, h, kv0:kv0 + block], k_tile)
        tv = vx.copy_async(v[b, h, kv0:kv0 + block], v_tile)
        tk.wait()
        tv.wait()
        for r in vx.threads(block):
            with vx.when(kvb == 0):
                m[r] = -math.inf
                l[r] = 0.0
                for d in vx.range(dim):
                    q_rows[r, d] = q[b, h, q0 + r, d] * scale
                    acc[r, d] = 0.0
            m_old = m[r]

            def score(j, running_max):     # the row's scores and their max
                dot = vx.fori(dim, init=0.0,
                              body=lambda d, s: s + q_rows[r, d] * k_tile[j, d])
                scores[r, j] = dot
                return vx.maximum(running_max, dot)
            m_new = vx.fori(block, init=m_old, body=score)
            alpha = vx.exp2(m_old - m_new)   # rescales what earlier blocks summed
            for d in vx.range(dim):
                acc[r, d] = acc[r, d] * alpha

            def accumulate(j, total):
                p = vx.exp2(scores[r, j] - m_new)
                for d in vx.range(dim):
                    acc[r, d] += p * v_tile[j, d]
                return total + p
            l_new = vx.fori(block, init=l[r] * alpha, body=accumulate)
            m[r] = m_new
            l[r] = l_new
            with vx.when(kvb == vx.grid_dim(3) - 1):
                inv = 1.0 / l_new
                for d in vx.range(dim):
                    o[b, h, q0 + r, d] = acc[r, d] * inv


def reference(q, k, v):
    scores = np.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("bhqk,bhkd->bhqd", weights, v)


def op_counts(module):
    """The five most frequent ops of a module's IR (the op name that starts
    each line, after any results)."""
    names = re.findall(r"^\s*(?:%[^=]*=\s*)?([a-z_0-9]+\.[a-z_0-9.]+)\b",
                       str(module), re.M)
    return ", ".join(f"{name} x{count}"
                     for name, count in collections.Counter(names).most_common(5))


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "demo")
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 2, 128, 64)).astype(np.float32) for _ in range(3))
    expected = reference(q, k, v)

    module = vx.parse(attention.mlir(q, k, v, q), "attention.py")
    print("stages:")
    for stage in vx.STAGES:
        lowered = module.lower(stage)
        print(f"  {stage:5} {len(str(lowered).splitlines()):4} lines: {op_counts(lowered)}")
    for launch in module.launches():
        print(f"launch: {launch.kernel} grid={launch.grid} block={launch.block}")

    for options in ({}, {"openmp": True}, {"via_gpu": True}, {"reverse_parallel": True}):
        out = np.zeros_like(q)
        attention(q, k, v, out, **options)
        error = float(np.abs(out - expected).max())
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
          f"{float(np.abs(out - expected).max()):.2e}")
    cuda = attention.compile(q, k, v, q, target="cuda", chip="sm_90",
                             output=os.path.join(out_dir, "attention_cuda.so"))
    print(f"CUDA library {cuda.path} ({', '.join(cuda.metadata['runtime'])} beside "
          f"it): {', '.join(cuda.functions)}")


if __name__ == "__main__":
    main()

"""Row softmax as a Vx kernel written in Python (VX_SPEC 4.1).

    PYTHONPATH=build/python_packages python3 python/examples/softmax.py

One instance per row on a CTA of 128 threads: two reductions across the
threads (the row's max, then the sum of exponentials), then a thread loop
that writes the row.
"""

import math

import numpy as np

import vx
from vx import parallel


@vx.kernel
def softmax(x, y):
    rows, cols = x.shape
    with vx.spawn(grid=[rows], semantics=[parallel], threads=128) as (r,):
        m = vx.thread_reduce(cols, "max", init=-math.inf, body=lambda t: x[r, t])
        s = vx.thread_reduce(cols, "add", init=0.0, body=lambda t: vx.exp(x[r, t] - m))
        for t in vx.threads(cols):
            y[r, t] = vx.exp(x[r, t] - m) / s


def reference(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def main():
    x = np.random.default_rng(0).standard_normal((6, 512)).astype(np.float32)
    for options in ({}, {"via_gpu": True}, {"reverse_parallel": True}):
        y = np.zeros_like(x)
        softmax(x, y, **options)
        error = float(np.abs(y - reference(x)).max())
        print(f"softmax {options or ''}: max |vx - numpy| = {error:.2e}")
        assert error < 1e-6, error


if __name__ == "__main__":
    main()

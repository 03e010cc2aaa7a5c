"""y = a x + y as a Vx kernel written in Python (VX_SPEC 4.1).

    PYTHONPATH=build/python_packages python3 python/examples/saxpy.py

One instance per block of 256 elements, on a CTA of 256 threads: a thread
loop gives element b * 256 + t to thread t; `vx.when` masks the tail.
"""

import numpy as np

import vx
from vx import parallel

BLOCK = 256


@vx.kernel
def saxpy(a, x, y):
    (n,) = x.shape                           # a Python int: shapes are specialized
    with vx.spawn(grid=[(n + BLOCK - 1) // BLOCK], semantics=[parallel],
                  threads=BLOCK) as (b,):
        for t in vx.threads(BLOCK):
            i = b * BLOCK + t
            with vx.when(i < n):
                y[i] = a * x[i] + y[i]       # a: an f32 scalar argument


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1000).astype(np.float32)
    y0 = rng.standard_normal(1000).astype(np.float32)
    for options in ({}, {"via_gpu": True}, {"reverse_parallel": True}):
        y = y0.copy()
        saxpy(2.5, x, y, **options)
        error = float(np.abs(y - (2.5 * x + y0)).max())
        print(f"saxpy {options or ''}: max |vx - numpy| = {error:.2e}")
        assert error < 1e-6, error


if __name__ == "__main__":
    main()

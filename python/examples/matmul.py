"""C = A B as Vx kernels written in Python (VX_SPEC 4.1), as in
examples/matmul.mlir: one instance per TILE x TILE tile of C, the K axis
along the arbitrary grid dimension in steps of BK, A's and B's tiles staged
in shared memory by instance-wide copies pipelined over `stages`.

    PYTHONPATH=build/python_packages python3 python/examples/matmul.py

`matmul`: a thread loop over a grid of threads, each owning a PER x PER
block of the tile in a private scratch (registers). `matmul_tiles`: the same
with the tile operation vx.matmul (linalg.matmul, VX_SPEC 2.3), the CTA's
threads sharing it as the compiler chooses.
"""

import numpy as np

import vx
from vx import arbitrary, parallel


@vx.kernel
def matmul(a, b, c, tile: vx.Const = 128, bk: vx.Const = 8, per: vx.Const = 8):
    m, k = a.shape
    _, n = b.shape
    side = tile // per                       # threads per side of the tile
    with vx.spawn(grid=[m // tile, n // tile, k // bk],
                  semantics=[parallel, parallel, arbitrary],
                  threads=side * side, stages=2) as (bm, bn, kb):
        acc = vx.scratch((tile, tile), vx.f32)               # private: registers
        a_tile = vx.scratch((tile, bk), vx.f32, smem=True)
        b_tile = vx.scratch((bk, tile), vx.f32, smem=True)
        m0, n0, k0 = bm * tile, bn * tile, kb * bk
        ta = vx.copy_async(a[m0:m0 + tile, k0:k0 + bk], a_tile)
        tb = vx.copy_async(b[k0:k0 + bk, n0:n0 + tile], b_tile)
        ta.wait()
        tb.wait()
        first = kb == 0
        last = kb == vx.grid_dim(2) - 1
        for ty, tx in vx.threads(side, side):
            r0, c0 = ty * per, tx * per
            with vx.when(first):
                for i in vx.range(per):
                    for j in vx.range(per):
                        acc[r0 + i, c0 + j] = 0.0
            for kk in vx.range(bk):
                for i in vx.range(per):
                    x = a_tile[r0 + i, kk]
                    for j in vx.range(per):
                        acc[r0 + i, c0 + j] += x * b_tile[kk, c0 + j]
            with vx.when(last):
                for i in vx.range(per):
                    for j in vx.range(per):
                        c[m0 + r0 + i, n0 + c0 + j] = acc[r0 + i, c0 + j]


@vx.kernel
def matmul_tiles(a, b, c, tile: vx.Const = 64, bk: vx.Const = 16):
    m, k = a.shape
    _, n = b.shape
    with vx.spawn(grid=[m // tile, n // tile, k // bk],
                  semantics=[parallel, parallel, arbitrary],
                  threads=128, stages=2) as (bm, bn, kb):
        acc = vx.scratch((tile, tile), vx.f32)
        a_tile = vx.scratch((tile, bk), a.dtype, smem=True)
        b_tile = vx.scratch((bk, tile), b.dtype, smem=True)
        m0, n0, k0 = bm * tile, bn * tile, kb * bk
        vx.copy_async(a[m0:m0 + tile, k0:k0 + bk], a_tile).wait()
        vx.copy_async(b[k0:k0 + bk, n0:n0 + tile], b_tile).wait()
        with vx.when(kb == 0):
            for i, j in vx.threads(tile, tile):
                acc[i, j] = 0.0
        vx.matmul(a_tile, b_tile, acc)
        with vx.when(kb == vx.grid_dim(2) - 1):
            for i, j in vx.threads(tile, tile):
                c[m0 + i, n0 + j] = acc[i, j]


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 32)).astype(np.float32)
    b = rng.standard_normal((32, 384)).astype(np.float32)
    for kernel in (matmul, matmul_tiles):
        for options in ({}, {"via_gpu": True}, {"reverse_parallel": True}):
            c = np.zeros((256, 384), np.float32)
            kernel(a, b, c, **options)
            error = float(np.abs(c - a @ b).max())
            print(f"{kernel.__name__} {options or ''}: max |vx - numpy| = {error:.2e}")
            assert error < 1e-4, error


if __name__ == "__main__":
    main()

"""The per-call overhead of a @vx.kernel call against calling the same
compiled function through vx.runtime directly (VX_SPEC 4.1; target: within
2x). Both run a kernel that does almost nothing (8 elements), so the time is
the Python side of a call: the kernel's cache lookup on the arguments'
dtypes and shapes, then vx.runtime's argument checks and the call.

    PYTHONPATH=build/python_packages /usr/bin/python3 bench/kernel_overhead.py [--calls N]
"""

import argparse
import timeit

import numpy as np

import vx
import vx.runtime


@vx.kernel
def saxpy(a, x, y):
    with vx.spawn(grid=[x.shape[0]], semantics=[vx.parallel]) as (i,):
        y[i] = a * x[i] + y[i]


def best_of(calls_to_time, calls: int, repeats: int = 9):
    """Seconds per call of each callable, the best of `repeats` runs of
    `calls` calls, the callables' runs interleaved so that the load of a
    shared machine weighs on each alike."""
    best = [float("inf")] * len(calls_to_time)
    for _ in range(repeats):
        for index, call in enumerate(calls_to_time):
            best[index] = min(best[index], timeit.timeit(call, number=calls))
    return [time / calls for time in best]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=5000)
    arguments = parser.parse_args()
    x = np.ones(8, np.float32)
    y = np.zeros(8, np.float32)
    saxpy(2.0, x, y)                      # trace and compile once
    library = vx.runtime.load(saxpy.compile(2.0, x, y).path)
    direct = library.function("saxpy")
    bound = direct.bind(2.0, x, y)
    kernel_time, direct_time, bound_time = best_of(
        [lambda: saxpy(2.0, x, y), lambda: direct(2.0, x, y), bound],
        arguments.calls)
    print(f"@vx.kernel call:                {kernel_time * 1e6:7.2f} us")
    print(f"vx.runtime function call:       {direct_time * 1e6:7.2f} us")
    print(f"vx.runtime bound call (no checks): {bound_time * 1e6:4.2f} us")
    print(f"ratio kernel / runtime call:    {kernel_time / direct_time:7.2f}x "
          f"(target <= 2x)")


if __name__ == "__main__":
    main()

"""The aliasing contract at run time: distinct memref arguments of a kernel
do not overlap (docs/design.md, "Aliasing"). Pure numpy, so that loaders
without MLIR can use it too."""

import numpy as np


def overlaps_itself(array):
    """Whether two elements of `array` share memory (zero or overlapping
    strides): sorted by stride, each dimension must step over everything the
    smaller ones span."""
    dims = sorted((abs(stride), size) for stride, size in
                  zip(array.strides, array.shape) if size > 1)
    span = array.itemsize
    for stride, size in dims:
        if stride < span:
            return True
        span = stride * (size - 1) + span
    return False


def find_overlap(arrays):
    """The first (i, j) of `arrays` (position, array) whose memory overlaps,
    with i == j for an array that overlaps itself; None if there is none."""
    for position, array in arrays:
        if array.size and overlaps_itself(array):
            return position, position
    for index, (first, a) in enumerate(arrays):
        for second, b in arrays[index + 1:]:
            if a.size and b.size and np.shares_memory(a, b):
                return first, second
    return None

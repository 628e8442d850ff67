"""The Z-order (Morton order) memory layout, ``zf_morton.zorder``.

A chunk's elements are ordered by their Morton code: the bits of their coordinates
interleaved, from the lowest bit up, the last axis taking the lowest bit of each
round. Axes stop taking bits once their length is covered, so any chunk shape works
(a 2 x 4 chunk is ordered (0,0) (0,1) (1,0) (1,1) (0,2) (0,3) (1,2) (1,3)). Elements
close in the chunk stay close in the stored bytes, whichever axis they are close along.

The codecs receive the chunk as the contract's default: 1-D, in Z order
(``codec_shape``, ``for_codecs`` and ``from_codecs`` are inherited). Arrays handed to
the user are plain C-ordered numpy arrays.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from zarrforge.abc import MemoryLayout


class ZOrder(MemoryLayout):
    name = "zf_morton.zorder"

    def empty(self, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
        return np.empty(tuple(shape), dtype=dtype)

    def linearize(self, array: np.ndarray) -> np.ndarray:
        result: np.ndarray = np.ravel(array, order="C")[z_positions(tuple(array.shape))]
        return result

    def delinearize(self, flat: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        shape = tuple(shape)
        out = np.empty(flat.shape, dtype=flat.dtype)
        out[z_positions(shape)] = flat
        return out.reshape(shape)


@functools.lru_cache(maxsize=8)
def z_positions(shape: tuple[int, ...]) -> np.ndarray:
    """The C-order positions of the elements of a ``shape`` array, in Z order (read-only)."""
    size = math.prod(shape)
    if size == 0 or not shape:
        positions = np.arange(size, dtype=np.intp)
    else:
        coords = np.unravel_index(np.arange(size, dtype=np.intp), shape)
        widths = [max(n - 1, 0).bit_length() for n in shape]
        if sum(widths) > 64:
            raise ValueError(f"a chunk of shape {list(shape)} has too many elements for 64-bit Morton codes")
        code = np.zeros(size, dtype=np.uint64)
        bit = 0
        for level in range(max(widths)):
            for axis in reversed(range(len(shape))):
                if level < widths[axis]:
                    taken = (coords[axis] >> level) & 1
                    code |= taken.astype(np.uint64) << np.uint64(bit)
                    bit += 1
        positions = np.argsort(code, kind="stable")
    positions.flags.writeable = False
    return positions

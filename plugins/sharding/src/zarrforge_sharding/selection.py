"""Which inner chunks a selection of a shard touches, and the box around them.

The engine hands a codec a selection of the decoded shard: per dimension an
int, a slice, or an integer array (1-D, ``np.ix_``-shaped, or one of several
broadcast coordinate arrays). :func:`analyse` finds, per dimension, the inner
chunks holding a selected position; their product is the set of inner chunks
to read (exact for orthogonal selections, a superset for point selections).
It also returns the smallest box of whole inner chunks around them and the
selection shifted into that box, so callers decode into the box instead of a
whole shard.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np


@dataclasses.dataclass(frozen=True)
class Box:
    touched: tuple[Sequence[int], ...]  # per dimension: sorted inner chunk indices
    start: tuple[int, ...]  # box origin in shard coordinates
    shape: tuple[int, ...]  # box shape (whole inner chunks)
    selection: tuple[Any, ...]  # the selection relative to the box

    def inner_chunks(self) -> Iterator[tuple[int, ...]]:
        return itertools.product(*self.touched)

    def region(self, coords: tuple[int, ...], inner: tuple[int, ...]) -> tuple[slice, ...]:
        """Where inner chunk ``coords`` sits in the box."""
        return tuple(slice(c * n - s, (c + 1) * n - s) for c, n, s in zip(coords, inner, self.start))

    @property
    def is_basic(self) -> bool:
        """Whether the selection is ints and forward unit-step slices only."""
        return all(
            not isinstance(e, np.ndarray) and (not isinstance(e, slice) or e.step in (None, 1))
            for e in self.selection
        )

    def result_shape(self) -> tuple[int, ...]:
        """The shape of ``box[selection]`` for a basic selection."""
        return tuple(
            len(range(*e.indices(n))) for e, n in zip(self.selection, self.shape) if isinstance(e, slice)
        )

    def pieces(
        self, coords: tuple[int, ...], inner: tuple[int, ...]
    ) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
        """For a basic selection: ``(in_chunk, in_result)``, what inner chunk ``coords``
        gives of the selection and where it goes in the result; ``None`` if nothing."""
        in_chunk, in_result = [], []
        for entry, c, n, s, length in zip(self.selection, coords, inner, self.start, self.shape):
            lo = c * n - s
            if isinstance(entry, slice):
                a, b, _ = entry.indices(length)
                first, last = max(a, lo), min(b, lo + n)
                if first >= last:
                    return None
                in_chunk.append(slice(first - lo, last - lo))
                in_result.append(slice(first - a, last - a))
            else:
                if not lo <= entry < lo + n:
                    return None
                in_chunk.append(entry - lo)
        return tuple(in_chunk), tuple(in_result)


def _positions(entry: Any, length: int) -> np.ndarray:
    if isinstance(entry, slice):
        return np.arange(*entry.indices(length), dtype=np.int64)
    if isinstance(entry, np.ndarray):
        return entry.reshape(-1).astype(np.int64, copy=False)
    return np.array([int(entry)], dtype=np.int64)


def _touched(entry: Any, length: int, size: int) -> Sequence[int] | None:
    """Sorted indices (Python ints) of the inner chunks holding a position of ``entry``;
    ``None`` if it selects nothing."""
    if isinstance(entry, slice):
        start, stop, step = entry.indices(length)
        count = len(range(start, stop, step))
        if count == 0:
            return None
        if abs(step) <= size:  # no chunk between the first and last position is skipped
            last = start + (count - 1) * step
            return range(min(start, last) // size, max(start, last) // size + 1)
    elif not isinstance(entry, np.ndarray):
        return (int(entry) // size,)
    positions = _positions(entry, length)
    if positions.size == 0:
        return None
    touched: list[int] = np.unique(positions // size).tolist()
    return touched


def _shift(entry: Any, by: int, length: int) -> Any:
    if isinstance(entry, slice):
        start, stop, step = entry.indices(length)
        stop -= by
        return slice(start - by, stop if stop >= 0 else None, step)
    if isinstance(entry, np.ndarray):
        return entry - by
    return int(entry) - by


def _unit_slice(entry: slice, length: int, size: int) -> tuple[range, int, slice] | None:
    """:func:`_touched`, the box's origin and :func:`_shift` of a slice with step 1 or
    ``None`` (the usual entry of a read), from one ``indices`` call; ``None`` if it selects
    nothing."""
    first, stop, _ = entry.indices(length)
    if stop <= first:
        return None
    chunks = range(first // size, (stop - 1) // size + 1)
    lo = chunks[0] * size
    return chunks, lo, slice(first - lo, stop - lo, 1)


def analyse(selection: tuple[Any, ...], shard_shape: tuple[int, ...], inner: tuple[int, ...]) -> Box | None:
    """The box for ``selection``; ``None`` when it selects nothing."""
    touched, start, shape, shifted = [], [], [], []
    for entry, length, size in zip(selection, shard_shape, inner):
        kind = type(entry)
        if kind is int:  # (the common entries first, without the general helpers' checks)
            chunks: Any = (entry // size,)
            lo = chunks[0] * size
            touched.append(chunks)
            start.append(lo)
            shape.append(size)
            shifted.append(entry - lo)
            continue
        if kind is slice and (entry.step is None or entry.step == 1):
            unit = _unit_slice(entry, length, size)
            if unit is None:
                return None
            chunks, lo, moved = unit
            touched.append(chunks)
            start.append(lo)
            shape.append(len(chunks) * size)
            shifted.append(moved)
            continue
        chunks = _touched(entry, length, size)
        if chunks is None:
            return None
        lo, hi = int(chunks[0]) * size, (int(chunks[-1]) + 1) * size
        touched.append(chunks)
        start.append(lo)
        shape.append(hi - lo)
        shifted.append(_shift(entry, lo, length))
    return Box(tuple(touched), tuple(start), tuple(shape), tuple(shifted))

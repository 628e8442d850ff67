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


def _entry_box(entry: Any, length: int, size: int) -> tuple[Sequence[int], int, int, Any] | None:
    """For one dimension: the inner chunks ``entry`` touches, the box's origin and length
    there, and ``entry`` shifted into the box; ``None`` if it selects nothing. Ints and
    unit-step slices, a read's usual entries, go without the general helpers' checks
    (a slice with one ``indices`` call, not two)."""
    kind = type(entry)
    if kind is int:
        lo = entry // size * size
        return (entry // size,), lo, size, entry - lo
    if kind is slice and (entry.step is None or entry.step == 1):
        first, stop, _ = entry.indices(length)
        if stop <= first:
            return None
        chunks = range(first // size, (stop - 1) // size + 1)
        lo = chunks.start * size
        return chunks, lo, len(chunks) * size, slice(first - lo, stop - lo, 1)
    touched = _touched(entry, length, size)
    if touched is None:
        return None
    lo = int(touched[0]) * size
    return touched, lo, (int(touched[-1]) + 1) * size - lo, _shift(entry, lo, length)


#: :func:`one_inner_chunk`'s answer: the inner chunk's coordinates, the selection inside
#: it, and the shape of what it selects
OneChunk = tuple[tuple[int, ...], tuple[Any, ...], tuple[int, ...]]


def one_inner_chunk(
    selection: tuple[Any, ...], shard_shape: tuple[int, ...], inner: tuple[int, ...]
) -> OneChunk | None:
    """For a selection inside one inner chunk, given as the engine gives a small read's
    (per dimension a Python int, or a non-empty slice of Python ints with step ``None``
    or 1, inside the shard): ``(coords, within, shape)``, the inner chunk, the selection
    shifted into it, and the shape of the values it selects (one entry per slice). Any
    other selection, however valid, gives ``None``, and :func:`analyse` takes it."""
    if len(selection) != len(shard_shape):
        return None
    coords, within, shape = [], [], []
    for entry, length, size in zip(selection, shard_shape, inner):
        kind = type(entry)
        if kind is int:
            if not 0 <= entry < length:
                return None
            c = entry // size
            coords.append(c)
            within.append(entry - c * size)
            continue
        if kind is not slice:
            return None
        start, stop, step = entry.start, entry.stop, entry.step
        if type(start) is not int or type(stop) is not int or not (step is None or step == 1):
            return None
        if not 0 <= start < stop <= length:
            return None
        c = start // size
        if (stop - 1) // size != c:
            return None
        lo = c * size
        coords.append(c)
        within.append(slice(start - lo, stop - lo))
        shape.append(stop - start)
    return tuple(coords), tuple(within), tuple(shape)


def analyse(selection: tuple[Any, ...], shard_shape: tuple[int, ...], inner: tuple[int, ...]) -> Box | None:
    """The box for ``selection``; ``None`` when it selects nothing."""
    touched, start, shape, shifted = [], [], [], []
    for entry, length, size in zip(selection, shard_shape, inner):
        found = _entry_box(entry, length, size)
        if found is None:
            return None
        chunks, lo, extent, moved = found
        touched.append(chunks)
        start.append(lo)
        shape.append(extent)
        shifted.append(moved)
    return Box(tuple(touched), tuple(start), tuple(shape), tuple(shifted))

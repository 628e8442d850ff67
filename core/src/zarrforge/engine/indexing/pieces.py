"""One dimension's selection cut at chunk boundaries: the pieces (chunk index, the
selection inside the chunk, the positions in the result) an int, a range or an integer
array makes, the :class:`ChunkProjection` a chunk gets, and the product of per-dimension
pieces that orthogonal and basic selections are."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from zarrforge.abc.chunk_grid import DimensionChunking


# Not frozen: a frozen dataclass sets each field through object.__setattr__, which made
# building one cost 1.4 us against 0.5, and a read of many small chunks builds one per chunk.
# Nothing changes a projection after it is made.
@dataclass(slots=True, eq=False)
class ChunkProjection:
    """The part of a selection that falls in one chunk.

    ``coords``: the chunk's grid coordinates. ``chunk_selection``: index into
    the chunk's stored array. ``out_selection``: index into the result array
    (shape ``indexer.shape``). ``complete``: the chunk's whole in-bounds region
    is covered, each element once, in C order.
    """

    coords: tuple[int, ...]
    chunk_selection: tuple[Any, ...]
    out_selection: tuple[Any, ...]
    complete: bool


# --- per-dimension pieces ----------------------------------------------------
# A piece is (chunk index, chunk-side index, out-side index or None when the
# axis is dropped, complete along this dimension).
Piece = tuple[int, Any, Any, bool]


def _slice_complete(slc: slice, extent: int) -> bool:
    count = len(range(slc.start, -1 if slc.stop is None else slc.stop, slc.step or 1))
    return slc.start == 0 and count == extent and ((slc.step or 1) == 1 or count == 1)


def _int_pieces(i: int, dim: DimensionChunking) -> list[Piece]:
    c = int(dim.chunk_range(i, i + 1)[0])
    return [(c, i - dim.start(c), None, dim.extent(c) == 1)]


def _steps_within(r: range, lo: int, hi: int) -> tuple[int, int]:
    """The ``k`` range for which ``r[k]`` lies in ``[lo, hi)``."""
    n, start, step = len(r), r.start, r.step
    if step > 0:
        k_lo, k_hi = -((start - lo) // step), -((start - hi) // step)
    else:
        k_lo, k_hi = (start - hi) // -step + 1, (start - lo) // -step + 1
    return max(0, k_lo), min(n, k_hi)


def _range_pieces(r: range, dim: DimensionChunking) -> list[Piece]:
    if len(r) == 0:
        return []
    step = r.step
    if step == 1:  # the common case, in plain arithmetic
        start, stop = r.start, r.stop
        unit = []
        for c in dim.chunk_range(start, stop):
            c = int(c)
            c_start = dim.start(c)
            extent = dim.extent(c)
            lo, hi = max(start, c_start), min(stop, c_start + extent)
            if lo < hi:
                unit.append(
                    (c, slice(lo - c_start, hi - c_start), slice(lo - start, hi - start), hi - lo == extent)
                )
        return unit
    lo, hi = min(r[0], r[-1]), max(r[0], r[-1]) + 1
    candidates: Any = dim.chunk_range(lo, hi)
    if len(candidates) > len(r):
        # A step wider than the chunks skips most of them: only visit chunks
        # that hold a selected position.
        positions = np.arange(r.start, r.stop, step, dtype=np.int64)
        candidates = np.unique(dim.index_of(positions)).tolist()
    pieces = []
    for c in candidates:
        c = int(c)
        c_start = dim.start(c)
        extent = dim.extent(c)
        k_lo, k_hi = _steps_within(r, c_start, c_start + extent)
        if k_lo >= k_hi:
            continue
        first, last = r[k_lo] - c_start, r[k_hi - 1] - c_start
        if step == 1:
            chunk_sel = slice(first, last + 1)
        elif step > 0:
            chunk_sel = slice(first, last + 1, step)
        else:
            chunk_sel = slice(first, last - 1 if last > 0 else None, step)
        count = k_hi - k_lo
        complete = count == extent and (step == 1 or count == 1)
        pieces.append((c, chunk_sel, slice(k_lo, k_hi), complete))
    return pieces


def _compact(local: np.ndarray) -> slice | np.ndarray:
    """A slice equivalent to the 1-D positions ``local`` if there is one."""
    first = int(local[0])
    if local.size == 1:
        return slice(first, first + 1)
    d = int(local[1]) - first
    if d > 0 and np.all(np.diff(local) == d):
        return slice(first, int(local[-1]) + 1, None if d == 1 else d)
    return local


def _array_pieces(idx: np.ndarray, dim: DimensionChunking) -> list[Piece]:
    """Pieces for 1-D normalised positions ``idx`` (any order, duplicates ok)."""
    n = idx.size
    if n == 0:
        return []
    chunk_ids = dim.index_of(idx)
    if np.all(chunk_ids[1:] >= chunk_ids[:-1]):
        order = None
        sorted_ids = chunk_ids
    else:
        order = np.argsort(chunk_ids, kind="stable")
        sorted_ids = chunk_ids[order]
    bounds = (np.flatnonzero(sorted_ids[1:] != sorted_ids[:-1]) + 1).tolist()
    pieces = []
    for a, b in zip([0, *bounds], [*bounds, n]):
        c = int(sorted_ids[a])
        if order is None:
            out_sel: Any = slice(a, b)
            positions = idx[a:b]
        else:
            out_pos = order[a:b]
            # a stable sort keeps positions increasing within a chunk
            if int(out_pos[-1]) - int(out_pos[0]) == b - a - 1:
                out_sel = slice(int(out_pos[0]), int(out_pos[-1]) + 1)
            else:
                out_sel = out_pos
            positions = idx[out_pos]
        chunk_sel = _compact(positions - dim.start(c))
        complete = isinstance(chunk_sel, slice) and _slice_complete(chunk_sel, dim.extent(c))
        pieces.append((c, chunk_sel, out_sel, complete))
    return pieces


# --- combining dimensions ----------------------------------------------------


def _as_positions(sel: slice | np.ndarray) -> np.ndarray:
    if isinstance(sel, np.ndarray):
        return sel
    step = sel.step or 1
    stop = -1 if sel.stop is None else sel.stop  # None only ends a negative step at 0
    return np.arange(sel.start or 0, stop, step, dtype=np.int64)


def _outer(sel: tuple[Any, ...]) -> tuple[Any, ...]:
    """Rewrite ``sel`` so that its array entries index orthogonally.

    numpy broadcasts several advanced indices (ints count too) together and
    may move the result axes to the front; giving every non-int axis an
    ``np.ix_``-shaped array makes the result shape the plain outer product.
    """
    n_arrays = sum(isinstance(s, np.ndarray) for s in sel)
    n_ints = sum(isinstance(s, int) for s in sel)
    if n_arrays == 0 or n_arrays + n_ints < 2:
        return sel
    m = len(sel) - n_ints
    out: list[int | np.ndarray] = []
    k = 0
    for s in sel:
        if isinstance(s, int):
            out.append(s)
            continue
        shape = [1] * m
        shape[k] = -1
        out.append(_as_positions(s).reshape(shape))
        k += 1
    return tuple(out)


class _ProductIndexer:
    """Shared machinery for selections that are a product of per-axis parts."""

    shape: tuple[int, ...]

    def __init__(
        self,
        pieces: Sequence[list[Piece] | Callable[[], list[Piece]]],
        layout: list[int | None],
        shape: tuple[int, ...],
        outer: bool,
    ) -> None:
        # layout: one entry per output axis; a dimension number, or None for a
        # new length-1 axis (indexed with 0 on the out side).
        self._pieces = pieces
        self._layout = layout
        self.shape = shape
        self._outer = outer

    def __iter__(self) -> Iterator[ChunkProjection]:
        layout = self._layout
        # Slice pieces are listed only now, so that a caller can check the selection's
        # size before paying for one entry per chunk it touches.
        pieces = [p() if callable(p) else p for p in self._pieces]
        if pieces and not self._outer and layout == list(range(len(pieces))):
            # The common case (slices and no dropped or new axes): transpose each
            # combination in C rather than building its tuples entry by entry.
            for combo in itertools.product(*pieces):
                coords, chunk_sel, out_sel, complete = zip(*combo)
                yield ChunkProjection(coords, chunk_sel, out_sel, all(complete))
            return
        for combo in itertools.product(*pieces):
            coords = tuple(p[0] for p in combo)
            chunk_sel = tuple(p[1] for p in combo)
            out_sel = tuple(0 if d is None else combo[d][2] for d in layout)
            if self._outer:
                chunk_sel, out_sel = _outer(chunk_sel), _outer(out_sel)
            yield ChunkProjection(coords, chunk_sel, out_sel, all(p[3] for p in combo))

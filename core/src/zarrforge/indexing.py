"""Translate user selections into per-chunk work.

An *indexer* is built from ``(selection, shape, dimensions)``, where
``dimensions`` holds one :class:`~zarrforge.abc.chunk_grid.DimensionChunking`
per array dimension. It exposes

* ``shape``: the shape of the selection's result, with the axes of integer
  indices already removed (and, for :class:`BasicIndexer`, a length-1 axis for
  every ``None``);
* iteration: one :class:`ChunkProjection` per chunk holding at least one
  selected element, and no others.

For every projection ``p`` the two selections address the same elements in the
same order, so callers can use them directly::

    out[p.out_selection] = chunk[p.chunk_selection]      # read
    chunk[p.chunk_selection] = value[p.out_selection]    # write

where ``out`` and ``value`` have shape ``indexer.shape`` (use
:func:`broadcast_value` to expand a scalar or broadcastable value first) and
``chunk`` is the chunk's *stored* array, of shape
``tuple(dim.size(c) for dim, c in zip(dimensions, p.coords))``.

Selections are plain ints and slices whenever possible. Integer arrays appear
only where needed; when several axes of one side need arrays, that side is
given as ``np.ix_``-style broadcast arrays (slices there become aranges), which
makes outer indexing come out right for both reads and writes without numpy's
advanced-indexing axis reordering. :class:`CoordinateIndexer` and
:class:`MaskIndexer` describe their exact ``out_selection`` contract.

``ChunkProjection.complete`` is True when the chunk selection visits every
in-bounds element of the chunk exactly once and in C order, so a write does not
need the chunk's previous contents.

Out-of-range indices raise :class:`~zarrforge.errors.BoundsCheckError`;
malformed selections raise :class:`~zarrforge.errors.SelectionError`.
"""

from __future__ import annotations

import functools
import itertools
import operator
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from zarrforge.abc.chunk_grid import DimensionChunking
from zarrforge.errors import BoundsCheckError, SelectionError

__all__ = [
    "ChunkProjection",
    "BasicIndexer",
    "OrthogonalIndexer",
    "CoordinateIndexer",
    "MaskIndexer",
    "BlockIndexer",
    "normalize_integer",
    "normalize_slice",
    "normalize_integer_array",
    "check_value_shape",
    "broadcast_value",
]


@dataclass(frozen=True, slots=True, eq=False)
class ChunkProjection:
    """The part of a selection that falls in one chunk.

    ``coords``: the chunk's grid coordinates. ``chunk_selection``: index into
    the chunk's stored array. ``out_selection``: index into the result array
    (shape ``indexer.shape``). ``complete``: the chunk's whole in-bounds region
    is covered, each element once, in C order.
    """

    coords: tuple[int, ...]
    chunk_selection: tuple
    out_selection: tuple
    complete: bool


# --- scalar and per-dimension normalisation ---------------------------------

def _as_int(value: Any, dim: int, what: str = "index") -> int:
    if isinstance(value, (bool, np.bool_)):
        raise SelectionError(
            f"invalid {what} {value!r} for dimension {dim}: booleans are not "
            f"integer indices")
    try:
        return operator.index(value)
    except TypeError:
        raise SelectionError(
            f"invalid {what} {value!r} of type {type(value).__name__} for "
            f"dimension {dim}: expected an integer") from None


def normalize_integer(index: Any, length: int, dim: int) -> int:
    """``index`` as a non-negative int in ``[0, length)``; negatives wrap."""
    i = _as_int(index, dim)
    if i < -length or i >= length:
        raise BoundsCheckError(
            f"index {i} is out of bounds for dimension {dim} with length {length}")
    return i + length if i < 0 else i


def normalize_slice(slc: slice, length: int, dim: int) -> range:
    """The array positions ``slc`` selects along a dimension of ``length``, in order."""
    start, stop = slc.start, slc.stop
    if (slc.step is None and (start is None or type(start) is int)
            and (stop is None or type(stop) is int)):
        return range(*slc.indices(length))  # the common case: nothing to convert or check
    parts = []
    for name in ("start", "stop", "step"):
        v = getattr(slc, name)
        parts.append(None if v is None else _as_int(v, dim, f"slice {name}"))
    if parts[2] == 0:
        raise SelectionError(f"slice step cannot be zero (dimension {dim})")
    return range(*slice(*parts).indices(length))


def normalize_integer_array(values: Any, length: int, dim: int) -> np.ndarray:
    """Bounds-checked int64 copy of an integer index array with negatives wrapped."""
    arr = np.asarray(values)
    if arr.size == 0:
        return np.zeros(arr.shape, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise SelectionError(
            f"index array for dimension {dim} must hold integers, got dtype {arr.dtype}")
    bad = (arr >= length) | (arr < -length) if arr.dtype.kind == "i" else arr >= length
    if bad.any():
        value = arr[bad].flat[0]
        raise BoundsCheckError(
            f"index {value} is out of bounds for dimension {dim} with length {length}")
    arr = arr.astype(np.int64)
    return np.where(arr < 0, arr + length, arr)


def _mask_positions(mask: np.ndarray, length: int, dim: int) -> np.ndarray:
    if mask.ndim != 1 or mask.shape[0] != length:
        raise SelectionError(
            f"boolean mask for dimension {dim} has shape {mask.shape}, expected "
            f"({length},)")
    return np.flatnonzero(mask).astype(np.int64)


# --- per-dimension pieces ----------------------------------------------------
# A piece is (chunk index, chunk-side index, out-side index or None when the
# axis is dropped, complete along this dimension).

def _slice_complete(slc: slice, extent: int) -> bool:
    count = len(range(slc.start, -1 if slc.stop is None else slc.stop, slc.step or 1))
    return slc.start == 0 and count == extent and ((slc.step or 1) == 1 or count == 1)


def _int_pieces(i: int, dim: DimensionChunking) -> list:
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


def _range_pieces(r: range, dim: DimensionChunking) -> list:
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
                unit.append((c, slice(lo - c_start, hi - c_start), slice(lo - start, hi - start),
                             hi - lo == extent))
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


def _array_pieces(idx: np.ndarray, dim: DimensionChunking) -> list:
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
    for a, b in zip([0] + bounds, bounds + [n]):
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


def _outer(sel: tuple) -> tuple:
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
    out = []
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

    def __init__(self, pieces: list[list | Callable[[], list]], layout: list[int | None],
                 shape: tuple[int, ...], outer: bool) -> None:
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


def _check_dims(shape: Sequence[int], dimensions: Sequence[DimensionChunking]) -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    if len(shape) != len(dimensions):
        raise SelectionError(
            f"array shape {shape} has {len(shape)} dimensions but "
            f"{len(dimensions)} chunkings were given")
    return shape


def _expand(selection: Any, ndim: int, allow_newaxis: bool) -> list:
    """Selection entries with Ellipsis expanded and missing trailing axes filled."""
    sel = list(selection) if isinstance(selection, tuple) else [selection]
    n_ellipsis = sum(s is Ellipsis for s in sel)
    if n_ellipsis > 1:
        raise SelectionError("a selection may contain at most one Ellipsis (...)")
    if not allow_newaxis and any(s is None for s in sel):
        raise SelectionError("None (np.newaxis) is only supported in basic selections")
    n_real = sum(s is not Ellipsis and s is not None for s in sel)
    if n_real > ndim:
        raise SelectionError(
            f"too many indices: the array has {ndim} dimension(s) but the "
            f"selection indexes {n_real}")
    fill = [slice(None)] * (ndim - n_real)
    if n_ellipsis:
        i = next(i for i, s in enumerate(sel) if s is Ellipsis)
        return sel[:i] + fill + sel[i + 1:]
    return sel + fill


def normalize_basic_selection(selection: Any, shape: Sequence[int]) -> tuple[int | range, ...]:
    """A basic selection (ints, slices, ``Ellipsis``, a tuple of them; not ``None``) as
    one entry per dimension: a non-negative ``int`` or the ``range`` of positions a slice
    selects. For extensions' ``map_selection``, which receive what the user wrote.
    Anything else (index arrays, masks, ``None``) raises :class:`SelectionError`."""
    entries = _expand(selection, len(shape), allow_newaxis=False)
    result: list[int | range] = []
    for dim, (entry, length) in enumerate(zip(entries, shape)):
        if isinstance(entry, slice):
            result.append(normalize_slice(entry, length, dim))
        elif _is_integer(entry):
            result.append(normalize_integer(entry, length, dim))
        else:
            raise _bad_entry(entry, dim, "a basic selection holds integers and slices")
    return tuple(result)


def _bad_entry(entry: Any, dim: int, allowed: str) -> SelectionError:
    return SelectionError(
        f"invalid selection {entry!r} of type {type(entry).__name__} for "
        f"dimension {dim}: {allowed}")


class BasicIndexer(_ProductIndexer):
    """numpy basic indexing: ints, slices (any nonzero step), Ellipsis, None.

    Integer axes are dropped from ``shape``; each None adds a length-1 axis
    that ``out_selection`` indexes with ``0``. ``chunk_selection`` holds one
    int or slice per array dimension and ``out_selection`` one slice (or the
    0 of a new axis) per output axis; no arrays are ever produced.
    """

    def __init__(self, selection: Any, shape: Sequence[int],
                 dimensions: Sequence[DimensionChunking]) -> None:
        shape = _check_dims(shape, dimensions)
        pieces: list[list] = []
        layout: list[int | None] = []
        out_shape: list[int] = []
        for entry in _expand(selection, len(shape), allow_newaxis=True):
            if entry is None:
                layout.append(None)
                out_shape.append(1)
                continue
            d = len(pieces)
            if isinstance(entry, slice):
                r = normalize_slice(entry, shape[d], d)
                pieces.append(functools.partial(_range_pieces, r, dimensions[d]))
                layout.append(d)
                out_shape.append(len(r))
            elif _is_integer(entry):
                pieces.append(_int_pieces(normalize_integer(entry, shape[d], d), dimensions[d]))
            else:
                raise _bad_entry(entry, d, "basic selections take ints, slices, "
                                 "Ellipsis and None (use oindex or vindex for arrays)")
        super().__init__(pieces, layout, tuple(out_shape), outer=False)


def _is_integer(entry: Any) -> bool:
    if isinstance(entry, (bool, np.bool_)):
        return False
    if isinstance(entry, (int, np.integer)):
        return True
    return isinstance(entry, np.ndarray) and entry.ndim == 0 and entry.dtype.kind in "iu"


class OrthogonalIndexer(_ProductIndexer):
    """Outer (``np.ix_``) indexing, as used by ``oindex``.

    Per dimension: an int (axis dropped), a slice, a 1-D integer array or list
    (any order, duplicates allowed, negatives wrap), or a 1-D boolean mask of
    the dimension's length. Ellipsis is allowed. ``out_selection`` holds one
    entry per output axis: slices, plus 1-D arrays of output positions where a
    chunk's elements are scattered; with two or more arrays on one side that
    side is given as ``np.ix_``-shaped arrays (and the ints of
    ``chunk_selection`` stay scalars), so the two sides always have equal
    shapes.
    """

    def __init__(self, selection: Any, shape: Sequence[int],
                 dimensions: Sequence[DimensionChunking]) -> None:
        shape = _check_dims(shape, dimensions)
        pieces: list[list] = []
        layout: list[int | None] = []
        out_shape: list[int] = []
        for d, entry in enumerate(_expand(selection, len(shape), allow_newaxis=False)):
            dim = dimensions[d]
            if isinstance(entry, slice):
                r = normalize_slice(entry, shape[d], d)
                pieces.append(functools.partial(_range_pieces, r, dim))
                n = len(r)
            elif _is_integer(entry):
                pieces.append(_int_pieces(normalize_integer(entry, shape[d], d), dim))
                continue
            elif isinstance(entry, (list, np.ndarray)):
                arr = np.asarray(entry)
                if arr.dtype == bool:
                    idx = _mask_positions(arr, shape[d], d)
                elif arr.ndim != 1:
                    raise SelectionError(
                        f"index array for dimension {d} must be 1-D, got shape {arr.shape}")
                else:
                    idx = normalize_integer_array(arr, shape[d], d)
                pieces.append(_array_pieces(idx, dim))
                n = idx.size
            else:
                raise _bad_entry(entry, d, "orthogonal selections take ints, slices, "
                                 "1-D integer arrays and 1-D boolean masks")
            layout.append(d)
            out_shape.append(n)
        super().__init__(pieces, layout, tuple(out_shape), outer=True)


class BlockIndexer:
    """Selection in units of chunks, as used by ``blocks``.

    Entries are ints (the axis is kept, covering that chunk's in-bounds
    extent), step-1 slices over chunk indices, and Ellipsis. The result is the
    :class:`BasicIndexer` of the equivalent array-index slices, so the
    projections follow its contract.
    """

    def __init__(self, selection: Any, shape: Sequence[int],
                 dimensions: Sequence[DimensionChunking]) -> None:
        shape = _check_dims(shape, dimensions)
        array_sel = []
        for d, entry in enumerate(_expand(selection, len(shape), allow_newaxis=False)):
            dim = dimensions[d]
            nchunks = dim.nchunks
            if isinstance(entry, slice):
                r = normalize_slice(entry, nchunks, d)
                if r.step != 1:
                    raise SelectionError(
                        f"block selections need a slice step of 1, got {entry.step} "
                        f"for dimension {d}")
                if len(r) == 0:
                    array_sel.append(slice(0, 0))
                    continue
                first, last = r[0], r[-1]
            elif _is_integer(entry):
                b = _as_int(entry, d, "block index")
                if b < -nchunks or b >= nchunks:
                    raise BoundsCheckError(
                        f"block index {b} is out of bounds for dimension {d} with "
                        f"{nchunks} chunks")
                first = last = b + nchunks if b < 0 else b
            else:
                raise _bad_entry(entry, d, "block selections take ints, step-1 slices "
                                 "and Ellipsis")
            array_sel.append(slice(dim.start(first), dim.start(last) + dim.extent(last)))
        self._basic = BasicIndexer(tuple(array_sel), shape, dimensions)
        self.shape = self._basic.shape

    def __iter__(self) -> Iterator[ChunkProjection]:
        return iter(self._basic)


# --- point selections --------------------------------------------------------

class _PointIndexer:
    """Selects a list of points; groups them by chunk with vectorised sorting."""

    shape: tuple[int, ...]

    def _init_points(self, points: list[np.ndarray], npoints: int,
                     out_shape: tuple[int, ...],
                     dimensions: Sequence[DimensionChunking]) -> None:
        # points: one flat int64 array per dimension; point k goes to flat
        # output position k (C order of out_shape).
        self.shape = out_shape
        self._groups: list[ChunkProjection] = []
        if npoints == 0:
            return
        if not dimensions:  # 0-d array: the single element, if selected
            self._groups.append(ChunkProjection((), (), (0,) * len(out_shape), True))
            return
        chunk_ids = [dim.index_of(p) for dim, p in zip(dimensions, points)]
        order = np.lexsort(chunk_ids[::-1])  # stable; dimension 0 is the primary key
        sorted_ids = [c[order] for c in chunk_ids]
        change = np.zeros(npoints - 1, dtype=bool)
        for s in sorted_ids:
            change |= s[1:] != s[:-1]
        bounds = (np.flatnonzero(change) + 1).tolist()
        extents_of = [dim.extent for dim in dimensions]
        for a, b in zip([0] + bounds, bounds + [npoints]):
            pos = order[a:b]
            coords = tuple(int(s[a]) for s in sorted_ids)
            local = tuple(p[pos] - dim.start(c)
                          for p, dim, c in zip(points, dimensions, coords))
            extents = tuple(e(c) for e, c in zip(extents_of, coords))
            complete = _points_complete(local, extents)
            if not out_shape:
                chunk_sel: tuple = tuple(int(x[0]) for x in local)
                out_sel: tuple = ()
            elif len(out_shape) == 1 and int(pos[-1]) - int(pos[0]) == b - a - 1:
                chunk_sel, out_sel = local, (slice(int(pos[0]), int(pos[-1]) + 1),)
            else:
                chunk_sel, out_sel = local, np.unravel_index(pos, out_shape)
            self._groups.append(ChunkProjection(coords, chunk_sel, out_sel, complete))

    def __iter__(self) -> Iterator[ChunkProjection]:
        return iter(self._groups)


def _points_complete(local: tuple[np.ndarray, ...], extents: tuple[int, ...]) -> bool:
    n = int(np.prod(extents, dtype=np.int64))
    if local[0].size != n:
        return False
    flat = np.ravel_multi_index(local, extents)
    return bool(np.array_equal(flat, np.arange(n)))


class CoordinateIndexer(_PointIndexer):
    """Point selection (``vindex`` with integer arrays).

    The selection has exactly one integer array (or int) per dimension; they
    are broadcast together and ``shape`` is the broadcast shape. Duplicates
    are allowed and negatives wrap. Each chunk holding selected points yields
    one projection whose ``chunk_selection`` is a tuple of 1-D arrays (local
    coordinates of its points, in increasing output order) and whose
    ``out_selection`` is the tuple of the points' unravelled output indices
    (``np.unravel_index`` of their flat C-order positions), or a one-slice
    tuple when the output is 1-D and the positions are contiguous. When the
    output is 0-d both selections are tuples of plain ints / ``()``.
    """

    def __init__(self, selection: Any, shape: Sequence[int],
                 dimensions: Sequence[DimensionChunking]) -> None:
        shape = _check_dims(shape, dimensions)
        sel = selection if isinstance(selection, tuple) else (selection,)
        if len(sel) != len(shape):
            raise SelectionError(
                f"coordinate selections need one integer array per dimension: the "
                f"array has {len(shape)} dimension(s), the selection has {len(sel)}")
        arrays = []
        for d, entry in enumerate(sel):
            if not (_is_integer(entry) or isinstance(entry, (list, np.ndarray))):
                raise _bad_entry(entry, d, "coordinate selections take integer arrays")
            arr = np.asarray(entry)
            if arr.dtype == bool:
                raise SelectionError(
                    f"boolean array for dimension {d} in a coordinate selection; "
                    f"use a single mask of the array's shape instead")
            arrays.append(normalize_integer_array(arr, shape[d], d))
        try:
            arrays = np.broadcast_arrays(*arrays)
        except ValueError:
            shapes = ", ".join(str(a.shape) for a in arrays)
            raise SelectionError(
                f"coordinate arrays cannot be broadcast together: shapes {shapes}") from None
        out_shape = arrays[0].shape if arrays else ()
        npoints = int(np.prod(out_shape, dtype=np.int64))
        self._init_points([a.reshape(-1) for a in arrays], npoints, out_shape, dimensions)


class MaskIndexer(_PointIndexer):
    """Boolean-mask selection (``vindex`` with a mask of the array's shape).

    Equivalent to :class:`CoordinateIndexer` on ``np.nonzero(mask)``; the
    output is 1-D with one entry per True element in C order, and
    ``out_selection`` is ``(positions,)`` or ``(slice,)``.
    """

    def __init__(self, selection: Any, shape: Sequence[int],
                 dimensions: Sequence[DimensionChunking]) -> None:
        shape = _check_dims(shape, dimensions)
        if isinstance(selection, tuple) and len(selection) == 1:
            selection = selection[0]
        mask = np.asarray(selection)
        if mask.dtype != bool:
            raise SelectionError(f"mask selection must be a boolean array, got dtype {mask.dtype}")
        if mask.shape != shape:
            raise SelectionError(
                f"boolean mask has shape {mask.shape}, expected the array shape {shape}")
        if mask.ndim == 0:
            npoints = int(bool(mask))
            points: list[np.ndarray] = []
        else:
            points = [p.astype(np.int64) for p in np.nonzero(mask)]
            npoints = points[0].size
        self._init_points(points, npoints, (npoints,), dimensions)


# --- assigned values -------------------------------------------------------

def _value_core_shape(value_shape: tuple[int, ...], out_shape: tuple[int, ...]) -> tuple[int, ...]:
    vs = value_shape
    while len(vs) > len(out_shape) and vs[0] == 1:
        vs = vs[1:]
    if len(vs) > len(out_shape) or any(
            v != 1 and v != o for v, o in zip(reversed(vs), reversed(out_shape))):
        raise SelectionError(
            f"cannot assign a value of shape {value_shape} to a selection of "
            f"shape {out_shape}")
    return vs


def check_value_shape(value_shape: Sequence[int], out_shape: Sequence[int]) -> None:
    """Raise SelectionError unless numpy could assign ``value_shape`` into ``out_shape``."""
    _value_core_shape(tuple(value_shape), tuple(out_shape))


def broadcast_value(value: Any, out_shape: Sequence[int], dtype: Any = None) -> np.ndarray:
    """``value`` as a read-only array view of exactly ``out_shape``."""
    arr = np.asarray(value, dtype=dtype)
    out_shape = tuple(out_shape)
    core = _value_core_shape(arr.shape, out_shape)
    return np.broadcast_to(arr.reshape(core), out_shape)

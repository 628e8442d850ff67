"""The indexers: basic, orthogonal and block selections (products of per-dimension pieces)
and point selections (coordinates, a mask of the whole array), each giving the
:class:`~zarrforge.engine.indexing.pieces.ChunkProjection` of every chunk it touches."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from zarrforge.abc.chunk_grid import DimensionChunking
from zarrforge.errors import BoundsCheckError, SelectionError

from .normalize import (
    _as_int,
    _bad_entry,
    _check_dims,
    _expand,
    _is_integer,
    _mask_positions,
    normalize_integer,
    normalize_integer_array,
    normalize_slice,
)
from .pieces import ChunkProjection, Piece, _array_pieces, _int_pieces, _ProductIndexer, _range_pieces


class BasicIndexer(_ProductIndexer):
    """numpy basic indexing: ints, slices (any nonzero step), Ellipsis, None.

    Integer axes are dropped from ``shape``; each None adds a length-1 axis
    that ``out_selection`` indexes with ``0``. ``chunk_selection`` holds one
    int or slice per array dimension and ``out_selection`` one slice (or the
    0 of a new axis) per output axis; no arrays are ever produced.
    """

    def __init__(self, selection: Any, shape: Sequence[int], dimensions: Sequence[DimensionChunking]) -> None:
        shape = _check_dims(shape, dimensions)
        pieces: list[list[Piece] | Callable[[], list[Piece]]] = []
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
                raise _bad_entry(
                    entry,
                    d,
                    "basic selections take ints, slices, Ellipsis and None (use oindex or vindex for arrays)",
                )
        super().__init__(pieces, layout, tuple(out_shape), outer=False)


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

    def __init__(self, selection: Any, shape: Sequence[int], dimensions: Sequence[DimensionChunking]) -> None:
        shape = _check_dims(shape, dimensions)
        pieces: list[list[Piece] | Callable[[], list[Piece]]] = []
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
                    raise SelectionError(f"index array for dimension {d} must be 1-D, got shape {arr.shape}")
                else:
                    idx = normalize_integer_array(arr, shape[d], d)
                pieces.append(_array_pieces(idx, dim))
                n = idx.size
            else:
                raise _bad_entry(
                    entry,
                    d,
                    "orthogonal selections take ints, slices, 1-D integer arrays and 1-D boolean masks",
                )
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

    def __init__(self, selection: Any, shape: Sequence[int], dimensions: Sequence[DimensionChunking]) -> None:
        shape = _check_dims(shape, dimensions)
        array_sel = []
        for d, entry in enumerate(_expand(selection, len(shape), allow_newaxis=False)):
            dim = dimensions[d]
            nchunks = dim.nchunks
            if isinstance(entry, slice):
                r = normalize_slice(entry, nchunks, d)
                if r.step != 1:
                    raise SelectionError(
                        f"block selections need a slice step of 1, got {entry.step} for dimension {d}"
                    )
                if len(r) == 0:
                    array_sel.append(slice(0, 0))
                    continue
                first, last = r[0], r[-1]
            elif _is_integer(entry):
                b = _as_int(entry, d, "block index")
                if b < -nchunks or b >= nchunks:
                    raise BoundsCheckError(
                        f"block index {b} is out of bounds for dimension {d} with {nchunks} chunks"
                    )
                first = last = b + nchunks if b < 0 else b
            else:
                raise _bad_entry(entry, d, "block selections take ints, step-1 slices and Ellipsis")
            array_sel.append(slice(dim.start(first), dim.start(last) + dim.extent(last)))
        self._basic = BasicIndexer(tuple(array_sel), shape, dimensions)
        self.shape = self._basic.shape

    def __iter__(self) -> Iterator[ChunkProjection]:
        return iter(self._basic)


# --- point selections --------------------------------------------------------


class _PointIndexer:
    """Selects a list of points; groups them by chunk with vectorised sorting."""

    shape: tuple[int, ...]

    def _init_points(
        self,
        points: list[np.ndarray],
        npoints: int,
        out_shape: tuple[int, ...],
        dimensions: Sequence[DimensionChunking],
    ) -> None:
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
        for a, b in zip([0, *bounds], [*bounds, npoints]):
            pos = order[a:b]
            coords = tuple(int(s[a]) for s in sorted_ids)
            local = tuple(p[pos] - dim.start(c) for p, dim, c in zip(points, dimensions, coords))
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

    def __init__(self, selection: Any, shape: Sequence[int], dimensions: Sequence[DimensionChunking]) -> None:
        shape = _check_dims(shape, dimensions)
        sel = selection if isinstance(selection, tuple) else (selection,)
        if len(sel) != len(shape):
            raise SelectionError(
                f"coordinate selections need one integer array per dimension: the "
                f"array has {len(shape)} dimension(s), the selection has {len(sel)}"
            )
        arrays = []
        for d, entry in enumerate(sel):
            if not (_is_integer(entry) or isinstance(entry, (list, np.ndarray))):
                raise _bad_entry(entry, d, "coordinate selections take integer arrays")
            arr = np.asarray(entry)
            if arr.dtype == bool:
                raise SelectionError(
                    f"boolean array for dimension {d} in a coordinate selection; "
                    f"use a single mask of the array's shape instead"
                )
            arrays.append(normalize_integer_array(arr, shape[d], d))
        try:
            broadcast = np.broadcast_arrays(*arrays)
        except ValueError:
            shapes = ", ".join(str(a.shape) for a in arrays)
            raise SelectionError(f"coordinate arrays cannot be broadcast together: shapes {shapes}") from None
        out_shape = broadcast[0].shape if broadcast else ()
        npoints = int(np.prod(out_shape, dtype=np.int64))
        self._init_points([a.reshape(-1) for a in broadcast], npoints, out_shape, dimensions)


class MaskIndexer(_PointIndexer):
    """Boolean-mask selection (``vindex`` with a mask of the array's shape).

    Equivalent to :class:`CoordinateIndexer` on ``np.nonzero(mask)``; the
    output is 1-D with one entry per True element in C order, and
    ``out_selection`` is ``(positions,)`` or ``(slice,)``.
    """

    def __init__(self, selection: Any, shape: Sequence[int], dimensions: Sequence[DimensionChunking]) -> None:
        shape = _check_dims(shape, dimensions)
        if isinstance(selection, tuple) and len(selection) == 1:
            selection = selection[0]
        mask = np.asarray(selection)
        if mask.dtype != bool:
            raise SelectionError(f"mask selection must be a boolean array, got dtype {mask.dtype}")
        if mask.shape != shape:
            raise SelectionError(f"boolean mask has shape {mask.shape}, expected the array shape {shape}")
        if mask.ndim == 0:
            npoints = int(bool(mask))
            points: list[np.ndarray] = []
        else:
            points = [p.astype(np.int64) for p in np.nonzero(mask)]
            npoints = points[0].size
        self._init_points(points, npoints, (npoints,), dimensions)

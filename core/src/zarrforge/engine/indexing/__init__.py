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

The package's modules, each with one job: :mod:`.normalize` (entries made canonical),
:mod:`.pieces` (a dimension cut at chunk boundaries, and :class:`ChunkProjection`),
:mod:`.indexers` (the indexers), :mod:`.values` (values broadcast to a selection).
"""

from __future__ import annotations

from .indexers import BasicIndexer, BlockIndexer, CoordinateIndexer, MaskIndexer, OrthogonalIndexer
from .normalize import normalize_basic_selection, normalize_integer, normalize_integer_array, normalize_slice
from .pieces import ChunkProjection
from .values import broadcast_value, check_value_shape

__all__ = [
    "ChunkProjection",
    "BasicIndexer",
    "OrthogonalIndexer",
    "CoordinateIndexer",
    "MaskIndexer",
    "BlockIndexer",
    "normalize_basic_selection",
    "normalize_integer",
    "normalize_slice",
    "normalize_integer_array",
    "check_value_shape",
    "broadcast_value",
]

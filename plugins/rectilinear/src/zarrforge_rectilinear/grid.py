"""The ``rectilinear`` chunk grid (zarr-extensions ``chunk-grids/rectilinear``).

Metadata::

    {"name": "rectilinear",
     "configuration": {"kind": "inline",
                       "chunk_shapes": [4, [1, 2, 3], [[4, 2]], [[1, 3], 3]]}}

``kind`` must be ``"inline"`` (the only kind the specification defines) and
``chunk_shapes`` holds one entry per array dimension (see
:mod:`zarrforge_rectilinear.edges`). No other configuration key is accepted.

:class:`RectilinearChunkGrid` implements :class:`~zarrforge.abc.chunk_grid.ChunkGrid`:

* ``from_json`` validates the configuration against the array shape; a bad
  value raises :class:`~zarrforge.errors.MetadataError` naming the field
  (``configuration.kind``, ``configuration.chunk_shapes``,
  ``configuration.chunk_shapes[d]``, ``configuration.chunk_shapes[d][k]``),
  the value and what is valid. Along every dimension the declared edges must
  sum to at least the array's length.
* ``to_json`` writes back the form that was read: run-length pairs stay
  pairs, integers stay integers.
* ``dimensions`` are :class:`~zarrforge_rectilinear.partition.RunPartition`
  objects; a dimension's chunk count counts only chunks that hold array
  elements.
* ``regular_chunk_shape`` is a tuple only when all chunks of the array have
  the same stored shape (for example every dimension given as an integer,
  or explicit edges that happen to be equal), else ``None``.
* ``with_shape`` (resize): the specification only requires the edges to
  cover the array. Integer dimensions follow any length. Explicit edges are
  kept as they are when they still cover the new length (a shrink keeps the
  edges past the new end, which the specification allows, so growing back
  restores the same chunks); a dimension that grows past the sum of its
  edges gets one new edge spanning the added part (the behaviour of
  zarr-python's implementation), so no existing chunk changes shape. A
  resize to a different number of dimensions raises ``MetadataError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from zarrforge.abc.chunk_grid import ChunkGrid, DimensionChunking
from zarrforge.errors import MetadataError

from .edges import DimensionEdges, compact, parse_edges
from .partition import RunPartition

KINDS = ("inline",)
CONFIG_KEYS = ("kind", "chunk_shapes")


class RectilinearChunkGrid(ChunkGrid):
    name = "rectilinear"

    def __init__(self, edges: Sequence[DimensionEdges], shape: Sequence[int]) -> None:
        self._edges = tuple(edges)
        self._shape = tuple(int(n) for n in shape)
        if len(self._edges) != len(self._shape):
            raise MetadataError(
                f"must have one entry per array dimension ({len(self._shape)} for shape "
                f"{list(self._shape)}), got {len(self._edges)}",
                field="configuration.chunk_shapes",
                value=[e.json for e in self._edges],
            )
        for d, (e, n) in enumerate(zip(self._edges, self._shape)):
            if not e.covers(n):
                raise MetadataError(
                    f"the edge lengths sum to {e.total}, less than the array's length {n} along "
                    f"dimension {d}; the edges must cover the dimension (they may overflow it), "
                    f"so add edges or give a single integer step",
                    field=f"configuration.chunk_shapes[{d}]",
                    value=e.json,
                )
        self._dims = tuple(RunPartition(e.runs, n) for e, n in zip(self._edges, self._shape))

    # --- construction ----------------------------------------------------------------

    @classmethod
    def from_json(
        cls, name: str, configuration: dict[str, Any] | None, shape: Sequence[int]
    ) -> RectilinearChunkGrid:
        if configuration is None:
            raise MetadataError(
                f"{name}: a configuration with 'kind' and 'chunk_shapes' is required",
                field="configuration",
                value=configuration,
            )
        unknown = sorted(set(configuration) - set(CONFIG_KEYS))
        if unknown:
            raise MetadataError(
                f"{name}: unknown configuration key(s) {unknown}; valid: {list(CONFIG_KEYS)}",
                field="configuration",
                value=configuration,
            )
        if "kind" not in configuration:
            raise MetadataError(
                f"{name}: 'kind' is required (the only kind defined is 'inline')", field="configuration.kind"
            )
        kind = configuration["kind"]
        if not isinstance(kind, str) or kind not in KINDS:
            raise MetadataError(
                f"must be 'inline' (the only kind the rectilinear grid specification defines), got {kind!r}",
                field="configuration.kind",
                value=kind,
            )
        if "chunk_shapes" not in configuration:
            raise MetadataError(
                f"{name}: 'chunk_shapes' is required (one entry per dimension)",
                field="configuration.chunk_shapes",
            )
        chunk_shapes = configuration["chunk_shapes"]
        if isinstance(chunk_shapes, tuple):
            chunk_shapes = list(chunk_shapes)
        if not isinstance(chunk_shapes, list) or len(chunk_shapes) != len(shape):
            raise MetadataError(
                f"must be a list with one entry per array dimension ({len(shape)} for shape "
                f"{list(shape)}), got {chunk_shapes!r}",
                field="configuration.chunk_shapes",
                value=chunk_shapes,
            )
        edges = [
            parse_edges(value, f"configuration.chunk_shapes[{d}]") for d, value in enumerate(chunk_shapes)
        ]
        return cls(edges, shape)

    @classmethod
    def from_edges(cls, chunk_shapes: Sequence[Any], shape: Sequence[int]) -> RectilinearChunkGrid:
        """Build from per-dimension integers or *explicit* edge lists (compacted
        with :func:`~zarrforge_rectilinear.edges.compact`)."""
        entries = [
            compact(list(value)) if isinstance(value, (list, tuple, np.ndarray)) else value
            for value in chunk_shapes
        ]
        return cls.from_json(cls.name, {"kind": "inline", "chunk_shapes": entries}, shape)

    # --- the contract ----------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "configuration": {
                "kind": "inline",
                "chunk_shapes": [_copy(e.json) for e in self._edges],
            },
        }

    @property
    def dimensions(self) -> tuple[DimensionChunking, ...]:
        return self._dims

    def with_shape(self, shape: Sequence[int]) -> RectilinearChunkGrid:
        shape = tuple(int(n) for n in shape)
        if len(shape) != len(self._shape):
            raise MetadataError(
                f"a rectilinear grid with {len(self._shape)} dimension(s) cannot describe an "
                f"array of shape {list(shape)}",
                field="configuration.chunk_shapes",
                value=[e.json for e in self._edges],
            )
        return RectilinearChunkGrid([e.covering(n) for e, n in zip(self._edges, shape)], shape)

    @property
    def regular_chunk_shape(self) -> tuple[int, ...] | None:
        shape = []
        for dim in self._dims:
            sizes = dim.active_sizes
            if len(sizes) > 1:
                return None
            if sizes:
                shape.append(sizes[0])
            elif dim.nchunks == 0 and dim.declared_sizes:
                # No chunk holds data along this dimension: the first declared edge is as
                # good a nominal size as any (nothing is stored either way).
                shape.append(dim.size(0))
            else:
                return None
        return tuple(shape)

    # --- extras ----------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """The array shape this grid is bound to."""
        return self._shape

    @property
    def edges(self) -> tuple[DimensionEdges, ...]:
        """The declared edges of each dimension."""
        return self._edges

    @property
    def chunk_sizes(self) -> tuple[tuple[int, ...], ...]:
        """The stored size of every chunk of the array, per dimension (expanded)."""
        return tuple(dim.sizes() for dim in self._dims)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RectilinearChunkGrid):
            return NotImplemented
        return self._shape == other._shape and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash((self._shape, repr(self.to_json())))

    def __repr__(self) -> str:
        shapes = [e.json for e in self._edges]
        return f"RectilinearChunkGrid(chunk_shapes={shapes!r}, shape={list(self._shape)})"


def _copy(value: Any) -> Any:
    return [_copy(v) for v in value] if isinstance(value, list) else value

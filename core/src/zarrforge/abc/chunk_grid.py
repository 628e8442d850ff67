"""Contract for chunk grids (the ``chunk_grid`` extension point).

A chunk grid tiles the array's index space into hyper-rectangular chunks with
no gaps or overlaps. zarrforge only supports *separable* grids: the chunks are
the cartesian product of one partition per dimension. Both the spec's
``regular`` grid and the registered ``rectilinear`` grid are separable, and the
restriction lets the indexing engine work one dimension at a time without ever
materialising the list of chunks.

A grid implementation provides:

* ``from_json(name, configuration, shape)``: build the grid for an array of
  ``shape`` from its metadata; raise :class:`~zarrforge.errors.MetadataError`
  naming the offending field for bad input.
* ``to_json()``: the extension object written back to metadata.
* ``dimensions``: one :class:`DimensionChunking` per array dimension.
* ``with_shape(shape)``: the grid for the same configuration after a resize,
  or a :class:`~zarrforge.errors.MetadataError` if the grid cannot follow.
* ``regular_chunk_shape``: the chunk shape if every chunk has the same stored
  shape, else ``None`` (used for the familiar ``Array.chunks`` attribute).

:class:`RegularDimension` is the partition of one dimension into chunks of one size,
the last stored whole: the building block of every grid whose chunks along a dimension
are of one size (the spec's ``regular`` grid, the conformance kit's own grid).

Two grids are equal when they have the same type, the same ``to_json()`` and the
same dimension lengths (override ``__eq__`` and ``__hash__`` together if your
grid knows better).

The core never tests a grid's *name*: everything it needs goes through this
contract.

The derived helpers of :class:`ChunkGrid`, listed in :data:`GRID_HELPERS`
(``chunk_shape(coords)``, ``chunk_origin(coords)``, ...), are called by the
engine on every grid. A subclass may override one with another implementation
of the same kind (a method for a method, a property for a property); giving
the name another meaning (a ``chunk_shape`` tuple, as a class attribute,
a property or ``self.chunk_shape = ...``) is a :class:`TypeError` when the
class is created or the attribute is set, naming the helper.
"""

from __future__ import annotations

import functools
import inspect
import types
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .extension_point import ExtensionPoint


class DimensionChunking(ABC):
    """How one dimension of length ``length`` is split into chunks.

    ``size(i)`` is the *stored* extent of chunk ``i`` along this dimension. For
    a regular grid the last chunk may extend past the array's end (its stored
    size is still the nominal chunk size); ``extent(i)`` is the part inside the
    array.
    """

    length: int

    @property
    @abstractmethod
    def nchunks(self) -> int:
        """Number of chunks along this dimension (0 when ``length`` is 0).

        Returns
        -------
        int
            The number of chunks.
        """

    @abstractmethod
    def start(self, index: int) -> int:
        """First array index covered by chunk ``index``.

        Parameters
        ----------
        index : int
            The chunk's index along this dimension (``0 <= index < nchunks``).

        Returns
        -------
        int
            The first array index of the chunk.
        """

    @abstractmethod
    def size(self, index: int) -> int:
        """Stored size of chunk ``index`` along this dimension.

        Parameters
        ----------
        index : int
            The chunk's index along this dimension (``0 <= index < nchunks``).

        Returns
        -------
        int
            The chunk's stored size (it may extend past the array's end).
        """

    def extent(self, index: int) -> int:
        """Number of in-bounds elements of chunk ``index``.

        Parameters
        ----------
        index : int
            The chunk's index along this dimension.

        Returns
        -------
        int
            The part of the chunk's stored size inside the array.
        """
        return max(0, min(self.size(index), self.length - self.start(index)))

    @abstractmethod
    def index_of(self, positions: np.ndarray) -> np.ndarray:
        """Chunk index containing each array position (vectorised, int64).

        Parameters
        ----------
        positions : numpy.ndarray
            Array positions along this dimension (in bounds).

        Returns
        -------
        numpy.ndarray
            The chunk index of each position, as ``int64``, shaped as ``positions``.
        """

    def distinct_sizes(self) -> tuple[int, ...]:
        """The distinct stored sizes of the ``nchunks`` chunks, ascending.

        The default visits every chunk; grids override it when they know better.

        Returns
        -------
        tuple[int, ...]
            The distinct sizes, ascending (empty without chunks).
        """
        return tuple(sorted({self.size(i) for i in range(self.nchunks)}))

    def chunk_range(self, start: int, stop: int) -> range:
        """Indices of chunks intersecting the half-open range ``[start, stop)``.

        Parameters
        ----------
        start : int
            The first array index of the range.
        stop : int
            One past the last array index of the range.

        Returns
        -------
        range
            The chunk indices (empty when ``stop <= start``).
        """
        if stop <= start:
            return range(0)
        first, last = self.index_of(np.array([start, stop - 1], dtype=np.int64))
        return range(int(first), int(last) + 1)


class RegularDimension(DimensionChunking):
    """``length`` elements in chunks of ``chunk`` elements; the last chunk's stored size is
    ``chunk`` too, past the array's end."""

    def __init__(self, length: int, chunk: int) -> None:
        self.length = length
        self.chunk = chunk

    @property
    def nchunks(self) -> int:
        return -(-self.length // self.chunk)

    def start(self, index: int) -> int:
        return index * self.chunk

    def size(self, index: int) -> int:
        return self.chunk

    def index_of(self, positions: np.ndarray) -> np.ndarray:
        return np.asarray(positions, dtype=np.int64) // self.chunk

    def chunk_range(self, start: int, stop: int) -> range:
        if stop <= start:
            return range(0)
        return range(start // self.chunk, (stop - 1) // self.chunk + 1)


#: The helpers a grid inherits and the engine calls by name, each with its kind and
#: what it is, for the error that refuses a subclass giving the name another meaning.
GRID_HELPERS = types.MappingProxyType(
    {
        "representative_chunk_shapes": (
            "method",
            "representative_chunk_shapes(), the chunk shapes that show every distinct chunk size",
        ),
        "grid_shape": ("property", "grid_shape, the number of chunks along each dimension"),
        "chunk_shape": ("method", "chunk_shape(coords), the stored shape of one chunk"),
        "chunk_origin": ("method", "chunk_origin(coords), the first index of one chunk"),
        "chunk_extent": ("method", "chunk_extent(coords), the in-bounds shape of one chunk"),
        "nchunks": ("property", "nchunks, the number of chunks of the grid"),
    }
)


def _is_kind(value: Any, kind: str) -> bool:
    if kind == "property":
        return isinstance(value, (property, functools.cached_property))
    return inspect.isfunction(value)


def _shadowing(owner: str, name: str, what: str) -> TypeError:
    kind, meaning = GRID_HELPERS[name]
    return TypeError(
        f"{owner} {what}, but {name!r} is ChunkGrid's helper {meaning}: the engine calls "
        f"it on every grid. Keep your value under another name (such as '_{name}'), or "
        f"override the helper with a {kind} of the same meaning"
    )


class ChunkGrid(ExtensionPoint):
    """A separable chunk grid bound to an array shape."""

    name: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, (kind, _) in GRID_HELPERS.items():
            if name in cls.__dict__ and not _is_kind(cls.__dict__[name], kind):
                raise _shadowing(
                    f"the chunk grid class {cls.__qualname__}",
                    name,
                    f"defines {name!r} as a {type(cls.__dict__[name]).__name__}",
                )

    def __setattr__(self, name: str, value: Any) -> None:
        if name in GRID_HELPERS:
            raise _shadowing(
                f"the chunk grid {type(self).__qualname__}", name, f"sets the attribute {name!r}"
            )
        super().__setattr__(name, value)

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None, shape: Sequence[int]) -> ChunkGrid:
        """Build the grid from its metadata entry for an array of ``shape``.

        Parameters
        ----------
        name : str
            The entry's ``name``.
        configuration : dict[str, Any] or None
            The entry's ``configuration``; ``None`` for a short-hand name.
        shape : Sequence[int]
            The array's shape.

        Returns
        -------
        ChunkGrid
            The grid bound to ``shape``.

        Raises
        ------
        zarrforge.errors.MetadataError
            The entry is invalid, or does not fit ``shape`` (the error names the field).
        """

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The metadata object for this grid.

        Returns
        -------
        dict[str, Any]
            The ``chunk_grid`` entry that rebuilds this grid (``from_json`` of it is equal).
        """

    @property
    @abstractmethod
    def dimensions(self) -> tuple[DimensionChunking, ...]:
        """One partition per array dimension.

        Returns
        -------
        tuple[DimensionChunking, ...]
            The partitions, in dimension order.
        """

    @abstractmethod
    def with_shape(self, shape: Sequence[int]) -> ChunkGrid:
        """The same grid configuration applied to a resized array.

        Parameters
        ----------
        shape : Sequence[int]
            The array's new shape (the same number of dimensions).

        Returns
        -------
        ChunkGrid
            The grid for ``shape``.

        Raises
        ------
        zarrforge.errors.MetadataError
            The grid cannot follow the resize.
        """

    @property
    def regular_chunk_shape(self) -> tuple[int, ...] | None:
        """The common stored chunk shape, or ``None`` if chunks differ.

        Returns
        -------
        tuple[int, ...] or None
            The chunk shape, or ``None`` (the default) when chunks differ.
        """
        return None

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and other.to_json() == self.to_json()
            and [d.length for d in other.dimensions] == [d.length for d in self.dimensions]
        )

    def __hash__(self) -> int:
        return hash((repr(self.to_json()), tuple(d.length for d in self.dimensions)))

    # Derived helpers: implementations rarely need to override these.

    def representative_chunk_shapes(self) -> list[tuple[int, ...]]:
        """Chunk shapes that, together, show every distinct size of every dimension.

        The regular chunk shape when there is one; otherwise the shape made of each
        dimension's smallest size, plus one shape per other size of a dimension with
        the rest held at their smallest. Checking these is enough for per-dimension
        constraints (e.g. an inner chunk shape that must divide every shard). A
        dimension without chunks contributes 0.

        Returns
        -------
        list[tuple[int, ...]]
            The chunk shapes.
        """
        regular = self.regular_chunk_shape
        if regular is not None:
            return [tuple(regular)]
        sizes = [d.distinct_sizes() or (0,) for d in self.dimensions]
        base = tuple(s[0] for s in sizes)
        shapes = [base]
        for k, options in enumerate(sizes):
            shapes.extend((*base[:k], size, *base[k + 1 :]) for size in options[1:])
        return shapes

    @property
    def grid_shape(self) -> tuple[int, ...]:
        """The number of chunks along each dimension.

        Returns
        -------
        tuple[int, ...]
            ``nchunks`` of each dimension.
        """
        return tuple(d.nchunks for d in self.dimensions)

    def chunk_shape(self, coords: Sequence[int]) -> tuple[int, ...]:
        """Stored shape of the chunk at ``coords``.

        Parameters
        ----------
        coords : Sequence[int]
            The chunk's grid coordinates.

        Returns
        -------
        tuple[int, ...]
            Its stored shape.
        """
        return tuple(d.size(c) for d, c in zip(self.dimensions, coords))

    def chunk_origin(self, coords: Sequence[int]) -> tuple[int, ...]:
        """First array index of the chunk at ``coords``, per dimension.

        Parameters
        ----------
        coords : Sequence[int]
            The chunk's grid coordinates.

        Returns
        -------
        tuple[int, ...]
            The array index of the chunk's first element.
        """
        return tuple(d.start(c) for d, c in zip(self.dimensions, coords))

    def chunk_extent(self, coords: Sequence[int]) -> tuple[int, ...]:
        """In-bounds shape of the chunk at ``coords``.

        Parameters
        ----------
        coords : Sequence[int]
            The chunk's grid coordinates.

        Returns
        -------
        tuple[int, ...]
            The shape of its part inside the array.
        """
        return tuple(d.extent(c) for d, c in zip(self.dimensions, coords))

    @property
    def nchunks(self) -> int:
        """The number of chunks of the grid (1 for a 0-d array).

        Returns
        -------
        int
            The product of :attr:`grid_shape`.
        """
        return int(np.prod(self.grid_shape, dtype=object)) if self.dimensions else 1

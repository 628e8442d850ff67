"""The properties of an array that read nothing from the store (shape, dtype, chunks,
codecs, ``info``...), computed once for both faces of an array: the blocking
:class:`~zarrforge.Array` and :class:`zarrforge.asyncio.AsyncArray`.

Contract: :class:`ArrayProperties` extends :class:`~zarrforge.nodes.node_properties.NodeProperties`
with an array's properties, computed from the state of ``self._node``, an
:class:`ArrayState` (the array itself, or the blocking array an async face wraps). None
of them makes a store request: they read the metadata model, the runtime memory layout
and the codec chain the array checked when it was opened.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..abc.codec import SubdividedCodec
from ..abc.memory_layout import MemoryLayout
from ..abc.metadata import ArrayMetadata
from ..engine.codec_chain import CodecChain
from ..nodes.node_properties import NodeProperties, NodeState
from .array_config import ArrayConfig
from .info import Summary, array_summary


class ArrayState(NodeState, Protocol):
    """What the properties read: a blocking array's state."""

    _layout: MemoryLayout
    _write_empty_chunks: bool

    @property
    def _metadata(self) -> ArrayMetadata: ...

    def _chain(self) -> CodecChain: ...


class ArrayProperties(NodeProperties):
    """The array properties of ``self._node``, shared by ``Array`` and ``AsyncArray``."""

    if TYPE_CHECKING:
        # read-only here, as NodeProperties' (an Array's is itself, an AsyncArray's its Array)
        @property
        def _node(self) -> ArrayState: ...

    @property
    def shape(self) -> tuple[int, ...]:
        """The array's length in each dimension."""
        return self._node._metadata.shape

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self._node._metadata.shape)

    @property
    def size(self) -> int:
        """The number of elements (a Python int, so no overflow for huge shapes)."""
        return math.prod(self.shape)  # Python ints: no int64 overflow for huge shapes

    @property
    def dtype(self) -> np.dtype:
        """The numpy data type elements are read as."""
        return self._node._metadata.data_type.numpy_dtype

    @property
    def data_type(self) -> Any:
        """The array's data type as its format describes it (a registered data type's
        instance; ``dtype`` is its numpy form)."""
        return self._node._metadata.data_type

    @property
    def fill_value(self) -> Any:
        """The value elements never written read as."""
        return self._node._metadata.fill_value

    @property
    def order(self) -> str:
        """The memory layout of the handle's chunks (``"C"``, ``"F"`` or a plugin's), a runtime setting."""
        return self._node._layout.name

    @property
    def config(self) -> ArrayConfig:
        """The handle's runtime settings, with zarr-python's names (``.array_config``)."""
        return ArrayConfig(order=self._node._layout.name, write_empty_chunks=self._node._write_empty_chunks)

    @property
    def dimension_names(self) -> tuple[str | None, ...] | None:
        """A name (or ``None``) per dimension, or ``None`` when the array has none."""
        return self._node._metadata.dimension_names

    @property
    def codecs(self) -> tuple[Any, ...]:
        """The array's whole codec list, as its metadata holds it (filters, serializer and
        compressors; the sharding codec when sharded)."""
        return self._node._metadata.codecs

    def _chunk_codecs(self) -> CodecChain:
        """The codecs a chunk as :attr:`chunks` has it goes through: a shard's inner ones."""
        chain = self._node._chain()
        if isinstance(chain.array_bytes, SubdividedCodec):
            return CodecChain(chain.array_bytes.inner_codecs)
        return chain

    @property
    def filters(self) -> tuple[Any, ...]:
        """The ``array -> array`` codecs of a chunk (of an inner chunk, when sharded), as
        zarr-python's ``Array.filters``."""
        return self._chunk_codecs().array_array

    @property
    def serializer(self) -> Any:
        """The ``array -> bytes`` codec of a chunk (of an inner chunk, when sharded)."""
        return self._chunk_codecs().array_bytes

    @property
    def compressors(self) -> tuple[Any, ...]:
        """The ``bytes -> bytes`` codecs of a chunk (of an inner chunk, when sharded)."""
        return self._chunk_codecs().bytes_bytes

    @property
    def _storage_chunk_shape(self) -> tuple[int, ...]:
        shape = self._node._metadata.chunk_grid.regular_chunk_shape
        if shape is None:
            raise AttributeError(
                "this array's chunk grid has no single chunk shape; see metadata_model.chunk_grid"
            )
        return shape

    @property
    def chunks(self) -> tuple[int, ...]:
        """The shape of the smallest unit that can be read on its own.

        For an array whose array -> bytes codec subdivides stored chunks (a
        :class:`~zarrforge.abc.codec.SubdividedCodec`, e.g. sharding), that is the
        inner chunk shape; otherwise the chunk grid's chunk shape.
        """
        serializer = self._node._chain().array_bytes
        if isinstance(serializer, SubdividedCodec):
            return tuple(serializer.inner_chunk_shape)
        return self._storage_chunk_shape

    @property
    def shards(self) -> tuple[int, ...] | None:
        """The stored chunk shape when chunks are subdivided (sharding), else ``None``."""
        if isinstance(self._node._chain().array_bytes, SubdividedCodec):
            return self._storage_chunk_shape
        return None

    @property
    def write_chunk_sizes(self) -> tuple[tuple[int, ...], ...]:
        """zarr-python's ``write_chunk_sizes``: per dimension, the lengths along it of the
        stored chunks (the shards, when sharded) that hold elements, each clipped to the
        array's extent (dask's ``chunks`` convention); regular and rectilinear grids alike."""
        return tuple(
            tuple(dim.extent(i) for i in range(dim.nchunks))
            for dim in self._node._metadata.chunk_grid.dimensions
        )

    @property
    def read_chunk_sizes(self) -> tuple[tuple[int, ...], ...]:
        """zarr-python's ``read_chunk_sizes``: as :attr:`write_chunk_sizes`, but in units
        read on their own: when a codec subdivides stored chunks (sharding), the inner
        chunk shape laid from the array's origin along each dimension, clipped to the
        extent, as zarr-python computes it."""
        serializer = self._node._chain().array_bytes
        if not isinstance(serializer, SubdividedCodec):
            return self.write_chunk_sizes
        return tuple(
            tuple(min(step, length - start) for start in range(0, length, step))
            for length, step in zip(self.shape, serializer.inner_chunk_shape)
        )

    def _iter_chunk_regions(
        self, *, origin: Sequence[int] | None = None, selection_shape: Sequence[int] | None = None
    ) -> Iterator[tuple[slice, ...]]:
        """zarr-python's ``_iter_chunk_regions``: the region (a tuple of slices) of each
        chunk read on its own (:attr:`read_chunk_sizes`), in C order; ``origin`` (the first
        chunk's coordinates) and ``selection_shape`` (how many chunks along each dimension)
        pick a block of the grid. Reads nothing."""
        sizes = self.read_chunk_sizes
        starts = [tuple(itertools.accumulate(dim, initial=0)) for dim in sizes]
        first = tuple(origin) if origin is not None else (0,) * len(sizes)
        counts = (
            tuple(selection_shape)
            if selection_shape is not None
            else tuple(len(dim) - f for dim, f in zip(sizes, first))
        )
        if len(first) != len(sizes) or len(counts) != len(sizes):
            raise ValueError(
                f"origin {origin!r} and selection_shape {selection_shape!r} need "
                f"one entry per dimension ({len(sizes)})"
            )
        ranges = []
        for dim, (f, n) in enumerate(zip(first, counts)):
            if f < 0 or n < 0 or f + n > len(sizes[dim]):
                raise IndexError(
                    f"chunks {f}..{f + n - 1} of dimension {dim} are outside its {len(sizes[dim])} chunks"
                )
            ranges.append(range(f, f + n))
        for coords in itertools.product(*ranges):
            yield tuple(slice(starts[d][c], starts[d][c + 1]) for d, c in enumerate(coords))

    @property
    def cdata_shape(self) -> tuple[int, ...]:
        """How many chunks the grid has along each dimension."""
        return self._node._metadata.chunk_grid.grid_shape

    @property
    def nchunks(self) -> int:
        """The number of chunks of the grid (stored or not)."""
        return self._node._metadata.chunk_grid.nchunks

    @property
    def nbytes(self) -> int:
        """The bytes the whole array takes decoded (shape x item size), as zarr-python's."""
        item_size = self.data_type.item_size
        if item_size is None:
            raise TypeError(
                f"{self.name!r} holds {self.data_type.to_json()!r}, of no fixed "
                "size per element: it has no decoded size without reading it"
            )
        return self.size * item_size

    @property
    def info(self) -> Summary:
        """A summary of the array (``zarrforge.user_api.info``): reads nothing from the store."""
        return array_summary(self._node)

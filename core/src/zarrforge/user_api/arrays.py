"""The user-facing :class:`Array`.

An ``Array`` is a view of one array node: its store, its path, its metadata
model and the format that maps it to keys. Reading and writing go through
the indexers of :mod:`zarrforge.engine.indexing` and the
:class:`~zarrforge.engine.pipeline.ChunkEngine`.

Selections:

* ``a[...]`` / ``a[...] = v``: basic indexing (ints, slices with any step,
  ``Ellipsis``, ``None``), with numpy's result shapes;
* ``a.oindex[...]``: orthogonal indexing (int arrays, boolean masks and slices
  per dimension);
* ``a.vindex[...]``: coordinate (point) indexing or a boolean mask of the
  whole array;
* ``a.blocks[...]``: selection in units of chunks.

Those views and zarr-python's ``get_*_selection`` names are the mixin
:class:`~zarrforge.user_api.array_selections.Selections`; ``resize``, ``append`` and staged
grows are :class:`~zarrforge.user_api.array_resizing.Resizing`; the properties that read nothing
(shape, dtype, chunks, codecs, ``info``...) are
:class:`~zarrforge.user_api.array_properties.ArrayProperties`, shared with
:class:`zarrforge.asyncio.AsyncArray`; the codec chain and the chunk engine, built at
first use, are :class:`~zarrforge.user_api.array_engine.ArrayEngine`. This module holds what reads
and writes (the indexers, the result buffers, the calls of the engine) and what asks the
store about the array.

Metadata changes (attributes, ``resize``) rewrite the node's metadata
document; runtime settings (``order``, ``write_empty_chunks``, ``threads``)
are not stored.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import config
from ..abc.extension import Extension
from ..abc.format import Format
from ..abc.metadata import ArrayMetadata
from ..abc.store import Store
from ..engine import chunk_cache as chunk_cache_service
from ..engine import indexing
from ..engine.chunk_cache import ChunkCache
from ..errors import ResourceLimitError
from ..nodes.node import ADOPT, Node, opened_at_root
from ..registries.resolution import memory_layout
from .array_config import config_options
from .array_engine import ArrayEngine
from .array_properties import ArrayProperties
from .array_resizing import Resizing
from .array_selections import Selections, as_value, is_fancy, is_vindex
from .info import Summary, array_summary
from .lazy_views import lazy_view
from .value_stage import read_values, value_stages
from .value_stage import stored_values as stored_values_of


class Array(Node, ArrayProperties, ArrayEngine, Selections, Resizing, node_type="array"):
    """An array of a Zarr hierarchy: read and written by numpy-style selections, chunk by chunk.

    ``array[sel]`` reads, ``array[sel] = values`` writes (``oindex``, ``vindex`` and ``blocks``
    for orthogonal, coordinate and block selections); never-written chunks read as the fill
    value. Open or create one with :func:`zarrforge.open_array`, :func:`zarrforge.create_array`
    or zarr-python's convenience functions (:func:`zarrforge.zeros`...).
    """

    if TYPE_CHECKING:
        # Node's: the array itself (the state ArrayProperties reads)
        @property
        def _node(self) -> Array: ...

    def __init__(
        self,
        store: Store,
        path: str = ADOPT,
        metadata: ArrayMetadata | None = None,
        fmt: Format | None = None,
        *,
        read_only: bool = False,
        order: str | None = None,
        write_empty_chunks: bool | None = None,
        threads: int | None = None,
        transformers: Sequence[Callable[[Store], Store]] = (),
        chunk_cache: ChunkCache | int | None = None,
        recheck: str = "open",
        view: Any = None,
    ) -> None:
        super().__init__(store, path, metadata, fmt, read_only=read_only, view=view)
        if path is ADOPT:  # Array(async_array): the handle's state is the adopted node's
            return
        self._opened_tick = chunk_cache_service.tick()  # recheck="open" revalidates older entries
        self._chunk_cache = chunk_cache_service.pool_for(chunk_cache)
        self._recheck = recheck
        settings = config.get()
        self._layout = memory_layout(order or settings.order)
        self._write_empty_chunks = (
            settings.write_empty_chunks if write_empty_chunks is None else write_empty_chunks
        )
        self._threads = threads or settings.threads
        self._transformers = tuple(transformers)
        self._forget_engine()  # the chain is built and checked on open, the engine at first I/O

    @classmethod
    def _from_metadata(
        cls,
        store: Store,
        path: str,
        metadata: Any,
        fmt: Format,
        *,
        read_only: bool,
        view: Any,
        use_consolidated: bool | None,
        **options: Any,
    ) -> Array:
        return cls._opened(store, path, metadata, fmt, read_only=read_only, view=view, **options)

    # zarr-python's annotations write Array[Any] (its arrays are generic in their metadata)
    def __class_getitem__(cls, item: Any) -> types.GenericAlias:
        return types.GenericAlias(cls, item)

    @classmethod
    def open(cls, store: Any, *, config: Any = None) -> Array:
        """zarr-python's ``Array.open``: the array at the root of ``store``, writable unless
        the store is read-only; ``config`` as ``.array_config`` reads it.

        Parameters
        ----------
        store : Any
            The store (any store-like).
        config : Any
            Runtime settings (a mapping or a :class:`zarrforge.user_api.array_config.ArrayConfig`).

        Returns
        -------
        zarrforge.Array
            The array at the root.

        Raises
        ------
        zarrforge.errors.NodeNotFoundError
            No array at the root.
        zarrforge.errors.NodeTypeError
            The node at the root is a group.
        """
        return opened_at_root(store, "array", **config_options("Array.open", config))

    def with_config(self, config: Any) -> Array:
        """zarr-python's ``Array.with_config``: a new handle on the same array whose runtime
        settings are ``config`` (a mapping of ``order``/``write_empty_chunks``/
        ``read_missing_chunks``, or an ``ArrayConfig``, checked as ``.array_config``
        says) over this handle's own; keys not given keep this handle's values, not the
        global defaults. Nothing is read or written; this handle is unchanged.

        Parameters
        ----------
        config : Any
            The settings to change (above).

        Returns
        -------
        zarrforge.Array
            The new handle.
        """
        options = {**self._runtime_options(), **config_options("Array.with_config", config)}
        handle = type(self)._opened(
            self._store,
            self._path,
            self._metadata,
            self._format,
            read_only=self._read_only,
            view=self._view,
            **options,
        )
        handle._uncommitted_shape = self._uncommitted_shape  # a staged handle stays staged
        return handle

    @property
    def lazy(self) -> Any:
        """The whole array as a ``zarr_indexing.LazyArray``, whose indexing (``[...]``,
        ``.oindex``, ``.vindex``) composes selections and reads nothing, and whose
        ``result()`` (or ``numpy.asarray``) reads the composed selection as one engine read
        (``zarrforge.user_api.lazy_views``; docs/lazy-and-cache.md).

        Raises
        ------
        ImportError
            zarr-indexing is not installed (it needs Python 3.12): the message names the
            ``zarrforge[lazy]`` extra.
        """
        return lazy_view(self)

    @property
    def chunk_cache(self) -> ChunkCache | None:
        """The pool of decoded chunks this handle reads through (``chunk_cache=``; the
        process's pool of ``config.chunk_cache`` when not given), or ``None``: none.
        docs/lazy-and-cache.md."""
        return self._chunk_cache

    def _runtime_options(self) -> dict[str, Any]:
        return {
            "order": self._layout.name,
            "write_empty_chunks": self._write_empty_chunks,
            "threads": self._threads,
            "transformers": self._transformers,
            "chunk_cache": self._chunk_cache or 0,
            "recheck": self._recheck,
        }

    def _validate(self) -> None:
        super()._validate()
        self._chain()  # the codec chain is checked against the array on open, not on first read

    def _metadata_changed(self) -> None:
        self._forget_engine()

    @property
    def nchunks_initialized(self) -> int:
        """How many chunks are stored (one listing of the array's chunk keys)."""
        return sum(1 for _ in self.stored_chunks())

    def chunk_key(self, coords: Sequence[int]) -> str:
        """The store key of the chunk at grid ``coords``, as the array's format lays it out
        (before any storage transformer: in :attr:`chunk_store`'s terms).

        Parameters
        ----------
        coords : Sequence[int]
            The chunk's coordinates in the chunk grid.

        Returns
        -------
        str
            The key.
        """
        return self._format.chunk_key(self._path, self._metadata, tuple(int(c) for c in coords))

    def stored_chunks(self) -> Iterator[tuple[int, ...]]:
        """Coordinates of the chunks that exist in the store.

        Yields
        ------
        tuple of int
            The grid coordinates of each stored chunk.
        """
        return self._format.stored_chunks(self.chunk_store, self._path, self._metadata)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return (
            f"<zarrforge.Array {self.name!r} shape={self.shape} dtype={self.dtype} "
            f"chunks={self._metadata.chunk_grid.regular_chunk_shape}>"
        )

    def info_complete(self) -> Summary:
        """:attr:`info` with what is stored: bytes, the storage ratio, chunks written.

        Returns
        -------
        zarrforge.user_api.info.Summary
            The summary (printable, and shown in Jupyter).
        """
        return array_summary(self, complete=True)

    def _repr_html_(self) -> str:
        return self.info._repr_html_()

    # --- reading and writing ---------------------------------------------------------

    def _indexer(self, kind: str, selection: Any) -> tuple[Any, Any]:
        """The indexer for ``selection`` after the extensions' ``map_selection``."""
        for extension in self._metadata.extensions:
            if isinstance(extension, Extension):
                selection = extension.map_selection(self, selection, kind)
        return _INDEXERS[kind](selection, self.shape, self._dims()), selection

    def _check_size(self, shape: tuple[int, ...], what: str) -> None:
        limit = config.get().max_request_bytes
        if limit is None:
            return
        nbytes = math.prod(shape) * self.dtype.itemsize
        if nbytes > limit:
            raise ResourceLimitError(
                f"{what} of shape {shape} on {self.name!r} needs {nbytes} bytes, over the "
                f"limit of {limit} bytes (zarrforge.config max_request_bytes); read or write "
                "it in parts, e.g. with Array.blocks or zarrforge.to_dask"
            )

    def _output(self, shape: tuple[int, ...]) -> np.ndarray:
        """The array a read of ``shape`` fills: checked against ``max_request_bytes``, and
        one the machine cannot allocate refused as a :class:`ResourceLimitError` naming the
        read (numpy's bare ``MemoryError`` otherwise: a damaged shape asks for terabytes)."""
        self._check_size(shape, "a read")
        try:
            return self._layout.empty(shape, self.dtype)
        except MemoryError as exc:
            nbytes = math.prod(shape) * self.dtype.itemsize
            raise ResourceLimitError(
                f"a read of shape {shape} on {self.name!r} needs {nbytes} bytes, more than "
                "this machine could allocate; read it in parts, e.g. with Array.blocks or "
                "zarrforge.to_dask (zarrforge.config max_request_bytes refuses such reads "
                "before trying)"
            ) from exc

    def _read(self, kind: str, selection: Any, *, stored_values: bool = False) -> np.ndarray:
        """Read ``selection``; ``stored_values=True`` returns the values as stored, before
        the extensions' value stage (:mod:`zarrforge.user_api.value_stage`)."""
        indexer, _ = self._indexer(kind, selection)
        return self._values_of(indexer, () if stored_values else value_stages(self._metadata))

    def _values_of(self, indexer: Any, stages: tuple[Extension, ...]) -> np.ndarray:
        """The values ``indexer`` selects, in a new array, through the value ``stages``."""
        out = self._output(indexer.shape)
        self._engine_().read(indexer, out)
        return read_values(self, stages, out) if stages else out

    def _read_into(self, selection: Any, out: np.ndarray) -> None:
        """Read the basic ``selection`` into ``out`` (of its shape, any strides), without an
        array of its own where no extension changes the values read (the lazy views'
        reader: :mod:`zarrforge.user_api.lazy_views`)."""
        indexer, _ = self._indexer("basic", selection)
        if tuple(indexer.shape) != out.shape:
            raise ValueError(
                f"a read of shape {tuple(indexer.shape)} cannot fill an output of shape {out.shape}"
            )
        stages = value_stages(self._metadata)
        if stages or out.dtype != self.dtype:
            out[...] = self._values_of(indexer, stages)
            return
        self._engine_().read(indexer, out)

    def _write(
        self, kind: str, selection: Any, value: Any, *, stored: bool = False, stored_values: bool = False
    ) -> None:
        """Write ``value``; ``stored=True`` means ``selection`` is in stored coordinates
        already and skips the extensions' selection mapping; ``stored_values=True`` that
        ``value`` is as stored already and skips their value stage."""
        self._check_writable()
        indexer: Any
        if stored:
            indexer = _INDEXERS[kind](selection, self.shape, self._dims())
        else:
            indexer, selection = self._indexer(kind, selection)
        self._check_size(indexer.shape, "a write")
        value = as_value(value, indexer.shape, self.dtype)
        stages = () if stored_values else value_stages(self._metadata)
        self._engine_().write(indexer, stored_values_of(self, stages, value) if stages else value)
        for extension in self._metadata.extensions:
            if isinstance(extension, Extension):
                extension.after_write(self, selection, kind, value)

    def _dims(self) -> tuple[Any, ...]:
        return self._metadata.chunk_grid.dimensions

    def _read_gathered(self, requests: Sequence[tuple[str, Any]]) -> list[tuple[Any, Any]]:
        """Read several ``(kind, selection)`` requests in one engine call
        (:meth:`ChunkEngine.read_gathered`); per request, in order, ``(values, None)`` (a
        scalar for a 0-d result) or ``(None, the exception that request alone raises)``.
        If the gathered call fails, each request is read on its own, so one request's
        failure (a corrupt chunk, a store error) is never another's."""
        results: list[tuple[Any, Any]] = [(None, None)] * len(requests)
        reads = []
        for i, (kind, selection) in enumerate(requests):
            try:
                indexer, _ = self._indexer(kind, selection)
                out = self._output(indexer.shape)
            except Exception as exc:  # noqa: BLE001  # that request's own error
                results[i] = (None, exc)
                continue
            reads.append((i, indexer, out))
        try:
            self._engine_().read_gathered([(indexer, out) for _, indexer, out in reads])
        except Exception:  # noqa: BLE001  # told apart by reading each request alone
            for i, _, _ in reads:
                try:
                    results[i] = (self._scalar_or_array(self._read(*requests[i])), None)
                except Exception as exc:  # noqa: BLE001  # that request's own error
                    results[i] = (None, exc)
            return results
        stages = value_stages(self._metadata)
        for i, _, out in reads:
            try:
                results[i] = (self._scalar_or_array(read_values(self, stages, out) if stages else out), None)
            except Exception as exc:  # noqa: BLE001  # that request's own error
                results[i] = (None, exc)
        return results

    @staticmethod
    def _scalar_or_array(out: np.ndarray) -> Any:
        return out[()] if out.ndim == 0 else out

    def __getitem__(self, selection: Any) -> Any:
        if is_fancy(selection):
            return self.oindex[selection] if not is_vindex(selection, self.ndim) else self.vindex[selection]
        out = self._read("basic", selection)
        return out[()] if out.ndim == 0 else out

    def __setitem__(self, selection: Any, value: Any) -> None:
        if is_fancy(selection):
            if is_vindex(selection, self.ndim):
                self.vindex[selection] = value
            else:
                self.oindex[selection] = value
            return
        self._write("basic", selection, value)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        data = self[...]
        data = np.asarray(data)
        return data.astype(dtype) if dtype is not None else data

    def nbytes_stored(self) -> int:
        """The bytes stored under the array's path: its chunks and its metadata documents
        (one listing, and a size query per key where the listing does not give sizes).

        Returns
        -------
        int
            The number of bytes.
        """
        prefix = f"{self._path}/" if self._path else ""
        keys = list(self._store.list_prefix(prefix))
        document = self._format.document_key(self._path, "array")
        if document is not None and document not in keys:  # the 2022 draft keeps it apart
            keys.append(document)
        return sum(self._store.getsize(key) or 0 for key in keys)

    def get_chunk(self, coords: Sequence[int]) -> np.ndarray:
        """The whole stored chunk at grid ``coords`` (fill value if never written).

        Parameters
        ----------
        coords : Sequence[int]
            The chunk's coordinates in the chunk grid.

        Returns
        -------
        numpy.ndarray
            The chunk's values, decoded (through the extensions' value stage, as reads are).
        """
        coords = tuple(int(c) for c in coords)
        chunk = self._engine_().read_chunk(coords)
        if chunk is None:
            spec = self._engine_().spec_for(coords)
            chunk = self._layout.full(spec.shape, self.fill_value, self.dtype)
        stages = value_stages(self._metadata)
        if stages:  # on a copy: a decoded chunk may be read-only, a view of the stored bytes
            chunk = read_values(self, stages, np.array(chunk, copy=True))
        return chunk

    _uncommitted_shape: tuple[int, ...] | None = None

    def __reduce__(self) -> Any:
        if self._uncommitted_shape is None:
            return super().__reduce__()
        # a staged handle travels (to dask workers) with its shape, which no document holds
        return (
            type(self)._reopened_with_shape,
            (self._store, self._path, self._read_only, self._runtime_options(), self._uncommitted_shape),
        )


_INDEXERS = {
    "basic": indexing.BasicIndexer,
    "orthogonal": indexing.OrthogonalIndexer,
    "coordinate": indexing.CoordinateIndexer,
    "mask": indexing.MaskIndexer,
    "block": indexing.BlockIndexer,
}


def mismatch(array: Array, shape: Any = None, dtype: Any = None) -> str | None:
    """How ``array`` differs from the ``shape`` and ``dtype`` a caller expects of it (each
    ``None``: not expected), or ``None`` when it does not."""
    if shape is not None:
        wanted = tuple(shape) if isinstance(shape, (tuple, list)) else (int(shape),)
        if array.shape != wanted:
            return f"the array {array.name!r} has shape {array.shape}, not {wanted}"
    if dtype is not None and np.dtype(dtype) != array.dtype:
        return f"the array {array.name!r} holds {array.dtype}, not {np.dtype(dtype)}"
    return None

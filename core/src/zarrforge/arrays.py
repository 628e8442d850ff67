"""The user-facing :class:`Array`.

An ``Array`` is a view of one array node: its store, its path, its metadata
model and the format that maps it to keys. Reading and writing go through
the indexers of :mod:`zarrforge.indexing` and the :class:`ChunkEngine`.

Selections:

* ``a[...]`` / ``a[...] = v``: basic indexing (ints, slices with any step,
  ``Ellipsis``, ``None``), with numpy's result shapes;
* ``a.oindex[...]``: orthogonal indexing (int arrays, boolean masks and slices
  per dimension);
* ``a.vindex[...]``: coordinate (point) indexing or a boolean mask of the
  whole array;
* ``a.blocks[...]``: selection in units of chunks.

Metadata changes (attributes, ``resize``) rewrite the node's metadata
document; runtime settings (``order``, ``write_empty_chunks``, ``threads``)
are not stored.
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from . import config, indexing
from .abc.codec import ChunkSpec, SubdividedCodec
from .abc.extension import Extension
from .abc.format import Format
from .abc.metadata import ArrayMetadata
from .abc.storage_transformer import ChunkKeys, wrap_store
from .abc.store import Store
from .codec_chain import CodecChain
from .errors import MetadataError, ResourceLimitError, SelectionError, ZarrforgeError
from .info import Summary, array_summary
from .node import Node, open_node
from .chunk_helpers import all_equal_fill
from .pipeline import ChunkEngine
from .resolution import MAX_EXTENT, memory_layout


class Array(Node, node_type="array"):
    def __init__(self, store: Store, path: str, metadata: ArrayMetadata, fmt: Format, *,
                 read_only: bool = False, order: str | None = None,
                 write_empty_chunks: bool | None = None, threads: int | None = None,
                 transformers: Sequence[Callable[[Store], Store]] = (),
                 view: Any = None) -> None:
        super().__init__(store, path, metadata, fmt, read_only=read_only, view=view)
        settings = config.get()
        self._layout = memory_layout(order or settings.order)
        self._write_empty_chunks = (settings.write_empty_chunks if write_empty_chunks is None
                                    else write_empty_chunks)
        self._threads = threads or settings.threads
        self._transformers = tuple(transformers)
        self._codec_chain: CodecChain | None = None  # built and checked on open
        self._engine: ChunkEngine | None = None  # built at the first chunk I/O

    @classmethod
    def _from_metadata(cls, store: Store, path: str, metadata: Any, fmt: Format, *,
                       read_only: bool, view: Any, use_consolidated: bool | None,
                       **options: Any) -> "Array":
        return cls._opened(store, path, metadata, fmt, read_only=read_only, view=view, **options)

    def _runtime_options(self) -> dict[str, Any]:
        return {"order": self._layout.name, "write_empty_chunks": self._write_empty_chunks,
                "threads": self._threads, "transformers": self._transformers}

    def _validate(self) -> None:
        super()._validate()
        self._chain()  # the codec chain is checked against the array on open, not on first read

    def _metadata_changed(self) -> None:
        self._codec_chain = None
        self._engine = None

    @property
    def chunk_store(self) -> Store:
        """The store chunk I/O goes through: the node's store wrapped by the runtime
        ``transformers`` and the metadata's storage transformers."""
        return self._engine_().store

    @property
    def shape(self) -> tuple[int, ...]:
        return self._metadata.shape

    @property
    def ndim(self) -> int:
        return len(self._metadata.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)  # Python ints: no int64 overflow for huge shapes

    @property
    def dtype(self) -> np.dtype:
        return self._metadata.data_type.numpy_dtype

    @property
    def data_type(self) -> Any:
        return self._metadata.data_type

    @property
    def fill_value(self) -> Any:
        return self._metadata.fill_value

    @property
    def order(self) -> str:
        return self._layout.name

    @property
    def dimension_names(self) -> tuple[str | None, ...] | None:
        return self._metadata.dimension_names

    @property
    def codecs(self) -> tuple[Any, ...]:
        return self._metadata.codecs

    def _chunk_codecs(self) -> CodecChain:
        """The codecs a chunk as :attr:`chunks` has it goes through: a shard's inner ones."""
        chain = self._chain()
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
        shape = self._metadata.chunk_grid.regular_chunk_shape
        if shape is None:
            raise AttributeError("this array's chunk grid has no single chunk shape; "
                                 "see metadata_model.chunk_grid")
        return shape

    @property
    def chunks(self) -> tuple[int, ...]:
        """The shape of the smallest unit that can be read on its own.

        For an array whose array -> bytes codec subdivides stored chunks (a
        :class:`~zarrforge.abc.codec.SubdividedCodec`, e.g. sharding), that is the
        inner chunk shape; otherwise the chunk grid's chunk shape.
        """
        serializer = self._chain().array_bytes
        if isinstance(serializer, SubdividedCodec):
            return tuple(serializer.inner_chunk_shape)
        return self._storage_chunk_shape

    @property
    def shards(self) -> tuple[int, ...] | None:
        """The stored chunk shape when chunks are subdivided (sharding), else ``None``."""
        if isinstance(self._chain().array_bytes, SubdividedCodec):
            return self._storage_chunk_shape
        return None

    @property
    def cdata_shape(self) -> tuple[int, ...]:
        return self._metadata.chunk_grid.grid_shape

    @property
    def nchunks(self) -> int:
        return self._metadata.chunk_grid.nchunks

    @property
    def nchunks_initialized(self) -> int:
        """How many chunks are stored (one listing of the array's chunk keys)."""
        return sum(1 for _ in self.stored_chunks())

    def chunk_key(self, coords: Sequence[int]) -> str:
        """The store key of the chunk at grid ``coords``, as the array's format lays it out
        (before any storage transformer: in :attr:`chunk_store`'s terms)."""
        return self._format.chunk_key(self._path, self._metadata, tuple(int(c) for c in coords))

    def stored_chunks(self) -> Iterator[tuple[int, ...]]:
        """Coordinates of the chunks that exist in the store."""
        return self._format.stored_chunks(self.chunk_store, self._path, self._metadata)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return (f"<zarrforge.Array {self.name!r} shape={self.shape} dtype={self.dtype} "
                f"chunks={self._metadata.chunk_grid.regular_chunk_shape}>")

    @property
    def info(self) -> Summary:
        """A summary of the array (:mod:`zarrforge.info`): reads nothing from the store."""
        return array_summary(self)

    def info_complete(self) -> Summary:
        """:attr:`info` with what is stored: bytes, the storage ratio, chunks written."""
        return array_summary(self, complete=True)

    def _repr_html_(self) -> str:
        return self.info._repr_html_()

    # --- internals -------------------------------------------------------------------

    def _chunk_keys(self, meta: ArrayMetadata) -> ChunkKeys:
        fmt, path = self._format, self._path
        return ChunkKeys(lambda coords: fmt.chunk_key(path, meta, coords),
                         lambda key: fmt.chunk_coords(path, meta, key))

    def _chain(self) -> CodecChain:
        chain = self._codec_chain
        if chain is None:
            chain = self._codec_chain = self._checked_chain(self._metadata)
        return chain

    def _build_engine(self) -> ChunkEngine:
        meta = self._metadata
        chain = self._chain()
        store = self._store
        for runtime in reversed(self._transformers):
            store = runtime(store)
        keys = self._chunk_keys(meta)
        for transformer in reversed(meta.storage_transformers):
            store = wrap_store(transformer, store, keys, meta, path=self._path)
        return ChunkEngine(store=store, keys=keys, grid=meta.chunk_grid, chain=chain,
                           data_type=meta.data_type, fill_value=meta.fill_value,
                           layout=self._layout, threads=self._threads,
                           write_empty_chunks=self._write_empty_chunks)

    def _checked_chain(self, meta: ArrayMetadata) -> CodecChain:
        """The codec chain of ``meta``, validated against every distinct chunk shape of its
        grid (chunks of a rectilinear grid differ, and e.g. sharding needs each to divide)."""
        try:
            chain = CodecChain(meta.codecs)  # its order is checked here
            for shape in meta.chunk_grid.representative_chunk_shapes():
                chain.validate(ChunkSpec(shape, meta.data_type, meta.fill_value, self._layout))
        except MetadataError as exc:  # name the array's document (or at least its path)
            key = self._format.document_key(self._path, "array")
            raise exc.at(key if key is not None else f"/{self._path}") from exc
        return chain

    def _engine_(self) -> ChunkEngine:
        # Read the attribute once: a metadata write in another thread may reset it.
        engine = self._engine
        if engine is None:
            engine = self._engine = self._build_engine()
        return engine

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
                "it in parts, e.g. with Array.blocks or zarrforge.to_dask")

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
                "before trying)") from exc

    def _read(self, kind: str, selection: Any) -> np.ndarray:
        indexer, _ = self._indexer(kind, selection)
        out = self._output(indexer.shape)
        self._engine_().read(indexer, out)
        return out

    def _write(self, kind: str, selection: Any, value: Any, *, stored: bool = False) -> None:
        """Write ``value``; ``stored=True`` means ``selection`` is in stored coordinates
        already and skips the extensions' selection mapping."""
        self._check_writable()
        if stored:
            indexer = _INDEXERS[kind](selection, self.shape, self._dims())
        else:
            indexer, selection = self._indexer(kind, selection)
        self._check_size(indexer.shape, "a write")
        value = _as_value(value, indexer.shape, self.dtype)
        self._engine_().write(indexer, value)
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
            except Exception as exc:  # noqa: BLE001 - that request's own error
                results[i] = (None, exc)
                continue
            reads.append((i, indexer, out))
        try:
            self._engine_().read_gathered([(indexer, out) for _, indexer, out in reads])
        except Exception:  # noqa: BLE001 - told apart by reading each request alone
            for i, _, _ in reads:
                try:
                    results[i] = (self._scalar_or_array(self._read(*requests[i])), None)
                except Exception as exc:  # noqa: BLE001 - that request's own error
                    results[i] = (None, exc)
            return results
        for i, _, out in reads:
            results[i] = (self._scalar_or_array(out), None)
        return results

    @staticmethod
    def _scalar_or_array(out: np.ndarray) -> Any:
        return out[()] if out.ndim == 0 else out

    def __getitem__(self, selection: Any) -> Any:
        if _is_fancy(selection):
            return self.oindex[selection] if not _is_vindex(selection, self.ndim) else self.vindex[selection]
        out = self._read("basic", selection)
        return out[()] if out.ndim == 0 else out

    def __setitem__(self, selection: Any, value: Any) -> None:
        if _is_fancy(selection):
            if _is_vindex(selection, self.ndim):
                self.vindex[selection] = value
            else:
                self.oindex[selection] = value
            return
        self._write("basic", selection, value)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        data = self[...]
        data = np.asarray(data)
        return data.astype(dtype) if dtype is not None else data

    @property
    def oindex(self) -> "_Selector":
        return _Selector(self, "orthogonal")

    @property
    def vindex(self) -> "_Selector":
        return _Selector(self, "points")

    @property
    def blocks(self) -> "_Selector":
        return _Selector(self, "block")

    # --- zarr-python's names for the selections above ---------------------------------

    def get_basic_selection(self, selection: Any = Ellipsis, *, out: Any = None,
                            fields: Any = None, prototype: Any = None) -> Any:
        return _fields(self[selection], fields, out, prototype, "get_basic_selection")

    def set_basic_selection(self, selection: Any, value: Any, *, fields: Any = None,
                            prototype: Any = None) -> None:
        _fields(None, fields, None, prototype, "set_basic_selection")
        self[selection] = value

    def get_orthogonal_selection(self, selection: Any, *, out: Any = None, fields: Any = None,
                                 prototype: Any = None) -> Any:
        return _fields(self.oindex[selection], fields, out, prototype, "get_orthogonal_selection")

    def set_orthogonal_selection(self, selection: Any, value: Any, *, fields: Any = None,
                                 prototype: Any = None) -> None:
        _fields(None, fields, None, prototype, "set_orthogonal_selection")
        self.oindex[selection] = value

    def get_coordinate_selection(self, selection: Any, *, out: Any = None, fields: Any = None,
                                 prototype: Any = None) -> Any:
        return _fields(self.vindex[selection], fields, out, prototype, "get_coordinate_selection")

    def set_coordinate_selection(self, selection: Any, value: Any, *, fields: Any = None,
                                 prototype: Any = None) -> None:
        _fields(None, fields, None, prototype, "set_coordinate_selection")
        self.vindex[selection] = value

    get_mask_selection = get_coordinate_selection  # vindex takes a boolean mask too
    set_mask_selection = set_coordinate_selection

    def get_block_selection(self, selection: Any, *, out: Any = None, fields: Any = None,
                            prototype: Any = None) -> Any:
        return _fields(self.blocks[selection], fields, out, prototype, "get_block_selection")

    def set_block_selection(self, selection: Any, value: Any, *, fields: Any = None,
                            prototype: Any = None) -> None:
        _fields(None, fields, None, prototype, "set_block_selection")
        self.blocks[selection] = value

    @property
    def nbytes(self) -> int:
        """The bytes the whole array takes decoded (shape x item size), as zarr-python's."""
        item_size = self.data_type.item_size
        if item_size is None:
            raise TypeError(f"{self.name!r} holds {self.data_type.to_json()!r}, of no fixed "
                            "size per element: it has no decoded size without reading it")
        return self.size * item_size

    def nbytes_stored(self) -> int:
        """The bytes stored under the array's path: its chunks and its metadata documents
        (one listing, and a size query per key where the listing does not give sizes)."""
        prefix = f"{self._path}/" if self._path else ""
        keys = list(self._store.list_prefix(prefix))
        document = self._format.document_key(self._path, "array")
        if document is not None and document not in keys:  # the 2022 draft keeps it apart
            keys.append(document)
        return sum(self._store.getsize(key) or 0 for key in keys)

    def get_chunk(self, coords: Sequence[int]) -> np.ndarray:
        """The whole stored chunk at grid ``coords`` (fill value if never written)."""
        coords = tuple(int(c) for c in coords)
        chunk = self._engine_().read_chunk(coords)
        if chunk is None:
            spec = self._engine_().spec_for(coords)
            chunk = self._layout.full(spec.shape, self.fill_value, self.dtype)
        return chunk

    # --- shape changes ----------------------------------------------------------------

    def resize(self, *shape: Any) -> None:
        """Change the shape, committing the new shape before anything is deleted.

        Growing first clears what lies beyond the old shape (chunks, and the cut-off parts
        of edge chunks, that a failed append or an interrupted shrink left there), so the
        new region reads as the fill value, never as stale data; then the new shape is
        written. Shrinking writes the new shape first, then deletes the chunks outside it
        and resets the parts of edge chunks beyond the new edge to the fill value. If the
        metadata write fails nothing was deleted and the array keeps its old shape and
        data; if a deletion fails after it, the array has its new shape and what is left
        beyond it is cleared by the next grow."""
        new_shape = self._shape_argument(shape)
        old = self._metadata
        new_meta = old.replace(shape=new_shape, chunk_grid=old.chunk_grid.with_shape(new_shape))
        self._checked_chain(new_meta)  # the new grid's chunk shapes must suit the codecs too
        grows = tuple(n > o for n, o in zip(new_shape, old.shape))
        shrinks = any(n < o for n, o in zip(new_shape, old.shape))
        # chunks are listed on the larger grid: a grid lists only the chunks it has
        larger = (self._with_shape(tuple(map(max, new_shape, old.shape)))
                  if any(grows) or shrinks else None)
        if any(grows):
            self._clear_beyond(old.shape, larger, grows=grows)
        self._commit_shape(new_shape)
        if shrinks:
            self._clear_beyond(new_shape, larger)

    def _shape_argument(self, shape: tuple[Any, ...]) -> tuple[int, ...]:
        """``resize(4, 8)`` or ``resize((4, 8))`` as a checked shape (the array writable)."""
        self._check_writable()
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if len(shape) != self.ndim:
            raise SelectionError(f"resize needs {self.ndim} lengths in [0, 2**63 - 1] (one per "
                                 f"dimension of the array's shape {self.shape}), got {shape!r}")
        return tuple(_new_length(axis, length, shape) for axis, length in enumerate(shape))

    def _commit_shape(self, new_shape: tuple[int, ...]) -> None:
        self.update_metadata(lambda model: model.replace(
            shape=new_shape, chunk_grid=model.chunk_grid.with_shape(new_shape)))

    def _clear_beyond(self, shape: tuple[int, ...], handle: "Array",
                      grows: tuple[bool, ...] | None = None) -> None:
        """Delete the stored chunks that lie wholly outside ``shape`` and reset the parts of
        edge chunks beyond it to the fill value (only across the dimensions in ``grows``,
        all by default: elsewhere those parts stay outside the array). ``handle``: a
        handle (:meth:`_with_shape`, nothing committed) whose grid reaches the chunks."""
        engine = handle._engine_()
        grid = handle._metadata.chunk_grid
        grows = grows or (True,) * len(shape)
        doomed = []
        for coords in list(handle.stored_chunks()):
            origin = grid.chunk_origin(coords)
            extent = grid.chunk_extent(coords)
            if any(o >= n for o, n in zip(origin, shape)):
                doomed.append(engine.keys.key(coords))
                continue
            keep = tuple(min(e, n - o) if g else e
                         for o, e, n, g in zip(origin, extent, shape, grows))
            if keep != extent:
                engine.update_chunk(coords, functools.partial(_trimmed, keep=keep,
                                                              fill_value=self.fill_value))
        if doomed:
            engine.store.delete_many(doomed)

    def _with_shape(self, new_shape: tuple[int, ...]) -> "Array":
        """A handle on this array with ``new_shape``, nothing written: data goes into a new
        region through it before the new shape is committed, and chunks beyond the
        stored shape are listed through it."""
        meta = self._metadata
        grown = meta.replace(shape=new_shape, chunk_grid=meta.chunk_grid.with_shape(new_shape))
        handle = type(self)._validated(self._store, self._path, grown, self._format,
                                       read_only=self._read_only, **self._runtime_options())
        handle._uncommitted_shape = new_shape
        return handle

    _uncommitted_shape: tuple[int, ...] | None = None

    def __reduce__(self) -> Any:
        if self._uncommitted_shape is None:
            return super().__reduce__()
        # a staged handle travels (to dask workers) with its shape, which no document holds
        return (_reopen_with_shape, (self._store, self._path, self._read_only,
                                     self._runtime_options(), self._uncommitted_shape))

    def stage_resize(self, *shape: Any) -> "StagedResize":
        """Prepare a resize whose new region is written before the new shape is committed.

        Returns a :class:`StagedResize`: write into the new region through its ``array``
        (a handle with the new shape; readers of this array still see the old one), then
        ``commit()`` the new shape, or ``abandon()`` to remove what was written beyond the
        old shape. The shape may only grow. Until the commit nothing a reader sees
        changes, so a failure (or a killed process) leaves the old array; what was
        written beyond its shape is invisible and cleared by the next grow."""
        new_shape = self._shape_argument(shape)
        if any(n < o for n, o in zip(new_shape, self.shape)):
            raise SelectionError(f"a staged resize only grows: {new_shape} is smaller than "
                                 f"{self.shape} in some dimension; use resize() to shrink")
        return StagedResize(self, self.shape, self._with_shape(new_shape))

    def append(self, data: Any, axis: int = 0) -> tuple[int, ...]:
        """Grow along ``axis`` and write ``data`` into the new region; returns the new shape.

        All or nothing (:meth:`stage_resize`): the new region is written first, and the
        new shape is committed last. If anything fails, what was written beyond the old
        shape is removed (best effort) and the array keeps its old shape; what a killed
        process leaves beyond it is invisible, and cleared by the next grow."""
        self._check_writable()
        data = np.asarray(data)
        if data.ndim != self.ndim:
            raise SelectionError(f"append needs data with {self.ndim} dimensions, got shape {data.shape}")
        axis = axis + self.ndim if axis < 0 else axis
        if not 0 <= axis < self.ndim:
            raise SelectionError(f"axis {axis} is out of range for a {self.ndim}-d array")
        for d in range(self.ndim):
            if d != axis and data.shape[d] != self.shape[d]:
                raise SelectionError(f"append along axis {axis}: data shape {data.shape} does not "
                                     f"match the array shape {self.shape} in dimension {d}")
        old_shape = self.shape
        new_shape = tuple(s + data.shape[axis] if d == axis else s for d, s in enumerate(old_shape))
        staged = self.stage_resize(new_shape)
        region = tuple(slice(old_shape[axis], None) if d == axis else slice(None)
                       for d in range(self.ndim))
        try:
            staged.array._write("basic", region, data, stored=True)
            staged.commit()
        except BaseException:
            staged.abandon()
            raise
        return new_shape


def _new_length(axis: int, length: Any, shape: tuple[Any, ...]) -> int:
    """A length given to ``resize``: an integer (a float only if whole) in the range a
    shape allows; otherwise a :class:`SelectionError` naming the dimension and value."""
    try:
        value = operator.index(length)
    except TypeError:
        if not (isinstance(length, float) and length.is_integer()):
            raise SelectionError(f"resize needs whole-number lengths: dimension {axis} is "
                                 f"{length!r} in {shape!r}") from None
        value = int(length)
    if not 0 <= value <= MAX_EXTENT:
        raise SelectionError(f"resize needs lengths in [0, 2**63 - 1]: dimension {axis} is "
                             f"{value} in {shape!r}")
    return value


def _reopen_with_shape(store: Store, path: str, read_only: bool, options: dict[str, Any],
                       shape: tuple[int, ...]) -> Array:
    return open_node(store, path, mode="r" if read_only else "r+", **options)._with_shape(shape)


class StagedResize:
    """A grow of ``owner`` to ``array.shape``, not committed yet (:meth:`Array.stage_resize`)."""

    def __init__(self, owner: Array, old_shape: tuple[int, ...], array: Array) -> None:
        self.owner = owner
        self.old_shape = old_shape
        self.array = array  # write the new region through this handle

    @property
    def shape(self) -> tuple[int, ...]:
        return self.array.shape

    def commit(self, through: Store | None = None) -> None:
        """Write the new shape (as one read-modify-write of the latest document, so other
        changes to it are kept). ``through``: another store to write it through, such as a
        :func:`zarrforge.transaction` on the same store, to commit several arrays together."""
        if through is None:
            self.owner._commit_shape(self.shape)
            return
        open_node(through, self.owner.path, mode="r+", fmt=self.owner.format)._commit_shape(
            self.shape)

    def revert(self) -> None:
        """After :meth:`commit`: write the old shape back (for a caller whose commit of
        several arrays failed part way); the new region's data stays until :meth:`abandon`."""
        self.owner._commit_shape(self.old_shape)

    def abandon(self) -> None:
        """Remove what was written beyond the old shape; best effort (called while handling
        another error: anything left is invisible and cleared by the next grow)."""
        try:
            self.owner._clear_beyond(self.old_shape, self.array)
        except ZarrforgeError:
            pass


class _Selector:
    def __init__(self, array: Array, kind: str) -> None:
        self._array = array
        self._kind = kind

    def _kind_of(self, selection: Any) -> str:
        if self._kind != "points":
            return self._kind
        return "mask" if _is_full_mask(selection, self._array.ndim) else "coordinate"

    def __getitem__(self, selection: Any) -> np.ndarray:
        out = self._array._read(self._kind_of(selection), selection)
        return out[()] if out.ndim == 0 else out

    def __setitem__(self, selection: Any, value: Any) -> None:
        self._array._write(self._kind_of(selection), selection, value)


_INDEXERS = {
    "basic": indexing.BasicIndexer,
    "orthogonal": indexing.OrthogonalIndexer,
    "coordinate": indexing.CoordinateIndexer,
    "mask": indexing.MaskIndexer,
    "block": indexing.BlockIndexer,
}


def _trimmed(chunk: np.ndarray, *, keep: tuple[int, ...], fill_value: Any) -> np.ndarray | None:
    """``chunk`` with everything outside its first ``keep`` elements per axis set to
    the fill value (the part of an edge chunk outside the array); ``None`` when that part
    holds only the fill value already (nothing to write)."""
    cut = np.ones(chunk.shape, dtype=bool)
    cut[tuple(slice(0, k) for k in keep)] = False
    if all_equal_fill(chunk[cut], fill_value):
        return None
    chunk[cut] = fill_value
    return chunk


def selection_kind(selection: Any, ndim: int, via: str = "getitem") -> str:
    """The indexer kind (``"basic"``, ``"orthogonal"``, ``"coordinate"``, ``"mask"``,
    ``"block"``) that reads ``selection`` as ``a[selection]`` does (``via="getitem"``), or
    as ``a.oindex``, ``a.vindex`` or ``a.blocks`` does (``via`` their name)."""
    if via == "getitem":
        if not _is_fancy(selection):
            return "basic"
        via = "vindex" if _is_vindex(selection, ndim) else "oindex"
    if via == "vindex":
        return "mask" if _is_full_mask(selection, ndim) else "coordinate"
    return {"oindex": "orthogonal", "blocks": "block"}[via]


def _is_full_mask(selection: Any, ndim: int) -> bool:
    items = selection if isinstance(selection, tuple) else (selection,)
    return (len(items) == 1 and isinstance(items[0], (list, np.ndarray))
            and np.asarray(items[0]).dtype == bool and np.ndim(items[0]) == ndim)


def _is_fancy(selection: Any) -> bool:
    items = selection if isinstance(selection, tuple) else (selection,)
    return any(isinstance(s, (list, np.ndarray)) and np.ndim(s) > 0 for s in items)


def _is_vindex(selection: Any, ndim: int) -> bool:
    """Does numpy read ``a[selection]`` as points rather than orthogonally?

    A full-shape mask, or one array per dimension (two or more), are points;
    with a single array dimension the two readings agree, and mixtures of
    arrays and slices are taken orthogonally.
    """
    if ndim > 1 and _is_full_mask(selection, ndim):
        return True
    items = selection if isinstance(selection, tuple) else (selection,)
    arrays = [s for s in items if isinstance(s, (list, np.ndarray)) and np.ndim(s) > 0]
    return len(arrays) > 1 and len(arrays) == len(items) == ndim


def _as_value(value: Any, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """``value`` converted to ``dtype`` and broadcast to the selection's ``shape``."""
    if dtype.kind in "OT" and not isinstance(value, np.ndarray):
        # Variable-size elements: build in the target dtype directly, since numpy's
        # own fixed-width S/U guess for plain values drops trailing NUL characters.
        array = np.asarray(value, dtype=dtype)
    else:
        array = np.asarray(value)
    if array.dtype != dtype:
        numeric = array.dtype.kind in "biufc" and dtype.kind in "biufc"
        textual = array.dtype.kind in "OSUT" and dtype.kind in "OT"  # e.g. object of str -> string
        try:
            array = array.astype(dtype, casting="unsafe" if numeric or textual else "same_kind")
        except (TypeError, ValueError) as exc:
            raise SelectionError(f"cannot store values of dtype {array.dtype} in an array of "
                                 f"dtype {dtype}: {exc}") from exc
    return indexing.broadcast_value(array, shape)


def _fields(values: Any, fields: Any, out: Any, prototype: Any, method: str) -> Any:
    """zarr-python's ``fields=`` (a structured array's fields, read only); ``out=`` and
    ``prototype=`` (buffers of zarr-python's own) are refused when given."""
    for name, value in (("out", out), ("prototype", prototype)):
        if value is not None:
            raise TypeError(f"Array.{method}(): {name}= is not supported: selections are read "
                            "into new numpy arrays")
    if fields is None:
        return values
    if values is None:
        raise TypeError(f"Array.{method}(): fields= is supported when reading only; write "
                        "the whole structured value")
    return values[fields if isinstance(fields, str) else list(fields)]


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

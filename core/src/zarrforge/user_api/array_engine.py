"""The chunk engine of an :class:`~zarrforge.Array`: its codec chain and the
:class:`~zarrforge.engine.pipeline.ChunkEngine` its chunk I/O goes through.

Contract: :class:`ArrayEngine` is a mixin of ``Array``. ``_chain()`` is the codec chain of
the array's metadata, validated against every distinct chunk shape of its grid (a
failure is a :class:`~zarrforge.errors.MetadataError` naming the array's document);
``_engine_()`` is the engine over the node's store wrapped by the runtime
``transformers`` and then by the metadata's storage transformers. Both are built at
first use, from the metadata and runtime options as they are then, and kept until
:meth:`ArrayEngine._forget_engine` (the metadata or the store changed). Nothing here
makes a store request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..abc.codec import ChunkSpec
from ..abc.format import ChunksUnderNode, Format
from ..abc.memory_layout import MemoryLayout
from ..abc.metadata import ArrayMetadata
from ..abc.storage_transformer import ChunkKeys, wrap_store
from ..abc.store import Store
from ..engine.chunk_cache import CachedChunks, ChunkCache, decoding_signature
from ..engine.codec_chain import CodecChain
from ..engine.pipeline import ChunkEngine
from ..errors import MetadataError

#: ids of (codecs, chunk grid, data type, fill value, memory layout) -> those objects and
#: the chain checked for them. Codecs and grids are immutable and a chain's checks are a
#: function of them alone, so the same objects need no second check; held strongly, an
#: entry's objects keep their ids. Emptied when full.
_CHECKED_CHAINS: dict[tuple[int, ...], tuple[tuple[object, ...], CodecChain]] = {}
_CHECKED_CHAIN_ENTRIES = 64


class ArrayEngine:
    """The codec chain and chunk engine of an ``Array``, built at first use."""

    _store: Store
    _path: str
    _format: Format
    _metadata: ArrayMetadata
    _layout: MemoryLayout
    _threads: int
    _write_empty_chunks: bool
    _transformers: tuple[Callable[[Store], Store], ...]
    _chunk_cache: ChunkCache | None
    _recheck: str
    _opened_tick: int
    _codec_chain: CodecChain | None
    _engine: ChunkEngine | None

    if TYPE_CHECKING:

        def _located(self, exc: MetadataError) -> MetadataError: ...  # Node's: names the document

    def _forget_engine(self) -> None:
        """Drop the chain and the engine: the next use builds them again."""
        self._codec_chain = None
        self._engine = None

    @property
    def chunk_store(self) -> Store:
        """The store chunk I/O goes through, the node's store wrapped by the runtime
        ``transformers`` and the metadata's storage transformers."""
        return self._engine_().store

    def _chunk_keys(self, meta: ArrayMetadata) -> ChunkKeys:
        fmt, path = self._format, self._path
        decode = lambda key: fmt.chunk_coords(path, meta, key)  # noqa: E731
        if isinstance(fmt, ChunksUnderNode) and type(fmt).chunk_key is ChunksUnderNode.chunk_key:
            # the prefix and the encoding depend on the node and its metadata alone: worked
            # out once here rather than for every chunk
            prefix, encode = fmt.chunk_prefix(path), fmt.key_encoding(meta).encode_key
            return ChunkKeys(lambda coords: prefix + encode(coords), decode)
        return ChunkKeys(lambda coords: fmt.chunk_key(path, meta, coords), decode)

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
        cache = None
        if self._chunk_cache is not None and self._chunk_cache.max_bytes > 0:
            signature = decoding_signature(
                meta.codecs,
                meta.data_type,
                meta.fill_value,
                self._layout.name,
                meta.storage_transformers,
                # runtime transformers may change the bytes: this handle's entries are its own
                object() if self._transformers else None,
            )
            cache = CachedChunks(self._chunk_cache, store, signature, self._opened_tick, self._recheck)
        return ChunkEngine(
            store=store,
            keys=keys,
            grid=meta.chunk_grid,
            chain=chain,
            data_type=meta.data_type,
            fill_value=meta.fill_value,
            layout=self._layout,
            threads=self._threads,
            write_empty_chunks=self._write_empty_chunks,
            name=self._path,
            cache=cache,
        )

    def _checked_chain(self, meta: ArrayMetadata) -> CodecChain:
        """The codec chain of ``meta``, validated against every distinct chunk shape of its
        grid (chunks of a rectilinear grid differ, and e.g. sharding needs each to divide).
        Arrays whose metadata share the very objects it depends on (a group's members
        created alike share their codecs, grid, data type and fill value: the format's
        creation memo) share one chain, checked once (:data:`_CHECKED_CHAINS`)."""
        parts = (meta.codecs, meta.chunk_grid, meta.data_type, meta.fill_value, self._layout)
        key = tuple(map(id, parts))
        found = _CHECKED_CHAINS.get(key)
        if found is not None and all(a is b for a, b in zip(found[0], parts)):
            return found[1]
        try:
            chain = CodecChain(meta.codecs)  # its order is checked here
            for shape in meta.chunk_grid.representative_chunk_shapes():
                chain.validate(ChunkSpec(shape, meta.data_type, meta.fill_value, self._layout))
        except MetadataError as exc:
            raise self._located(exc) from exc
        if type(meta.codecs) is tuple:  # immutable: the same object is the same codecs
            if len(_CHECKED_CHAINS) >= _CHECKED_CHAIN_ENTRIES:
                _CHECKED_CHAINS.clear()
            _CHECKED_CHAINS[key] = (parts, chain)  # holds the parts: their ids stay theirs
        return chain

    def _engine_(self) -> ChunkEngine:
        # Read the attribute once: a metadata write in another thread may reset it.
        engine = self._engine
        if engine is None:
            engine = self._engine = self._build_engine()
        return engine

"""How one chunk is updated: the stored chunk after a write, from the one before it.

:class:`ChunkUpdater` holds what coding one array's chunks for a write needs (its
:class:`~zarrforge.engine.codec_chain.CodecChain`, ``write_empty_chunks``, the plain fast path)
and answers one question, :meth:`ChunkUpdater.updated`: given a chunk's stored bytes
(``None``: never written), its :class:`~zarrforge.abc.codec.ChunkSpec`, a selection
within it and the values written there, what is stored now? The strategy is chosen
here and nowhere else:

* **whole chunk**: the write covers the chunk (``complete``) and the values have its
  shape: they are encoded as they are, no read and no copy;
* **partial codec**: the chunk is stored and the chain is a single
  :class:`~zarrforge.abc.codec.PartialCodec` (sharding): ``encode_partial`` updates the
  stored bytes, so parts the write does not touch keep theirs;
* **decode, modify, encode**: otherwise the stored chunk is decoded (a chunk never
  written starts as the fill value), the selection assigned and the chunk encoded;
* **plain**: where the caller hands over the chain's
  :meth:`~zarrforge.engine.codec_chain.CodecChain.plain_dtype`, chunks are encoded with
  ``tobytes``, and a chunk of fill values is told by its bytes, without a codec call.

The answer is the stored chunk as pieces to be stored one after another
(:data:`Encoded`: a shard's pieces are never joined here), or ``None``: delete the
chunk. A chunk is deleted when it holds nothing but the fill value, compared bit for
bit (:func:`~zarrforge.engine.chunk_helpers.all_equal_fill`), unless ``write_empty_chunks`` is
set; then it is stored even so (a partial codec's "nothing but fill value" becomes an
encoded chunk of fill values). Codecs that read the chunk's position
(:mod:`zarrforge.engine.chunk_context`) see ``coords`` throughout. A chunk held whole is first
checked against ``limit`` (:func:`~zarrforge.engine.chunk_helpers.chunk_limit`, which the
caller reads once per call).

Nothing here touches a store or a thread: the chunk engine (:mod:`zarrforge.engine.pipeline`)
fetches the old bytes, runs updates where it likes and stores or deletes the answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np

from ..abc.codec import ChunkSpec
from ..errors import CodecError
from .chunk_context import enter_chunk, leave_chunk
from .chunk_helpers import ChunkLimit, all_equal_fill, check_chunk
from .codec_chain import CodecChain

Encoded = list[bytes | memoryview]  # a chunk's encoded bytes: pieces stored one after another


class Keep:
    """The type of :data:`KEEP`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Final = Keep()  # :meth:`ChunkUpdater.changed`'s answer "store nothing: leave it as it is"


class ChunkUpdater:
    """The stored chunk after a write (see the module docstring), for chunks coded by
    ``chain``. ``plain``: the chain's ``plain_dtype`` when every chunk updated shares one
    spec and takes the plain fast path, else ``None``."""

    def __init__(self, chain: CodecChain, *, write_empty_chunks: bool, plain: np.dtype | None = None) -> None:
        self.chain = chain
        self.write_empty_chunks = write_empty_chunks
        self.plain = plain
        self._plain_fill: bytes | None = None  # a chunk of fill values, as stored

    def updated(
        self,
        old: bytes | None,
        spec: ChunkSpec,
        selection: tuple,
        values: Any,
        *,
        complete: bool,
        coords: tuple[int, ...],
        key: str,
        limit: ChunkLimit,
    ) -> Encoded | None:
        """The chunk after ``chunk[selection] = values``, where ``old`` is its stored
        bytes (``None``: not stored, or not read because the write is ``complete``:
        ``selection`` visits every element in the chunk's bounds once, in C order)."""
        token = enter_chunk(coords) if self.chain.uses_chunk_position else None
        try:
            if complete and isinstance(values, np.ndarray) and values.shape == spec.shape:
                return self._encoded(values, spec)  # straight from the caller's array: no copy
            chain = self.chain
            if old is not None and chain.partial is not None:
                data = chain.encode_partial(old, spec, selection, values, key=key)
                if data is None and self.write_empty_chunks:
                    check_chunk(spec, key, limit)
                    data = chain.encode(spec.layout.full(spec.shape, spec.fill_value, spec.dtype), spec)
                return None if data is None else [data]
            check_chunk(spec, key, limit)
            if old is not None:
                chunk = chain.decode(old, spec, key=key)
                if not chunk.flags.writeable:
                    chunk = chunk.copy()
            else:
                chunk = spec.layout.full(spec.shape, spec.fill_value, spec.dtype)
            chunk[selection] = values
            return self._encoded(chunk, spec)
        except CodecError as exc:  # encoding too: name the chunk
            raise exc.located(key=key) from exc.__cause__
        finally:
            if token is not None:
                leave_chunk(token)

    def changed(
        self,
        old: bytes,
        spec: ChunkSpec,
        change: Callable[[np.ndarray], np.ndarray | None],
        *,
        coords: tuple[int, ...],
        key: str,
    ) -> Encoded | Keep | None:
        """The chunk after ``change(chunk)``, which receives a writable copy of the chunk
        stored as ``old`` and returns the new chunk, or ``None`` for no change (then
        :data:`KEEP`)."""
        token = enter_chunk(coords) if self.chain.uses_chunk_position else None
        try:
            chunk = np.array(self.chain.decode(old, spec, key=key), copy=True)
            new = change(chunk)
            return KEEP if new is None else self._encoded(new, spec)
        except CodecError as exc:
            raise exc.located(key=key) from exc.__cause__
        finally:
            if token is not None:
                leave_chunk(token)

    def _encoded(self, chunk: np.ndarray, spec: ChunkSpec) -> Encoded | None:
        """A whole chunk's bytes, or ``None`` for one of fill values that is not written.
        On the plain fast path a chunk of fill values is told bit for bit, as
        :func:`all_equal_fill` tells it, by comparing its bytes."""
        plain = self.plain
        if plain is None:
            if not self.write_empty_chunks and all_equal_fill(chunk, spec.fill_value):
                return None
            return self.chain.encode_parts(chunk, spec)
        return self.plain_encoded(chunk.astype(plain, copy=False).tobytes(), spec)

    def plain_encoded(self, data: bytes, spec: ChunkSpec) -> Encoded | None:
        """A whole chunk on the plain fast path, given its plain bytes: ``[data]``, or
        ``None`` for one of fill values that is not written (told bit for bit)."""
        if self.write_empty_chunks:
            return [data]
        if self._plain_fill is None:  # every chunk has the same spec (see the class)
            full = spec.layout.full(spec.shape, spec.fill_value, spec.dtype)
            self._plain_fill = full.astype(self.plain, copy=False).tobytes()
        return None if data == self._plain_fill else [data]

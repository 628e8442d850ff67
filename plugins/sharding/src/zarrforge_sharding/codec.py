"""The ``sharding_indexed`` codec (array -> bytes), with partial reads and updates.

Configuration (spec "Sharding codec" 1.0): ``chunk_shape`` (inner chunk
shape, dividing the shard shape), ``codecs`` (inner chain), ``index_codecs``
(fixed-size chain for the index), ``index_location`` (``"end"``, the default,
or ``"start"``).

The constructor takes zarr-python's arguments and defaults:
``ShardingCodec(chunk_shape, codecs=(BytesCodec(endian="little"),),
index_codecs=(BytesCodec(endian="little"), Crc32cCodec()), index_location="end")``, the
codecs given as codec objects or as their JSON (``{"name": ..., "configuration": ...}`` or
a name), ``chunk_shape`` as a list or tuple of positive integers, ``index_location`` also
as an enum member whose value is ``"start"`` or ``"end"``. A bad value is a
:class:`~zarrforge.errors.MetadataError` naming the field and what is valid.

Behaviour:

* ``encode`` writes every inner chunk that holds anything but the fill value,
  in C order, and marks the others empty; ``decode`` reads them all.
* ``decode_partial`` fetches the index with one byte-range request, then the
  inner chunks the selection needs with one more request (nearby ranges are
  coalesced: gaps up to 64 KiB, runs up to 16 MiB by default; change both with
  :func:`set_coalescing`), and decodes only those. A shard read before (its
  index remembered by :mod:`.index_cache`) is read in one batch instead: the
  index again and the inner chunks the remembered index names, used only if
  the two indexes are equal.
* Partial reads never combine two versions of a shard that another writer
  replaces meanwhile. On a store with ``versioned_ranges`` every request is a
  ``get_ranges`` of one version: the second asks for the version the index came
  from (``if_generation``) and for the index again with the inner chunks, which
  are used only if that index is the one their ranges were computed from;
  otherwise the read starts again from the new index (up to three tries, fewer
  where ``config.conflict_retries`` says so, then the whole shard in one request:
  a shard rewritten without pause is still read). So a reader racing a writer
  gets the old or the new inner chunks, never another chunk's bytes.
  On a store without versioned ranges a partial read fetches the whole shard in
  one request. A caller's own fetch function (not the engine's) gets the index
  comparison only.
* ``encode_partial`` re-encodes only the inner chunks a write touches and
  copies the stored bytes of all others; the shard is rewritten compactly.
  (Appending changed chunks and rewriting only the index would save bytes
  written, but none of the built-in stores can append, and the space it
  leaves behind would need a compaction step; see docs/architecture.md.)
* A shard whose inner chunks are all empty encodes to ``None`` in partial
  updates, so the engine deletes it.
* Every index is validated (:mod:`zarrforge_sharding.index`) before use: in
  full before a shard is decoded whole or rebuilt, and the entries a partial
  read follows before it follows them.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import math
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from types import TracebackType
from typing import Any, Literal, NamedTuple, TypeVar, cast

import numpy as np

from zarrforge.errors import CodecError, CorruptChunkError, MetadataError
from zarrforge.plugin_api.codecs import (
    ArrayBytesCodec,
    ByteRange,
    ChunkSpec,
    Codec,
    CodecChain,
    PartialCodec,
    RangeFetcher,
    SubdividedCodec,
    VersionedRangeFetcher,
    all_equal_fill,
    check_allocation,
    codec_from_json,
    codecs_from_json,
    current_chunk,
    data_type_from_json,
    encoding_chunk,
    map_parallel,
)

from . import index_cache
from .index import ShardIndex
from .located import read_located
from .selection import Box, OneChunk, analyse, one_inner_chunk

T = TypeVar("T")

LOCATIONS = ("start", "end")
# zarr-python's defaults for the inner codecs and the index codecs, as JSON
DEFAULT_CODECS: tuple[dict[str, Any], ...] = ({"name": "bytes", "configuration": {"endian": "little"}},)
DEFAULT_INDEX_CODECS: tuple[dict[str, Any], ...] = (
    {"name": "bytes", "configuration": {"endian": "little"}},
    {"name": "crc32c"},
)


@dataclasses.dataclass(frozen=True)
class Coalescing:
    gap: int = 64 * 1024  # merge ranges separated by at most this many bytes
    limit: int = 16 * 2**20  # into requests of at most this many bytes


_coalescing = Coalescing()


def set_coalescing(*, gap: int | None = None, limit: int | None = None) -> Coalescing:
    """Change how inner-chunk ranges are merged into requests (process-wide); returns the
    previous setting. A gap of 0 merges only adjacent ranges; a limit of 0 merges nothing."""
    global _coalescing
    for name, value in (("gap", gap), ("limit", limit)):
        if value is not None and (not isinstance(value, int) or value < 0):
            raise ValueError(f"coalescing {name} must be a non-negative int, got {value!r}")
    previous = _coalescing
    _coalescing = Coalescing(previous.gap if gap is None else gap, previous.limit if limit is None else limit)
    return previous


def _positive_ints(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value
    )


def _codecs(given: Any, default: tuple[dict[str, Any], ...], key: str) -> tuple[Codec, ...]:
    """The codecs of the constructor's ``key`` argument: codec objects as given, JSON (an
    object or a name) resolved through the registry; ``None`` is ``default``."""
    field = f"configuration.{key}"
    if given is None:
        return codecs_from_json([dict(c) for c in default], field=field)
    if isinstance(given, (Codec, dict, str)):  # one codec, as zarr-python accepts
        given = [given]
    if not isinstance(given, Iterable):
        raise MetadataError(
            f"codec 'sharding_indexed': {key} must be a list or tuple of "
            f"codecs (codec objects or their JSON), got {given!r}",
            field=field,
            value=given,
        )
    items = list(given)
    if not items:
        raise MetadataError(
            f"codec 'sharding_indexed': {key} must hold at least one codec (an array -> bytes codec)",
            field=field,
            value=items,
        )
    codecs = []
    for i, item in enumerate(items):
        if isinstance(item, Codec):
            codecs.append(item)
        elif isinstance(item, (dict, str)):
            codecs.append(codec_from_json(item, field=f"{field}[{i}]"))
        else:
            raise MetadataError(
                f"codec 'sharding_indexed': {key}[{i}] must be a codec object "
                f"or its JSON ({{'name': ..., 'configuration': ...}} or a "
                f"name), got {item!r}",
                field=f"{field}[{i}]",
                value=item,
            )
    return tuple(codecs)


def coalesce(
    ranges: list[tuple[int, int]], gap: int | None = None, limit: int | None = None
) -> list[tuple[int, int]]:
    """Merge ``(offset, nbytes)`` ranges closer than ``gap`` into runs up to ``limit``
    (defaults: the process-wide :func:`set_coalescing` values)."""
    gap = _coalescing.gap if gap is None else gap
    limit = _coalescing.limit if limit is None else limit
    runs: list[list[int]] = []
    for offset, nbytes in sorted(ranges):
        if runs:
            run = runs[-1]
            end = run[0] + run[1]
            if offset - end <= gap and offset + nbytes - run[0] <= limit:
                run[1] = max(end, offset + nbytes) - run[0]
                continue
        runs.append([offset, nbytes])
    return [(o, n) for o, n in runs]


class _Derived(NamedTuple):
    """What follows from a shard's spec: the spec itself (kept alive, so that its ``id``
    stays its own), the inner chunks' and the index's specs, the index's encoded size and
    byte range (``None`` where its codecs give no fixed size), the inner chunks per shard."""

    spec: ChunkSpec
    inner: ChunkSpec
    index_spec: ChunkSpec
    index_size: int | None
    index_range: ByteRange | None
    per_shard: tuple[int, ...]


class ShardingCodec(ArrayBytesCodec, PartialCodec, SubdividedCodec):
    name = "sharding_indexed"

    def __init__(
        self,
        chunk_shape: Sequence[int],
        codecs: Iterable[Codec | dict[str, Any] | str] | None = None,
        index_codecs: Iterable[Codec | dict[str, Any] | str] | None = None,
        index_location: str = "end",
    ) -> None:
        if not _positive_ints(list(chunk_shape) if isinstance(chunk_shape, tuple) else chunk_shape):
            raise MetadataError(
                f"codec 'sharding_indexed': chunk_shape must be a list or tuple "
                f"of positive integers, got {chunk_shape!r}",
                field="configuration.chunk_shape",
                value=chunk_shape,
            )
        if isinstance(index_location, Enum):
            index_location = index_location.value
        if not isinstance(index_location, str) or index_location not in LOCATIONS:
            raise MetadataError(
                f"codec 'sharding_indexed': index_location must be 'start' or 'end', got {index_location!r}",
                field="configuration.index_location",
                value=index_location,
            )
        self.chunk_shape = tuple(int(c) for c in chunk_shape)
        self.inner = CodecChain(_codecs(codecs, DEFAULT_CODECS, "codecs"))
        self.index_chain = CodecChain(_codecs(index_codecs, DEFAULT_INDEX_CODECS, "index_codecs"))
        self.index_location = str(index_location)
        self.uses_chunk_position = self.inner.uses_chunk_position
        # id(spec) -> what follows from the shard's spec: every read of a shard needs it,
        # and the engine passes the same spec object for every shard.
        self._derived: dict[int, _Derived] = {}
        self._cache_tag: str | None = None
        # map_parallel's keys for the measured cost of this codec's inner-chunk work, one
        # per kind; plain objects, as the codec's own hash writes out its JSON each time
        self._cost_keys = {kind: object() for kind in ("encode", "decode", "copy")}

    def _derive(self, spec: ChunkSpec) -> _Derived:
        derived = self._derived.get(id(spec))
        if derived is None or derived.spec is not spec:
            per_shard = self._chunks_per_shard(spec)
            inner = ChunkSpec(self.chunk_shape, spec.data_type, spec.fill_value, spec.layout)
            uint64 = data_type_from_json("uint64")
            index = ChunkSpec((*per_shard, 2), uint64, uint64.numpy_dtype.type(2**64 - 1), spec.layout)
            size = self.index_chain.array_bytes.encoded_size(index)
            for codec in self.index_chain.bytes_bytes:
                size = None if size is None else codec.encoded_size(size)
            index_range = None
            if size is not None:
                index_range = ByteRange(0, size) if self.index_location == "start" else ByteRange(length=size)
            if len(self._derived) >= 64:
                self._derived.clear()
            derived = self._derived[id(spec)] = _Derived(spec, inner, index, size, index_range, per_shard)
        return derived

    # --- metadata ---------------------------------------------------------------------

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> ShardingCodec:
        config = configuration or {}
        allowed = {"chunk_shape", "codecs", "index_codecs", "index_location"}
        unknown = set(config) - allowed
        if unknown:
            raise MetadataError(
                f"unknown configuration key(s) {sorted(unknown)}; valid: {sorted(allowed)}",
                field="configuration",
                value=config,
            )
        for required in ("chunk_shape", "codecs", "index_codecs"):
            if required not in config:
                raise MetadataError(f"{required!r} is required", field=f"configuration.{required}")
        if not _positive_ints(config["chunk_shape"]):
            raise MetadataError(
                f"must be a list of positive integers, got {config['chunk_shape']!r}",
                field="configuration.chunk_shape",
                value=config["chunk_shape"],
            )
        location = config.get("index_location", "end")
        if location not in LOCATIONS:
            raise MetadataError(
                f"must be 'start' or 'end', got {location!r}",
                field="configuration.index_location",
                value=location,
            )
        codecs = codecs_from_json(config["codecs"], field="configuration.codecs")
        index_codecs = codecs_from_json(config["index_codecs"], field="configuration.index_codecs")
        return cls(config["chunk_shape"], codecs, index_codecs, location)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "configuration": {
                "chunk_shape": list(self.chunk_shape),
                "codecs": [c.to_json() for c in self.inner.codecs],
                "index_codecs": [c.to_json() for c in self.index_chain.codecs],
                "index_location": self.index_location,
            },
        }

    @property
    def inner_chunk_shape(self) -> tuple[int, ...]:
        return self.chunk_shape

    @property
    def inner_codecs(self) -> tuple[Codec, ...]:
        return self.inner.codecs

    def _inner_spec(self, spec: ChunkSpec) -> ChunkSpec:
        return self._derive(spec).inner

    def _chunks_per_shard(self, spec: ChunkSpec) -> tuple[int, ...]:
        return tuple(s // c for s, c in zip(spec.shape, self.chunk_shape))

    def _index_spec(self, spec: ChunkSpec) -> ChunkSpec:
        return self._derive(spec).index_spec

    def evolve(self, spec: ChunkSpec) -> ShardingCodec:
        inner = CodecChain.evolved(self.inner.codecs, self._inner_spec(spec))
        index = CodecChain.evolved(self.index_chain.codecs, self._index_spec(spec))
        return ShardingCodec(self.chunk_shape, inner.codecs, index.codecs, self.index_location)

    def validate(self, spec: ChunkSpec) -> None:
        if len(self.chunk_shape) != len(spec.shape) or any(
            s % c for s, c in zip(spec.shape, self.chunk_shape)
        ):
            raise MetadataError(
                f"inner chunk shape {list(self.chunk_shape)} must have one entry per dimension "
                f"and divide the shard shape {list(spec.shape)}",
                field="configuration.chunk_shape",
                value=list(self.chunk_shape),
            )
        self.inner.validate(self._inner_spec(spec))
        self.index_chain.validate(self._index_spec(spec))
        self._index_size(spec)

    def _index_size(self, spec: ChunkSpec) -> int:
        size = self._derive(spec).index_size
        if size is None:  # refused by validate(), which every array's codecs pass first
            raise MetadataError(
                "index codecs must produce a fixed-size encoding (e.g. bytes + crc32c, no compression)",
                field="configuration.index_codecs",
            )
        return size

    def _each_inner(self, fn: Callable[[Any], T], items: list[Any], spec: ChunkSpec, kind: str) -> list[T]:
        """``[fn(item) for item in items]``, one item per inner chunk, spread over the
        threads of the engine call in progress when inner chunks are worth it
        (``map_parallel``: their decoded size and whether their codecs compute, or their
        measured cost: small inner chunks through a slow codec)."""
        if len(items) <= 1:
            return [fn(item) for item in items]
        item_bytes = math.prod(self.chunk_shape) * (spec.data_type.item_size or 16)
        return map_parallel(
            fn,
            items,
            item_bytes=item_bytes,
            computes=self.inner.computes(self._inner_spec(spec)),
            cost_key=self._cost_keys[kind],
        )

    # --- index --------------------------------------------------------------------------

    def _decode_index(
        self, data: bytes | memoryview, spec: ChunkSpec, *, shard_size: int | None, validate: bool = True
    ) -> ShardIndex:
        index_size = self._index_size(spec)
        if len(data) != index_size:
            raise CorruptChunkError(
                f"shard index has {len(data)} bytes, expected {index_size} (the shard is truncated)"
            )
        entries = self.index_chain.decode(data, self._index_spec(spec), key=None)
        index = ShardIndex(np.array(entries, dtype=np.uint64))
        if not validate:
            return index
        reserved = (0, index_size) if self.index_location == "start" else (0, 0)
        if self.index_location == "end" and shard_size is not None:
            reserved = (shard_size - index_size, shard_size)
        index.validate(shard_size=shard_size, reserved=reserved)
        return index

    def _index_slice(self, spec: ChunkSpec, shard_size: int) -> slice:
        size = self._index_size(spec)
        if shard_size < size:
            raise CorruptChunkError(f"shard of {shard_size} bytes is shorter than its index ({size} bytes)")
        return slice(0, size) if self.index_location == "start" else slice(shard_size - size, shard_size)

    def _index_range(self, spec: ChunkSpec) -> ByteRange:
        index_range = self._derive(spec).index_range
        if index_range is None:
            self._index_size(spec)  # raises: the index codecs give no fixed size
        return cast(ByteRange, index_range)

    def _read_index(self, data: bytes | memoryview, spec: ChunkSpec) -> ShardIndex:
        return self._decode_index(data[self._index_slice(spec, len(data))], spec, shard_size=len(data))

    # --- whole shards -------------------------------------------------------------------

    def _assemble(self, parts: dict[tuple[int, ...], bytes], spec: ChunkSpec) -> bytes:
        """Lay out inner chunks (C order) and the index into one shard."""
        return b"".join(self._laid_out(parts, spec))

    def _laid_out(self, parts: dict[tuple[int, ...], bytes], spec: ChunkSpec) -> list[bytes | memoryview]:
        """The pieces of a shard in stored order: inner chunks (C order) and the index."""
        index = ShardIndex.empty(self._chunks_per_shard(spec))
        offset = self._index_size(spec) if self.index_location == "start" else 0
        body: list[bytes | memoryview] = []
        for coords in sorted(parts):
            data = parts[coords]
            index.set(coords, offset, len(data))
            body.append(data)
            offset += len(data)
        encoded_index = self.index_chain.encode(index.entries, self._index_spec(spec))
        if self.index_location == "start":
            return [encoded_index, *body]
        return [*body, encoded_index]

    def _encode_inner(self, chunk: np.ndarray, spec: ChunkSpec, coords: tuple[int, ...]) -> bytes | None:
        if all_equal_fill(chunk, spec.fill_value):
            return None
        shard = current_chunk() if self.inner.uses_chunk_position else None
        if shard is None:
            with _InnerNamed(coords):
                return self.inner.encode(chunk, self._inner_spec(spec))
        # the inner chunk's position in the array's grid of inner chunks, for codecs
        # whose choices depend on it (conditional)
        per_shard = self._chunks_per_shard(spec)
        with (
            encoding_chunk(tuple(s * n + c for s, n, c in zip(shard, per_shard, coords))),
            _InnerNamed(coords),
        ):
            return self.inner.encode(chunk, self._inner_spec(spec))

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes:
        return b"".join(self.encode_parts(chunk, spec))

    def encode_parts(self, chunk: np.ndarray, spec: ChunkSpec) -> list[bytes | memoryview]:
        """The shard's pieces in stored order, its inner chunks encoded in parallel
        (``_each_inner``) and laid out without being joined."""
        every = list(np.ndindex(*self._chunks_per_shard(spec)))

        def encode_one(coords: tuple[int, ...]) -> bytes | None:
            region = tuple(slice(c * n, (c + 1) * n) for c, n in zip(coords, self.chunk_shape))
            return self._encode_inner(chunk[region], spec, coords)

        encoded = self._each_inner(encode_one, every, spec, "encode")
        parts = {coords: data for coords, data in zip(every, encoded) if data is not None}
        return self._laid_out(parts, spec)

    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        out = spec.layout.empty(spec.shape, spec.dtype)
        self.decode_into(data, spec, out)
        return out

    def decode_into(self, data: bytes | memoryview, spec: ChunkSpec, out: np.ndarray) -> None:
        """Each inner chunk decoded straight into its region of ``out`` (which may be a
        view of the caller's output): no shard-sized temporary, no second copy."""
        view = memoryview(data)  # slices of it copy nothing
        index = self._read_index(view, spec)
        inner_spec = self._inner_spec(spec)

        def decode_one(coords: tuple[int, ...]) -> None:  # regions are disjoint: no lock
            region = tuple(slice(c * n, (c + 1) * n) for c, n in zip(coords, self.chunk_shape))
            where = index.range_of(coords)
            if where is None:
                out[region] = spec.fill_value
                return
            offset, nbytes = where
            with _InnerNamed(coords):
                self.inner.decode_into(view[offset : offset + nbytes], inner_spec, out[region], key=None)

        self._each_inner(decode_one, list(np.ndindex(*self._chunks_per_shard(spec))), spec, "decode")

    # --- partial reads and updates --------------------------------------------------------

    def _decode_into(
        self, box: np.ndarray, b: Box, coords: tuple[int, ...], data: bytes, spec: ChunkSpec
    ) -> None:
        with _InnerNamed(coords):
            box[b.region(coords, self.chunk_shape)] = self.inner.decode(
                data, self._inner_spec(spec), key=None
            )

    def _cache_key(self, fetch: RangeFetcher, spec: ChunkSpec) -> Any:
        """Where this shard's index is remembered (:mod:`.index_cache`), or ``None``."""
        if not isinstance(fetch, VersionedRangeFetcher) or index_cache.cache.max_bytes == 0:
            return None
        named = fetch.cache_key
        if self._cache_tag is None:
            self._cache_tag = json.dumps(
                [[c.to_json() for c in self.index_chain.codecs], self.index_location],
                sort_keys=True,
                default=str,
            )
        return (named, self._derive(spec).per_shard, self._cache_tag)

    def decode_partial(
        self, fetch: RangeFetcher, spec: ChunkSpec, selection: tuple[Any, ...]
    ) -> np.ndarray | None:
        # A small read's usual selection, inside one inner chunk, goes without the box
        one = one_inner_chunk(selection, spec.shape, self.chunk_shape)
        b = analyse(selection, spec.shape, self.chunk_shape) if one is None else None
        if isinstance(fetch, VersionedRangeFetcher):
            if not fetch.versioned:  # one request for the whole shard: one version of it
                box = b if one is None else analyse(selection, spec.shape, self.chunk_shape)
                return self._partial_of_whole(fetch, spec, selection, box)
            read = fetch.read_version
        else:  # a caller's own function: no versions to hold on to (see the docstring)

            def read(ranges: Sequence[Any], *, if_generation: Any = None) -> tuple[list[bytes] | None, Any]:
                parts = fetch(ranges)
                # a missing shard misses every range; a present one has them all
                return (None if parts[0] is None else cast("list[bytes]", parts)), None

        # the inner chunks to read; None: the selection selects nothing
        touched: list[tuple[int, ...]] | None
        if one is not None:
            touched = [one[0]]
        else:
            touched = None if b is None else list(b.inner_chunks())
        cache_key = self._cache_key(fetch, spec)
        index_range = self._index_range(spec)
        remembered = index_cache.cache.get(cache_key) if cache_key is not None else None
        remembered_ranges = None  # what the remembered index says of them
        if remembered is not None and touched is not None:
            try:
                remembered_ranges = remembered[1].checked_ranges(touched)
            except CorruptChunkError:  # judged on the stored index, never on a memory of it
                index_cache.cache.discard(cache_key)
                remembered = None
        if remembered is not None and touched is not None:
            # a guess: the inner chunks it names are read with the index, and checked
            raw_index, generation, guessed = remembered[0], None, True
        else:
            parts, generation = read([index_range])
            if parts is None:
                return None
            raw_index, guessed = parts[0], False

        def index_of(raw: bytes) -> Any:
            if remembered is not None and raw is remembered[0]:
                return remembered[1]
            # Only the entries this read follows are checked (a hostile entry elsewhere
            # cannot mislead it); writes check the whole index before they rebuild it.
            index = self._decode_index(raw, spec, shard_size=None, validate=False)
            if cache_key is not None:
                index_cache.cache.put(cache_key, bytes(raw), index, 2 * len(raw) + 200)
            return index

        if touched is None:  # selects nothing: answer with the right (empty) shape, no allocation
            index_of(raw_index)
            return np.array(np.broadcast_to(np.empty((), spec.dtype), spec.shape)[selection])

        def locate(raw: bytes) -> tuple[Any, list[ByteRange]]:
            if remembered is not None and remembered_ranges is not None and raw is remembered[0]:
                wanted = remembered_ranges  # checked already
            else:
                wanted = index_of(raw).checked_ranges(touched)
            runs = coalesce(list(wanted.values()))
            return (wanted, runs), [ByteRange(o, n) for o, n in runs]

        found = read_located(read, index_range, raw_index, locate, generation=generation, guessed=guessed)
        if found is None:
            if cache_key is not None:
                index_cache.cache.discard(cache_key)
            return None
        (wanted, runs), parts = found
        if one is not None:
            return self._one_piece(one, spec, wanted, parts)
        assert b is not None
        return self._gathered(b, spec, wanted, runs, parts)

    def _partial_of_whole(
        self, fetch: RangeFetcher, spec: ChunkSpec, selection: tuple[Any, ...], b: Box | None
    ) -> np.ndarray | None:
        """A partial read through one request for the whole shard, for stores that cannot
        read ranges of one version (``StoreCapabilities.versioned_ranges``)."""
        [whole] = fetch([ByteRange(offset=0)])
        if whole is None:
            return None
        index = self._read_index(memoryview(whole), spec)
        if b is None:
            return np.array(np.broadcast_to(np.empty((), spec.dtype), spec.shape)[selection])
        wanted = index.checked_ranges(b.inner_chunks())
        return self._gathered(b, spec, wanted, [(0, len(whole))], [whole])

    def _one_piece(
        self,
        one: OneChunk,
        spec: ChunkSpec,
        wanted: dict[tuple[int, ...], tuple[int, int]],
        fetched: list[Any],
    ) -> np.ndarray:
        """:meth:`_gathered` for a selection inside one inner chunk (``one``, from
        :func:`one_inner_chunk`): the inner chunk ``wanted`` locates, alone in
        ``fetched``, decoded and its selected part copied out; the fill value where the
        chunk is empty."""
        coords, within, shape = one
        check_allocation(shape, spec.dtype, "a selection of a shard")
        where = wanted.get(coords)
        if where is None:
            return spec.layout.full(shape, spec.fill_value, spec.dtype)
        check_allocation(self.chunk_shape, spec.dtype, "an inner chunk a selection touches")
        data = _inner_bytes([where[0]], fetched, coords, *where)
        with _InnerNamed(coords):
            chunk = self.inner.decode(data, self._derive(spec).inner, key=None)
        result = spec.layout.empty(shape, spec.dtype)
        result[...] = chunk[within]
        return result

    def _gathered(
        self,
        b: Box,
        spec: ChunkSpec,
        wanted: dict[tuple[int, ...], tuple[int, int]],
        runs: list[tuple[int, int]],
        fetched: list[Any],
    ) -> np.ndarray:
        """The selection, from the inner chunks ``wanted`` found in the ``fetched`` runs.

        A basic selection (ints, unit-step slices) is copied from each decoded inner
        chunk straight into the result; others go through the box of whole inner
        chunks around them."""
        starts = [o for o, _ in runs]

        def encoded(coords: tuple[int, ...], offset: int, nbytes: int) -> bytes:
            return _inner_bytes(starts, fetched, coords, offset, nbytes)

        if b.is_basic:
            shape = b.result_shape()
            check_allocation(shape, spec.dtype, "a selection of a shard")
            if wanted:  # each is decoded whole
                check_allocation(self.chunk_shape, spec.dtype, "an inner chunk a selection touches")
            inner_spec = self._inner_spec(spec)
            pieces = [(coords, b.pieces(coords, self.chunk_shape)) for coords in b.inner_chunks()]
            pieces = [(coords, piece) for coords, piece in pieces if piece is not None]
            if all(coords in wanted for coords, _ in pieces):
                result = spec.layout.empty(shape, spec.dtype)
            else:
                result = spec.layout.full(shape, spec.fill_value, spec.dtype)

            def copy_one(piece: tuple[Any, ...]) -> None:  # pieces are disjoint parts of the result
                coords, (in_chunk, in_result) = piece
                with _InnerNamed(coords):
                    chunk = self.inner.decode(encoded(coords, *wanted[coords]), inner_spec, key=None)
                result[in_result] = chunk[in_chunk]

            self._each_inner(copy_one, [p for p in pieces if p[0] in wanted], spec, "copy")
            return result
        check_allocation(b.shape, spec.dtype, "the inner chunks a selection touches")
        box = spec.layout.full(b.shape, spec.fill_value, spec.dtype)
        self._each_inner(
            lambda item: self._decode_into(box, b, item[0], encoded(item[0], *item[1]), spec),
            list(wanted.items()),
            spec,
            "decode",
        )
        selected: np.ndarray = box[b.selection]
        return selected

    def encode_partial(
        self, encoded: bytes, spec: ChunkSpec, selection: tuple[Any, ...], values: np.ndarray
    ) -> bytes | None:
        encoded = bytes(encoded)
        index = self._read_index(encoded, spec)
        b = analyse(selection, spec.shape, self.chunk_shape)
        parts: dict[tuple[int, ...], bytes] = {}
        for coords in np.ndindex(*self._chunks_per_shard(spec)):
            where = index.range_of(coords)
            if where is not None:
                parts[coords] = encoded[where[0] : where[0] + where[1]]
        if b is not None:
            check_allocation(b.shape, spec.dtype, "the inner chunks a write touches")
            box = spec.layout.full(b.shape, spec.fill_value, spec.dtype)
            touched = list(b.inner_chunks())
            self._each_inner(
                lambda coords: self._decode_into(box, b, coords, parts[coords], spec),
                [coords for coords in touched if coords in parts],
                spec,
                "decode",
            )
            box[b.selection] = values
            encoded_touched = self._each_inner(
                lambda coords: self._encode_inner(box[b.region(coords, self.chunk_shape)], spec, coords),
                touched,
                spec,
                "encode",
            )
            for coords, data in zip(touched, encoded_touched):
                if data is None:
                    parts.pop(coords, None)
                else:
                    parts[coords] = data
        if not parts:
            return None
        return self._assemble(parts, spec)


def _inner_bytes(
    starts: list[int], fetched: list[Any], coords: tuple[int, ...], offset: int, nbytes: int
) -> bytes:
    """The encoded inner chunk ``coords`` at ``offset``, ``nbytes`` long, from the
    ``fetched`` runs of the shard starting at ``starts``; a shard gone or shorter than
    the index says is corrupt."""
    run_index = bisect.bisect_right(starts, offset) - 1
    blob = fetched[run_index]
    if blob is None:
        raise CorruptChunkError("the shard disappeared while it was being read")
    begin = offset - starts[run_index]
    data = blob[begin : begin + nbytes]
    if len(data) != nbytes:
        raise CorruptChunkError(
            f"inner chunk {coords} needs bytes {offset}..{offset + nbytes} but the shard is shorter"
        )
    result: bytes = data
    return result


class _InnerNamed:
    """``with _InnerNamed(coords):`` names the inner chunk in a CodecError its coding
    raises (the engine adds the shard's key and the array)."""

    __slots__ = ("coords",)

    def __init__(self, coords: tuple[int, ...]) -> None:
        self.coords = coords

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> Literal[False]:
        if isinstance(exc, CodecError) and exc.inner is None:
            raise exc.located(inner=tuple(self.coords)) from exc.__cause__
        return False

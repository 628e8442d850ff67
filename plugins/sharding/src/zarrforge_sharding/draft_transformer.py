"""The 2022 draft's sharding storage transformer.

Name ``https://purl.org/zarr/spec/storage_transformers/sharding/1.0``,
configuration ``{"type": "indexed", "chunks_per_shard": [...]}``. It groups
``chunks_per_shard`` chunks into one stored key (the key of the chunk at the
shard's grid position), in the layout zarr-python 2.11-2.18 wrote under
``ZARR_V3_SHARDING=1``: the encoded chunks one after another, then an index of
little-endian ``uint64`` ``(offset, nbytes)`` pairs per chunk in C order,
``(2^64-1, 2^64-1)`` for a missing chunk, and no checksum.

The transformer is a store wrapper: the array reads and writes chunk keys as
usual and :class:`DraftShardStore` maps them into shards. Reading one chunk
costs two requests (the index as a suffix range, then the chunk's range with the
index again); ``get_many`` reads all needed indexes in one request, then each
shard's chunk ranges. The chunks of a shard are read from one version of it:
with the index again (``Store.get_ranges``), used only if the index is the one
their ranges came from, else again from the new index; on a store without
versioned ranges the shard is read whole. Writing or deleting a chunk rewrites its shard; a shard left with no
chunks is deleted. Keys that are not chunk keys pass through unchanged.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from zarrforge.abc.storage_transformer import ChunkKeys, StorageTransformer
from zarrforge.abc.store import Store, WrapperStore
from zarrforge.abc.store_values import ByteRange, StoreCapabilities
from zarrforge.errors import CorruptChunkError, MetadataError

from .index import ShardIndex
from .located import read_located

NAME = "https://purl.org/zarr/spec/storage_transformers/sharding/1.0"


class DraftShardingTransformer(StorageTransformer):
    name = NAME

    def __init__(self, chunks_per_shard: tuple[int, ...]) -> None:
        self.chunks_per_shard = chunks_per_shard

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> DraftShardingTransformer:
        config = configuration or {}
        unknown = set(config) - {"type", "chunks_per_shard"}
        if unknown:
            raise MetadataError(
                f"unknown configuration key(s) {sorted(unknown)}; valid: ['chunks_per_shard', 'type']",
                field="configuration",
                value=config,
            )
        if config.get("type") != "indexed":
            raise MetadataError(
                f"type must be 'indexed', got {config.get('type')!r}",
                field="configuration.type",
                value=config.get("type"),
            )
        cps = config.get("chunks_per_shard")
        if isinstance(cps, int) and not isinstance(cps, bool):
            cps = [cps]
        if not isinstance(cps, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in cps
        ):
            raise MetadataError(
                f"must be a list of positive integers, got {cps!r}",
                field="configuration.chunks_per_shard",
                value=cps,
            )
        return cls(tuple(cps))

    def to_json(self) -> dict[str, Any]:
        # The draft format writes this as {"extension": ..., "type": ..., "configuration":
        # {"chunks_per_shard": ...}}; its format plugin translates to and from this form.
        return {
            "name": self.name,
            "configuration": {"type": "indexed", "chunks_per_shard": list(self.chunks_per_shard)},
        }

    def wrap(self, store: Store, keys: ChunkKeys, metadata: Any, *, path: str | None = None) -> Store:
        cps = self.chunks_per_shard
        ndim = len(metadata.shape)
        if len(cps) > ndim and not (ndim == 0 and cps == (1,)):
            raise MetadataError(
                f"chunks_per_shard {list(cps)} has more entries than the array has dimensions ({ndim})",
                field="configuration.chunks_per_shard",
            )
        # As zarr-python 2 did: missing trailing dimensions are not sharded.
        cps = cps[:ndim] + (1,) * (ndim - len(cps))
        return DraftShardStore(store, cps, keys)


class DraftShardStore(WrapperStore):
    def __init__(self, inner: Store, chunks_per_shard: tuple[int, ...], keys: ChunkKeys) -> None:
        super().__init__(inner)
        self.cps = chunks_per_shard
        self.keys = keys
        self.index_size = 16 * math.prod(chunks_per_shard)
        self._lock = threading.Lock()  # one read-modify-write of a shard at a time

    @property
    def capabilities(self) -> StoreCapabilities:  # type: ignore[override]
        # Chunk keys of one shard share a stored object: the engine must hand over a
        # batch in one set_many (one rewrite per shard), not from racing threads.
        # it gathers chunks into shard objects: chunk keys are not stored values, so it
        # offers no conditional writes on them
        return dataclasses.replace(self.inner.capabilities, independent_keys=False, conditional_writes=False)

    # --- key mapping --------------------------------------------------------------------

    def _locate(self, key: str) -> tuple[str, tuple[int, ...]] | None:
        coords = self.keys.coords(key)
        if coords is None:
            return None
        shard = tuple(c // n for c, n in zip(coords, self.cps))
        return self.keys.key(shard), tuple(c % n for c, n in zip(coords, self.cps))

    def _index(self, raw: bytes, shard_size: int | None) -> ShardIndex:
        if len(raw) != self.index_size:
            raise CorruptChunkError(f"shard index has {len(raw)} bytes, expected {self.index_size}")
        index = ShardIndex(np.frombuffer(raw, dtype="<u8").reshape((*self.cps, 2)).astype(np.uint64))
        reserved = (shard_size - self.index_size, shard_size) if shard_size is not None else (0, 0)
        index.validate(shard_size=shard_size, reserved=reserved)
        return index

    def _read_shard(self, shard_key: str) -> tuple[bytes, ShardIndex] | None:
        blob = self.inner.get(shard_key)
        if blob is None:
            return None
        if len(blob) < self.index_size:
            raise CorruptChunkError(f"shard of {len(blob)} bytes is shorter than its index", key=shard_key)
        try:
            return blob, self._index(blob[-self.index_size :], len(blob))
        except CorruptChunkError as exc:
            raise CorruptChunkError(str(exc), key=shard_key) from exc

    # --- reads -------------------------------------------------------------------------------

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        return self.get_many([(key, byte_range)])[0]

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        located = [self._locate(key) for key, _ in requests]
        plain = [i for i, where in enumerate(located) if where is None]
        results: list[bytes | None] = [None] * len(requests)
        for i, value in zip(plain, self.inner.get_many([requests[i] for i in plain]) if plain else []):
            results[i] = value
        members: dict[str, list[int]] = {}
        for i, where in enumerate(located):
            if where is not None:
                members.setdefault(where[0], []).append(i)
        if not members:
            return results
        shard_keys = sorted(members)
        raw = self.inner.get_many([(k, ByteRange(length=self.index_size)) for k in shard_keys])
        for shard_key, raw_index in zip(shard_keys, raw):
            if raw_index is not None:
                self._read_members(shard_key, raw_index, members[shard_key], requests, located, results)
        return results

    def _read_members(
        self,
        shard_key: str,
        raw_index: bytes,
        wanted: list[int],
        requests: Sequence[tuple[str, ByteRange | None]],
        located: list[Any],
        results: list[bytes | None],
    ) -> None:
        """Fill ``results`` for the requests ``wanted`` of one shard, whose index (read in a
        batch with the other shards') is ``raw_index``, from one version of the shard: on a
        store with versioned ranges the chunks are read with the index again and used only
        if it is unchanged (else again from the new index); on others the shard whole."""
        if not self.inner.capabilities.versioned_ranges:
            shard = self._read_shard(shard_key)
            if shard is not None:
                blob, index = shard
                for i, byte_range in self._spans(index, wanted, requests, located):
                    results[i] = blob[byte_range.slice_of(len(blob))]  # offset and length both set
            return

        def locate(raw: bytes) -> tuple[list[tuple[int, ByteRange]], list[ByteRange]]:
            try:
                index = self._index(raw, None)
            except CorruptChunkError as exc:
                raise CorruptChunkError(str(exc), key=shard_key) from exc
            spans = self._spans(index, wanted, requests, located)
            return spans, [byte_range for _, byte_range in spans]

        def read(ranges: list[ByteRange], *, if_generation: Any = None) -> Any:
            return self.inner.get_ranges(shard_key, ranges, if_generation=if_generation)

        found = read_located(read, ByteRange(length=self.index_size), raw_index, locate)
        if found is None:
            return  # deleted since its index was read: its chunks read as missing now
        spans, parts = found
        for (i, byte_range), value in zip(spans, parts):
            if len(value) != byte_range.length:
                raise CorruptChunkError(
                    f"the shard holding {requests[i][0]!r} is shorter than its index says", key=shard_key
                )
            results[i] = value

    @staticmethod
    def _spans(
        index: ShardIndex,
        wanted: list[int],
        requests: Sequence[tuple[str, ByteRange | None]],
        located: list[Any],
    ) -> list[tuple[int, ByteRange]]:
        """The byte range in the shard of each request of ``wanted`` whose chunk is stored."""
        spans = []
        for i in wanted:
            span = index.range_of(located[i][1])
            if span is None:
                continue
            offset, nbytes = span
            sub = requests[i][1]
            if sub is not None:
                window = sub.slice_of(nbytes)
                offset, nbytes = offset + window.start, window.stop - window.start
            spans.append((i, ByteRange(offset, nbytes)))
        return spans

    def exists(self, key: str) -> bool:
        return self.get(key) is not None

    def list_prefix(self, prefix: str) -> Iterator[str]:
        keys = []
        for key in self.inner.list_prefix(prefix):
            coords = self.keys.coords(key)
            if coords is None:
                keys.append(key)
                continue
            found = self._read_shard(key)
            if found is None:
                continue
            _, index = found
            for local in np.ndindex(*self.cps):
                if index.range_of(local) is not None:
                    keys.append(self.keys.key(tuple(c * n + i for c, n, i in zip(coords, self.cps, local))))
        return iter(sorted(keys))

    # --- writes ------------------------------------------------------------------------------

    def _apply(self, changes: dict[str, bytes | None]) -> None:
        """Write (bytes) or delete (None) keys, rewriting each touched shard once."""
        by_shard: dict[str, dict[tuple[int, ...], bytes | None]] = {}
        for key, value in changes.items():
            where = self._locate(key)
            if where is None:
                self.inner.delete(key) if value is None else self.inner.set(key, value)
            else:
                by_shard.setdefault(where[0], {})[where[1]] = value
        for shard_key, updates in by_shard.items():
            with self._lock:
                self._rewrite_shard(shard_key, updates)

    def _rewrite_shard(self, shard_key: str, updates: dict[tuple[int, ...], bytes | None]) -> None:
        found = self._read_shard(shard_key)
        parts: dict[tuple[int, ...], bytes] = {}
        if found is not None:
            blob, index = found
            for coords in np.ndindex(*self.cps):
                span = index.range_of(coords)
                if span is not None:
                    parts[coords] = blob[span[0] : span[0] + span[1]]
        before = dict(parts)
        for local, value in updates.items():
            if value is None:
                parts.pop(local, None)
            else:
                parts[local] = value
        if parts == before and found is not None:
            return
        if not parts:
            self.inner.delete(shard_key)
            return
        index = ShardIndex.empty(self.cps)
        body, offset = [], 0
        for coords in sorted(parts):
            index.set(coords, offset, len(parts[coords]))
            body.append(parts[coords])
            offset += len(parts[coords])
        body.append(index.entries.astype("<u8").tobytes())
        self.inner.set(shard_key, b"".join(body))

    def _set(self, key: str, value: bytes) -> None:
        self._apply({key: value})

    def _delete(self, key: str) -> None:
        self._apply({key: None})

    def set_many(self, items: Iterable[tuple[str, bytes | bytearray | memoryview]]) -> None:
        items = list(items)
        for key, _ in items:
            self._check_writable(key)
        self._apply({key: bytes(value) for key, value in items})

    def delete_many(self, keys: Iterable[str]) -> None:
        keys = list(keys)
        for key in keys:
            self._check_writable(key)
        self._apply(dict.fromkeys(keys))

    def erase_prefix(self, prefix: str) -> None:
        self.inner.erase_prefix(prefix)

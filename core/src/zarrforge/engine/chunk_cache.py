"""Decoded chunks kept in memory for reads that come back to them (``chunk_cache=``): with
:mod:`zarrforge.engine.index_memory` (the indexes partial codecs remember), the engine's
caching service.

A :class:`ChunkCache` is a pool of decoded chunks under a byte cap, shared by every array
opened with it (TensorStore's ``cache_pool``). The engine consults it only for chunks it
reads whole; chunk data is cached only where a user asked for it (off by default).

Contract:

* **Bounded.** A pool never holds more than ``max_bytes`` of decoded chunks; the least
  recently used go first. A chunk larger than a quarter of the cap is never kept (a scan
  of huge chunks would only churn the pool); it counts as ``bypassed``.
* **Keyed by where the bytes live, and by how they are decoded.** An entry is named by
  the store's data location (:meth:`zarrforge.abc.store.Store.data_location`: a local
  directory's real path, a URL, a named memory store; else the store object itself,
  while it lives), the chunk's key under it, and the array's decoding signature (codecs,
  data type, fill value, memory layout, storage transformers). Two handles on one array
  share entries; a handle whose runtime ``transformers`` may change the bytes gets a
  signature of its own.
* **Coherent within the process.** Every pool listens to
  :mod:`zarrforge.storing.write_notices`: a write through any zarrforge handle (a chunk
  written or deleted, a node replaced or erased, a transaction committed) drops the
  entries it touches, and a chunk fetched before such a drop is not kept. Writes that
  bypass zarrforge (``store.set``, another process) are seen through ``recheck``.
* **Rechecked against the store's version.** Each entry keeps the version of the bytes it
  was decoded from: the store's generation where it has conditional writes, else a digest
  of the bytes. ``recheck="open"`` (the default) revalidates an entry the first time a
  handle opened after the entry was cached uses it; ``"always"`` on every use;
  ``"never"`` trusts it until it is evicted or forgotten. A revalidation that finds the
  bytes changed decodes the new ones. Revalidation asks for an empty byte range of the
  key where the store reads ranges of one version (no bytes move), else reads the value.
* **Read-only entries.** Cached chunks are numpy arrays marked not writeable; the engine
  copies out of them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import config
from ..abc.store import ABSENT, ByteRange, Store
from ..storing import write_notices
from ..storing.write_notices import location_of
from .index_memory import checked_max_bytes

RECHECK_MODES = ("open", "always", "never")
_EMPTY = ByteRange(offset=0, length=0)


class CacheStats(NamedTuple):
    """What a :class:`ChunkCache` has done since it was made (or last ``clear``-ed)."""

    hits: int
    misses: int
    entries: int
    bytes: int
    evictions: int
    bypassed: int
    rechecks: int


class _Entry:
    __slots__ = ("chunk", "nbytes", "stamp", "tick")

    def __init__(self, chunk: np.ndarray, stamp: Any, tick: int) -> None:
        self.chunk = chunk
        self.nbytes = chunk.nbytes
        self.stamp = stamp
        self.tick = tick


_ticks = itertools.count(1)
_STRIPES = 64  # counters of forgets, each for the keys hashing to it


def tick() -> int:
    """A number larger than every one handed out before: when a handle was opened, or an
    entry cached or revalidated."""
    return next(_ticks)


class ChunkCache:
    """A pool of decoded chunks of at most ``max_bytes``, shared by the arrays opened with it.

    Give it to ``open_array``, ``open``, ``open_group`` or ``create_array`` as
    ``chunk_cache=``: every array opened with the same pool shares its memory and its
    entries. Reads that come back to a chunk (slab scans, overlapping windows) decode it
    once while it stays in the pool. See docs/lazy-and-cache.md.

    Parameters
    ----------
    max_bytes : int
        The most decoded bytes the pool holds; ``0`` keeps nothing.

    Raises
    ------
    ValueError
        ``max_bytes`` is negative or not an int.

    Examples
    --------
    >>> import numpy as np, zarrforge
    >>> pool = zarrforge.ChunkCache(max_bytes=8 * 2**20)
    >>> a = zarrforge.create_array(None, shape=(64, 64), chunks=(16, 16), dtype="f4", chunk_cache=pool)
    >>> a[...] = np.ones((64, 64), "f4")
    >>> for row in range(0, 64, 4):  # slabs of 4 rows: each chunk decoded once
    ...     _ = a[row : row + 4]
    >>> pool.stats().misses, pool.stats().hits
    (16, 48)
    """

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = checked_max_bytes(max_bytes, "ChunkCache(max_bytes=...)")
        self._entries: OrderedDict[tuple[Hashable, str, Hashable], _Entry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._counts = {"hits": 0, "misses": 0, "evictions": 0, "bypassed": 0, "rechecks": 0}
        # (namespace, key) -> the signatures it has entries under, for forgetting a key
        self._signatures: dict[tuple[Hashable, str], set[Hashable]] = {}
        # Forgets counted, by a stripe of the keys and for prefixes: a chunk fetched before
        # a forget of its key is not kept (the write it stands for may have come after the
        # fetch), so no entry outlives the write that changed it.
        self._stripes = [0] * _STRIPES
        self._erasures = 0
        write_notices.listen(self)

    def __repr__(self) -> str:
        return f"ChunkCache(max_bytes={self._max_bytes})"

    def __reduce__(self) -> Any:
        # a pool is this process's memory: a copy elsewhere starts empty, with the same cap
        return (ChunkCache, (self._max_bytes,))

    @property
    def max_bytes(self) -> int:
        """The pool's cap in decoded bytes."""
        return self._max_bytes

    def stats(self) -> CacheStats:
        """Counters: hits, misses, entries, bytes held, evictions, chunks bypassed (too
        large to keep), and revalidations against the store.

        Returns
        -------
        CacheStats
            The counters now.
        """
        with self._lock:
            return CacheStats(entries=len(self._entries), bytes=self._bytes, **self._counts)

    def clear(self) -> None:
        """Drop every entry and zero the counters."""
        with self._lock:
            self._entries.clear()
            self._signatures.clear()
            self._bytes = 0
            for name in self._counts:
                self._counts[name] = 0

    # --- for the engine -----------------------------------------------------------------

    def _fits(self, nbytes: int) -> bool:
        return 0 < nbytes <= self._max_bytes // 4

    def _get(self, name: tuple[Hashable, str, Hashable]) -> _Entry | None:
        with self._lock:
            entry = self._entries.get(name)
            if entry is not None:
                self._entries.move_to_end(name)
            return entry

    def _count(self, **counts: int) -> None:
        with self._lock:
            for counter, n in counts.items():
                self._counts[counter] += n

    def _epoch(self, address: tuple[Hashable, str]) -> tuple[int, int]:
        """(Holding the lock.) How many forgets could have touched ``address`` so far."""
        return self._erasures, self._stripes[hash(address) % _STRIPES]

    def _put(self, name: tuple[Hashable, str, Hashable], entry: _Entry, epoch: tuple[int, int]) -> None:
        """Keep ``entry`` (one that :meth:`_fits`), decoded from bytes fetched when its
        address's epoch was ``epoch``: not if the address may have been forgotten since."""
        address = (name[0], name[1])
        with self._lock:
            if epoch != self._epoch(address):
                return
            self._remove(name)
            self._entries[name] = entry
            self._signatures.setdefault(address, set()).add(name[2])
            self._bytes += entry.nbytes
            while self._bytes > self._max_bytes:
                self._remove(next(iter(self._entries)))
                self._counts["evictions"] += 1

    def _remove(self, name: tuple[Hashable, str, Hashable]) -> None:
        """(Holding the lock.) Drop the entry ``name``, if there is one."""
        entry = self._entries.pop(name, None)
        if entry is None:
            return
        self._bytes -= entry.nbytes
        address = (name[0], name[1])
        signatures = self._signatures.get(address)
        if signatures is not None:
            signatures.discard(name[2])
            if not signatures:
                del self._signatures[address]

    def forget(self, names: Iterable[tuple[Hashable, str]], prefix: bool = False) -> None:
        """Drop the entries of ``(namespace, key)`` pairs, whatever their signature (with
        ``prefix``: of every key starting with the pair's key)."""
        with self._lock:
            if prefix:
                self._erasures += 1
                wanted = list(names)
                doomed = [
                    address
                    for address in self._signatures
                    if any(address[0] == ns and address[1].startswith(p) for ns, p in wanted)
                ]
            else:
                doomed = list(names)
                for address in doomed:
                    self._stripes[hash(address) % _STRIPES] += 1
            for address in doomed:
                for signature in list(self._signatures.get(address, ())):
                    self._remove((*address, signature))


_shared: ChunkCache | None = None  # the pool of config.chunk_cache
_shared_lock = threading.Lock()


def pool_for(value: ChunkCache | int | None) -> ChunkCache | None:
    """The pool an array opened with ``chunk_cache=value`` uses: ``value`` itself, a new
    pool of that many bytes, ``None`` for 0; for ``None``, the process's shared pool of
    ``config.chunk_cache`` bytes (``None`` while that is 0)."""
    global _shared
    if isinstance(value, ChunkCache):
        return value
    if value is None:
        size = config.get().chunk_cache
        if not size:
            return None
        with _shared_lock:
            if _shared is None or _shared.max_bytes != size:
                _shared = ChunkCache(size)
            return _shared
    size = checked_max_bytes(value, "chunk_cache (or a zarrforge.ChunkCache)")
    return ChunkCache(size) if size else None


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def decoding_signature(
    codecs: Sequence[Any], data_type: Any, fill_value: Any, layout: str, transformers: Sequence[Any], own: Any
) -> Hashable:
    """What decides how an array's chunk bytes decode. ``own``: a value of the handle's own
    where its runtime transformers may change bytes (``None`` otherwise)."""
    described = json.dumps(
        {
            "codecs": [c.to_json() for c in codecs],
            "data_type": data_type.to_json(),
            "fill": repr(fill_value),
            "layout": layout,
            "transformers": [t.to_json() for t in transformers],
        },
        sort_keys=True,
        default=repr,
    )
    return (described, own)


class CachedChunks:
    """One array's use of a pool: the pool, where the array's chunks live, how they
    decode, when the handle was opened and how entries are rechecked. The engine asks it
    for chunks (:meth:`chunks`), handing it the fetching and decoding."""

    __slots__ = ("namespace", "opened", "pool", "prefix", "recheck", "signature", "store")

    def __init__(
        self, pool: ChunkCache, store: Store, signature: Hashable, opened: int, recheck: str
    ) -> None:
        self.pool = pool
        self.store = store
        self.namespace, self.prefix = location_of(store)
        self.signature = signature
        self.opened = opened
        self.recheck = recheck

    def fits(self, nbytes: int | None) -> bool:
        """Would the pool keep a chunk of ``nbytes`` decoded (``None``: not known)?"""
        return nbytes is not None and self.pool._fits(nbytes)

    def chunks(
        self, keys: Sequence[str], decode: Callable[[str, bytes], np.ndarray]
    ) -> dict[str, np.ndarray | None]:
        """The decoded chunk of each key (``None``: not stored), from the pool where it
        holds a valid entry, else fetched in one batch, decoded and kept."""
        found: dict[str, np.ndarray | None] = {}
        stale: list[tuple[str, _Entry]] = []
        missing: list[str] = []
        pool, namespace, prefix, signature = self.pool, self.namespace, self.prefix, self.signature
        for key in keys:
            entry = pool._get((namespace, prefix + key, signature))
            if entry is None:
                missing.append(key)
            elif self.recheck == "always" or (self.recheck == "open" and entry.tick < self.opened):
                stale.append((key, entry))
            else:
                found[key] = entry.chunk
        for key, entry in stale:
            if self._unchanged(key, entry):
                entry.tick = tick()
                found[key] = entry.chunk
            else:
                missing.append(key)
        pool._count(rechecks=len(stale), hits=len(found), misses=len(missing))
        if missing:
            found.update(self._load(missing, decode))
        return found

    def _load(
        self, keys: list[str], decode: Callable[[str, bytes], np.ndarray]
    ) -> dict[str, np.ndarray | None]:
        pool = self.pool
        with pool._lock:
            epochs = [pool._epoch((self.namespace, self.prefix + key)) for key in keys]
        versioned = self.store.capabilities.conditional_writes
        stamp_needed = self.recheck != "never"
        if versioned:
            fetched = self.store.get_versioned_many(keys)
        else:
            fetched = [(data, None) for data in self.store.get_many([(k, None) for k in keys])]
        loaded: dict[str, np.ndarray | None] = {}
        for key, (data, generation), epoch in zip(keys, fetched, epochs):
            if data is None:
                loaded[key] = None
                continue
            chunk = decode(key, data)
            loaded[key] = chunk
            if not self.fits(chunk.nbytes):
                self.pool._count(bypassed=1)
                continue
            stamp = generation if versioned else (digest(data) if stamp_needed else None)
            kept = chunk if chunk.flags.owndata else chunk.copy()  # not a view of the bytes
            kept.flags.writeable = False
            self.pool._put(
                (self.namespace, self.prefix + key, self.signature), _Entry(kept, stamp, tick()), epoch
            )
        return loaded

    def _unchanged(self, key: str, entry: _Entry) -> bool:
        """Does the store still hold the bytes ``entry`` was decoded from?"""
        store = self.store
        capabilities = store.capabilities
        if capabilities.conditional_writes:
            if capabilities.versioned_ranges:
                _, generation = store.get_ranges(key, [_EMPTY])
            else:
                _, generation = store.get_versioned(key)
            return generation is not ABSENT and generation == entry.stamp
        data = store.get(key)
        return data is not None and entry.stamp is not None and digest(data) == entry.stamp

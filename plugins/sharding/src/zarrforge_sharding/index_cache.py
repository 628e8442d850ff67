"""A process-wide cache of shard indexes, for partial reads that need one request, not two.

A partial read of a shard needs the shard's index before it knows which bytes to fetch:
two requests one after the other (two round trips on an object store). With the index
of an earlier read remembered, the read asks for the index *and* the inner chunks the
remembered index points at in one batch of requests, and then compares the index it got
with the one it remembered. Equal: the inner chunks it got are the ones the index names,
exactly as if it had read the index first (either way the shard may change between the
two requests; the engine never promised more). Different, or absent: the remembered
index is dropped, and the read continues from the fresh one with the second request it
would have made anyway. So a remembered index is only ever a guess that saves a round
trip when right; it can never make a read return other bytes than the uncached read would.

Entries are keyed by what the engine's fetcher names (``fetch.cache_key``: the store
object and the shard's key) and by the codec's own configuration, hold the encoded index
(to compare) and its decoded entries, and are evicted least recently used past a byte
budget (default 32 MiB; :func:`set_index_cache` changes it, 0 turns the cache off).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

DEFAULT_BYTES = 32 * 2**20


class IndexCache:
    """Least-recently-used ``key -> (encoded index, decoded index)`` within a byte budget."""

    def __init__(self, max_bytes: int = DEFAULT_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, tuple[bytes, Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> tuple[bytes, Any] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0], entry[1]

    def put(self, key: Hashable, encoded: bytes, index: Any, nbytes: int) -> None:
        """Remember ``index`` (taking ``nbytes`` of memory with ``encoded``) under ``key``."""
        if nbytes > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[2]
            self._entries[key] = (encoded, index, nbytes)
            self._bytes += nbytes
            while self._bytes > self.max_bytes:
                _, (_, _, size) = self._entries.popitem(last=False)
                self._bytes -= size

    def discard(self, key: Hashable) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[2]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        return self._bytes


cache = IndexCache()


def set_index_cache(max_bytes: int) -> int:
    """Set the cache's byte budget (process-wide; 0 turns it off); returns the previous one."""
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 0:
        raise ValueError(f"the shard index cache size must be a non-negative int of bytes, got {max_bytes!r}")
    previous = cache.max_bytes
    with cache._lock:
        cache.max_bytes = max_bytes
    if max_bytes < previous:
        with cache._lock:
            while cache._bytes > max_bytes and cache._entries:
                _, (_, _, size) = cache._entries.popitem(last=False)
                cache._bytes -= size
    return previous

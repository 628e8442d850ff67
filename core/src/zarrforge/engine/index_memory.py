"""The indexes partial codecs remember (:func:`remembered_indexes`): with the decoded-chunk
cache (:mod:`zarrforge.engine.chunk_cache`), the engine's caching service.

A codec that reads an index before the parts it points at (a shard's index, then its inner
chunks) remembers the index here, under a key of its own, and on the next partial read asks
for the index *and* the parts the remembered one points at in one batch, then checks the
index it got against the remembered one (``zarrforge_sharding.codec``). An entry is only
ever a guess that saves a round trip, so the memory needs no coherence of its own. It is
on by default, within ``config.index_cache`` bytes (32 MiB; 0: off), least recently used
out first. This module stands on the settings alone (the plugin surface's bottom layer).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

import numpy as np

from .. import config


def checked_max_bytes(value: Any, what: str) -> int:
    """``value`` as a cache size in bytes, or a ``ValueError`` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{what} must be a non-negative int of bytes (0: no cache), got {value!r}")
    return int(value)


class IndexMemory:
    """Least recently used ``key -> (encoded index, decoded index)`` within
    ``config.index_cache`` bytes: what a partial codec remembers of the indexes it read
    (:func:`remembered_indexes`). Keys are the codec's own (hashable); the cap follows the
    setting as it is at each ``put`` (``max_bytes``: a fixed cap instead)."""

    def __init__(self, max_bytes: int | None = None) -> None:
        self._fixed = (
            None if max_bytes is None else checked_max_bytes(max_bytes, "IndexMemory(max_bytes=...)")
        )
        self._entries: OrderedDict[Hashable, tuple[bytes, Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._counts = {"hits": 0, "misses": 0, "evictions": 0}

    @property
    def max_bytes(self) -> int:
        """The cap now (``config.index_cache``, or the fixed one)."""
        return int(config.get().index_cache) if self._fixed is None else self._fixed

    @property
    def nbytes(self) -> int:
        """The bytes remembered."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> tuple[bytes, Any] | None:
        """The encoded and decoded index remembered under ``key``, or ``None``."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self._counts["misses"] += 1
                return None
            self._counts["hits"] += 1
            self._entries.move_to_end(key)
            return entry[0], entry[1]

    def put(self, key: Hashable, encoded: bytes, index: Any, nbytes: int) -> None:
        """Remember ``index`` (decoded from ``encoded``; both taking ``nbytes``) under ``key``."""
        cap = self.max_bytes
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[2]
            if nbytes > cap:
                return
            self._entries[key] = (encoded, index, nbytes)
            self._bytes += nbytes
            self._evict_past(cap)

    def shrink(self) -> None:
        """Drop the least recently used entries past the cap now (after lowering it)."""
        cap = self.max_bytes
        with self._lock:
            self._evict_past(cap)

    def _evict_past(self, cap: int) -> None:
        """(Holding the lock.)"""
        while self._bytes > cap and self._entries:
            _, (_, _, size) = self._entries.popitem(last=False)
            self._bytes -= size
            self._counts["evictions"] += 1

    def discard(self, key: Hashable) -> None:
        """Forget ``key`` (its index proved stale or corrupt)."""
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[2]

    def clear(self) -> None:
        """Forget everything and zero the counters."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            for name in self._counts:
                self._counts[name] = 0

    def stats(self) -> dict[str, int]:
        """``hits``, ``misses``, ``evictions``, ``entries`` and ``bytes``."""
        with self._lock:
            return {**self._counts, "entries": len(self._entries), "bytes": self._bytes}


_INDEXES = IndexMemory()


def remembered_indexes() -> IndexMemory:
    """The process's memory of the indexes partial codecs read (a shard's), within
    ``config.index_cache`` bytes (default 32 MiB; ``0``: nothing is remembered).

    A codec that reads an index before the parts it points at (sharding) remembers it here
    under a key of its own, and on the next partial read fetches the index *and* the parts
    the remembered one points at in one batch, then checks that the index fetched is the
    one remembered. It raises nothing.

    Returns
    -------
    IndexMemory
        The one process-wide memory (``get``, ``put``, ``discard``, ``clear``, ``stats``).

    Examples
    --------
    >>> memory = remembered_indexes()
    >>> memory.put(("my-codec", "a/c/0"), b"raw index", {"decoded": True}, nbytes=64)
    >>> memory.get(("my-codec", "a/c/0"))
    (b'raw index', {'decoded': True})
    >>> memory.discard(("my-codec", "a/c/0"))
    >>> memory.get(("my-codec", "a/c/0")) is None
    True
    """
    return _INDEXES

"""Runtime storage transformers: they wrap an array's store without changing keys.

Pass them when opening or creating an array (``transformers=[...]``); they are
never recorded in metadata.

* :class:`LRUCache` keeps recently read values (whole values only; a byte
  range is served from a cached whole value when there is one), bounded by
  ``max_bytes``, thread-safe. Writes and deletes go through and update or
  drop the cached value, so the cache never serves stale data written through
  it. Writers elsewhere are not seen: use it for data that does not change
  underneath, or call :meth:`LRUCache.clear`. It offers no conditional writes
  (it has no generations to give), so an array read through it does plain
  read-modify-writes.
* :class:`RequestCounter` counts and records every request (``calls``), for
  tests and benchmarks. ``get_many`` is one request with many parts. It passes
  conditional writes through (``get_versioned``, ``set_if``, ``delete_if``
  are recorded under those names).

Both are classes taking the store, so ``transformers=[RequestCounter]`` works;
use ``functools.partial(LRUCache, max_bytes=...)`` for a bounded cache.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from zarrforge.abc.store import Store, WrapperStore
from zarrforge.abc.store_values import ByteRange, ListDirResult


class LRUCache(WrapperStore):
    def __init__(self, inner: Store, max_bytes: int = 256 * 2**20) -> None:
        super().__init__(inner)
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self._values: collections.OrderedDict[str, bytes] = collections.OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _remember(self, key: str, value: bytes) -> None:
        if len(value) > self.max_bytes:
            return
        with self._lock:
            old = self._values.pop(key, None)
            if old is not None:
                self._size -= len(old)
            self._values[key] = value
            self._size += len(value)
            while self._size > self.max_bytes:
                _, dropped = self._values.popitem(last=False)
                self._size -= len(dropped)

    def _cached(self, key: str) -> bytes | None:
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
                self.hits += 1
            else:
                self.misses += 1
            return value

    def _forget(self, key: str) -> None:
        with self._lock:
            old = self._values.pop(key, None)
            if old is not None:
                self._size -= len(old)

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        value = self._cached(key)
        if value is None:
            if byte_range is not None:
                return self.inner.get(key, byte_range)
            value = self.inner.get(key)
            if value is None:
                return None
            self._remember(key, value)
        return value if byte_range is None else value[byte_range.slice_of(len(value))]

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        results: list[bytes | None] = [None] * len(requests)
        missing = []
        for i, (key, byte_range) in enumerate(requests):
            value = self._cached(key)
            if value is None:
                missing.append(i)
            else:
                results[i] = value if byte_range is None else value[byte_range.slice_of(len(value))]
        fetched = self.inner.get_many([requests[i] for i in missing]) if missing else []
        for i, value in zip(missing, fetched):
            results[i] = value
            if value is not None and requests[i][1] is None:
                self._remember(requests[i][0], value)
        return results

    def _set(self, key: str, value: bytes) -> None:
        self._forget(key)
        self.inner.set(key, value)
        self._remember(key, value)

    def _delete(self, key: str) -> None:
        self._forget(key)
        self.inner.delete(key)

    def _set_many(self, items: list[tuple[str, bytes]]) -> None:
        for key, _ in items:
            self._forget(key)
        self.inner.set_many(items)  # one batch for the store below
        for key, value in items:
            self._remember(key, value)

    def _delete_many(self, keys: list[str]) -> None:
        for key in keys:
            self._forget(key)
        self.inner.delete_many(keys)

    def erase_prefix(self, prefix: str) -> None:
        self.inner.erase_prefix(prefix)
        with self._lock:
            for key in [k for k in self._values if k.startswith(prefix)]:
                self._size -= len(self._values.pop(key))

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._size = 0

    @property
    def cached_bytes(self) -> int:
        return self._size


class RequestCounter(WrapperStore):
    forwards_conditional_writes = True  # it changes no key and no value

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.calls: list[tuple[str, object]] = []
        self._lock = threading.Lock()

    def _record(self, kind: str, detail: object) -> None:
        with self._lock:
            self.calls.append((kind, detail))

    def count(self, kind: str | None = None) -> int:
        with self._lock:
            return sum(1 for k, _ in self.calls if kind is None or k == kind)

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        self._record("get", (key, byte_range))
        return self.inner.get(key, byte_range)

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        self._record("get_many", list(requests))
        return self.inner.get_many(requests)

    def exists(self, key: str) -> bool:
        self._record("exists", key)
        return self.inner.exists(key)

    def _set(self, key: str, value: bytes) -> None:
        self._record("set", key)
        self.inner.set(key, value)

    def _delete(self, key: str) -> None:
        self._record("delete", key)
        self.inner.delete(key)

    def _set_many(self, items: list[tuple[str, bytes]]) -> None:
        self._record("set_many", [key for key, _ in items])
        self.inner.set_many(items)

    def _delete_many(self, keys: list[str]) -> None:
        self._record("delete_many", list(keys))
        self.inner.delete_many(keys)

    def _get_versioned(self, key: str) -> tuple[bytes | None, Any]:
        self._record("get_versioned", key)
        return self.inner.get_versioned(key)

    def get_versioned_many(self, keys: Sequence[str]) -> list[tuple[bytes | None, Any]]:
        self._record("get_versioned_many", list(keys))
        return self.inner.get_versioned_many(keys)

    def _get_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        self._record("get_ranges", (key, list(ranges)))
        return self.inner.get_ranges(key, ranges, if_generation=if_generation)

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        self._record("set_if", key)
        return self.inner.set_if(key, value, if_generation=if_generation)

    def _delete_if(self, key: str, if_generation: Any) -> None:
        self._record("delete_if", key)
        self.inner.delete_if(key, if_generation=if_generation)

    def erase_prefix(self, prefix: str) -> None:
        self._record("erase_prefix", prefix)
        self.inner.erase_prefix(prefix)

    def list_prefix(self, prefix: str) -> Iterator[str]:
        self._record("list_prefix", prefix)
        return self.inner.list_prefix(prefix)

    def list_dir(self, prefix: str) -> ListDirResult:
        self._record("list_dir", prefix)
        return self.inner.list_dir(prefix)

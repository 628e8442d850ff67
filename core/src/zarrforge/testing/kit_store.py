"""The conformance kit's own in-memory store, so the kit needs no store plugin.

:class:`KitMemoryStore` is a dictionary with a lock: whole and byte-range reads,
listings, and conditional writes (a generation is a number drawn from a counter
at each write), which the format suites' racing-writer tests need. It is for the
kit's scratch hierarchies, not for users: zarrforge-std's ``MemoryStore`` is the
store to use (URLs, named stores, read-only views).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from typing import Any

from ..abc.store import ABSENT, ByteRange, Store, StoreCapabilities, validate_key, validate_prefix
from ..errors import ConflictError

_writes = itertools.count(1)


class KitMemoryStore(Store):
    capabilities = StoreCapabilities(
        writable=True,
        listable=True,
        partial_reads=True,
        atomic_writes=True,
        low_latency=True,
        conditional_writes=True,
        versioned_ranges=True,
    )

    def __init__(self) -> None:
        super().__init__(read_only=False)
        self._data: dict[str, tuple[bytes, int]] = {}  # key -> (value, generation)
        self._lock = threading.Lock()

    def read_only_view(self) -> KitMemoryStore:
        """A read-only store over the same data (writes through it are refused)."""
        view = KitMemoryStore()
        view.read_only = True
        view._data, view._lock = self._data, self._lock
        return view

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        validate_key(key)
        with self._lock:
            held = self._data.get(key)
        if held is None:
            return None
        return held[0] if byte_range is None else held[0][byte_range.slice_of(len(held[0]))]

    def _set(self, key: str, value: bytes) -> None:
        with self._lock:
            self._data[key] = (bytes(value), next(_writes))

    def _delete(self, key: str) -> None:
        with self._lock:
            self._data.pop(key, None)

    def list_prefix(self, prefix: str) -> Iterator[str]:
        validate_prefix(prefix)
        with self._lock:
            return iter(sorted(k for k in self._data if k.startswith(prefix)))

    def _get_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        with self._lock:
            held = self._data.get(key)
        generation = ABSENT if held is None else held[1]
        if if_generation is not None and generation != if_generation:
            raise ConflictError(f"{key!r} changed since it was read", key=key)
        if held is None:
            return None, ABSENT
        value = held[0]
        return [value if r is None else value[r.slice_of(len(value))] for r in ranges], generation

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        with self._lock:
            self._check(key, if_generation)
            generation = next(_writes)
            self._data[key] = (bytes(value), generation)
            return generation

    def _delete_if(self, key: str, if_generation: Any) -> None:
        with self._lock:
            self._check(key, if_generation)
            self._data.pop(key, None)

    def _check(self, key: str, expected: Any) -> None:
        held = self._data.get(key)
        if (ABSENT if held is None else held[1]) != expected:
            raise ConflictError(f"{key!r} changed since it was read", key=key)

    def __repr__(self) -> str:
        return f"KitMemoryStore({'read-only' if self.read_only else ''})"

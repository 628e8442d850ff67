"""An in-memory store, the embedded default.

``memory://`` gives a new, empty store; ``memory://<name>`` gives the store of
that name, shared by everything in this process that opens the same URL, so a
hierarchy can be created in one place and opened by URL in another. Values
are immutable ``bytes``; all operations are thread-safe.

Conditional writes: a value's generation is the stored ``bytes`` object itself,
compared by identity under the store's lock (a token holds the object, so its
identity cannot be reused while anyone can still present it).
"""

from __future__ import annotations

import threading
from typing import Any, Iterator

from zarrforge.errors import ConflictError
from zarrforge.plugin_api import (ABSENT, ByteRange, ListDirResult, Store, StoreCapabilities,
                                  validate_key, validate_prefix)

_named: dict[str, "MemoryStore"] = {}
_named_lock = threading.Lock()


class MemoryStore(Store):
    scheme = "memory"
    capabilities = StoreCapabilities(writable=True, listable=True, partial_reads=True,
                                     atomic_writes=True, low_latency=True, conditional_writes=True)

    def __init__(self, *, read_only: bool = False, name: str | None = None,
                 data: dict[str, bytes] | None = None) -> None:
        super().__init__(read_only=read_only)
        self.name = name
        self._data: dict[str, bytes] = data if data is not None else {}
        self._lock = threading.RLock()

    @classmethod
    def from_url(cls, url: str, *, read_only: bool = False, **options: Any) -> "MemoryStore":
        if options:
            raise TypeError(f"memory:// takes no storage options, got {sorted(options)}")
        name = url.partition("://")[2].strip("/")
        if not name:
            return cls(read_only=read_only)
        with _named_lock:
            shared = _named.setdefault(name, cls(name=name))
        # A read-only view shares the data but refuses writes.
        return cls(read_only=read_only, name=name, data=shared._data) if read_only else shared

    def __reduce__(self) -> Any:
        # The data lives in this process; a copy elsewhere would silently diverge.
        raise TypeError(f"{self!r} cannot be pickled: an in-memory store is not shared between "
                        "processes; use a local directory or a remote store for distributed work")

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        validate_key(key)
        with self._lock:
            value = self._data.get(key)
        if value is None or byte_range is None:
            return value
        return value[byte_range.slice_of(len(value))]

    def exists(self, key: str) -> bool:
        validate_key(key)
        return key in self._data

    def getsize(self, key: str) -> int | None:
        validate_key(key)
        value = self._data.get(key)
        return None if value is None else len(value)

    def _set(self, key: str, value: bytes) -> None:
        with self._lock:
            self._data[key] = value

    def _delete(self, key: str) -> None:
        with self._lock:
            self._data.pop(key, None)

    def _get_versioned(self, key: str) -> tuple[bytes | None, Any]:
        with self._lock:
            value = self._data.get(key)
        return value, (ABSENT if value is None else _Generation(value))

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        with self._lock:
            self._check_generation(key, if_generation)
            self._data[key] = value
        return _Generation(value)

    def _delete_if(self, key: str, if_generation: Any) -> None:
        with self._lock:
            self._check_generation(key, if_generation)
            self._data.pop(key, None)

    def _check_generation(self, key: str, expected: Any) -> None:
        current = self._data.get(key)
        if expected is ABSENT:
            matches = current is None
        else:
            matches = isinstance(expected, _Generation) and current is expected.value
        if not matches:
            raise ConflictError(f"{key!r} in {self!r} changed since it was read", key=key)

    def list_prefix(self, prefix: str) -> Iterator[str]:
        validate_prefix(prefix)
        with self._lock:
            keys = [k for k in self._data if k.startswith(prefix)]
        return iter(sorted(keys))

    def list_dir(self, prefix: str) -> ListDirResult:
        return super().list_dir(prefix)

    def __repr__(self) -> str:
        return f"MemoryStore({'memory://' + self.name if self.name else 'anonymous'})"


class _Generation:
    """A memory store value's generation: the stored object, compared by identity."""

    __slots__ = ("value",)

    def __init__(self, value: bytes) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Generation) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

    def __repr__(self) -> str:
        return f"<generation {id(self.value):#x}>"

"""An in-memory store, the embedded default.

``memory://`` gives a new, empty store; ``memory://<name>`` gives the store of
that name, shared by everything in this process that opens the same URL, so a
hierarchy can be created in one place and opened by URL in another. Values
are immutable ``bytes``; all operations are thread-safe.

Generations (conditional writes, ranges of one version): a number drawn from a
process-wide counter the first time a value is asked for its generation after it
was stored, so no two values ever share one. The store remembers the value each
number was given to and checks it by identity, so a value replaced through another
store object sharing the same data (a read-only view) gets a new number too. A
generation is a plain number: holding one keeps no value alive.

Its data location (``data_location``, for the engine's decoded-chunk cache) is a number
standing for its dict: every store object over one dict (a view, a dict passed as a
store twice) gets the same number while one of them lives, and a dict seen again after
all of them were collected gets a new one, so a number never names two dicts.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Hashable, Iterable, Iterator
from typing import Any

from zarrforge.errors import ConflictError, StoreArgumentError
from zarrforge.plugin_api.stores import (
    ABSENT,
    ByteRange,
    ListDirResult,
    Store,
    StoreCapabilities,
    validate_key,
    validate_prefix,
)

_named: dict[str, MemoryStore] = {}
_named_lock = threading.Lock()
_numbers = itertools.count(1)  # generations; next() on it is atomic under the GIL
# id(dict) -> [its location number, how many live store objects hold it]
_dict_locations: dict[int, list[int]] = {}
_dict_locations_lock = threading.Lock()


def _dict_location(store: MemoryStore) -> int:
    """The number naming ``store``'s dict (module docstring)."""
    ident = id(store._data)
    with _dict_locations_lock:
        held = _dict_locations.get(ident)
        if held is None:
            held = _dict_locations[ident] = [next(_numbers), 0]
        held[1] += 1
    weakref.finalize(store, _let_go, ident)
    return held[0]


def _let_go(ident: int) -> None:
    with _dict_locations_lock:
        held = _dict_locations.get(ident)
        if held is not None:
            held[1] -= 1
            if held[1] <= 0:
                del _dict_locations[ident]


def _checked_backing(given: Any, field: str) -> dict[str, bytes]:
    """``given`` as the live dict of a store, or a refusal naming ``field`` and what in it
    is not a ``dict`` of ``str`` keys and ``bytes`` values."""
    if not isinstance(given, dict):
        raise StoreArgumentError(
            f"MemoryStore({field}=...) takes a dict of str keys and bytes values, got "
            f"{type(given).__module__}.{type(given).__qualname__}; another mapping is a store "
            "of its own (pass it as the store to open_group, create_array...)"
        )
    for key, value in given.items():
        if not isinstance(key, str) or not isinstance(value, bytes):
            raise StoreArgumentError(
                f"MemoryStore({field}=...) takes a dict of str keys and bytes values; its key "
                f"{key!r} holds a {type(value).__module__}.{type(value).__qualname__}"
                + ("" if isinstance(key, str) else " (and the key is not a str)")
                + " (a zarr-python store's dict holds Buffers: pass "
                "{key: buffer.to_bytes() for key, buffer in its_dict.items()})"
            )
    return given


class MemoryStore(Store):
    scheme = "memory"
    capabilities = StoreCapabilities(
        writable=True,
        listable=True,
        partial_reads=True,
        atomic_writes=True,
        low_latency=True,
        conditional_writes=True,
        versioned_ranges=True,
    )

    def __init__(
        self,
        store_dict: dict[str, bytes] | None = None,
        *,
        read_only: bool = False,
        name: str | None = None,
        data: dict[str, bytes] | None = None,
    ) -> None:
        if store_dict is not None and data is not None:
            raise StoreArgumentError(
                "MemoryStore takes its dict once: as store_dict "
                "(zarr-python's name, the first argument) or as data=, "
                "not both"
            )
        super().__init__(read_only=read_only)
        self.name = name
        # zarr-python's form (a user's dict, given once) is checked whole; data= is the
        # store's own path (a dict passed as a store, a read-only view of a named store),
        # taken as it is, since it runs at every open and a scan would cost every key
        self._data: dict[str, bytes] = (
            _checked_backing(store_dict, "store_dict")
            if store_dict is not None
            else data
            if data is not None
            else {}
        )
        self._lock = threading.RLock()
        self._generations: dict[str, tuple[bytes, int]] = {}  # key -> (value, its number)
        self._location: int | None = None  # data_location's number, drawn at first use

    @classmethod
    def from_url(cls, url: str, *, read_only: bool = False, **options: Any) -> MemoryStore:
        if options:
            raise TypeError(f"memory:// takes no storage options, got {sorted(options)}")
        name = url.partition("://")[2].strip("/")
        if not name:
            return cls(read_only=read_only)
        with _named_lock:
            shared = _named.setdefault(name, cls(name=name))
        if not read_only:
            return shared
        # A read-only view shares the data (and its lock and generations) but refuses writes.
        view = cls(read_only=True, name=name, data=shared._data)
        view._lock, view._generations = shared._lock, shared._generations
        return view

    def __reduce__(self) -> Any:
        # The data lives in this process; a copy elsewhere would silently diverge.
        raise TypeError(
            f"{self!r} cannot be pickled: an in-memory store is not shared between "
            "processes; use a local directory or a remote store for distributed work"
        )

    def data_location(self) -> tuple[Hashable, str]:
        location = self._location
        if location is None:
            location = self._location = _dict_location(self)
        return ("memory", location), ""

    def __eq__(self, other: object) -> bool:
        # two stores over one dict (a dict passed as a store twice) are the same store
        if not isinstance(other, MemoryStore):
            return NotImplemented
        return other._data is self._data and other.read_only == self.read_only

    def __hash__(self) -> int:
        return id(self._data)

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
            self._generations.pop(key, None)

    def set_many(self, items: Iterable[tuple[str, bytes | bytearray | memoryview]]) -> None:
        if type(self) is not MemoryStore:  # a subclass sees each key through set and _set
            super().set_many(items)
            return
        # checked first, then stored under one hold of the lock: a batch of chunks is
        # one step here, not one per chunk
        checked = [
            (validate_key(key), value if type(value) is bytes else bytes(value)) for key, value in items
        ]
        if not checked:
            return
        self._check_writable(checked[0][0])
        with self._lock:
            for key, value in checked:
                self._data[key] = value
                self._generations.pop(key, None)

    def _delete(self, key: str) -> None:
        with self._lock:
            self._data.pop(key, None)
            self._generations.pop(key, None)

    def _generation(self, key: str, value: bytes | None) -> Any:
        """The generation of ``value``, the value at ``key`` now (call under the lock)."""
        if value is None:
            return ABSENT
        known = self._generations.get(key)
        if known is not None and known[0] is value:
            return known[1]
        number = next(_numbers)
        self._generations[key] = (value, number)
        return number

    def _get_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        with self._lock:
            value = self._data.get(key)
            generation = self._generation(key, value)
        if if_generation is not None and generation != if_generation:
            raise ConflictError(f"{key!r} in {self!r} changed since it was read", key=key)
        if value is None:
            return None, ABSENT
        size = len(value)
        return [value if r is None else value[r.slice_of(size)] for r in ranges], generation

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        with self._lock:
            self._check_generation(key, if_generation)
            self._data[key] = value
            self._generations.pop(key, None)
            return self._generation(key, value)

    def _delete_if(self, key: str, if_generation: Any) -> None:
        with self._lock:
            self._check_generation(key, if_generation)
            self._data.pop(key, None)
            self._generations.pop(key, None)

    def _check_generation(self, key: str, expected: Any) -> None:
        if self._generation(key, self._data.get(key)) != expected:
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

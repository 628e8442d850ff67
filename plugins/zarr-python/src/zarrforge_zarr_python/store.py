"""A zarr-python 3 ``Store`` (``zarr.abc.store.Store``) as a zarrforge store.

zarr-python's stores are asynchronous; zarrforge's contract is synchronous. Each call
runs the store's coroutines on zarr-python's own event loop (``zarr.core.sync.sync``),
the loop its stores are made for (an Icechunk session's store included), and a batch
(``get_many``, ``set_many``, ``delete_many``) is one call that gathers every request,
so a remote store overlaps them as zarr-python itself does.

What maps to what:

* keys are the same strings, below ``prefix`` when one is given (a zarr-python
  ``StorePath`` is its store with its path as the prefix); byte ranges become zarr's ``RangeByteRequest`` (offset
  and length), ``OffsetByteRequest`` (offset only) and ``SuffixByteRequest`` (the last
  ``length`` bytes);
* ``capabilities.writable`` is the wrapped store's ``supports_writes`` (and deleting
  needs ``supports_deletes``); ``listable`` is ``supports_listing``;
* the adapter is read-only when asked to be or when the wrapped store is;
* there are no conditional writes (zarr-python's store API has no generations), so
  the chunk engine's read-modify-writes on this store are plain reads and writes:
  concurrent writers to one chunk through it can lose an update. Icechunk settles
  conflicts itself, when a session commits;
* deleting a key that is not there is not an error, as zarrforge's contract says;
* ``bookkeeping_keys`` is false: a zarr-python store may refuse keys that are not
  Zarr's (an Icechunk session does), so writes through the adapter leave no
  unfinished-write marker (:mod:`zarrforge.storing.unfinished`); an Icechunk session needs none,
  as what a killed writer wrote is never committed.

The adapter pickles when the wrapped store does (an Icechunk session's store does
not travel to other processes by pickling alone; Icechunk's own fork/merge API is
the way to write from several processes).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from zarrforge.abc.store import Store
from zarrforge.abc.store_values import ByteRange, ListDirResult, StoreCapabilities, validate_key
from zarrforge.errors import StoreError

T = TypeVar("T")


def _zarr() -> tuple[Any, Any, Any, Any, Any]:
    """zarr's pieces, imported when the first store is made (the hook already saw zarr
    imported, so this costs nothing then)."""
    from zarr.abc.store import OffsetByteRequest, RangeByteRequest, SuffixByteRequest
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.sync import sync

    return sync, default_buffer_prototype(), RangeByteRequest, OffsetByteRequest, SuffixByteRequest


class ZarrPythonStore(Store):
    """zarrforge's store contract over the zarr-python store ``inner``."""

    scheme = "zarr-python"

    def __init__(self, inner: Any, *, read_only: bool = False, prefix: str = "") -> None:
        super().__init__(read_only=read_only or bool(getattr(inner, "read_only", False)))
        self.inner = inner
        self.prefix = prefix.strip("/")
        self._below = f"{self.prefix}/" if self.prefix else ""
        (self._sync, self._prototype, self._range, self._offset, self._suffix) = _zarr()
        writable = bool(inner.supports_writes) and not self.read_only
        self.capabilities = StoreCapabilities(
            writable=writable,
            listable=bool(inner.supports_listing),
            partial_reads=True,
            atomic_writes=False,
            independent_keys=True,
            low_latency=False,
            conditional_writes=False,
            bookkeeping_keys=False,
        )

    def __repr__(self) -> str:
        mode = ", read-only" if self.read_only else ""
        below = f", prefix={self.prefix!r}" if self.prefix else ""
        return f"ZarrPythonStore({self.inner!r}{below}{mode})"

    def __eq__(self, other: object) -> bool:
        # two adapters of one zarr-python store (passed in twice) are the same store;
        # zarr-python's stores compare by what they hold
        if not isinstance(other, ZarrPythonStore):
            return NotImplemented
        return (
            other.prefix == self.prefix
            and other.read_only == self.read_only
            and (other.inner is self.inner or other.inner == self.inner)
        )

    def __hash__(self) -> int:
        return hash((type(self.inner).__name__, self.prefix))

    def __getstate__(self) -> dict[str, Any]:
        return {"inner": self.inner, "read_only": self.read_only, "prefix": self.prefix}

    def __setstate__(self, state: dict[str, Any]) -> None:
        type(self).__init__(
            self, state["inner"], read_only=state["read_only"], prefix=state.get("prefix", "")
        )

    # --- running zarr-python's coroutines ---------------------------------------------

    def _run(self, coroutine: Coroutine[Any, Any, T], what: str, key: str | None = None) -> T:
        try:
            result: T = self._sync(coroutine)
            return result
        except StoreError:
            raise
        except Exception as error:  # any store's own errors (IcechunkError, say): named, not bare
            raise StoreError(
                f"{what} failed in the zarr-python store {self.inner!r}: {type(error).__name__}: {error}",
                key=key,
            ) from error

    def _request(self, byte_range: ByteRange | None) -> Any:
        if byte_range is None:
            return None
        if byte_range.offset is None:
            return self._suffix(byte_range.length)
        if byte_range.length is None:
            return self._offset(byte_range.offset)
        return self._range(byte_range.offset, byte_range.offset + byte_range.length)

    async def _get(self, key: str, byte_range: ByteRange | None) -> bytes | None:
        key = self._below + key
        if byte_range is not None and byte_range.length == 0:
            return b"" if await self.inner.exists(key) else None
        buffer = await self.inner.get(key, self._prototype, self._request(byte_range))
        return None if buffer is None else buffer.to_bytes()

    # --- reading ------------------------------------------------------------------------

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        validate_key(key)
        return self._run(self._get(key, byte_range), f"reading {key!r}", key)

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        async def every() -> list[bytes | None]:
            return list(await asyncio.gather(*(self._get(k, r) for k, r in requests)))

        if not requests:
            return []
        for key, _ in requests:
            validate_key(key)
        return self._run(every(), f"reading {len(requests)} keys", requests[0][0])

    def exists(self, key: str) -> bool:
        validate_key(key)
        return bool(self._run(self.inner.exists(self._below + key), f"looking for {key!r}", key))

    def list_prefix(self, prefix: str) -> Iterator[str]:
        async def every() -> list[str]:
            skip = len(self._below)
            return [key[skip:] async for key in self.inner.list_prefix(self._below + prefix)]

        return iter(sorted(self._run(every(), f"listing {prefix!r}")))

    def list_dir(self, prefix: str) -> ListDirResult:
        keys: set[str] = set()
        prefixes: set[str] = set()
        for key in self.list_prefix(prefix):
            head, slash, _ = key[len(prefix) :].partition("/")
            (prefixes if slash else keys).add(head + slash)
        return ListDirResult(keys=sorted(keys), prefixes=sorted(prefixes))

    # --- writing ------------------------------------------------------------------------

    def _buffer(self, value: bytes | bytearray | memoryview) -> Any:
        return self._prototype.buffer.from_bytes(bytes(value))

    def _set(self, key: str, value: bytes) -> None:
        self._run(self.inner.set(self._below + key, self._buffer(value)), f"writing {key!r}", key)

    def _set_many(self, items: list[tuple[str, bytes | bytearray | memoryview]]) -> None:
        async def every() -> None:
            await asyncio.gather(*(self.inner.set(self._below + k, self._buffer(v)) for k, v in items))

        if items:
            self._run(every(), f"writing {len(items)} keys", items[0][0])

    def set_many(self, items: Iterable[tuple[str, bytes | bytearray | memoryview]]) -> None:
        items = [(validate_key(key), value) for key, value in items]
        for key, _ in items:
            self._check_writable(key)
        self._set_many(items)

    async def _delete_one(self, key: str) -> None:
        if not self.inner.supports_deletes:
            raise StoreError(f"the zarr-python store {self.inner!r} does not delete keys", key=key)
        if await self.inner.exists(self._below + key):
            await self.inner.delete(self._below + key)

    def _delete(self, key: str) -> None:
        self._run(self._delete_one(key), f"deleting {key!r}", key)

    def delete_many(self, keys: Iterable[str]) -> None:
        keys = [validate_key(key) for key in keys]
        for key in keys:
            self._check_writable(key)

        async def every() -> None:
            await asyncio.gather(*(self._delete_one(key) for key in keys))

        if keys:
            self._run(every(), f"deleting {len(keys)} keys", keys[0])

    def close(self) -> None:
        pass  # the wrapped store belongs to the caller (a session, a zarr group)

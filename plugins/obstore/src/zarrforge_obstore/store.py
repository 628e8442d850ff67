"""A zarrforge store over an obstore store (S3, GCS, Azure, HTTP, local, memory).

URLs: ``obstore+<url>``, where ``<url>`` is any URL ``obstore.store.from_url`` takes
(``s3://bucket/prefix``, ``gs://``, ``az://``, ``https://host/path``, ``file:///path``,
``memory:///``). Keys are paths below the URL's prefix.

Batches: ``get_many``, ``set_many`` and ``delete_many`` run their requests
concurrently on one event loop (:mod:`.loop`), at most ``concurrency`` in flight
(default 64); several byte ranges of one object are read with one ``get_ranges``
call, which coalesces nearby ranges into fewer requests (the shard-index and
inner-chunk reads of a sharded array). Byte ranges follow zarrforge's contract:
a range reaching past the end of a value is cut at the end, one starting past the end
reads empty.

Capabilities: writable unless opened read-only or over HTTP (read-only and not
listable); ``atomic_writes`` (object stores replace a value whole);
``versioned_ranges`` except over HTTP: ``get_ranges`` asks for every range at once,
with ``If-Match: <e_tag>`` when given a generation (the e_tag), else comparing the
answers' e_tags and reading again when they differ. No conditional
writes: obstore has conditional puts (``If-Match``/``If-None-Match``) but no
conditional delete, which the contract's ``delete_if`` needs, so the chunk engine's
read-modify-writes on this store are plain reads and writes (see docs/stores.md).
Bounded reads (:mod:`zarrforge.abc.store`, "Bounded reads"): every body is refused on
the length its answer declares when that is over
:func:`~zarrforge.abc.store.read_limit` of the key (``config.max_document_bytes`` for a
metadata document, ``config.max_chunk_bytes`` otherwise), else read in pieces and
refused once past it, with :class:`~zarrforge.errors.DocumentTooLargeError` or
:class:`~zarrforge.errors.ResourceLimitError` naming the key and the setting.
zarr-python's form: ``ObstoreStore(store, *, read_only=False)`` (``zarrforge.storage.ObjectStore``)
wraps an obstore store object (``obstore.store.MemoryStore()``, ``S3Store(...)``), passed
first or as ``store=``; such a store cannot be pickled (it has no URL to reopen).
Missing keys read as ``None``; deleting a missing key is not an error. Backend
failures other than "not found" raise :class:`~zarrforge.errors.StoreError` naming
the key and the URL.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Coroutine, Iterable, Iterator, Sequence
from typing import Any

from zarrforge.abc.read_limits import read_limit
from zarrforge.abc.store import Store
from zarrforge.abc.store_values import (
    ABSENT,
    ByteRange,
    ListDirResult,
    StoreCapabilities,
    validate_key,
    validate_prefix,
)
from zarrforge.errors import ConflictError, StoreError, ZarrforgeError
from zarrforge.plugin_api.stores import versions

from . import loop

PREFIX = "obstore+"
SETTINGS = ("concurrency",)


def _obstore() -> Any:  # the obstore module, imported on first use
    import obstore

    return obstore


class ObstoreStore(Store):
    scheme = "obstore"

    def __init__(
        self,
        inner: Any = None,
        *,
        store: Any = None,
        url: str = "",
        read_only: bool = False,
        concurrency: int = 64,
        _rebuild: tuple[Any, ...] | None = None,
    ) -> None:
        if (inner is None) == (store is None):
            raise TypeError(
                "ObstoreStore takes one obstore store object: first, or as store= "
                "(zarr-python's name)" + (", not both" if inner is not None else "")
            )
        inner = store if inner is None else inner
        if isinstance(inner, (str, bytes)) or isinstance(inner, Store):
            raise TypeError(
                f"ObstoreStore(store=...) takes an obstore store object "
                f"(obstore.store.MemoryStore(), S3Store(...)), got {inner!r:.80}; "
                "for a URL use ObstoreStore.from_url(url)"
            )
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be a positive int, got {concurrency!r}")
        http = url.split("://", 1)[0] in ("http", "https")
        super().__init__(read_only=read_only or http)
        self.inner = inner
        self.url = url
        self.concurrency = concurrency
        local = url.startswith(("memory:", "file:")) or (
            not url
            and type(inner).__module__.startswith("obstore")
            and type(inner).__name__ in ("MemoryStore", "LocalStore")
        )
        self.capabilities = StoreCapabilities(
            writable=not http,
            listable=not http,
            partial_reads=True,
            atomic_writes=True,
            independent_keys=True,
            low_latency=local,
            conditional_writes=False,
            versioned_ranges=not http,
        )
        self._rebuild = _rebuild  # (url, options) for pickling

    @classmethod
    def from_url(cls, url: str, *, read_only: bool = False, **options: Any) -> ObstoreStore:
        target = url[len(PREFIX) :] if url.startswith(PREFIX) else url
        settings = {name: options.pop(name) for name in SETTINGS if name in options}
        obstore = _obstore()
        try:
            inner = obstore.store.from_url(target, **options)
        except (ValueError, TypeError, obstore.exceptions.BaseError) as error:
            raise StoreError(
                f"obstore cannot open {target!r} with storage_options "
                f"{sorted(options)}: {str(error).splitlines()[0]}",
                url=target,
            ) from error
        return cls(inner, url=target, read_only=read_only, **settings, _rebuild=(url, options))

    def __repr__(self) -> str:
        mode = ", read-only" if self.read_only else ""
        return f"ObstoreStore({self.url or self.inner!r}{mode})"

    def __getstate__(self) -> dict[str, Any]:
        if self._rebuild is None:
            raise TypeError(
                "an ObstoreStore built from an obstore object cannot be pickled; "
                "open it with ObstoreStore.from_url to send it to other processes"
            )
        return {"rebuild": self._rebuild, "read_only": self.read_only, "concurrency": self.concurrency}

    def __setstate__(self, state: dict[str, Any]) -> None:
        url, options = state["rebuild"]
        fresh = type(self).from_url(
            url, read_only=state["read_only"], concurrency=state["concurrency"], **options
        )
        self.__dict__.update(fresh.__dict__)

    # --- errors ---------------------------------------------------------------------------

    def _failed(self, what: str, key: str, error: BaseException) -> StoreError:
        return StoreError(
            f"{what} {key!r} failed on {self.url or self.inner!r}: "
            f"{type(error).__name__}: {str(error).splitlines()[0]}",
            key=key,
            url=self.url or None,
        )

    # --- reading --------------------------------------------------------------------------

    @staticmethod
    async def _body(key: str, result: Any, wanted: int | None = None) -> bytes:
        """The body of ``result`` under the key's read limit (module docstring): refused
        on the length the answer declares before reading, else read in pieces and
        refused once past the limit; ``wanted``: the bytes needed, the rest unread."""
        bound = read_limit(key)
        start, end = result.range
        if wanted is None or wanted > end - start:
            bound.check(end - start, declared=True)
        body = bound.collector(wanted=wanted)
        async for piece in result.stream(min_chunk_size=body.PIECE):
            if body.add(memoryview(piece)):
                break
        return body.value()

    async def _whole(self, key: str) -> bytes | None:
        obstore = _obstore()
        try:
            result = await obstore.get_async(self.inner, key)
            return await self._body(key, result)
        except ZarrforgeError:
            raise  # the read limit's refusal
        except FileNotFoundError:
            return None
        except Exception as error:  # obstore's errors become StoreError
            raise self._failed("reading", key, error) from error

    async def _ranges(self, key: str, ranges: list[ByteRange]) -> list[bytes | None]:
        """Several ranges of one value; one ``get_ranges`` when every range has an offset
        and a length and lies inside the value, else each range on its own, all at once."""
        obstore = _obstore()
        spans = [(r.offset, r.length) for r in ranges if r.offset is not None and r.length is not None]
        if len(spans) == len(ranges) and len(ranges) > 1:
            try:
                bound = read_limit(key)
                for _, length in spans:  # each range holds what it asks for, within the limit
                    bound.check(length, declared=True)
                found = await obstore.get_ranges_async(
                    self.inner,
                    key,
                    starts=[offset for offset, _ in spans],
                    ends=[offset + length for offset, length in spans],
                )
                return [bytes(piece) for piece in found]
            except ZarrforgeError:
                raise
            except FileNotFoundError:
                return [None] * len(ranges)
            except Exception:  # noqa: BLE001  # a range past the end: cut each one below
                pass
        # concurrently: a suffix (a shard's index) and the ranges it names, asked for in
        # one batch, cost one round trip, not one each
        return list(await asyncio.gather(*(self._range(key, r) for r in ranges)))

    async def _range(self, key: str, byte_range: ByteRange) -> bytes | None:
        obstore = _obstore()
        if byte_range.offset is None:
            request: Any = {"suffix": byte_range.length}
        elif byte_range.length is None:
            request = {"offset": byte_range.offset}
        else:
            request = (byte_range.offset, byte_range.offset + byte_range.length)
        if byte_range.length == 0:
            value = await self._whole(key)
            return None if value is None else b""
        try:
            result = await obstore.get_async(self.inner, key, options={"range": request})
            return await self._body(key, result, byte_range.length)
        except ZarrforgeError:
            raise  # the read limit's refusal
        except FileNotFoundError:
            return None
        except Exception as error:  # out of range: cut it as the contract says
            if "range" not in str(error).lower():
                raise self._failed("reading", key, error) from error
            value = await self._whole(key)
            return None if value is None else value[byte_range.slice_of(len(value))]

    async def _versioned(
        self, key: str, byte_range: ByteRange | None, if_match: Any
    ) -> tuple[bytes | None, Any]:
        """One range (``None``: the whole value) with its version's e_tag; ``(None,
        ABSENT)`` when missing; with ``if_match``, ``ConflictError`` for another version."""
        obstore = _obstore()
        options: dict[str, Any] = {}
        if byte_range is not None and byte_range.length != 0:
            if byte_range.offset is None:
                options["range"] = {"suffix": byte_range.length}
            elif byte_range.length is None:
                options["range"] = {"offset": byte_range.offset}
            else:
                options["range"] = (byte_range.offset, byte_range.offset + byte_range.length)
        if if_match is not None:
            options["if_match"] = if_match
        try:
            result = await obstore.get_async(self.inner, key, options=options)
            data = await self._body(key, result, None if byte_range is None else byte_range.length)
            etag = result.meta["e_tag"]
        except ZarrforgeError:
            raise  # the read limit's refusal
        except FileNotFoundError:
            return None, ABSENT
        except obstore.exceptions.PreconditionError as error:
            raise ConflictError(
                f"{key!r} on {self.url or self.inner!r} is no longer version "
                f"{if_match}: another writer changed it",
                key=key,
                url=self.url or None,
            ) from error
        except Exception as error:  # out of range: cut it as the contract says
            if "range" not in str(error).lower() or byte_range is None:
                raise self._failed("reading", key, error) from error
            whole, etag = await self._versioned(key, None, if_match)
            return (None if whole is None else whole[byte_range.slice_of(len(whole))]), etag
        if byte_range is not None and byte_range.length == 0:
            data = b""
        return data, etag

    async def _versioned_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        pinned = None if if_generation is ABSENT else if_generation
        url = self.url or None
        for _ in range(versions.TRIES):
            answers = await asyncio.gather(*(self._versioned(key, r, pinned) for r in ranges))
            settled = versions.one_version(answers, if_generation, key=key, url=url)
            # every answer names its e_tag here: one naming none is read again
            if settled is not None and (settled[0] is None or settled[1] is not None):
                return settled
        raise versions.still_changing(key, len(ranges), url)

    def _get_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        return loop.run(self._versioned_ranges(key, ranges, if_generation))

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        validate_key(key)
        if byte_range is None:
            return loop.run(self._whole(key))
        return loop.run(self._ranges(key, [byte_range]))[0]

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        for key, _ in requests:
            validate_key(key)
        results: list[bytes | None] = [None] * len(requests)
        whole: list[tuple[int, str]] = []
        ranged: dict[str, list[tuple[int, ByteRange]]] = defaultdict(list)
        for index, (key, byte_range) in enumerate(requests):
            if byte_range is None:
                whole.append((index, key))
            else:
                ranged[key].append((index, byte_range))

        async def every() -> None:
            limit = asyncio.Semaphore(self.concurrency)

            async def one(index: int, key: str) -> None:
                async with limit:
                    results[index] = await self._whole(key)

            async def several(key: str, wanted: list[tuple[int, ByteRange]]) -> None:
                async with limit:
                    found = await self._ranges(key, [r for _, r in wanted])
                for (index, _), value in zip(wanted, found):
                    results[index] = value

            await asyncio.gather(*(one(i, k) for i, k in whole), *(several(k, w) for k, w in ranged.items()))

        if requests:
            loop.run(every())
        return results

    def exists(self, key: str) -> bool:
        validate_key(key)

        async def head() -> bool:
            try:
                await _obstore().head_async(self.inner, key)
                return True
            except FileNotFoundError:
                return False
            except Exception as error:
                raise self._failed("looking for", key, error) from error

        result: bool = loop.run(head())
        return result

    def list_prefix(self, prefix: str) -> Iterator[str]:
        try:
            batches = list(_obstore().list(self.inner, prefix or None))
        except Exception as error:
            raise self._failed("listing", prefix, error) from error
        return iter(
            sorted(meta["path"] for batch in batches for meta in batch if meta["path"].startswith(prefix))
        )

    def list_dir(self, prefix: str) -> ListDirResult:
        validate_prefix(prefix)
        try:
            found = _obstore().list_with_delimiter(self.inner, prefix.rstrip("/") or None)
        except Exception as error:
            raise self._failed("listing", prefix, error) from error
        keys = sorted(
            meta["path"][len(prefix) :] for meta in found["objects"] if meta["path"].startswith(prefix)
        )
        prefixes = sorted(
            p[len(prefix) :].rstrip("/") + "/" for p in found["common_prefixes"] if p.startswith(prefix)
        )
        return ListDirResult(keys=keys, prefixes=prefixes)

    # --- writing --------------------------------------------------------------------------

    async def _put(self, key: str, value: bytes) -> None:
        try:
            await _obstore().put_async(self.inner, key, value)
        except Exception as error:
            raise self._failed("writing", key, error) from error

    async def _remove(self, key: str) -> None:
        try:
            await _obstore().delete_async(self.inner, key)
        except FileNotFoundError:
            pass
        except Exception as error:
            raise self._failed("deleting", key, error) from error

    def _set(self, key: str, value: bytes) -> None:
        loop.run(self._put(key, value))

    def _delete(self, key: str) -> None:
        loop.run(self._remove(key))

    def _bounded(self, coroutines: list[Coroutine[Any, Any, Any]]) -> None:
        async def every() -> None:
            limit = asyncio.Semaphore(self.concurrency)

            async def one(coroutine: Any) -> None:
                async with limit:
                    await coroutine

            await asyncio.gather(*(one(c) for c in coroutines))

        if coroutines:
            loop.run(every())

    def set_many(self, items: Iterable[tuple[str, bytes | bytearray | memoryview]]) -> None:
        checked = [(validate_key(key), bytes(value)) for key, value in items]
        for key, _ in checked[:1]:
            self._check_writable(key)
        self._bounded([self._put(key, value) for key, value in checked])

    def delete_many(self, keys: Iterable[str]) -> None:
        keys = [validate_key(key) for key in keys]
        for key in keys[:1]:
            self._check_writable(key)
        self._bounded([self._remove(key) for key in keys])

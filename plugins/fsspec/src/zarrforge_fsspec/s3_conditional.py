"""Conditional writes on S3 (``If-Match`` / ``If-None-Match``) for the fsspec store.

Used by :class:`~zarrforge_fsspec.store.FsspecStore` on ``s3://`` (s3fs). The
contract is the store ABC's (``get_versioned``, ``set_if``, ``delete_if``); on
S3 it is kept this way:

* a value's **generation** is its ETag, as S3 returns it (quoted);
* ``get_versioned``: one ``GetObject``, whose answer carries body and ETag;
* ``set_if(key, value, if_generation=ABSENT)``: ``PutObject`` with
  ``If-None-Match: *``; with an ETag: ``PutObject`` with ``If-Match: <etag>``.
  S3 checks and writes in one step;
* ``delete_if(key, if_generation=etag)``: ``DeleteObject`` with
  ``If-Match: <etag>``; ``delete_if(key, if_generation=ABSENT)`` only checks
  that the key is absent (``HeadObject``): deleting nothing needs no write;
* S3's answers ``412 PreconditionFailed``, ``409 ConditionalRequestConflict``
  (a concurrent conditional write) and ``404`` for an ``If-Match`` on a key
  that is gone are :class:`~zarrforge.errors.ConflictError`; other failures
  are retried and named like every request of the store;
* ``get_ranges`` (ranges of one version): one ``GetObject`` per range, all at
  once; with a generation, each carries ``If-Match: <etag>`` (a ``412`` is a
  :class:`~zarrforge.errors.ConflictError`); without one, the answers' ETags
  must all be equal, else the ranges are read again (a few times, then
  ``ConflictError``). A range past the end is answered ``416`` without an ETag:
  it is taken as part of the version the other answers name only when that
  version's size (their ``Content-Range``) ends before it, else read again, and
  when no answer names the ETag a ``HeadObject`` (``If-Match`` too) names it, its
  size checked the same way. So the empty answer of a newer, shorter object is
  never combined with the older object's bytes;
* **an ambiguous outcome is settled**: a conditional write whose first attempt
  failed transiently (a timeout: it may have been applied) and whose retry
  then meets a conflict reads the key; if it holds exactly the bytes written,
  the earlier attempt succeeded and the write returns its ETag.

An ETag is a digest of the content, so a value changed and changed back has its
first generation again; a read-modify-write against it is still correct (the value
is the one it read).

**Which servers.** AWS S3 has both conditions since 2024; S3-compatible servers
vary, and one that ignores the headers would make every conditional write
silently unconditional. So :func:`probe` checks a bucket once per process
before the store declares conditional writes: it writes a temporary object
(``<root>/.zarrforge-tmp-probe-*``, never listed) with ``If-None-Match: *``
twice and once with a wrong ``If-Match``, expects the last two refused, and
deletes it. The store setting ``conditional_writes`` (``None``: probe, the
default; ``True``: trust without probing; ``False``: never) overrides it.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from zarrforge.abc.read_limits import read_limit
from zarrforge.abc.store_values import ABSENT
from zarrforge.errors import ConflictError
from zarrforge.plugin_api.stores import versions

from .faults import GaveUp, _chain, _error_code, _status, is_invalid_range, is_missing, is_refused

CONFLICT_CODES = frozenset({"PreconditionFailed", "ConditionalRequestConflict"})
_probed: dict[tuple[Any, str], bool] = {}
_probe_lock = threading.Lock()
# A read's answer: (bytes or None when missing, the version's ETag or ABSENT, its size or None)
_Answer = tuple[bytes | None, Any, int | None]


def _object_size(answer: dict[str, Any], read: int) -> int | None:
    """The whole object's size from a ``GetObject`` answer: the total of its
    ``Content-Range`` (``bytes 0-9/100``), else (no range asked) the bytes read."""
    content_range = answer.get("ContentRange")
    if not content_range:
        return read
    total = content_range.rpartition("/")[2]
    return int(total) if total.isdigit() else None


def is_conflict(exc: BaseException) -> bool:
    """S3 refused a condition (412) or a concurrent conditional write won (409)."""
    return any(_error_code(link) in CONFLICT_CODES or _status(link) in (409, 412) for link in _chain(exc))


class S3Conditions:
    """The conditional requests of one store; ``store`` supplies paths, the request
    runner (retries, timeouts, the concurrency bound) and the filesystem."""

    def __init__(self, store: Any, temp_prefix: str) -> None:
        self.store = store
        self.fs = store.fs
        self.temp_prefix = temp_prefix  # names the store never lists

    def _location(self, key: str) -> tuple[str, str]:
        bucket, path, _ = self.fs.split_path(self.store._path(key))
        return bucket, path

    # --- reads --------------------------------------------------------------------------

    async def get_versioned(self, key: str) -> tuple[bytes | None, Any]:
        """One ``GetObject``, whose answer carries body and ETag."""
        data, etag, _ = await self._get_range(key, None, None)
        return data, etag

    async def _get_range(
        self, key: str, byte_range: Any, if_match: Any
    ) -> tuple[bytes | None, Any, int | None]:
        """One ``GetObject`` of ``byte_range`` (``None``: the whole value; never an empty
        range), with ``If-Match`` when given: ``(bytes, ETag, size of that version)``,
        ``(None, ABSENT, None)`` when missing, and ``(b"", PastEnd(offset), None)`` for a
        range starting at or past the end (S3's ``416`` names no ETag)."""
        bucket, path = self._location(key)
        bound = read_limit(key)
        options: dict[str, Any] = {}
        if byte_range is not None:
            if byte_range.offset is None:
                options["Range"] = f"bytes=-{byte_range.length}"
            elif byte_range.length is None:
                options["Range"] = f"bytes={byte_range.offset}-"
            else:
                options["Range"] = f"bytes={byte_range.offset}-{byte_range.offset + byte_range.length - 1}"
        if if_match is not None:
            options["IfMatch"] = if_match
        past_end = versions.PastEnd(
            0 if byte_range is None or byte_range.offset is None else byte_range.offset
        )

        async def get() -> tuple[bytes | None, Any, int | None]:
            try:
                answer = await self.fs._call_s3("get_object", Bucket=bucket, Key=path, **options)
            except Exception as exc:
                if is_missing(exc):
                    return None, ABSENT, None
                if is_invalid_range(exc):
                    return b"", past_end, None
                raise
            body = answer["Body"]
            try:
                # bounded (zarrforge.abc.store, "Bounded reads"): refused on the declared
                # ContentLength before reading, else once what came passes the limit
                declared = answer.get("ContentLength")
                if declared is not None:
                    bound.check(declared, declared=True)
                collected = bound.collector()
                while True:
                    piece = await body.read(collected.room())
                    if not piece or collected.add(piece):
                        break
                data = collected.value()
            finally:
                body.close()
            return data, answer["ETag"], _object_size(answer, len(data))

        return await self._read(get, key, if_match, "read")

    async def get_ranges(
        self, key: str, ranges: list[Any], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        """Every non-empty range with a ``GetObject`` of its own, all at once; when no
        answer names the ETag (every range empty or past the end) a ``HeadObject`` names
        it, and its size tells whether those empty answers are that version's. Ranges
        past the end agree with the other answers' ETag only if that version's size (from
        their ``Content-Range``) puts them past its end (:func:`versions.one_version`)."""
        pinned = None if if_generation is ABSENT else if_generation
        url = self.store._url_of(key)
        asked = [i for i, r in enumerate(ranges) if r is None or r.length != 0]
        for _ in range(versions.TRIES):
            answers = await self.store._gather([self._get_range(key, ranges[i], pinned) for i in asked])
            found = any(data is not None for data, _, _ in answers)
            if not any(versions.names_a_version(v) for _, v, _ in answers) and (found or not answers):
                answers.append(await self._head(key, pinned))  # the version, by name
            sizes = {v: size for _, v, size in answers if size is not None}
            settled = versions.one_version(
                [(data, v) for data, v, _ in answers], if_generation, key=key, url=url, sizes=sizes
            )
            if settled is None:
                continue  # the value was replaced (created, deleted) while being read
            got, etag = settled
            if got is None:
                return None, ABSENT
            parts = [b""] * len(ranges)  # an empty range is empty in every version
            for i, part in zip(asked, got):
                parts[i] = part
            return parts, etag
        raise versions.still_changing(key, len(ranges), url)

    async def _head(self, key: str, if_match: Any) -> tuple[bytes | None, Any, int | None]:
        """A ``HeadObject`` (with ``If-Match`` when given) as an answer for an empty range:
        ``(b"", ETag, size)``, ``(None, ABSENT, None)`` when missing."""
        bucket, path = self._location(key)
        options = {} if if_match is None else {"IfMatch": if_match}

        async def head() -> tuple[bytes | None, Any, int | None]:
            try:
                answer = await self.fs._call_s3("head_object", Bucket=bucket, Key=path, **options)
            except Exception as exc:
                if is_missing(exc):
                    return None, ABSENT, None
                raise
            return b"", answer["ETag"], int(answer["ContentLength"])

        return await self._read(head, key, if_match, "look up")

    async def _read(
        self, call: Callable[[], Awaitable[_Answer]], key: str, if_match: Any, verb: str
    ) -> _Answer:
        """``call`` (a read of ``key``, with ``If-Match`` ``if_match`` when given) through the
        store's retries; a refused condition is a :class:`ConflictError`, any other failure
        the store's error for ``verb``."""
        try:
            answer: _Answer = await self.store._request(call)
            return answer
        except GaveUp as failure:
            if is_conflict(failure.error):
                raise self._conflict(key, if_match) from failure.error
            raise self.store._fail(failure, verb, key) from failure.error

    async def _etag(self, key: str) -> Any:
        _, etag, _ = await self._head(key, None)
        return etag

    # --- writes -------------------------------------------------------------------------

    def _conflict(self, key: str, expected: Any) -> ConflictError:
        state = "absent" if expected is ABSENT else f"at ETag {expected}"
        return ConflictError(
            f"{key!r} at {self.store._url_of(key)!r} is no longer {state}: another writer changed it",
            key=key,
            url=self.store._url_of(key),
        )

    async def set_if(self, key: str, value: bytes, expected: Any) -> Any:
        bucket, path = self._location(key)
        condition = {"IfNoneMatch": "*"} if expected is ABSENT else {"IfMatch": expected}

        async def put() -> Any:
            answer = await self.fs._call_s3("put_object", Bucket=bucket, Key=path, Body=value, **condition)
            return answer["ETag"]

        try:
            return await self.store._request(put)
        except GaveUp as failure:
            if not (is_conflict(failure.error) or (expected is not ABSENT and is_missing(failure.error))):
                raise self.store._fail(failure, "write", key) from failure.error
            if failure.attempts > 1:  # an earlier, failed attempt may have been applied
                stored, etag = await self.get_versioned(key)
                if stored == value:
                    return etag
            raise self._conflict(key, expected) from failure.error
        finally:
            self.fs.invalidate_cache(self.store._path(key))

    async def delete_if(self, key: str, expected: Any) -> None:
        if expected is ABSENT:
            if await self._etag(key) is not ABSENT:
                raise self._conflict(key, expected)
            return
        bucket, path = self._location(key)

        async def delete() -> None:
            await self.fs._call_s3("delete_object", Bucket=bucket, Key=path, IfMatch=expected)

        try:
            await self.store._request(delete)
        except GaveUp as failure:
            gone = is_missing(failure.error)
            if not (is_conflict(failure.error) or gone):
                raise self.store._fail(failure, "delete", key) from failure.error
            if not (gone and failure.attempts > 1):  # gone after a retry: the first attempt deleted it
                raise self._conflict(key, expected) from failure.error
        finally:
            self.fs.invalidate_cache(self.store._path(key))

    # --- does the server honour the conditions? -------------------------------------------

    def supported(self) -> bool:
        """Whether the bucket's server honours both conditions (probed once per process)."""
        endpoint = getattr(self.fs, "endpoint_url", None) or (
            getattr(self.fs, "client_kwargs", None) or {}
        ).get("endpoint_url")
        bucket = self.fs.split_path(self.store._path("probe"))[0]
        with _probe_lock:
            if (endpoint, bucket) not in _probed:
                _probed[(endpoint, bucket)] = self.store._run(self._probe)
            return _probed[(endpoint, bucket)]

    async def _probe(self) -> bool:
        key = f"{self.temp_prefix}probe-{uuid.uuid4().hex}"
        bucket, path = self._location(key)

        async def refused(**condition: Any) -> bool:
            async def put() -> None:
                await self.fs._call_s3("put_object", Bucket=bucket, Key=path, Body=b"probe", **condition)

            try:
                await self.store._request(put)
            except GaveUp as failure:
                if is_conflict(failure.error):
                    return True
                if failure.transient or is_refused(failure.error):  # no answer at all
                    raise self.store._fail(
                        failure, "ask the server whether it honours conditional writes (If-Match) with", key
                    ) from failure.error
                return False  # the server does not know the header
            return False  # the condition was ignored

        try:
            if await refused(IfNoneMatch="*"):  # absent: must succeed
                return False
            return await refused(IfNoneMatch="*") and await refused(
                IfMatch='"00000000000000000000000000000000"'
            )
        finally:
            try:
                await self.fs._call_s3("delete_object", Bucket=bucket, Key=path)
            except Exception:  # noqa: BLE001  # a stray probe object is never listed
                pass

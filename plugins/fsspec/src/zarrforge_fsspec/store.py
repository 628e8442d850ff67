"""A zarrforge store over any fsspec filesystem (``s3://``, ``gs://``, ``https://``, ...).

``FsspecStore(fs, path)`` maps key ``k`` to ``<path>/<k>`` on ``fs``;
:meth:`FsspecStore.from_url` builds the filesystem from a URL and the
``storage_options`` (fsspec's own, plus the store settings of
:mod:`zarrforge_fsspec.options`). The contract, beyond the Store ABC's:

* **Batched, concurrent reads.** On asynchronous filesystems (s3fs, gcsfs,
  HTTP) ``get_many`` runs every request of the batch at once on fsspec's
  event loop, at most ``concurrency`` in flight per store; results come back
  in request order. ``set_many``, ``delete_many`` and ``erase_prefix`` do the
  same for writes. Synchronous filesystems (local, memory, sftp, ...) use
  ``cat_ranges`` and answer one request after another.
* **Missing keys** read as ``None`` (the filesystem's ``FileNotFoundError``);
  a byte range starting at or past the end of a value reads as ``b""``.
* **Faults.** Timeouts, connection errors and throttling are retried with
  bounded exponential backoff (a refused connection is not: nothing listens at the
  endpoint, and the StoreError says so at once) (``max_retries``, ``retry_backoff``,
  ``retry_max_backoff``; ``request_timeout`` bounds each attempt); a request
  that still fails, or fails for another reason, raises
  :class:`~zarrforge.errors.StoreError` naming the operation, the key and its
  URL. When one request of a batch fails for good the others are cancelled.
* **Atomic writes** where the backend has them: an object store's PUT (S3,
  GCS, Azure, memory) replaces the whole value or nothing. On the local
  filesystem the value goes to a temporary file (``.zarrforge-tmp-*``, never
  listed) that is renamed over the key. On other path-based filesystems
  (sftp, ftp, smb, ...) a failed write can leave a partial value:
  ``capabilities.atomic_writes`` is ``False`` there.
* **Conditional writes** on S3 (``If-Match`` / ``If-None-Match``, generations
  are ETags; :mod:`zarrforge_fsspec.s3_conditional`), declared once the server
  is known to honour them (setting ``conditional_writes``). Other protocols
  have none: a read-modify-write there is a plain read and a plain write.
* **Ranges of one version** (``get_ranges``, ``versioned_ranges``) on S3 (each
  range a ``GetObject``, tied to one ETag), HTTP(S) (every answer must name the
  same version: a strong ETag, else Last-Modified; a server naming neither is
  read whole, in one request) and the local filesystem (one open of the key's
  file). Other protocols (GCS, Azure, sftp, ...) have none: a partial read of a
  shard there fetches the whole shard, the one way to read one version of it.
* **Listing** uses the filesystem's native recursive listing (``find``) for
  ``list_prefix`` and its directory listing (``ls``) for ``list_dir``; it
  never returns directories as keys, and it drops fsspec's listing cache for
  the listed path first, so changes made by other clients are seen.
  Path-based filesystems have their empty directories pruned on delete.
* **HTTP(S)** stores are read-only and cannot list (plain HTTP has no
  listing): ``list_prefix``/``list_dir`` raise ``StoreError`` explaining
  that; a hierarchy with consolidated metadata is listable through it.
* **Bounded reads** (:mod:`zarrforge.abc.store`, "Bounded reads"): no read holds
  more than :func:`~zarrforge.abc.store.read_limit` of its key and one piece
  (``config.max_document_bytes`` for a metadata document, ``config.max_chunk_bytes``
  for anything else). An HTTP body (and an S3 ``GetObject`` body) is read in pieces
  and refused on its declared length before reading, else as soon as it passes the
  limit, so a body that never ends costs the limit, not the machine's memory; a
  local file is refused on its size before reading; any other filesystem is asked for
  at most the limit and one byte (a read to the end of a value becomes a range
  ending there). The refusal is :class:`~zarrforge.errors.DocumentTooLargeError` or
  :class:`~zarrforge.errors.ResourceLimitError` naming the key and the setting, never
  retried nor wrapped in a ``StoreError``.
* **zarr-python's arguments**: ``FsspecStore(fs, path=, read_only=, allowed_exceptions=)``
  and ``FsspecStore.from_url(url, storage_options=None, read_only=False)``. The store
  calls its filesystem from synchronous code, so a filesystem made with
  ``asynchronous=True`` (as zarr-python wants one) is used through its synchronous twin:
  the filesystem an ``AsyncFileSystemWrapper`` wraps, else one of the same class made from
  the same arguments with ``asynchronous=False`` (fsspec caches instances, so usually the
  same one other code uses); a filesystem that cannot be made so is refused, naming it.
  ``allowed_exceptions`` (zarr-python: the errors that mean a missing key) may name only
  ``FileNotFoundError``, ``IsADirectoryError``, ``NotADirectoryError`` or their subclasses,
  which the store reads as a missing key already; another class is refused.
* ``read_only`` stores refuse every write (base class). ``close()`` does not
  close the filesystem, which fsspec shares between stores. Stores pickle
  (for process pools) when their filesystem does.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import inspect
import logging
import os
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any, TypeVar
from urllib.parse import quote

import fsspec
import fsspec.asyn
import fsspec.core

from zarrforge.abc.read_limits import ReadLimit, read_limit
from zarrforge.abc.store import Store
from zarrforge.abc.store_values import (
    ABSENT,
    ByteRange,
    ListDirResult,
    StoreCapabilities,
    validate_key,
    validate_prefix,
)
from zarrforge.errors import InvalidPathError, StoreError
from zarrforge.plugin_api.stores import directory_location, versions

from .extras import missing_package
from .faults import (
    ENVIRONMENTAL_ERRORS,
    DeadlineExceeded,
    GaveUp,
    end_botocore_retries_on_refusal,
    is_invalid_range,
    is_missing,
    is_transient,
    retry_async,
    retry_sync,
    store_error,
)
from .options import (
    StoreSettings,
    check_filesystem_options,
    split_options,
    unexpected_option,
    unknown_option_error,
)
from .references import TargetPolicy
from .s3_conditional import S3Conditions

T = TypeVar("T")

# gcsfs warns through its logger while it looks for credentials and a bucket's layout;
# with logging not configured, Python would print that on stderr beside the StoreError
# that says the same. A NullHandler keeps it for applications that configure logging.
logging.getLogger("gcsfs").addHandler(logging.NullHandler())

FSSPEC_PREFIX = "fsspec+"
TEMP_PREFIX = ".zarrforge-tmp-"
# Filesystems whose writes replace a whole object at once and that have no
# real directories.
OBJECT_STORES = frozenset(
    {"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "oci", "oss", "memory", "r2"}
)
LOCAL = frozenset({"file", "local"})
HTTP = frozenset({"http", "https"})
# Filesystems that can only be read: HTTP, and kerchunk reference sets (their values
# live in other files; fsspec's ReferenceFileSystem writes nothing back).
READ_ONLY = HTTP | {"reference"}
S3 = frozenset({"s3", "s3a"})


def _protocols(fs: Any) -> frozenset[str]:
    protocol = fs.protocol
    return frozenset([protocol] if isinstance(protocol, str) else protocol)


def _canon(path: str) -> str:
    return path.strip("/")


def _made_within(deadline: float | None, target: str, make: Callable[[], T]) -> T:
    """``make()`` (a filesystem's construction: gcsfs looks for credentials, and asks a
    metadata server that an offline machine never reaches), given up after ``deadline``
    seconds with a :class:`StoreError` naming ``target``. The construction goes on in a
    daemon thread, which nothing waits for."""
    if deadline is None:
        return make()
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, make()))
        except BaseException as exc:  # noqa: BLE001  # handed to the caller
            outcome.append((False, exc))

    worker = threading.Thread(target=run, name="zarrforge-fsspec-setup", daemon=True)
    worker.start()
    worker.join(deadline)
    if not outcome:
        raise StoreError(
            f"cannot open {target!r}: setting up its filesystem (credentials, "
            f"connection) took over {deadline} s (store setting deadline); "
            "check the network and the credentials, or pass storage_options",
            url=target,
        )
    made, value = outcome[0]
    if made:
        built: T = value
        return built
    raise value


# What the store reads as a missing key (faults.is_missing); zarr-python's default
# allowed_exceptions, which may name these or their subclasses only.
MISSING_KEY_ERRORS: tuple[type[BaseException], ...] = (
    FileNotFoundError,
    IsADirectoryError,
    NotADirectoryError,
)


def _check_allowed_exceptions(allowed: Any) -> None:
    """Refuse zarr-python's ``allowed_exceptions`` unless the store reads each as a missing
    key already (module docstring)."""
    if allowed is None:
        return
    classes = tuple(allowed) if isinstance(allowed, (tuple, list, set, frozenset)) else (allowed,)
    other = [c for c in classes if not (isinstance(c, type) and issubclass(c, MISSING_KEY_ERRORS))]
    if other:
        raise ValueError(
            f"FsspecStore allowed_exceptions={allowed!r}: {other!r} cannot be read as a missing "
            "key; the store reads FileNotFoundError, IsADirectoryError and NotADirectoryError "
            "(and their subclasses) as one, and every other error as a failure"
        )


def synchronous_twin(fs: Any) -> Any:
    """``fs`` itself, or for a filesystem made with ``asynchronous=True`` the synchronous
    one the store can call (module docstring); a refusal naming it when none can be made."""
    if not (getattr(fs, "async_impl", False) and getattr(fs, "asynchronous", False)):
        return fs
    wrapped = getattr(fs, "sync_fs", None)  # fsspec's AsyncFileSystemWrapper
    if isinstance(wrapped, fsspec.AbstractFileSystem):
        return synchronous_twin(wrapped)
    options = {k: v for k, v in fs.storage_options.items() if k != "loop"}
    try:
        twin = type(fs)(*fs.storage_args, **{**options, "asynchronous": False})
    except Exception as exc:  # the filesystem's own refusal, named below
        raise ValueError(
            f"FsspecStore calls its filesystem from synchronous code, and the asynchronous "
            f"filesystem {fs!r:.100} cannot be made again with asynchronous=False "
            f"({type(exc).__name__}: {exc}); create it with asynchronous=False (the default), "
            "or use FsspecStore.from_url(url, storage_options=...)"
        ) from exc
    if getattr(twin, "asynchronous", False):
        raise ValueError(
            f"FsspecStore calls its filesystem from synchronous code, and "
            f"{type(fs).__qualname__} stays asynchronous when made with "
            "asynchronous=False; use FsspecStore.from_url(url, storage_options=...)"
        )
    return twin


class FsspecStore(Store):
    scheme = "fsspec"
    environmental_errors = ENVIRONMENTAL_ERRORS

    def __init__(
        self,
        fs: Any,
        path: str = "",
        *,
        read_only: bool = False,
        settings: StoreSettings | None = None,
        url: str | None = None,
        allowed_exceptions: tuple[type[BaseException], ...] | None = None,
        **setting_values: Any,
    ) -> None:
        if not isinstance(fs, fsspec.AbstractFileSystem):
            raise TypeError(f"FsspecStore needs an fsspec filesystem, got {type(fs).__name__}")
        if not isinstance(path, str):
            raise TypeError(
                f"FsspecStore path={path!r} must be a str (the root inside the "
                "filesystem); zarr-python's FsspecStore(fs, read_only, path) takes "
                "read_only second: pass read_only= and path= by keyword"
            )
        if not isinstance(read_only, bool):
            raise TypeError(f"FsspecStore read_only={read_only!r} must be True or False")
        _check_allowed_exceptions(allowed_exceptions)
        if settings is not None and setting_values:
            raise TypeError("pass either settings= or individual settings, not both")
        self.settings = settings or StoreSettings(**setting_values)
        fs = synchronous_twin(fs)
        self.fs = fs
        self.protocols = _protocols(fs)
        self._http = bool(self.protocols & HTTP)
        self._local = bool(self.protocols & LOCAL)
        self._object_store = bool(self.protocols & OBJECT_STORES)
        self._async = bool(getattr(fs, "async_impl", False))
        fixed = bool(self.protocols & READ_ONLY)
        super().__init__(read_only=read_only or fixed)
        self.root = fs._strip_protocol(path).rstrip("/") if path else ""
        self.url = url or (self.root if self._http else fs.unstrip_protocol(self.root))
        self._capabilities = StoreCapabilities(
            writable=not fixed,
            listable=not self._http,
            partial_reads=True,
            atomic_writes=self._object_store or self._local,
        )
        s3 = bool(self.protocols & S3) and hasattr(fs, "_call_s3")
        self._botocore = s3 and hasattr(fs, "set_session")
        self._conditions = S3Conditions(self, TEMP_PREFIX) if s3 else None
        # ranges of one version: S3 answers each GetObject with the version's ETag, an
        # HTTP server with a validator (ETag or Last-Modified); a local file renamed over
        # is a new inode, and one open reads one of them
        self._capabilities = dataclasses.replace(
            self._capabilities, versioned_ranges=s3 or self._local or self._http
        )
        self._conditional: bool | None = None  # decided at first need
        self._cat_options: dict[str, Any] = {}
        if self._async and "max_concurrency" in inspect.signature(fs._cat_file).parameters:
            # s3fs would otherwise ask for each whole value's size (one more
            # request) to split big values into parallel ranges; get_many is
            # already parallel across values.
            self._cat_options["max_concurrency"] = 1
        self._semaphores: dict[int, asyncio.Semaphore] = {}
        self._semaphore_lock = threading.Lock()
        self._http_unversioned = False  # set once an HTTP server answers without a version
        self._targets: TargetPolicy | None = None  # what a reference set may make us read
        self._first_contact_ends: float | None = None  # until a first answer (from_url)
        if "reference" in self.protocols:
            self._targets = TargetPolicy(
                self.settings.reference_targets,
                fs.storage_options.get("fo"),
                fs.storage_options.get("remote_protocol"),
                getattr(fs, "fss", None),
            )  # who reads each target

    @classmethod
    def from_url(
        cls,
        url: str,
        storage_options: dict[str, Any] | None = None,
        read_only: bool = False,
        *,
        allowed_exceptions: tuple[type[BaseException], ...] | None = None,
        **options: Any,
    ) -> FsspecStore:
        """A store for an fsspec URL; ``fsspec+<protocol>://`` chooses fsspec explicitly.
        The options (fsspec's and the store settings) come as keywords (the registry
        passes the user's ``storage_options`` so) or as ``storage_options`` (zarr-python's
        form), not the same one both ways."""
        if storage_options is not None:
            if not isinstance(storage_options, dict):
                raise TypeError(f"FsspecStore.from_url storage_options={storage_options!r} must be a dict")
            twice = sorted(set(storage_options) & set(options))
            if twice:
                raise TypeError(
                    f"FsspecStore.from_url got the options {twice} both in "
                    "storage_options and as keywords; pass each once"
                )
            options = {**storage_options, **options}
        _check_allowed_exceptions(allowed_exceptions)
        settings, fs_options = split_options(options)
        target = url[len(FSSPEC_PREFIX) :] if url.startswith(FSSPEC_PREFIX) else url
        if target.split("://", 1)[0] in ("s3", "s3a"):
            # botocore keeps 10 connections per client unless told otherwise, which
            # would cap the requests in flight far below `concurrency`.
            config = dict(fs_options.get("config_kwargs") or {})
            config.setdefault("max_pool_connections", settings.concurrency)
            fs_options = {**fs_options, "config_kwargs": config}
        protocol = target.split("://", 1)[0].lower()
        if "::" not in target:  # a chain's options are keyed by protocol: fsspec sorts them
            try:
                fs_class = fsspec.get_filesystem_class(protocol)
            except (ValueError, ImportError):
                pass  # url_to_fs says what is missing, below
            else:
                try:
                    check_filesystem_options(protocol, target, fs_class, fs_options)
                except ValueError as exc:
                    raise StoreError(str(exc), url=target) from None
        started = time.monotonic()
        try:
            fs, path = _made_within(
                settings.deadline, target, lambda: fsspec.core.url_to_fs(target, **fs_options)
            )
        except StoreError:
            raise
        except (ValueError, TypeError) as exc:
            option = unexpected_option(exc, fs_options)
            if option is not None:
                raise StoreError(
                    str(unknown_option_error(protocol, target, option, None)), url=target
                ) from exc
            if target.split("://", 1)[0] == "reference":
                # a reference set without fo, malformed JSON, an unknown version: all the
                # user's input, told as such
                raise StoreError(
                    f"cannot open the reference set {target!r} (storage_options "
                    f"fo={fs_options.get('fo')!r:.200}): {type(exc).__name__}: "
                    f"{exc}",
                    url=target,
                ) from exc
            raise  # options the protocol refuses
        except ImportError as exc:  # a missing package: fsspec names it, not the extra
            raise missing_package(target, exc) from exc
        except Exception as exc:  # the filesystem connects when made (sftp): auth, network
            raise StoreError(
                f"cannot open {target!r} through fsspec: {type(exc).__name__}: {exc}", url=target
            ) from exc
        store = cls(fs, path, read_only=read_only, settings=settings, url=target)
        if settings.deadline is not None:
            # setting up (credentials above all) and the first answer share one deadline:
            # an unreachable service fails once, within it, not once per phase
            store._first_contact_ends = started + settings.deadline
        return store

    def open_for_reading(self, key: str = "") -> Any:
        """A file object reading ``key`` (``""``: the file the store's root names, such as
        a zip archive). A missing file raises ``FileNotFoundError``; any other failure of
        the filesystem (network, credentials, a refused connection) a StoreError naming
        the URL (the first request makes no retries: a file object reads on its own)."""
        target = "/".join(p for p in (self.root, key) if p)
        url = self._url_of(key) if key else self.url
        try:
            if self._botocore:
                self._run(self._botocore_ready)
            return self.fs.open(target, "rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise
        except Exception as exc:  # the filesystem's failure, named below
            raise store_error(
                GaveUp(exc, 1, is_transient(exc)), operation="open", key=key or target, url=url
            ) from exc

    def local_directory(self) -> str | None:
        return os.path.abspath(self.root) if self._local else None

    def root_url(self) -> str | None:
        return self.url or None

    def data_location(self) -> tuple[Hashable, str] | None:
        if self._local:
            return directory_location(self.root)
        if self._object_store or self._http:
            # one filesystem instance per protocol and options (fsspec's instance cache):
            # its token tells two endpoints apart where the URL alone would not
            token = getattr(self.fs, "_fs_token", None)
            return None if token is None else (("fsspec", token), self.url.rstrip("/") + "/")
        return None

    def __repr__(self) -> str:
        mode = ", read-only" if self.read_only else ""
        return f"FsspecStore({self.url!r}{mode})"

    def _check_writable(self, key: str) -> None:
        # what the store may do does not depend on the conditional-writes probe
        if self.read_only or not self._capabilities.writable:
            super()._check_writable(key)

    @property
    def capabilities(self) -> StoreCapabilities:  # type: ignore[override]
        """The store's capabilities; on S3, ``conditional_writes`` is decided the first
        time they are asked for (the setting, or the server's answer to a probe)."""
        if self._conditional is None:
            setting = self.settings.conditional_writes
            if self._conditions is None or setting is False:
                self._conditional = False
            else:  # a read-only store reads generations and writes nothing: no probe
                self._conditional = setting or self.read_only or self._conditions.supported()
            if self._conditional:
                self._capabilities = dataclasses.replace(self._capabilities, conditional_writes=True)
        return self._capabilities

    def __getstate__(self) -> dict[str, Any]:
        # fsspec filesystems pickle; the per-loop semaphores and their lock do not.
        state = self.__dict__.copy()
        state["_semaphores"] = {}
        del state["_semaphore_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._semaphore_lock = threading.Lock()

    # --- paths ---------------------------------------------------------------------

    def _path(self, key: str) -> str:
        validate_key(key)
        if self._http:
            key = quote(key, safe="/")
        return f"{self.root}/{key}" if self.root else key

    def _url_of(self, key: str) -> str:
        return f"{self.url.rstrip('/')}/{key}" if self.url else key

    def _relative(self, name: str) -> str | None:
        """The key for a path the filesystem listed, or ``None`` if it is not one."""
        base, name = _canon(self.root), _canon(self.fs._strip_protocol(name))
        if base:
            if not name.startswith(base + "/"):
                return None
            name = name[len(base) + 1 :]
        if not name or name.rsplit("/", 1)[-1].startswith(TEMP_PREFIX):
            return None
        try:
            return validate_key(name)
        except InvalidPathError:
            return None

    # --- running requests --------------------------------------------------------------

    def _run(self, make: Callable[[], Awaitable[T]]) -> T:
        result: T = fsspec.asyn.sync(self.fs.loop, make)
        return result

    def _semaphore(self) -> asyncio.Semaphore:
        """This store's request bound on the running loop (fsspec has one loop per process)."""
        loop = asyncio.get_running_loop()
        with self._semaphore_lock:
            semaphore = self._semaphores.get(id(loop))
            if semaphore is None:
                semaphore = self._semaphores[id(loop)] = asyncio.Semaphore(self.settings.concurrency)
            return semaphore

    async def _botocore_ready(self) -> None:
        """On S3: the filesystem's botocore client exists and ends its own retries of a
        refused connection (registered once per client: botocore keeps one handler per
        ``unique_id``; s3fs makes a new client when its sessions were closed)."""
        client = getattr(self.fs, "_s3", None) or await self.fs.set_session()
        client.meta.events.register_first(
            "needs-retry.s3", end_botocore_retries_on_refusal, unique_id="zarrforge-refused-not-retried"
        )

    async def _request(self, make: Callable[[], Awaitable[T]]) -> T:
        """One request: bounded by the semaphore per attempt, retried, timed. Its attempts
        (the filesystem's own retries inside them included) and the pauses between them
        end within ``deadline`` seconds of the first attempt's start; time spent waiting
        for the semaphore behind other requests of a batch does not count."""
        semaphore = self._semaphore()
        settings = self.settings
        ends: list[float] = []  # when the request's time is up (set at its first attempt)

        async def prepared() -> Any:
            await self._botocore_ready()
            return await make()

        request = prepared if self._botocore else make

        async def attempt() -> Any:
            async with semaphore:
                if settings.deadline is not None and not ends:
                    end = time.monotonic() + settings.deadline
                    first = self._first_contact_ends
                    ends.append(end if first is None else min(end, first))
                left = ends[0] - time.monotonic() if ends else None
                timeout = settings.request_timeout
                if left is None or (timeout is not None and timeout < left):
                    # the attempt's own limit (if any) comes first: a timeout is retried
                    return await (request() if timeout is None else asyncio.wait_for(request(), timeout))
                if left <= 0:
                    raise DeadlineExceeded(settings.deadline)
                try:
                    return await asyncio.wait_for(request(), left)
                except TimeoutError:
                    raise DeadlineExceeded(settings.deadline) from None

        result: T = await retry_async(settings, attempt)
        self._first_contact_ends = None  # the service answers: deadlines per request now
        return result

    async def _gather(self, coroutines: Sequence[Awaitable[T]]) -> list[T]:
        """Run all; on the first failure cancel the rest and raise it (in request order)."""
        if not coroutines:
            return []
        tasks = [asyncio.ensure_future(c) for c in coroutines]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            pending = [t for t in tasks if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
        # every failure is retrieved (asyncio reports those never retrieved), the first raised
        failures = [task.exception() for task in tasks if not task.cancelled()]
        for failure in failures:
            if failure is not None:
                raise failure
        return [task.result() for task in tasks]

    def _fail(self, failure: GaveUp, operation: str, key: str) -> StoreError:
        return store_error(failure, operation=operation, key=key, url=self._url_of(key))

    # --- reads -----------------------------------------------------------------------

    @staticmethod
    def _limits(byte_range: ByteRange | None) -> tuple[int | None, int | None] | None:
        """fsspec's (start, end) for a range; ``None`` for an empty range."""
        if byte_range is None:
            return None, None
        offset, length = byte_range.offset, byte_range.length
        if length == 0:
            return None
        if offset is None:  # a suffix: a ByteRange has an offset, a length or both
            return -(length or 0), None
        return offset, None if length is None else offset + length

    @staticmethod
    def _bounded(limits: tuple[int | None, int | None], bound: ReadLimit) -> tuple[int | None, int | None]:
        """``limits`` cut at one byte past ``bound`` (module docstring, "Bounded reads"):
        a read to the end of the value asks for at most the limit and one byte, which
        proves a value over the limit without holding more. A suffix asks for its
        length, a range with an end for that range."""
        start, end = limits
        if bound.limit is None or end is not None or (start is not None and start < 0):
            return start, end
        start = start or 0
        return start, start + bound.limit + 1

    @staticmethod
    def _trim(data: bytes, byte_range: ByteRange | None) -> bytes:
        """Cut a whole value a server sent back instead of the range asked for."""
        if byte_range is None or byte_range.length is None or len(data) <= byte_range.length:
            return data
        return data[byte_range.slice_of(len(data))]

    def _check_target(self, key: str, path: str) -> None:
        """Refuse a reference whose target this reference set may not read (before any
        request for it): :mod:`zarrforge_fsspec.references`."""
        targets = self._targets
        if targets is None:  # no policy: the caller checks first
            return
        try:
            target = self.fs._cat_common(path)[0]
        except (FileNotFoundError, KeyError):
            return  # no reference: reads as missing
        if isinstance(target, str):
            targets.check(key, target, self._url_of(key))

    async def _get_one(self, key: str, byte_range: ByteRange | None) -> bytes | None:
        path = self._path(key)
        if self._targets is not None:
            self._check_target(key, path)
        limits = self._limits(byte_range)
        if limits is None:  # an empty range: only existence matters
            return b"" if await self._exists_async(key) else None
        if self._http:  # the body read in pieces, bounded (fsspec's _cat_file reads it whole)
            data, _, _ = await self._http_range(key, byte_range)
            return data
        bound = read_limit(key)
        start, end = self._bounded(limits, bound)

        async def fetch() -> bytes | None:
            try:
                data: bytes = await self.fs._cat_file(path, start=start, end=end, **self._cat_options)
                return data
            except Exception as exc:
                if is_missing(exc):
                    return None
                if (start, end) != (None, None) and is_invalid_range(exc):
                    return b""  # a range past the end (a capped whole read: an empty value)
                raise

        try:
            data = await self._request(fetch)
        except GaveUp as failure:
            raise self._fail(failure, "read", key) from failure.error
        if data is None:
            return None
        bound.check(len(data))
        return self._trim(bytes(data), byte_range)

    def _cat_ranges(self, paths: list[str], limits: list[tuple[int | None, int | None]]) -> list[Any]:
        """``fs.cat_ranges`` with each path's answer: its bytes or its exception. Some
        filesystems raise for the whole call when one path fails, whatever ``on_error``
        says (fsspec's ``simplecache`` for a missing path among present ones): the paths
        are then read one call each, so that one missing key is not taken for all."""
        try:
            answers: list[Any] = self.fs.cat_ranges(
                paths, [lim[0] for lim in limits], [lim[1] for lim in limits], on_error="return"
            )
            return answers
        except Exception as exc:  # noqa: BLE001  # the whole call failed
            if len(paths) == 1:
                return [exc]
        return [self._cat_ranges([path], [limit])[0] for path, limit in zip(paths, limits)]

    def _get_many_sync(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        results: list[bytes | None] = [None] * len(requests)
        todo: list[int] = []
        for i, (key, byte_range) in enumerate(requests):
            if self._limits(byte_range) is None:  # an empty range: only existence matters
                results[i] = b"" if self.exists(key) else None
            else:
                todo.append(i)
        if self._targets is not None:
            for i in todo:
                self._check_target(requests[i][0], self._path(requests[i][0]))
        bounds = {i: read_limit(requests[i][0]) for i in todo}
        attempt = 1
        while todo:
            paths = [self._path(requests[i][0]) for i in todo]
            limits = [
                self._bounded(self._limits(requests[i][1]), bounds[i])  # type: ignore[arg-type]
                for i in todo
            ]
            answers = self._cat_ranges(paths, limits)
            retry = []
            for i, answer, (start, end) in zip(todo, answers, limits):
                key, byte_range = requests[i]
                if not isinstance(answer, BaseException):
                    bounds[i].check(len(answer))
                    # a caching filesystem (fsspec's simplecache over sftp) answers a missing
                    # path with no bytes: an empty whole value is checked to be there
                    empty_and_missing = not answer and byte_range is None and not self.exists(key)
                    results[i] = None if empty_and_missing else self._trim(bytes(answer), byte_range)
                elif is_missing(answer):
                    results[i] = None
                elif (start, end) != (None, None) and is_invalid_range(answer):
                    results[i] = b""
                else:
                    transient = is_transient(answer)
                    if not transient or attempt == self.settings.attempts:
                        raise self._fail(GaveUp(answer, attempt, transient), "read", key) from answer
                    retry.append(i)
            if retry:
                time.sleep(self.settings.backoff(attempt))
            todo, attempt = retry, attempt + 1
        return results

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        validate_key(key)
        return self.get_many([(key, byte_range)])[0]

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        requests = list(requests)
        for key, _ in requests:
            validate_key(key)
        if not requests:
            return []
        if not self._async:
            return self._get_many_sync(requests)
        return self._run(lambda: self._gather([self._get_one(k, r) for k, r in requests]))

    async def _exists_async(self, key: str) -> bool:
        path = self._path(key)
        self.fs.invalidate_cache(path)

        async def info() -> Any:
            try:
                return await self.fs._info(path)
            except Exception as exc:
                if is_missing(exc):
                    return None
                raise

        try:
            found = await self._request(info)
        except GaveUp as failure:
            raise self._fail(failure, "look up", key) from failure.error
        return found is not None and found.get("type") != "directory"

    def exists(self, key: str) -> bool:
        path = self._path(key)
        self.fs.invalidate_cache(path)
        found = self._invoke("look up", key, "info", path)
        return found is not None and found.get("type") != "directory"

    def _invoke(
        self, operation: str, key: str, method: str, *args: Any, missing: Any = None, **kwargs: Any
    ) -> Any:
        """Call ``fs.<method>`` (its coroutine on async filesystems) with retries;
        a missing path answers ``missing``; a failure raises a named StoreError."""
        if self._async:
            function = getattr(self.fs, "_" + method)

            async def attempt_async() -> Any:
                try:
                    return await function(*args, **kwargs)
                except Exception as exc:
                    if is_missing(exc):
                        return missing
                    raise

            try:
                return self._run(lambda: self._request(attempt_async))
            except GaveUp as failure:
                raise self._fail(failure, operation, key) from failure.error
        function = getattr(self.fs, method)

        def attempt_sync() -> Any:
            try:
                return function(*args, **kwargs)
            except Exception as exc:
                if is_missing(exc):
                    return missing
                raise

        try:
            return retry_sync(self.settings, attempt_sync)
        except GaveUp as failure:
            raise self._fail(failure, operation, key) from failure.error

    # --- writes ------------------------------------------------------------------------

    def _put_sync(self, path: str, value: bytes) -> None:
        if self._object_store:
            self.fs.pipe_file(path, value)
            return
        parent = self.fs._parent(path)
        self.fs.makedirs(parent, exist_ok=True)
        if not self._local:
            self.fs.pipe_file(path, value)
            return
        temp = f"{parent}/{TEMP_PREFIX}{uuid.uuid4().hex}"
        try:
            self.fs.pipe_file(temp, value)
            self.fs.mv(temp, path)
        except BaseException:
            try:
                self.fs.rm_file(temp)
            except Exception:  # noqa: BLE001  # the temporary file may not exist
                pass
            raise

    async def _put_async(self, key: str, value: bytes) -> None:
        path = self._path(key)

        async def put() -> None:
            if not self._object_store:
                await self.fs._makedirs(self.fs._parent(path), exist_ok=True)
            await self.fs._pipe_file(path, value)

        try:
            await self._request(put)
        except GaveUp as failure:
            raise self._fail(failure, "write", key) from failure.error

    def _write_many(self, items: list[tuple[str, bytes]]) -> None:
        if self._async:
            self._run(lambda: self._gather([self._put_async(k, v) for k, v in items]))
            return
        for key, value in items:
            path = self._path(key)
            try:
                retry_sync(self.settings, lambda: self._put_sync(path, value))  # noqa: B023  # called before the loop moves on
            except GaveUp as failure:
                raise self._fail(failure, "write", key) from failure.error

    def _set(self, key: str, value: bytes) -> None:
        self._write_many([(key, value)])

    def set_many(self, items: Iterable[tuple[str, bytes | bytearray | memoryview]]) -> None:
        checked = [
            (validate_key(key), value if isinstance(value, bytes) else bytes(value)) for key, value in items
        ]
        if checked:
            self._check_writable(checked[0][0])
            self._write_many(checked)

    async def _remove_async(self, key: str) -> None:
        path = self._path(key)

        async def remove() -> None:
            try:
                await self.fs._rm_file(path)
            except Exception as exc:
                if not is_missing(exc):
                    raise

        try:
            await self._request(remove)
        except GaveUp as failure:
            raise self._fail(failure, "delete", key) from failure.error

    def _delete_keys(self, keys: list[str]) -> None:
        if not keys:
            return
        if self._async:
            self._run(lambda: self._gather([self._remove_async(k) for k in keys]))
        else:
            for key in keys:
                self._invoke("delete", key, "rm_file", self._path(key))
        if not self._object_store:
            self._prune(keys)

    def _prune(self, keys: list[str]) -> None:
        """Remove directories the deletes left empty, up to (not including) the root."""
        base = _canon(self.root)
        directories = sorted({self.fs._parent(self._path(k)) for k in keys}, key=len, reverse=True)
        for directory in directories:
            while _canon(directory) != base and _canon(directory).startswith(base + "/" if base else ""):
                try:
                    self.fs.rmdir(directory)
                except Exception:  # noqa: BLE001  # not empty, or already gone
                    break
                directory = self.fs._parent(directory)

    def _delete(self, key: str) -> None:
        self._delete_keys([key])

    def delete_many(self, keys: Iterable[str]) -> None:
        checked = [validate_key(key) for key in keys]
        if checked:
            self._check_writable(checked[0])
            self._delete_keys(checked)

    def erase_prefix(self, prefix: str) -> None:
        validate_prefix(prefix)
        self._check_writable(prefix or "<root>")
        self._delete_keys(list(self.list_prefix(prefix)))

    # --- conditional writes (S3: zarrforge_fsspec.s3_conditional) ---------------------------

    @property
    def _s3(self) -> S3Conditions:
        """The S3 conditional requests, which only an S3 store has (and only its
        capabilities offer the methods below)."""
        conditions = self._conditions
        if conditions is None:
            raise StoreError(f"{self._url_of('')!r} offers no conditional writes or versioned reads")
        return conditions

    def _get_versioned(self, key: str) -> tuple[bytes | None, Any]:
        return self._run(lambda: self._s3.get_versioned(key))

    def get_versioned_many(self, keys: Sequence[str]) -> list[tuple[bytes | None, Any]]:
        keys = [validate_key(key) for key in keys]
        if not keys:
            return []
        self._check_conditional(keys[0])
        return self._run(lambda: self._gather([self._s3.get_versioned(k) for k in keys]))

    def _get_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        if self._local:
            return self._local_ranges(key, ranges, if_generation)
        if self._http:
            return self._run(lambda: self._http_ranges(key, ranges, if_generation))
        return self._run(lambda: self._s3.get_ranges(key, ranges, if_generation))

    async def _http_range(
        self, key: str, byte_range: ByteRange | None
    ) -> tuple[bytes | None, Any, int | None]:
        """One GET of a range with the version's validator (a strong ETag, else
        Last-Modified, else ``None``) and the size of that version (its
        ``Content-Range`` total, ``None`` if unknown): ``(None, ABSENT, None)`` when
        missing, ``(b"", PastEnd(offset), None)`` for a range past the end (``416``)."""
        limits = self._limits(byte_range)
        if limits is None:  # an empty range: the whole value names the version
            data, validator, size = await self._http_range(key, None)
            return (None if data is None else b""), validator, size
        url, (start, end) = self._path(key), limits
        headers = dict(self.fs.kwargs.get("headers") or {})
        if start is not None or end is not None:
            headers["Range"] = await self.fs._process_limits(url, start, end)
        options = {**self.fs.kwargs, "headers": headers}
        past_end = versions.PastEnd(start if start is not None and start > 0 else 0)

        bound = read_limit(key)

        async def get() -> tuple[bytes | None, Any, int | None]:
            session = await self.fs.set_session()
            async with session.get(self.fs.encode_url(url), **options) as answer:
                if answer.status == 404:
                    return None, ABSENT, None
                if answer.status == 416:
                    return b"", past_end, None
                self.fs._raise_not_found_for_status(answer, url)
                ranged = answer.status == 206 and byte_range is not None
                data = await self._http_body(answer, bound, byte_range, ranged)
                etag = answer.headers.get("ETag")
                named = (
                    ("etag", etag)
                    if etag and not etag.startswith("W/")
                    else ("modified", answer.headers.get("Last-Modified"))
                )
                validator = None if named[1] is None else named
                size: int | None = None
                if answer.status == 206:
                    total = (answer.headers.get("Content-Range") or "").rpartition("/")[2]
                    size = int(total) if total.isdigit() else None
                elif byte_range is None or byte_range.length is None:
                    size = len(data)  # the whole value was read
                if not ranged and byte_range is not None:  # the range was ignored
                    data = data[byte_range.slice_of(len(data))]
                return data, validator, size

        try:
            return await self._request(get)
        except GaveUp as failure:
            raise self._fail(failure, "read", key) from failure.error

    @staticmethod
    async def _http_body(answer: Any, bound: ReadLimit, byte_range: ByteRange | None, ranged: bool) -> bytes:
        """The body of an HTTP answer, read in pieces under ``bound`` (module docstring,
        "Bounded reads"): refused on its Content-Length before reading, else as soon as
        what came passes the limit. A range answered as asked needs its length; one the
        server ignored (the whole value) needs the bytes up to the range's end."""
        wanted = None
        if byte_range is not None and byte_range.length is not None:
            if ranged:
                wanted = byte_range.length
            elif byte_range.offset is not None:
                wanted = byte_range.offset + byte_range.length
        declared = answer.content_length  # None for a body of unknown length
        if declared is not None and (wanted is None or wanted > declared):
            bound.check(declared, declared=True)
        body = bound.collector(wanted=wanted)
        while True:
            piece = await answer.content.read(body.room())
            if not piece or body.add(piece):
                return body.value()

    async def _http_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        """All ranges at once, kept when every answer names the same version (and the one
        asked for; a range past the end only where that version ends before it, and when
        every range is past the end, a GET of the whole value names the version); a
        server that names no versions is read whole, in one request."""
        url = self._url_of(key)
        for _ in range(versions.TRIES):
            if not self._http_unversioned:
                answers = await self._gather([self._http_range(key, r) for r in ranges])
                if answers and all(isinstance(v, versions.PastEnd) for _, v, _ in answers):
                    # every range past the end: the whole value names the version
                    data, validator, size = await self._http_range(key, None)
                    answers.append((None if data is None else b"", validator, size))
                sizes = {v: size for _, v, size in answers if size is not None}
                settled = versions.one_version(
                    [(data, v) for data, v, _ in answers], if_generation, key=key, url=url, sizes=sizes
                )
                if settled is None:
                    continue  # replaced while being read
                parts, version = settled
                if parts is None or version is not None:  # (less the look-up's answer)
                    return (None if parts is None else parts[: len(ranges)]), version
                self._http_unversioned = True  # the server names no versions: remember it
            whole, _, _ = await self._http_range(key, None)
            version = None if whole is None else ("content", hashlib.sha256(whole).hexdigest())
            settled = versions.one_version([(whole, version)], if_generation, key=key, url=url)
            if settled is None:  # never: one answer cannot mix versions
                continue
            parts, version = settled
            if parts is None or whole is None:  # (parts is None where whole is)
                return None, ABSENT
            return [whole if r is None else whole[r.slice_of(len(whole))] for r in ranges], version
        raise versions.still_changing(key, len(ranges), url)

    def _local_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        """Ranges from one open of the key's file (writes rename a new file over it), so
        all of one version: its device, inode, mtime and size."""
        url = self._url_of(key)
        try:
            with open(self._path(key), "rb") as file:
                status = os.fstat(file.fileno())
                generation = (status.st_dev, status.st_ino, status.st_mtime_ns, status.st_size)
                answers: list[tuple[bytes | None, Any]] = []
                bound = read_limit(key)
                for byte_range in ranges:
                    window = (
                        slice(0, status.st_size)
                        if byte_range is None
                        else byte_range.slice_of(status.st_size)
                    )
                    bound.check(window.stop - window.start, declared=True)  # before reading
                    file.seek(window.start)
                    answers.append((file.read(window.stop - window.start), generation))
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            answers = [(None, ABSENT)]
        except OSError as exc:
            raise StoreError(f"cannot read {key!r} at {url!r}: {exc}", key=key, url=url) from exc
        if not answers:  # no range asked for: only the version
            return [], generation
        settled = versions.one_version(answers, if_generation, key=key, url=url)
        if settled is None:  # never: one open file is one version
            raise versions.still_changing(key, len(ranges), url)
        return settled

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        return self._run(lambda: self._s3.set_if(key, value, if_generation))

    def _delete_if(self, key: str, if_generation: Any) -> None:
        self._run(lambda: self._s3.delete_if(key, if_generation))

    # --- listing -------------------------------------------------------------------------

    def _listing_target(self, prefix: str) -> str:
        validate_prefix(prefix)
        if not self.capabilities.listable:
            raise StoreError(
                f"{self!r} cannot list keys: plain HTTP has no listing. Open arrays and "
                "groups by path, or publish the hierarchy with consolidated metadata "
                "(zarrforge.consolidate_metadata) so that groups list their members from it"
            )
        target = self._path(prefix[:-1]) if prefix else self.root
        self.fs.invalidate_cache(target)
        return target

    def list_prefix(self, prefix: str) -> Iterator[str]:
        target = self._listing_target(prefix)
        found = self._invoke(
            "list", prefix or "<root>", "find", target, withdirs=False, detail=True, missing={}
        )
        keys = []
        for name, info in found.items():
            if info.get("type") == "directory" or name.endswith("/"):
                continue
            key = self._relative(name)
            if key is not None and key.startswith(prefix):
                keys.append(key)
        return iter(sorted(set(keys)))

    def list_dir(self, prefix: str) -> ListDirResult:
        target = self._listing_target(prefix)
        entries = self._invoke("list", prefix or "<root>", "ls", target, detail=True, missing=[])
        keys: set[str] = set()
        prefixes: set[str] = set()
        for info in entries:
            name = info["name"]
            relative = self._relative(name)
            if relative is None or not relative.startswith(prefix):
                continue
            rest = relative[len(prefix) :]
            if not rest or "/" in rest:
                continue
            if info.get("type") == "directory" or name.endswith("/"):
                prefixes.add(rest + "/")
            else:
                keys.add(rest)
        return ListDirResult(sorted(keys), sorted(prefixes))

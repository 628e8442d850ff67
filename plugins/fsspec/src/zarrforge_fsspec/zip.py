"""A store in one zip archive: ``zip://path/to/data.zip`` or :class:`ZipStore`.

* Each key is one member of the archive, named by the key. Members are stored
  uncompressed by default (chunks are usually compressed by their codecs
  already); pass ``compression=zipfile.ZIP_DEFLATED`` to change that.
* **Append-only, single writer.** A key is written once: overwriting or
  deleting an existing key raises :class:`AppendOnlyError` (a
  :class:`~zarrforge.errors.StoreError`) and leaves the archive as it was;
  deleting a missing key, or erasing a prefix with no keys, does nothing. So
  a hierarchy is written in one pass: create nodes, write each chunk once
  (a chunk written twice, attributes changed after creation, or metadata
  consolidated after the fact all rewrite a key and are refused). Build
  anything else in a directory store and zip it afterwards.
* The archive's central directory is written when the store is closed
  (``close()``, a ``with`` block, or garbage collection) or flushed
  (``flush()``, which keeps the store open for writing). Other processes
  see nothing before that; a crash before it loses what was written. A write
  that fails half-way (disk full) can leave the archive unusable. Nothing
  here is atomic.
* One writer per archive per process: opening a local archive while a
  writable store of this process has it open shares that store's open
  archive (a read-only open gets a read-only view of it), so
  create-then-open in one process works without closing first. Two
  processes must never write one archive.
* zarr-python's arguments: ``ZipStore(path, *, mode=, read_only=, compression=,
  allowZip64=)``. ``path`` is a ``str`` or ``os.PathLike``, or an open binary file object
  (with ``read``, ``seek`` and ``tell``; ``write`` too for the writing modes), which the
  store never closes: its caller does, after ``close()``. ``mode`` is ``"r"`` (read an
  existing archive), ``"w"`` (a new archive, replacing the file), ``"a"`` (append; created
  when missing) or ``"x"`` (a new archive; refused if the file exists). Without ``mode``
  a path opens for appending (``"a"``, zarrforge's default; ``read_only=True``: ``"r"``),
  a file object for reading (``"r"``, zarr-python's default); ``read_only`` and ``mode``
  given together must agree (``read_only=True`` is ``mode="r"``). ``"w"`` and ``"x"``
  apply to the opening: the store appends from then on, flushes included. ``"w"`` of an
  archive a writable store of this process holds open is refused (it would cut the file
  under that store).
* Read-only stores can also read an archive anywhere fsspec reaches:
  ``zip::s3://bucket/data.zip`` (options for the remote filesystem go in
  ``storage_options``). Remote archives cannot be written.
* All operations hold one lock, so the store is thread-safe; reads of one
  archive are serialised.
* Ranges of one version (``get_ranges``): a member never changes once written,
  so any read is of its one version; its generation is its place in the archive.
* Bounded reads (:mod:`zarrforge.abc.store`, "Bounded reads"): a member is inflated
  only if what a read asks of it (the whole member, or a range), as the archive's
  directory declares its size, is within :func:`~zarrforge.abc.store.read_limit` of its
  key (``config.max_document_bytes`` for a metadata document, ``config.max_chunk_bytes``
  otherwise); else :class:`~zarrforge.errors.DocumentTooLargeError` or
  :class:`~zarrforge.errors.ResourceLimitError` naming the key and the setting, before
  anything is inflated. A member inflates to no more than its declared size (Python's
  zipfile stops there, and a header that understates the size fails the CRC check: a
  :class:`~zarrforge.errors.StoreError` naming the key), so a 1 MB archive cannot make
  a read hold gigabytes.
"""

from __future__ import annotations

import io
import os
import threading
import weakref
import zipfile
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, cast
from urllib.parse import unquote, urlparse

import fsspec

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
from zarrforge.errors import ConflictError, InvalidPathError, StoreError

from .faults import ENVIRONMENTAL_ERRORS

if TYPE_CHECKING:
    from typing_extensions import TypeIs


class AppendOnlyError(StoreError):
    """A write to a zip store would replace or remove a key that is already written."""


class _Archive:
    """One open zip file, shared by a writer and its read-only views.

    ``mode`` is zipfile's (``"r"``, ``"w"``, ``"a"``, ``"x"``); the archive is writable
    unless it is ``"r"``. ``remote_file`` is a file this archive opened and closes with
    itself; ``file`` a caller's open file object, read and written but never closed here.
    """

    def __init__(
        self,
        location: str,
        *,
        mode: ZipMode,
        compression: int,
        remote_file: BinaryIO | None = None,
        file: BinaryIO | None = None,
        allow_zip64: bool = True,
    ) -> None:
        self.location = location
        self.writable = mode != "r"
        self.compression = compression
        self.allow_zip64 = allow_zip64
        self.lock = threading.RLock()
        self._remote_file = remote_file
        self._file = file
        try:
            if remote_file is not None:
                self.zip = zipfile.ZipFile(remote_file, "r")
            elif file is not None:
                self.zip = zipfile.ZipFile(file, mode, compression=compression, allowZip64=allow_zip64)
            elif self.writable:
                if (
                    mode == "a"
                    and os.path.isfile(location)
                    and os.path.getsize(location)
                    and not zipfile.is_zipfile(location)
                ):
                    # mode "a" would append an archive to any file: refuse instead
                    raise StoreError(f"{location!r} exists and is not a zip archive")
                directory = os.path.dirname(location)
                if directory:
                    os.makedirs(directory, exist_ok=True)
                self.zip = zipfile.ZipFile(location, mode, compression=compression, allowZip64=allow_zip64)
            else:
                self.zip = zipfile.ZipFile(location, "r")
        except FileNotFoundError as exc:
            raise StoreError(f"no zip archive at {location!r}") from exc
        except FileExistsError as exc:
            raise StoreError(
                f"{location!r} exists; mode='x' creates a new archive only (use "
                "mode='a' to append to it, or mode='w' to replace it)"
            ) from exc
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise StoreError(f"cannot open the zip archive {location!r}: {exc}") from exc
        self.closed = False
        self._finalizer = weakref.finalize(self, _close_quietly, self.zip, remote_file)

    def check_open(self) -> None:
        if self.closed:
            raise StoreError(f"the zip archive {self.location!r} is closed")

    def close(self) -> None:
        with self.lock:
            if not self.closed:
                self.closed = True
                self._finalizer.detach()
                try:
                    self.zip.close()
                finally:
                    if self._remote_file is not None:
                        self._remote_file.close()

    def flush(self) -> None:
        """Write the central directory and keep appending."""
        with self.lock:
            self.check_open()
            if not self.writable:
                return
            self.zip.close()
            self._finalizer.detach()
            try:
                self.zip = zipfile.ZipFile(
                    self._file if self._file is not None else self.location,
                    "a",
                    compression=self.compression,
                    allowZip64=self.allow_zip64,
                )
            except (zipfile.BadZipFile, OSError, ValueError) as exc:
                # what was written is in the file, its central directory included
                self.closed = True
                raise StoreError(
                    f"the zip archive {self.location!r} was flushed (everything "
                    f"written is in it) but cannot be reopened for appending: "
                    f"{exc}; open a new store on it to go on"
                ) from exc
            self._finalizer = weakref.finalize(self, _close_quietly, self.zip, None)


def _close_quietly(archive: zipfile.ZipFile, remote_file: BinaryIO | None) -> None:
    try:
        archive.close()
    finally:
        if remote_file is not None:
            remote_file.close()


# Writable local archives alive in this process, by absolute path.
_writers: weakref.WeakValueDictionary[str, _Archive] = weakref.WeakValueDictionary()
_writers_lock = threading.Lock()


def _local_path(target: str) -> str | None:
    """The local path a zip target names, or ``None`` for a remote URL."""
    if "://" not in target and "::" not in target:
        return os.path.abspath(os.path.expanduser(target))
    parsed = urlparse(target)
    if parsed.scheme in ("file", "local") and "::" not in target:
        if parsed.netloc not in ("", "localhost"):
            raise InvalidPathError(
                f"zip target {target!r} names a host; only local paths or fsspec URLs are supported"
            )
        return os.path.abspath(unquote(parsed.path))
    return None


ZIP_MODES = ("r", "w", "a", "x")
ZipMode = Literal["r", "w", "a", "x"]  # zipfile's modes, ZIP_MODES


def _access(path: Any, mode: str | None, read_only: bool | None) -> ZipMode:
    """The zipfile mode that ``mode`` and ``read_only`` (zarr-python's arguments) choose,
    or a refusal naming them (see the module docstring)."""
    if mode is not None and mode not in ZIP_MODES:
        raise ValueError(
            f"ZipStore mode={mode!r} is not valid; valid: 'r' (read), 'w' (a new "
            "archive, replacing the file), 'a' (append) or 'x' (a new archive, "
            "refused if the file exists)"
        )
    if read_only is not None and not isinstance(read_only, bool):
        raise TypeError(f"ZipStore read_only={read_only!r} must be True, False or None")
    if mode is None:
        if read_only is None:
            return "r" if _is_file_object(path) else "a"
        return "r" if read_only else "a"
    if read_only is not None and read_only != (mode == "r"):
        raise ValueError(
            f"ZipStore mode={mode!r} with read_only={read_only!r} contradict each "
            "other: mode='r' is read-only, the other modes write; pass one of them"
        )
    return cast(ZipMode, mode)  # one of ZIP_MODES (checked above)


def _is_file_object(path: Any) -> TypeIs[BinaryIO]:
    return not isinstance(path, (str, bytes, os.PathLike)) and path is not None


def _check_file_object(file: Any, mode: str) -> None:
    """Refuse a file object zipfile cannot use for ``mode``, naming what it lacks."""
    if isinstance(file, io.TextIOBase):
        raise TypeError(
            f"ZipStore(path=...) got a text file {file!r:.80}; open the archive in "
            "binary mode (open(name, 'rb') to read, 'r+b' or 'wb' to write)"
        )
    needed = ("read", "seek", "tell") + (("write",) if mode != "r" else ())
    missing = [name for name in needed if not callable(getattr(file, name, None))]
    if missing:
        raise TypeError(
            f"ZipStore(path=...) takes a str, an os.PathLike or an open binary file "
            f"object with {', '.join(needed)} (mode={mode!r}); got "
            f"{type(file).__module__}.{type(file).__qualname__} without "
            f"{', '.join(missing)}"
        )


class ZipStore(Store):
    scheme = "zip"
    environmental_errors = ENVIRONMENTAL_ERRORS  # a remote archive is read through fsspec

    def __init__(
        self,
        path: str | os.PathLike[str] | BinaryIO | None = None,
        *,
        mode: str | None = None,
        read_only: bool | None = None,
        compression: int = zipfile.ZIP_STORED,
        allowZip64: bool = True,  # zipfile.ZipFile's spelling
        storage_options: dict[str, Any] | None = None,
        _archive: _Archive | None = None,
    ) -> None:
        if _archive is None:
            if path is None:
                raise TypeError(
                    "ZipStore needs the path or URL of the archive, or an open binary file object"
                )
            if isinstance(path, bytes):
                raise TypeError(
                    f"ZipStore(path={path!r}) takes the path as a str or "
                    "os.PathLike, not bytes (or an open binary file object)"
                )
            access = _access(path, mode, read_only)
            if _is_file_object(path):
                _archive = self._open_file_object(
                    path,
                    access,
                    compression=compression,
                    allow_zip64=allowZip64,
                    storage_options=storage_options or {},
                )
            else:
                _archive = self._open_archive(
                    os.fspath(path),
                    mode=access,
                    compression=compression,
                    allow_zip64=allowZip64,
                    storage_options=storage_options or {},
                )
            read_only = access == "r"
        super().__init__(read_only=bool(read_only) or not _archive.writable)
        self._archive = _archive
        self.path = _archive.location
        # no bookkeeping keys: a write's unfinished-write marker could never be removed
        # from an append-only archive, and would then mark every finished write as killed
        self.capabilities = StoreCapabilities(
            writable=_archive.writable,
            listable=True,
            partial_reads=True,
            atomic_writes=False,
            versioned_ranges=True,
            bookkeeping_keys=False,
        )

    @staticmethod
    def _open_file_object(
        file: Any, mode: ZipMode, *, compression: int, allow_zip64: bool, storage_options: dict[str, Any]
    ) -> _Archive:
        _check_file_object(file, mode)
        if storage_options:
            raise TypeError(
                f"a zip archive in an open file object takes no storage options, "
                f"got {sorted(storage_options)}"
            )
        name = getattr(file, "name", None)
        location = name if isinstance(name, str) else repr(file)
        return _Archive(location, mode=mode, compression=compression, file=file, allow_zip64=allow_zip64)

    @staticmethod
    def _open_archive(
        target: str, *, mode: ZipMode, compression: int, allow_zip64: bool, storage_options: dict[str, Any]
    ) -> _Archive:
        read_only = mode == "r"
        local = _local_path(target)
        if local is not None:
            if storage_options:
                raise TypeError(
                    f"a local zip archive takes no storage options, got {sorted(storage_options)}"
                )
            if os.path.exists(local) and not os.path.isfile(local):
                # a device, a fifo, a directory: writing it would "succeed" and fail at close
                raise StoreError(f"{local!r} is not a regular file; a zip archive must be one", url=target)
            with _writers_lock:
                live = _writers.get(local)
                if live is not None and not live.closed:
                    if mode in ("w", "x"):
                        raise StoreError(
                            f"cannot open {local!r} with mode={mode!r}: a writable store of "
                            "this process has it open, and a new archive would cut the file "
                            "under it; close that store first, or open with mode='a' or 'r'",
                            url=target,
                        )
                    return live  # this process's writer (a read-only store views it)
                archive = _Archive(local, mode=mode, compression=compression, allow_zip64=allow_zip64)
                if not read_only:
                    _writers[local] = archive
                return archive
        if not read_only:
            raise StoreError(
                f"cannot open the remote zip archive {target!r} for writing: "
                "remote archives are read-only; write a local archive and "
                "upload it, or open with mode='r'"
            )
        try:
            handle = fsspec.open(target, "rb", **storage_options).open()
        except FileNotFoundError as exc:
            raise StoreError(f"no zip archive at {target!r}") from exc
        return _Archive(target, mode="r", compression=compression, remote_file=handle)

    @classmethod
    def from_url(cls, url: str, *, read_only: bool = False, **options: Any) -> ZipStore:
        """``zip://<local path>`` or ``zip::<fsspec URL of the archive>``; ``options``
        are ``compression`` and, for remote archives, the filesystem's options."""
        if url.startswith("zip::"):
            target = url[len("zip::") :]
        elif url.startswith("zip://"):
            target = url[len("zip://") :]
        else:
            raise InvalidPathError(f"not a zip URL: {url!r} (use zip://<path> or zip::<url>)")
        compression = options.pop("compression", zipfile.ZIP_STORED)
        return cls(target, read_only=read_only, compression=compression, storage_options=options)

    def __repr__(self) -> str:
        mode = ", read-only" if self.read_only else ""
        return f"ZipStore({self.path!r}{mode})"

    # --- reads -----------------------------------------------------------------------

    def _info(self, key: str) -> zipfile.ZipInfo | None:
        try:
            return self._archive.zip.getinfo(key)
        except KeyError:
            return None

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        validate_key(key)
        bound = read_limit(key)
        archive = self._archive
        with archive.lock:
            archive.check_open()
            info = self._info(key)
            if info is None:
                return None
            window = slice(0, info.file_size) if byte_range is None else byte_range.slice_of(info.file_size)
            # the size the directory declares, before inflating anything: zipfile never
            # inflates a member past it (a header understating it fails its CRC check), and
            # reads inflate at most what they ask for
            bound.check(window.stop - window.start, declared=True)
            try:
                with archive.zip.open(info) as member:
                    if window.start:
                        member.seek(window.start)  # inflated in pieces, kept nowhere
                    data = member.read(window.stop - window.start)
            except (zipfile.BadZipFile, OSError, EOFError) as exc:
                raise StoreError(f"cannot read {key!r} from the zip archive {self.path!r}: {exc}") from exc
            bound.check(len(data))  # what zipfile promises, checked all the same
            return data

    def _get_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        # Append-only: a member, once written, never changes, so every read of it is of
        # its one version; its place in the archive is its generation.
        archive = self._archive
        with archive.lock:
            archive.check_open()
            info = self._info(key)
            generation = ABSENT if info is None else info.header_offset
            if if_generation is not None and generation != if_generation:
                raise ConflictError(
                    f"{key!r} in the zip archive {self.path!r} is not the version asked for", key=key
                )
            if info is None:
                return None, ABSENT
            # the member is there (info, under the lock), so every get() gives bytes
            return cast("list[bytes]", [self.get(key, r) for r in ranges]), generation

    def exists(self, key: str) -> bool:
        validate_key(key)
        with self._archive.lock:
            self._archive.check_open()
            return self._info(key) is not None

    def list_prefix(self, prefix: str) -> Iterator[str]:
        validate_prefix(prefix)
        with self._archive.lock:
            self._archive.check_open()
            names = self._archive.zip.namelist()
        keys = set()
        for name in names:
            if name.endswith("/") or not name.startswith(prefix):
                continue
            try:
                keys.add(validate_key(name))
            except InvalidPathError:
                continue
        return iter(sorted(keys))

    def list_dir(self, prefix: str) -> ListDirResult:
        return super().list_dir(prefix)

    # --- writes ----------------------------------------------------------------------

    def _refuse(self, key: str, action: str) -> AppendOnlyError:
        return AppendOnlyError(
            f"cannot {action} {key!r} in the zip archive {self.path!r}: zip stores are "
            "append-only (each key is written once, never replaced or deleted). Write every "
            "chunk and document once, or build the hierarchy in a directory and zip it"
        )

    def _set(self, key: str, value: bytes) -> None:
        archive = self._archive
        with archive.lock:
            archive.check_open()
            if self._info(key) is not None:
                raise self._refuse(key, "overwrite")
            try:
                archive.zip.writestr(key, value, compress_type=archive.compression)
            except (OSError, ValueError) as exc:
                raise StoreError(f"cannot write {key!r} to the zip archive {self.path!r}: {exc}") from exc

    def _delete(self, key: str) -> None:
        with self._archive.lock:
            self._archive.check_open()
            if self._info(key) is not None:
                raise self._refuse(key, "delete")

    def erase_prefix(self, prefix: str) -> None:
        validate_prefix(prefix)
        self._check_writable(prefix or "<root>")
        first = next(self.list_prefix(prefix), None)
        if first is not None:
            raise self._refuse(first, f"erase the prefix {prefix!r} holding")

    # --- lifetime ----------------------------------------------------------------------

    def flush(self) -> None:
        """Make everything written so far readable by others; keep the store writable."""
        self._archive.flush()

    def close(self) -> None:
        """Write the central directory (writers) and release the file.

        Closing a read-only view of a live writer leaves the writer open.
        """
        if self.read_only and self._archive.writable:
            return
        self._archive.close()

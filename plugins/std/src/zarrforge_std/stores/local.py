"""A store on a local directory (``file://`` URLs and plain paths).

Each key is a file below the root directory. Keys are confined to the root:
:func:`validate_key` rejects absolute keys and ``.``/``..`` segments, and the
resolved path is checked to stay below the root. Writes are atomic: the
value goes to a temporary file in the same directory, which is then renamed
over the key, so a reader (or a crash) never sees a partly written value.
Temporary files carry the prefix ``.zarrforge-tmp-`` and are never listed.
Deleting a key removes directories left empty below the root.
"""

from __future__ import annotations

import itertools
import os
import secrets
import shutil
from typing import Any, Iterator, Sequence
from urllib.parse import unquote, urlparse

from zarrforge.abc.store import (ByteRange, ListDirResult, Store, StoreCapabilities,
                                 validate_key, validate_prefix)
from zarrforge.errors import InvalidPathError, StoreError

TEMP_PREFIX = ".zarrforge-tmp-"
_SLASH_PATHS = os.sep == "/" and os.altsep is None  # POSIX: a key is already a relative path


class LocalStore(Store):
    scheme = "file"
    capabilities = StoreCapabilities(writable=True, listable=True, partial_reads=True,
                                     atomic_writes=True, low_latency=True)

    def __init__(self, root: str | os.PathLike, *, read_only: bool = False) -> None:
        super().__init__(read_only=read_only)
        self.root = os.path.abspath(os.fspath(root))

    @classmethod
    def from_url(cls, url: str, *, read_only: bool = False, **options: Any) -> "LocalStore":
        if options:
            raise TypeError(f"local stores take no storage options, got {sorted(options)}")
        if "://" in url:
            parsed = urlparse(url)
            if parsed.netloc not in ("", "localhost"):
                raise InvalidPathError(f"file URL {url!r} names a host; only local paths are supported")
            url = unquote(parsed.path)
        return cls(os.path.expanduser(url), read_only=read_only)

    def _path(self, key: str) -> str:
        validate_key(key)
        if _SLASH_PATHS:
            # A valid key has no empty, "." or ".." segment, no leading "/" and no
            # backslash, so appending it to the root cannot leave the root.
            return os.path.join(self.root, key)
        path = os.path.normpath(os.path.join(self.root, *key.split("/")))
        if os.path.commonpath([self.root, path]) != self.root or path == self.root:
            raise InvalidPathError(f"key {key!r} resolves outside the store root {self.root!r}")
        return path

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        path = self._path(key)
        try:
            fd = os.open(path, _READ_FLAGS)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {key!r} from {self.root!r}: {exc}") from exc
        try:
            size = os.fstat(fd).st_size
            window = slice(0, size) if byte_range is None else byte_range.slice_of(size)
            return _read_at(fd, window.start, window.stop - window.start)
        except IsADirectoryError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {key!r} from {self.root!r}: {exc}") from exc
        finally:
            os.close(fd)

    def exists(self, key: str) -> bool:
        return os.path.isfile(self._path(key))

    def getsize(self, key: str) -> int | None:
        try:
            return os.stat(self._path(key)).st_size
        except (FileNotFoundError, NotADirectoryError):
            return None

    # A concurrent delete may prune the key's (now empty) directory between our
    # makedirs and the open or rename; that is not a failure, so try again.
    _PRUNE_RETRIES = 8

    def _set(self, key: str, value: bytes) -> None:
        self._set_parts(key, (value,))

    def _set_parts(self, key: str, parts: Sequence[bytes | bytearray | memoryview]) -> None:
        # the parts go to the file one after another: a shard is never joined in memory
        path = self._path(key)
        directory = os.path.dirname(path)
        temp = f"{directory}{os.sep}{TEMP_PREFIX}{_unique_suffix()}"
        for attempt in range(self._PRUNE_RETRIES):
            try:
                if attempt:  # the first try assumes the directory exists, as it mostly does
                    os.makedirs(directory, exist_ok=True)
                _write_new(temp, parts)
                os.replace(temp, path)
                return
            except (FileNotFoundError, FileExistsError) as exc:  # no directory (yet, or any more)
                self._discard(temp)
                if attempt == self._PRUNE_RETRIES - 1:
                    raise StoreError(f"cannot write {key!r} in {self.root!r}: {exc}",
                                     key=key) from exc
            except OSError as exc:
                self._discard(temp)
                raise StoreError(f"cannot write {key!r} in {self.root!r}: {exc}", key=key) from exc

    @staticmethod
    def _discard(temp: str) -> None:
        try:
            os.unlink(temp)
        except OSError:
            pass

    def _delete(self, key: str) -> None:
        path = self._path(key)
        try:
            os.unlink(path)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise StoreError(f"cannot delete {key!r} in {self.root!r}: {exc}") from exc
        self._prune(os.path.dirname(path))

    def _prune(self, directory: str) -> None:
        while directory != self.root and directory.startswith(self.root):
            try:
                os.rmdir(directory)
            except OSError:
                return
            directory = os.path.dirname(directory)

    def erase_prefix(self, prefix: str) -> None:
        validate_prefix(prefix)
        self._check_writable(prefix or "<root>")
        if prefix == "":
            for key in list(self.list_prefix("")):
                self._delete(key)
            return
        directory = self._path(prefix[:-1])
        if os.path.isdir(directory):
            shutil.rmtree(directory)
            self._prune(os.path.dirname(directory))

    def list_prefix(self, prefix: str) -> Iterator[str]:
        validate_prefix(prefix)
        base = self.root if prefix == "" else self._path(prefix[:-1])
        if not os.path.isdir(base):
            return iter(())
        keys = []
        for directory, dirnames, filenames in os.walk(base):
            dirnames.sort()
            rel = os.path.relpath(directory, self.root)
            rel = "" if rel == "." else rel.replace(os.sep, "/") + "/"
            keys.extend(rel + f for f in filenames if not f.startswith(TEMP_PREFIX))
        return iter(sorted(keys))

    def list_dir(self, prefix: str) -> ListDirResult:
        validate_prefix(prefix)
        base = self.root if prefix == "" else self._path(prefix[:-1])
        keys, prefixes = [], []
        try:
            entries = list(os.scandir(base))
        except (FileNotFoundError, NotADirectoryError):
            return ListDirResult([], [])
        for entry in entries:
            if entry.name.startswith(TEMP_PREFIX):
                continue
            (prefixes.append(entry.name + "/") if entry.is_dir() else keys.append(entry.name))
        return ListDirResult(sorted(keys), sorted(prefixes))

    def __repr__(self) -> str:
        return f"LocalStore({self.root!r})"


# os-level calls: Python's buffered file objects cost more than the I/O for small chunks.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_WRITE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
                | getattr(os, "O_BINARY", 0))
_HAS_PREAD = hasattr(os, "pread")  # not on Windows
_PROCESS_TOKEN = secrets.token_hex(4)  # tells apart processes on hosts sharing a directory
_temp_counter = itertools.count()


def _unique_suffix() -> str:
    # The counter is shared by the process's threads; the pid tells apart a forked child,
    # whose counter starts where the parent's stood.
    return f"{_PROCESS_TOKEN}-{os.getpid()}-{next(_temp_counter)}"


def _read_at(fd: int, offset: int, length: int) -> bytes:
    """``length`` bytes from ``offset`` (fewer if the file ends first)."""
    if length <= 0:
        return b""
    parts = []
    while length > 0:
        if _HAS_PREAD:
            part = os.pread(fd, length, offset)
        else:
            os.lseek(fd, offset, os.SEEK_SET)
            part = os.read(fd, length)
        if not part:
            break
        parts.append(part)
        offset += len(part)
        length -= len(part)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _write_new(path: str, parts: Sequence[bytes | bytearray | memoryview]) -> None:
    """Create ``path`` (it must not exist) holding the concatenation of ``parts``."""
    fd = os.open(path, _WRITE_FLAGS, 0o666)
    try:
        for part in parts:
            view = memoryview(part).cast("B")
            while view:
                view = view[os.write(fd, view):]
    finally:
        os.close(fd)


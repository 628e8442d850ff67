"""A store on a local directory (``file://`` URLs and plain paths).

Each key is a file below the root directory. Keys are confined to the root:
:func:`validate_key` rejects absolute keys and ``.``/``..`` segments, and the
resolved path is checked to stay below the root. Writes are atomic: the
value goes to a temporary file in the same directory, which is then renamed
over the key, so a reader (or a crash) never sees a partly written value.
Temporary files carry the prefix ``.zarrforge-tmp-`` and are never listed.
Deleting a key removes directories left empty below the root.

Symbolic links are read through and never written through. The store option
``links`` (a storage option too: ``open_group(path, storage_options={"links":
"refuse"})``) chooses:

* ``"follow"`` (the default): reads go through links wherever they point, as
  zarr-python, tensorstore and the file system do: a value that is a link reads
  its target (public data such as neuroglancer's OME-Zarr fixtures keeps chunk
  files as links to a sibling folder), a key below a directory link reads what
  the link names, inside the root or out of it (``exists``, ``getsize``,
  ``get``, ``get_many``, versioned reads). A link that names nothing reads as an
  absent key; a cycle of links is a ``StoreError`` naming the key. Listings list
  a value that is a link as a key and descend into linked directories, except
  into a directory already on the way down (a link cycle is listed once, never
  walked forever); a link that names nothing is not listed.
* ``"refuse"``: every link is refused, for services that open trees other people
  made: a value that is a link is a ``StoreError`` naming the key and the link
  (reading it, asking whether it exists, its size), and a key or listing prefix
  whose directory passes through a link is an ``InvalidPathError`` naming the
  key and the link (writes included, even through links that stay below the
  root). Listings list links as they are (a linked directory as a
  prefix of ``list_dir``, a linked value as a key) without descending: what they
  name is refused when read, by name.

Under either setting, writes never go through a link. Writing a key that is a
link (``set``, ``set_if``, batches) renames the new value over the link, which
replaces the link with a file and leaves its target as it was; lock files are
opened without following links (a lock file that is a link is refused).
Deleting a key that is a link removes the link only; removing the directories a
delete left empty stops at a link; erasing a prefix whose node is a link removes
the link, never what it points at (erasing the whole store removes links in the
root as links). A write, delete or erase of a key whose directory leads out of
the root through a link (``root/out -> /elsewhere``, then ``out/x``) is refused
with ``InvalidPathError`` naming the key and the link, before any directory is
created or anything written; directory links that resolve below the root are
written through, as plain directories. The check runs the first time the store
object writes in a directory; a link another process swaps in after that is
not noticed (the race is documented in docs/reliability.md).

Batches (POSIX): ``get_many`` (of whole values) and ``set_many`` open each directory
holding two or more of their keys side by side once, and name its files relative to
it, which spares the kernel a lookup of every directory on each file's path. A
write into a directory that a concurrent delete pruned after the batch opened it
fails (Linux creates nothing in a removed directory), and that write and the rest
go the path-based way, which makes the directory again. A read in such a directory
finds nothing: the key was absent at that moment of the call. A directory renamed
while a batch is using it is read or written where it went; zarrforge never renames
directories. Where zarrforge-batch-io's C helper is built, the files of such a run are
read, or written and renamed, by one call that holds no GIL
(``capabilities.io_without_gil``, which lets the engine give small chunks all its
threads); a file it cannot read or write is then read or written the path-based way,
which reports what went wrong by key as ever.

Ranges of one version (``get_ranges``): every range is read from one open of
the key's file, which stays the version it opened whatever is renamed over the
key meanwhile; its generation is the one conditional writes use.

Conditional writes (POSIX systems): ``set_if`` and ``delete_if`` hold an
exclusive lock on a lock file beside the key (``.zarrforge-lock-<name>``,
never listed, removed when the write is done), taken with ``flock`` so it
excludes other threads and other processes on the same host, whatever root
their store was opened at. A value's generation is its file's device, inode,
modification time and size: each write renames a new file over the key, so a
new value is a new inode. Under the lock the generation is compared and the
new value renamed in, so conditional writers of one key never lose each
other's updates. Blind writes (``set``, ``delete``) take no lock, which keeps
whole-chunk writes as cheap as before: a blind write that lands between a
conditional writer's check and its rename is overwritten (it is ordered
before that conditional write). The chunk engine writes a chunk blindly only
when the write covers all of it, so this matters only for writers of
overlapping regions, which race in any case. Locks are advisory and local:
writers on different hosts sharing a network file system are not excluded
(``flock`` over NFS is not reliable); use an object store with conditional
requests there.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import operator
import os
import secrets
import shutil
import stat
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlparse

from zarrforge.errors import ConflictError, InvalidPathError, StoreError, ZarrforgeError
from zarrforge.plugin_api.stores import (
    ABSENT,
    ByteRange,
    ListDirResult,
    Store,
    StoreCapabilities,
    directory_location,
    validate_key,
    validate_prefix,
)

try:
    import fcntl
except ImportError:  # Windows: no flock, so no conditional writes
    fcntl = None  # type: ignore[assignment]

try:  # the optional C helper for batches (zarrforge-batch-io), where it was built
    import zarrforge_batch_io as _native
except ImportError:
    _native = None  # type: ignore[assignment]
if _native is not None and not _native.AVAILABLE:
    _native = None  # type: ignore[assignment]

TEMP_PREFIX = ".zarrforge-tmp-"
LOCK_PREFIX = ".zarrforge-lock-"
_HIDDEN = (TEMP_PREFIX, LOCK_PREFIX)
_SLASH_PATHS = os.sep == "/" and os.altsep is None  # POSIX: a key is already a relative path
LINK_POLICIES = ("follow", "refuse")  # the values of the ``links`` option; the first is the default
OPTIONS = ("links",)  # the storage options a local store takes


class LocalStoreOptionError(ZarrforgeError, ValueError, TypeError):
    """A storage option the local store does not take, or a value it does not know
    (a ``TypeError`` too, as an unknown keyword argument is)."""


def check_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` as keyword arguments of :class:`LocalStore`, refusing any it does not take."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise LocalStoreOptionError(
            f"local stores take the storage option 'links' only (valid values "
            f"{', '.join(map(repr, LINK_POLICIES))}), got {unknown}"
        )
    return dict(options)


class LocalStore(Store):
    scheme = "file"
    capabilities = StoreCapabilities(
        writable=True,
        listable=True,
        partial_reads=True,
        atomic_writes=True,
        low_latency=True,
        conditional_writes=fcntl is not None,
        versioned_ranges=True,
        io_without_gil=_native is not None,
    )

    def __init__(
        self, root: str | os.PathLike[str], *, read_only: bool = False, links: str = "follow"
    ) -> None:
        if not isinstance(links, str) or links not in LINK_POLICIES:
            raise LocalStoreOptionError(
                f"the local store option links={links!r} is not valid; valid: 'follow' (the "
                "default: read through symbolic links wherever they point, never write "
                "through them) or 'refuse' (refuse every symbolic link, for trees others made)"
            )
        super().__init__(read_only=read_only)
        self.root = os.path.abspath(os.fspath(root))
        self.links = links
        self._follow = links == "follow"
        self._root_slash = self.root.rstrip("/") + "/"  # ("/" stays "/")
        self._real_root_slash = os.path.realpath(self.root).rstrip(os.sep) + os.sep
        # key directories checked (once per store object): following links, those seen to
        # resolve below the root, for writes; refusing links, those seen to pass through none
        self._checked: set[str] = set()

    @classmethod
    def plugin_note(cls) -> str:
        """What ``zarrforge plugins`` says of this store beside "ok": whether batches of
        small files run in C without the GIL, and if not, why."""
        if _native is not None:
            return "small-file batches in C, without the GIL: zarrforge-batch-io"
        try:
            import zarrforge_batch_io  # noqa: F401  # (installed, then: without its helper)
        except ImportError:
            return "small-file batches in Python: zarrforge-batch-io is not installed"
        return (
            "small-file batches in Python: zarrforge-batch-io is installed without its C "
            "helper (no C compiler was found when it was built; reinstall it where one is)"
        )

    @classmethod
    def from_url(cls, url: str, *, read_only: bool = False, **options: Any) -> LocalStore:
        options = check_options(options)
        if "://" in url:
            parsed = urlparse(url)
            if parsed.netloc not in ("", "localhost"):
                raise InvalidPathError(f"file URL {url!r} names a host; only local paths are supported")
            url = unquote(parsed.path)
        return cls(os.path.expanduser(url), read_only=read_only, **options)

    def _path(self, key: str) -> str:
        """The key's file, to read (links followed, or refused with ``links="refuse"``)."""
        validate_key(key)
        if len(key) > _NAME_MAX or not key.isascii():
            _check_file_name(key, self.root)
        if not self._follow:
            slash = key.rfind("/")
            if slash > 0 and key[:slash] not in self._checked:
                self._check_directory(key[:slash], key)
        if _SLASH_PATHS:
            # A valid key has no empty, "." or ".." segment, no leading "/" and no
            # backslash, so appending it to the root cannot leave the root.
            return self._root_slash + key
        path = os.path.normpath(os.path.join(self.root, *key.split("/")))
        if os.path.commonpath([self.root, path]) != self.root or path == self.root:
            raise InvalidPathError(f"key {key!r} resolves outside the store root {self.root!r}")
        return path

    def _write_path(self, key: str) -> str:
        """The key's file, to write or delete: refused if its directory leads out of the
        root through a link (see the module docstring)."""
        path = self._path(key)
        self._check_written_directory(key)
        return path

    def _check_written_directory(self, key: str) -> None:
        """With ``links="follow"``: refuse ``key`` if its directory leads out of the root
        through a link (checked once per store object; ``_path`` checks it otherwise)."""
        if self._follow:
            slash = key.rfind("/")
            if slash > 0 and key[:slash] not in self._checked:
                self._check_directory(key[:slash], key)

    def _check_directory(self, directory: str, key: str) -> None:
        """Check ``directory`` (relative to the root) once per store object, for ``key``:
        with ``links="follow"`` (asked before writes) that it does not lead out of the root
        through a link, with ``links="refuse"`` (asked before every access) that it passes
        through none; remember it if it passes."""
        if not self._below_checked(directory):
            (self._check_inside if self._follow else self._check_no_link)(directory, key)
        self._remember(directory)

    def _check_inside(self, directory: str, key: str) -> None:
        """Refuse writing ``key`` when its directory leaves the root through a symbolic link."""
        real = os.path.realpath(os.path.join(self.root, *directory.split("/")))
        if not (real + os.sep).startswith(self._real_root_slash):
            link = self._link_along(directory, leaving=True) or directory
            raise InvalidPathError(
                f"key {key!r} leads out of the store root {self.root!r} through the symbolic "
                f"link {link!r} ({directory!r} resolves to {real!r}); the local store reads "
                "through links but never writes, creates or deletes through one that leaves "
                "its root (write below a real directory of the root instead)"
            )

    def _parent_checked(self, directory: str) -> bool:
        """Is the parent of ``directory`` (relative to the root) the root, or checked?"""
        slash = directory.rfind("/")
        return slash <= 0 or directory[:slash] in self._checked

    def _below_checked(self, directory: str) -> bool:
        """Does ``directory`` pass by one look: its parent is the root or a directory that
        passed, and it is not a link itself (or not there yet: this store makes it, a real
        one)? A new directory costs one ``lstat``, not a resolution of the whole path (and a
        blind write's new directory not even that: :meth:`_made_directory_for`)."""
        if not self._parent_checked(directory):
            return False
        try:
            return not stat.S_ISLNK(os.lstat(os.path.join(self.root, *directory.split("/"))).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            return True  # absent
        except OSError:
            return False  # the whole path is resolved instead

    def _check_no_link(self, directory: str, key: str) -> None:
        """With ``links="refuse"``: refuse ``key`` when ``directory`` (relative to the root,
        itself included) passes through a symbolic link."""
        real = os.path.realpath(os.path.join(self.root, *directory.split("/")))
        if real != self._real_root_slash + directory.replace("/", os.sep):
            link = self._link_along(directory, leaving=False)
            if link is not None:
                try:
                    target = repr(os.readlink(os.path.join(self.root, *link.split("/"))))
                except OSError:  # removed meanwhile
                    target = "a target no longer there"
                raise InvalidPathError(
                    f"key {key!r} in {self.root!r} passes through the symbolic link {link!r} "
                    f"(to {target}); this store was opened with links='refuse', which "
                    "refuses every link (the default, links='follow', reads through them)"
                )

    def _remember(self, directory: str) -> None:
        # remembered whether it exists yet or not: a directory this store creates is a
        # real one (a link put there later by someone else is the documented race)
        if len(self._checked) >= 100_000:
            self._checked.clear()
        self._checked.add(directory)

    def _link_along(self, directory: str, *, leaving: bool) -> str | None:
        """The first symbolic link on the way from the root to ``directory`` (with
        ``leaving``, the first whose target resolves out of the root), ``None`` if none."""
        parts = directory.split("/")
        for end in range(1, len(parts) + 1):
            path = os.path.join(self.root, *parts[:end])
            if os.path.islink(path) and not (
                leaving and (os.path.realpath(path) + os.sep).startswith(self._real_root_slash)
            ):
                return "/".join(parts[:end])
        return None

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        return self._read(key, self._path(key), (byte_range,))[0]

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        # One open per key however many of its ranges are asked for (a sharded read asks
        # for the index and the inner chunks of one shard), and no call per value through
        # get(): for small chunks, this loop is most of a read's Python. Whole values in
        # one directory are opened relative to it (see _in_directories).
        path_of = self._path
        if all(byte_range is None for _, byte_range in requests):
            # whole values only (the engine's reads of whole chunks): one answer a request
            return self._read_wholes([(key, path_of(key)) for key, _ in requests])
        answers: list[bytes | None] = []
        wholes: list[tuple[str, str]] = []  # (key, path) of whole reads not yet made
        for key, same_key in itertools.groupby(requests, key=operator.itemgetter(0)):
            ranges = [r for _, r in same_key]
            if len(ranges) == 1 and ranges[0] is None:
                wholes.append((key, path_of(key)))
                continue
            if wholes:
                answers += self._read_wholes(wholes)
                wholes = []
            answers += self._read(key, path_of(key), ranges)
        return answers + self._read_wholes(wholes)

    def _read_wholes(self, wholes: list[tuple[str, str]]) -> list[bytes | None]:
        """The whole values of ``(key, path)`` pairs, in order, each ``None`` if absent: a
        run in one directory relative to it (by the C helper where it is built), the rest
        (and a run whose directory cannot be opened: each key alone says why) by path."""
        answers: list[bytes | None] = []
        for directory, names, pairs in _in_directories(wholes):
            at = None if directory is None else _open_directory(directory, make=False)
            if at is None:
                answers += [self._read_whole(key, path) for key, path in pairs]
                continue
            try:
                if _native is not None:
                    answers += self._read_natively(at, names, pairs)
                else:
                    answers += [
                        self._read_whole(key, path, at, name)
                        for (key, path), name in zip(pairs, names, strict=True)
                    ]
            finally:
                os.close(at)
        return answers

    def _read_natively(self, at: int, names: list[str], pairs: list[tuple[str, str]]) -> list[bytes | None]:
        """The files ``names`` in the open directory ``at``, read by the C helper without
        the GIL; one it could not read is read again by its path, which reports why."""
        assert _native is not None  # (the caller's check)
        answers: list[Any] = _native.read_files(at, names, self._follow)
        for i, answer in enumerate(answers):
            if type(answer) is int:
                answers[i] = self._read_whole(*pairs[i])
        return answers

    def _read_whole(self, key: str, path: str, at: int | None = None, name: str = "") -> bytes | None:
        """``_read(key, path, [None])[0]`` with less Python: the whole value, or ``None``;
        opened as ``name`` in the open directory ``at`` where one is given."""
        if not _HAS_PREAD:
            return self._read(key, path, (None,))[0]
        fd = _open_value(key, self.root, path, self._follow, at, name)
        if fd is None:
            return None
        try:
            first = os.pread(fd, _FIRST_READ, 0)
            if len(first) < _FIRST_READ:
                return first
            return _read_at(fd, 0, os.fstat(fd).st_size)
        except IsADirectoryError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {key!r} from {self.root!r}: {exc}") from exc
        finally:
            os.close(fd)

    def _read(self, key: str, path: str, byte_ranges: Sequence[ByteRange | None]) -> list[bytes | None]:
        """The value at ``path`` (the path of ``key``), or the ranges of it, from one open."""
        fd = _open_value(key, self.root, path, self._follow)
        if fd is None:
            return [None] * len(byte_ranges)
        try:
            answers: list[bytes | None] = []
            size = None
            for byte_range in byte_ranges:
                if byte_range is None and size is None:
                    # Most values are small: one read says how long they are, without the
                    # fstat (a short read of a regular file is its end); a longer one is
                    # read again whole at its size, which costs less than joining the parts.
                    if not _HAS_PREAD:
                        os.lseek(fd, 0, os.SEEK_SET)
                    first = os.pread(fd, _FIRST_READ, 0) if _HAS_PREAD else os.read(fd, _FIRST_READ)
                    if len(first) < _FIRST_READ:
                        answers.append(first)
                        continue
                if size is None:
                    size = os.fstat(fd).st_size
                window = slice(0, size) if byte_range is None else byte_range.slice_of(size)
                answers.append(_read_at(fd, window.start, window.stop - window.start))
            return answers
        except IsADirectoryError:
            return [None] * len(byte_ranges)
        except OSError as exc:
            raise StoreError(f"cannot read {key!r} from {self.root!r}: {exc}") from exc
        finally:
            os.close(fd)

    def exists(self, key: str) -> bool:
        return self._status(key) is not None

    def getsize(self, key: str) -> int | None:
        status = self._status(key)
        return None if status is None else status.st_size

    def _status(self, key: str) -> os.stat_result | None:
        """The key's file (what a link names, or, with ``links="refuse"``, refused)."""
        path = self._path(key)
        try:
            status = os.stat(path) if self._follow else os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise _read_error(key, self.root, path, self._follow, exc) from exc
        if stat.S_ISLNK(status.st_mode):
            raise _link_refused(key, self.root, path)
        return status if stat.S_ISREG(status.st_mode) else None

    # A concurrent delete may prune the key's (now empty) directory between our
    # makedirs and the open or rename; that is not a failure, so try again.
    _PRUNE_RETRIES = 8

    def _set(self, key: str, value: bytes) -> None:
        self._set_parts(key, (value,))

    def set_many(self, items: Iterable[tuple[str, bytes | bytearray | memoryview]]) -> None:
        # As WrapperStore.set_many: every key checked, then one writability check, before
        # anything is written; each value is written as given (a chunk the engine hands
        # over as a memoryview is not copied into bytes first).
        writes = [(key, self._write_path(key), value) for key, value in items]
        if writes:
            self._check_writable(writes[0][0])
        # A run in one directory is written relative to it, opened (and made, if absent)
        # once, up to its first failure (the directory pruned by a concurrent delete: Linux
        # creates nothing in a removed directory); the rest, and single keys, go by path,
        # which makes the directory again and reports errors.
        for directory, names, group in _in_directories(writes):
            at = None if directory is None else _open_directory(directory, make=True)
            done = 0
            if at is not None:
                try:
                    done = self._replace_all_at(at, names, [value for _, _, value in group])
                finally:
                    os.close(at)
            for key, path, value in group[done:]:
                self._replace(key, path, (value,))

    def _replace_all_at(self, at: int, names: list[str], values: list[bytes | bytearray | memoryview]) -> int:
        """:meth:`_replace_at` of each file in turn (all of them by one call into the C
        helper where it is built) up to the first that fails: how many were written."""
        if _native is not None:
            temporaries = [f"{_temp_name}{next(_temp_counter)}" for _ in names]
            return _native.write_files(at, names, temporaries, values)
        done = 0
        for name, value in zip(names, values, strict=True):
            if not self._replace_at(at, name, value):
                break
            done += 1
        return done

    def _replace_at(self, at: int, name: str, value: bytes | bytearray | memoryview) -> bool:
        """:meth:`_replace` of the file ``name`` in the open directory ``at``: ``False``,
        leaving nothing behind, if it failed."""
        temp = f"{_temp_name}{next(_temp_counter)}"
        try:
            _write_new(temp, (value,), at)
            os.rename(temp, name, src_dir_fd=at, dst_dir_fd=at)  # on POSIX, replaces
            return True
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=at)
            return False

    def _set_parts(self, key: str, parts: Sequence[bytes | bytearray | memoryview]) -> None:
        path = self._path(key)
        if not self._made_directory_for(key, path):
            self._check_written_directory(key)
        self._replace(key, path, parts)  # a blind write: no lock (module docstring)

    def _made_directory_for(self, key: str, path: str) -> bool:
        """Make the directory of ``key`` (file ``path``) where it is new below a checked
        directory (a new node's first write): ``True`` if this call made it. A directory
        made here is a real one, so it needs no look for a link, and the write that follows
        goes straight into it: one ``mkdir`` where an ``lstat``, a create that fails for want
        of the directory and then a ``mkdir`` were made. Anything else (a directory that
        exists, or whose parent is unchecked or absent) is ``False``: the usual checks."""
        slash = key.rfind("/")
        if not self._follow or slash <= 0 or key[:slash] in self._checked:
            return False  # (links="refuse": _path has already checked the directory)
        if not self._parent_checked(key[:slash]):
            return False
        try:
            os.mkdir(path[: path.rfind(os.sep)])
        except OSError:
            return False
        self._remember(key[:slash])
        return True

    def _replace(self, key: str, path: str, parts: Sequence[bytes | bytearray | memoryview]) -> None:
        # the parts go to the file one after another: a shard is never joined in memory
        directory = path[: path.rfind(os.sep)]  # path is the root joined with a valid key
        temp = f"{directory}{_temp_stem}{next(_temp_counter)}"
        try:  # the common case, straight: the directory exists
            _write_new(temp, parts)
            os.replace(temp, path)
            return
        except FileNotFoundError:  # no directory (a new node's): the open created nothing
            pass
        except OSError:
            self._discard(temp)
        self._replace_carefully(key, directory, path, parts)

    def _replace_carefully(
        self, key: str, directory: str, path: str, parts: Sequence[bytes | bytearray | memoryview]
    ) -> None:
        """:meth:`_replace` after its first try failed: create the directory, try again
        while concurrent deletes prune it, and report any other failure."""
        for attempt in range(self._PRUNE_RETRIES):
            temp = f"{directory}{_temp_stem}{next(_temp_counter)}"
            try:
                _make_directory(directory)
                _write_new(temp, parts)
                os.replace(temp, path)
                return
            except (FileNotFoundError, FileExistsError) as exc:  # no directory (any more)
                self._discard(temp)
                if attempt == self._PRUNE_RETRIES - 1:
                    raise StoreError(f"cannot write {key!r} in {self.root!r}: {exc}", key=key) from exc
            except OSError as exc:
                self._discard(temp)
                raise StoreError(f"cannot write {key!r} in {self.root!r}: {exc}", key=key) from exc

    # --- conditional writes ----------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self, key: str, path: str) -> Iterator[None]:
        """Hold the key's lock file (no-op without flock). The holder removes the file
        before releasing it; a waiter that then gets the lock on a removed file sees that
        the path no longer names its file, and starts again."""
        if fcntl is None:
            yield
            return
        directory, name = os.path.split(path)
        lock = f"{directory}{os.sep}{LOCK_PREFIX}{name}"
        for attempt in itertools.count():
            try:
                fd = os.open(lock, _LOCK_FLAGS, 0o666)
            except (FileNotFoundError, NotADirectoryError) as exc:  # no directory (yet, or any more)
                if attempt >= self._PRUNE_RETRIES:
                    raise StoreError(f"cannot lock {key!r} in {self.root!r}: {exc}", key=key) from exc
                try:
                    os.makedirs(directory, exist_ok=True)
                except (FileExistsError, FileNotFoundError):
                    pass  # created and pruned again by others meanwhile: try again
                continue
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # opened without following: never through a link
                    raise StoreError(
                        f"cannot lock {key!r} in {self.root!r}: the lock file {lock!r} is a "
                        "symbolic link, and the local store never writes through links; "
                        "remove it (no zarrforge writer makes one)",
                        key=key,
                    ) from exc
                raise StoreError(f"cannot lock {key!r} in {self.root!r}: {exc}", key=key) from exc
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    current = os.stat(lock).st_ino
                except FileNotFoundError:
                    current = None
                if current == os.fstat(fd).st_ino:
                    break
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)
        try:
            yield
        finally:
            try:
                os.unlink(lock)
            except OSError:
                pass
            os.close(fd)

    def _get_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        # Every write renames a new file over the key, so what one open reads is one
        # version, whatever is renamed over the key meanwhile.
        fd = _open_value(key, self.root, self._path(key), self._follow)
        if fd is None:
            if if_generation is not None and if_generation is not ABSENT:
                raise ConflictError(f"{key!r} in {self.root!r} was deleted since it was read", key=key)
            return None, ABSENT
        try:
            status = os.fstat(fd)
            generation = _generation(status)
            if if_generation is None or generation == if_generation:
                size = status.st_size
                windows = [slice(0, size) if r is None else r.slice_of(size) for r in ranges]
                return [_read_at(fd, w.start, w.stop - w.start) for w in windows], generation
        except IsADirectoryError:
            return None, ABSENT
        except OSError as exc:
            raise StoreError(f"cannot read {key!r} from {self.root!r}: {exc}") from exc
        finally:
            os.close(fd)
        raise ConflictError(f"{key!r} in {self.root!r} changed since it was read", key=key)

    def _current(self, path: str, key: str = "") -> Any:
        """The generation of the key's value (what a link names: the one a versioned
        read gave; the link itself with ``links="refuse"``)."""
        try:
            return _generation(os.stat(path) if self._follow else os.lstat(path))
        except (FileNotFoundError, NotADirectoryError):
            return ABSENT
        except OSError as exc:
            raise _read_error(key or path, self.root, path, self._follow, exc) from exc

    def _check_generation(self, key: str, path: str, expected: Any) -> None:
        if self._current(path, key) != expected:
            raise ConflictError(f"{key!r} in {self.root!r} changed since it was read", key=key)

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        return self._set_parts_if(key, (value,), if_generation)

    def _set_parts_if(
        self, key: str, parts: Sequence[bytes | bytearray | memoryview], if_generation: Any
    ) -> Any:
        path = self._write_path(key)
        with self._locked(key, path):
            self._check_generation(key, path, if_generation)
            self._replace(key, path, parts)
            return self._current(path, key)

    def _delete_if(self, key: str, if_generation: Any) -> None:
        path = self._write_path(key)
        with self._locked(key, path):
            self._check_generation(key, path, if_generation)
            self._unlink(key, path)
        self._prune(os.path.dirname(path))

    @staticmethod
    def _discard(temp: str) -> None:
        try:
            os.unlink(temp)
        except OSError:
            pass

    def _delete(self, key: str) -> None:
        path = self._write_path(key)
        self._unlink(key, path)  # a blind delete: no lock (module docstring)
        self._prune(os.path.dirname(path))

    def _unlink(self, key: str, path: str) -> None:
        try:
            os.unlink(path)  # a link is removed, never what it names
        except FileNotFoundError:
            return
        except OSError as exc:
            raise StoreError(f"cannot delete {key!r} in {self.root!r}: {exc}") from exc

    def _prune(self, directory: str) -> None:
        """Remove ``directory`` and its parents while they are empty, up to the root. The
        directory was checked to resolve below the root; ``rmdir`` of a link fails
        (ENOTDIR), so the climb stops at a link and never removes what one names."""
        while directory != self.root and directory.startswith(self._root_slash):
            try:
                os.rmdir(directory)
            except OSError:
                return
            directory = os.path.dirname(directory)

    def erase_prefix(self, prefix: str) -> None:
        validate_prefix(prefix)
        self._check_writable(prefix or "<root>")
        if prefix == "":
            self._erase_root()
            return
        node = prefix[:-1]
        path = self._write_path(node)  # its directory resolves below the root
        try:
            status = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return
        if stat.S_ISLNK(status.st_mode):
            if os.path.isdir(path):  # a node that is a link: remove the link, not its target
                self._unlink(node, path)
                self._prune(os.path.dirname(path))
            # (a link to a file is the key ``node`` itself, not under ``prefix``)
        elif stat.S_ISDIR(status.st_mode):
            self._remove_tree(prefix, path)
            self._prune(os.path.dirname(path))

    def _erase_root(self) -> None:
        """Everything in the root (links removed as links; hidden files of the root left
        to the writers that made them)."""
        try:
            entries = list(os.scandir(self.root))
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as exc:
            raise StoreError(f"cannot erase {self.root!r}: {exc}") from exc
        for entry in entries:
            if entry.name.startswith(_HIDDEN):
                continue
            if entry.is_dir(follow_symlinks=False):
                self._remove_tree(entry.name + "/", entry.path)
            else:  # a value, or a link (to anything): unlinked, never followed
                self._unlink(entry.name, entry.path)

    def _remove_tree(self, prefix: str, path: str) -> None:
        try:
            shutil.rmtree(path)  # never follows links inside: it removes them
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StoreError(f"cannot erase {prefix!r} in {self.root!r}: {exc}") from exc

    def _directory_of(self, prefix: str) -> str:
        """The directory of a listing ``prefix`` (with ``links="refuse"``, refused if it
        passes through a link, itself included)."""
        validate_prefix(prefix)
        if not prefix:
            return self.root
        directory = self._path(prefix[:-1])
        if not self._follow and prefix[:-1] not in self._checked:
            self._check_directory(prefix[:-1], prefix)
        return directory

    def list_prefix(self, prefix: str) -> Iterator[str]:
        base = self._directory_of(prefix)
        keys: list[str] = []
        real = os.path.realpath(base) if self._follow else base
        self._walk(base, prefix, real, {real}, keys)
        return iter(sorted(keys))

    def _walk(self, directory: str, rel: str, real: str, above: set[str], keys: list[str]) -> None:
        """Add the keys below ``directory`` (``rel``: its prefix) to ``keys``. ``real`` is
        its resolved path and ``above`` those of the directories walked down to it: a
        linked directory already among them is a cycle, and not walked again."""
        try:
            entries = list(os.scandir(directory))
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as exc:
            raise StoreError(f"cannot list {rel!r} in {self.root!r}: {exc}") from exc
        for entry in entries:
            name = entry.name
            if name.startswith(_HIDDEN):
                continue
            if not entry.is_symlink():
                if entry.is_dir(follow_symlinks=False):
                    below = real.rstrip(os.sep) + os.sep + name
                    if below not in above:  # (a real directory is not: only through links)
                        self._walk(entry.path, f"{rel}{name}/", below, above | {below}, keys)
                else:
                    keys.append(rel + name)
            else:
                named = _named_by(entry)
                if not self._follow:
                    if named != "directory":  # listed as it is; reading it is refused by name
                        keys.append(rel + name)
                elif named == "directory":
                    below = os.path.realpath(entry.path)
                    if below not in above:
                        self._walk(entry.path, f"{rel}{name}/", below, above | {below}, keys)
                elif named == "file":  # (a link naming nothing, or a cycle, is no key)
                    keys.append(rel + name)

    def list_dir(self, prefix: str) -> ListDirResult:
        base = self._directory_of(prefix)
        keys, prefixes = [], []
        try:
            entries = list(os.scandir(base))
        except (FileNotFoundError, NotADirectoryError):
            return ListDirResult([], [])
        except OSError as exc:
            raise StoreError(f"cannot list {prefix!r} in {self.root!r}: {exc}") from exc
        for entry in entries:
            if entry.name.startswith(_HIDDEN):
                continue
            named = _named_by(entry) if entry.is_symlink() else None
            if named == "directory" or (named is None and entry.is_dir(follow_symlinks=False)):
                prefixes.append(entry.name + "/")  # a directory, or a link to one
            elif not self._follow or named != "nothing":
                keys.append(entry.name)  # following links, one naming nothing is no key
        return ListDirResult(sorted(keys), sorted(prefixes))

    def local_directory(self) -> str | None:
        return self.root

    def root_url(self) -> str | None:
        return "file://" + self.root

    def data_location(self) -> tuple[Hashable, str]:
        return directory_location(self.root)

    def __repr__(self) -> str:
        links = "" if self._follow else f", links={self.links!r}"
        return f"LocalStore({self.root!r}{links})"


# os-level calls: Python's buffered file objects cost more than the I/O for small chunks.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # (links="refuse": a value that is a link is refused)
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | _NOFOLLOW
_HAS_PREAD = hasattr(os, "pread")  # not on Windows
_FIRST_READ = 64 * 1024  # bytes of a whole value read before asking for its size

# Batches open the files of one directory relative to it, opened once: the kernel then
# looks up one name per file, not every directory of its path (about 10% of a 4 KiB
# chunk's write or read on tmpfs). POSIX only: there ``rename`` replaces, as ``replace``
# does, and takes directory descriptors.
_AT_DIRECTORY = os.name == "posix" and os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd
_DIRECTORY_FLAGS = (
    getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
)
_AT_LEAST = 2  # keys in one directory for a batch to open it (one key: its path is as cheap)


def _in_directories(items: Sequence[Any]) -> Iterator[tuple[str | None, list[str], list[Any]]]:
    """Runs of ``items`` (tuples whose second field is a key's path) that lie in one
    directory, in order, as ``(directory, file names, items)``; a run shorter than
    ``_AT_LEAST``, and every run where files cannot be named relative to a directory,
    has ``None`` for its directory (and no names)."""
    if not _AT_DIRECTORY:
        if items:
            yield None, [], list(items)
        return
    sep = os.sep
    split = [item[1].rpartition(sep) for item in items]  # (directory, sep, file name)
    start, count = 0, len(items)
    while start < count:
        directory = split[start][0]
        end = start + 1
        while end < count and split[end][0] == directory:
            end += 1
        if end - start < _AT_LEAST:
            yield None, [], list(items[start:end])
        else:
            yield directory, [parts[2] for parts in split[start:end]], list(items[start:end])
        start = end


_PROCESS_TOKEN = secrets.token_hex(4)  # tells apart processes on hosts sharing a directory
_temp_counter = itertools.count()


def _temp_stem_now() -> str:
    # The counter is shared by the process's threads; the pid tells apart a forked child,
    # whose counter starts where the parent's stood.
    return f"{os.sep}{TEMP_PREFIX}{_PROCESS_TOKEN}-{os.getpid()}-"


_temp_stem = _temp_stem_now()  # what a temporary file's path adds to its directory's
_temp_name = _temp_stem[1:]  # the same, as a name in its directory


def _after_fork() -> None:
    global _temp_stem, _temp_name
    _temp_stem = _temp_stem_now()
    _temp_name = _temp_stem[1:]


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=_after_fork)


_NAME_MAX = 255  # bytes in one path segment (POSIX file systems: NAME_MAX)
_PATH_MAX = 4096


def _check_file_name(key: str, root: str) -> None:
    """Refuse a key no file can be named by (a lone surrogate has no UTF-8 form; a segment
    over 255 bytes, or a path over 4096), naming it, instead of the OS's bare error."""
    try:
        encoded = key.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidPathError(
            f"key {key!r} cannot name a file in {root!r}: "
            f"{key[exc.start : exc.end]!r} has no UTF-8 form (a lone "
            "surrogate)"
        ) from None
    longest = max(encoded.split(b"/"), key=len)
    if len(longest) > _NAME_MAX or len(encoded) + len(root) + 1 > _PATH_MAX:
        raise InvalidPathError(
            f"key {key!r} cannot name a file in {root!r}: its segment of "
            f"{len(longest)} bytes (at most {_NAME_MAX}) or its path of "
            f"{len(encoded) + len(root) + 1} bytes (at most {_PATH_MAX}) "
            "is too long for the file system"
        )


def _link_refused(key: str, root: str, path: str) -> StoreError:
    try:
        target = repr(os.readlink(path))
    except OSError:
        target = "a target no longer there"
    return StoreError(
        f"{key!r} in {root!r} is a symbolic link (to {target}); this store was "
        "opened with links='refuse', which refuses every link (the default, "
        "links='follow', reads through them)",
        key=key,
    )


def _read_error(key: str, root: str, path: str, follow: bool, exc: OSError) -> StoreError:
    """The error for an ``OSError`` opening or asking about the key's file."""
    if exc.errno == errno.ELOOP:
        if not follow:
            return _link_refused(key, root, path)
        return StoreError(
            f"cannot read {key!r} from {root!r}: its symbolic links form a "
            f"cycle (or a chain too long to follow): {exc}",
            key=key,
        )
    return StoreError(f"cannot read {key!r} from {root!r}: {exc}", key=key)


def _open_value(
    key: str, root: str, path: str, follow: bool, at: int | None = None, name: str = ""
) -> int | None:
    """An open file descriptor of the key's value, ``None`` if there is none; a value that
    is a link is read through when ``follow``, refused otherwise. With ``at``, the file is
    ``name`` in that open directory (``path`` still names it in errors)."""
    try:
        if not follow and not _NOFOLLOW and os.path.islink(path):  # (no O_NOFOLLOW: Windows)
            raise OSError(errno.ELOOP, "a symbolic link", path)
        flags = _READ_FLAGS if follow else _READ_FLAGS | _NOFOLLOW
        if at is not None:
            return os.open(name, flags, dir_fd=at)
        return os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError as exc:
        raise _read_error(key, root, path, follow, exc) from exc


def _named_by(link: os.DirEntry[str]) -> str:
    """What a directory entry that is a symbolic link names: ``"directory"``, ``"file"``
    (a regular file), or ``"nothing"`` (no target, a cycle, anything else)."""
    try:
        mode = link.stat().st_mode  # followed
    except OSError:
        return "nothing"
    return "directory" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "nothing"


def _generation(status: os.stat_result) -> tuple[int, int, int, int]:
    """A file's generation: a rename-replaced value is a new inode, and the time and size
    tell apart a file written in place by someone else."""
    return (status.st_dev, status.st_ino, status.st_mtime_ns, status.st_size)


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


def _open_directory(directory: str, *, make: bool) -> int | None:
    """A descriptor of ``directory`` for names relative to it (made first, with its
    parents, if ``make`` and it is absent); ``None`` if it cannot be opened."""
    try:
        return os.open(directory, _DIRECTORY_FLAGS)
    except FileNotFoundError:
        if not make:
            return None
    except OSError:
        return None
    try:
        _make_directory(directory)
        return os.open(directory, _DIRECTORY_FLAGS)
    except OSError:  # pruned again meanwhile, or not makeable: the caller goes by path
        return None


def _make_directory(directory: str) -> None:
    """``os.makedirs(directory, exist_ok=True)``, one ``mkdir`` where the parent exists
    (a new node under an existing group: no ``stat`` of the parent first)."""
    try:
        os.mkdir(directory)
    except FileExistsError:
        pass
    except FileNotFoundError:
        os.makedirs(directory, exist_ok=True)


def _write_new(path: str, parts: Sequence[bytes | bytearray | memoryview], at: int | None = None) -> None:
    """Create ``path`` (it must not exist; relative to the open directory ``at`` if one is
    given) holding the concatenation of ``parts``."""
    fd = os.open(path, _WRITE_FLAGS, 0o666, dir_fd=at)
    try:
        for part in parts:
            if type(part) is not bytes:
                try:
                    part = memoryview(part).cast("B")  # len() in bytes, whatever the format
                except TypeError:  # a buffer that is not C-contiguous: write a copy
                    part = bytes(part)
            written = os.write(fd, part)
            if written < len(part):  # a short write (rare for regular files): go on from there
                view = memoryview(part)[written:]
                while view:
                    view = view[os.write(fd, view) :]
    finally:
        os.close(fd)

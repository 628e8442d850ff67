"""Which files a kerchunk reference set (``reference://``) may make zarrforge read.

A reference set maps each key to bytes of another file: ``[url, offset, size]``. It
is a document like any metadata, and as untrusted: a set downloaded from elsewhere
could point at the host's own files (``/etc/hostname``, ``/proc/self/environ``) or
at any URL. So every target is checked before it is read, against the store setting
``reference_targets``:

* ``None`` (the default): remote objects (``s3``, ``gs``/``gcs``, ``az``/``abfs``,
  ``http``/``https``, ``hf``) are read, as a reference set is made to; local files
  only below the directory that holds the reference set itself (when it is a local
  file); any other target (a local file elsewhere, a set given in memory pointing at
  local files, ``memory://``) is refused;
* a list of prefixes: exactly the targets below one of them are read
  (``["/data/hdf5/", "s3://bucket/"]``). A prefix matches whole path components:
  ``/data/hdf5`` and ``/data/hdf5/`` both admit ``/data/hdf5/x.h5``, neither admits
  ``/data/hdf52/x.h5``. A remote target with a ``.`` or ``..`` segment (which a
  server may resolve) matches no prefix;
* ``"any"``: every target is read (a reference set the user trusts).

Targets are contained by default, unlike the links of a local store: they are
pointers the data's author wrote, read on the reader's machine.

**A target is checked where it is read.** fsspec chooses the filesystem of a target
by the protocol before ``://`` (none: the set's ``remote_protocol``, or what fsspec
chose for it), and a local filesystem then reads its own spelling of the path. So a
target read by a local filesystem is normalised by that filesystem's own rules
before any check: ``file:``/``local:`` URLs in every spelling (``file:/x``,
``file:///x``, ``local://x``; ``file://localhost/x`` is what fsspec makes of it, the
relative path ``localhost/x``), ``~`` and ``~user`` expanded, a relative path made
absolute against the working directory (where fsspec reads it, not the set's
directory), and then every symbolic link resolved (``realpath``): a target reached
through a link is checked where the link points. Local prefixes and the set's own
directory are normalised the same way. What remains unchecked: a link swapped in
between the check and fsspec's open of the file.

A refused target is a :class:`~zarrforge.errors.StoreError` naming the key, the
target and the setting; nothing of it is read. Inline values (small chunks the set
holds itself) are no target and always read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from fsspec.core import split_protocol
from fsspec.implementations.local import LocalFileSystem

from zarrforge.errors import StoreError

REMOTE = frozenset({"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "http", "https", "hf"})
LOCAL = frozenset({"file", "local"})
_LOCAL_URL = "file://"  # what every local target is normalised to: file:// + real path


def check_setting(value: Any) -> None:
    if value is None or value == "any":
        return
    if not isinstance(value, (list, tuple)) or not all(isinstance(p, str) and p for p in value):
        raise ValueError(
            "reference_targets must be None (the default policy), 'any', or a "
            f"list of URL or path prefixes, got {value!r}"
        )


def local_path(url: str, reader: type[LocalFileSystem] = LocalFileSystem) -> str:
    """The real path a local filesystem reads for ``url``: its own spelling rules
    (protocol stripped, ``~`` expanded, relative to the working directory), then every
    symbolic link resolved."""
    result: str = os.path.realpath(reader._strip_protocol(url))
    return result


def _below(normal: str, prefix: str) -> bool:
    """Whether ``normal`` is ``prefix`` or below it, by whole path components."""
    prefix = prefix.rstrip("/")
    return normal == prefix or normal.startswith(prefix + "/")


class TargetPolicy:
    """The targets one reference set may read (see the module docstring).

    ``filesystems`` is the reference filesystem's map of protocol to the filesystem
    that reads it (``ReferenceFileSystem.fss``; ``None`` names the one for targets
    without a protocol): given, a target is normalised by the filesystem that will
    read it; without it, by ``remote_protocol`` (a local file when that is unset)."""

    def __init__(
        self,
        setting: Any,
        references: Any,
        remote_protocol: str | None,
        filesystems: Mapping[str | None, Any] | None = None,
    ) -> None:
        check_setting(setting)
        self.setting = setting
        self.remote_protocol = remote_protocol
        self.filesystems = dict(filesystems or {})
        self.home: str | None = None
        if isinstance(references, (str, os.PathLike)):
            reference_set = os.fspath(references)
            protocol, _ = split_protocol(reference_set)
            if protocol in (None, *LOCAL):  # fsspec opens it with its local filesystem
                self.home = os.path.dirname(local_path(reference_set))
        self.prefixes = [] if setting in (None, "any") else [self._prefix(p) for p in setting]
        self._answers: dict[str, bool] = {}  # target -> allowed: chunks share few files

    @staticmethod
    def _prefix(prefix: str) -> str:
        """A prefix of the setting, normalised: a path or ``file:`` URL as its real path,
        any other URL as given."""
        protocol, _ = split_protocol(prefix)
        if protocol is None or protocol in LOCAL:
            return _LOCAL_URL + local_path(prefix)
        return prefix

    def _reader(self, protocol: str | None) -> tuple[str, type[LocalFileSystem] | None]:
        """The protocol of the filesystem that reads a target of ``protocol`` (fsspec's
        split), and its class when it reads local files."""
        fs = self.filesystems.get(protocol)
        if fs is not None:
            inner = getattr(fs, "sync_fs", fs)  # fsspec wraps synchronous ones
            if isinstance(inner, LocalFileSystem):
                return "file", type(inner)
            name = inner.protocol if isinstance(inner.protocol, str) else inner.protocol[0]
            return name, None
        if protocol is None:
            protocol = self.remote_protocol or "file"  # fsspec's default filesystem
        return protocol, LocalFileSystem if protocol in LOCAL else None

    def normal(self, target: str) -> str:
        """``target`` as it will be read: ``file://`` and the real path for a local file,
        ``protocol://path`` for anything else."""
        protocol, path = split_protocol(target)
        reader, local = self._reader(protocol)
        if local is not None:
            return _LOCAL_URL + local_path(target, local)
        return f"{reader}://{path}"

    def allows(self, target: str) -> bool:
        if not (target.startswith("/") or "://" in target):
            # read relative to the working directory, or to ~: not remembered, as both
            # may change between two reads
            return self._allows(target)
        answer = self._answers.get(target)
        if answer is None:
            if len(self._answers) >= 4096:
                self._answers.clear()
            answer = self._answers[target] = self._allows(target)
        return answer

    def _allows(self, target: str) -> bool:
        if self.setting == "any":
            return True
        normal = self.normal(target)
        local = normal.startswith(_LOCAL_URL)
        if self.prefixes:
            if not local and any(part in (".", "..") for part in normal.split("://", 1)[1].split("/")):
                return False  # a server may resolve it: no prefix can contain it
            return any(_below(normal, p) for p in self.prefixes)
        if not local:
            return normal.split("://", 1)[0] in REMOTE
        return self.home is not None and _below(normal, _LOCAL_URL + self.home)

    def check(self, key: str, target: str, url: str) -> None:
        if self.allows(target):
            return
        where = f"local files below {self.home!r} and remote objects" if self.home else "remote objects only"
        allowed = f"the prefixes {self.setting}" if self.prefixes else f"by default, {where}"
        normal = self.normal(target)
        read_as = f" (read as {normal!r})" if normal.split("://", 1)[1] != target else ""
        raise StoreError(
            f"the reference for {key!r} points at {target!r}{read_as}, which this reference "
            f"set may not read ({allowed}); pass storage_options reference_targets=[...] with "
            "the prefixes it may read, or reference_targets='any' if you trust the reference "
            "set",
            key=key,
            url=url,
        )

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
* a list of prefixes: exactly the targets that start with one of them are read
  (``["/data/hdf5/", "s3://bucket/"]``; local prefixes are compared as resolved
  paths, so ``..`` and links cannot leave them);
* ``"any"``: every target is read (a reference set the user trusts).

A refused target is a :class:`~zarrforge.errors.StoreError` naming the key, the
target and the setting; nothing of it is read. Inline values (small chunks the set
holds itself) are no target and always read.
"""

from __future__ import annotations

import os
from typing import Any

from fsspec.core import split_protocol

from zarrforge.errors import StoreError

REMOTE = frozenset({"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "http", "https",
                    "hf"})
LOCAL = frozenset({"file", "local"})


def check_setting(value: Any) -> None:
    if value is None or value == "any":
        return
    if not isinstance(value, (list, tuple)) or not all(isinstance(p, str) and p for p in value):
        raise ValueError("reference_targets must be None (the default policy), 'any', or a "
                         f"list of URL or path prefixes, got {value!r}")


class TargetPolicy:
    """The targets one reference set may read (see the module docstring)."""

    def __init__(self, setting: Any, references: Any, remote_protocol: str | None) -> None:
        check_setting(setting)
        self.setting = setting
        self.remote_protocol = remote_protocol
        self.home: str | None = None
        if isinstance(references, (str, os.PathLike)):
            protocol, path = split_protocol(os.fspath(references))
            if protocol in (None, *LOCAL):
                self.home = os.path.dirname(os.path.realpath(path))
        self.prefixes = [] if setting in (None, "any") else [self._normal(p) for p in setting]
        self._answers: dict[str, bool] = {}  # target -> allowed: chunks share few files

    def _normal(self, target: str) -> str:
        protocol, path = split_protocol(target)
        if protocol in (None, *LOCAL):
            return "file://" + os.path.realpath(path)
        return f"{protocol}://{path}"

    def allows(self, target: str) -> bool:
        answer = self._answers.get(target)
        if answer is None:
            if len(self._answers) >= 4096:
                self._answers.clear()
            answer = self._answers[target] = self._allows(target)
        return answer

    def _allows(self, target: str) -> bool:
        if self.setting == "any":
            return True
        protocol, path = split_protocol(target)
        if protocol is None and self.remote_protocol:
            protocol = self.remote_protocol
        normal = self._normal(f"{protocol}://{path}" if protocol else path)
        if self.prefixes:
            return any(normal == p.rstrip("/") or normal.startswith(p.rstrip("/") + "/")
                       or normal.startswith(p) for p in self.prefixes)
        if protocol in REMOTE:
            return True
        if protocol in (None, *LOCAL) and self.home is not None:
            return normal.startswith("file://" + self.home.rstrip(os.sep) + os.sep)
        return False

    def check(self, key: str, target: str, url: str) -> None:
        if self.allows(target):
            return
        where = (f"local files below {self.home!r} and remote objects" if self.home
                 else "remote objects only")
        allowed = (f"the prefixes {self.setting}" if self.prefixes else
                   f"by default, {where}")
        raise StoreError(
            f"the reference for {key!r} points at {target!r}, which this reference set may not "
            f"read ({allowed}); pass storage_options reference_targets=[...] with the prefixes "
            "it may read, or reference_targets='any' if you trust the reference set",
            key=key, url=url)

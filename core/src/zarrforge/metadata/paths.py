"""Node paths: validation and normalisation.

Users may write ``"/a/b"``, ``"a/b/"`` or ``"a/b"``; the engine works with the
normal form ``"a/b"`` (``""`` for the root). Each name must follow the v3
spec's node-name rules: not empty, not only periods, no ``/``, not starting
with the reserved ``__`` prefix, not ``zarr.json``. Backslashes and NUL are
refused too, since they escape or truncate paths on some stores.
"""

from __future__ import annotations

from ..errors import InvalidPathError


def validate_name(name: str, *, path: str | None = None) -> str:
    where = f" in path {path!r}" if path is not None and path != name else ""
    if not isinstance(name, str):
        raise InvalidPathError(f"node name must be a string, got {name!r}")
    if name == "":
        raise InvalidPathError(f"empty node name{where}")
    if set(name) == {"."}:
        raise InvalidPathError(f"node name {name!r}{where} is not allowed: names made only "
                               "of periods ('.', '..') are reserved")
    if name.startswith("__"):
        raise InvalidPathError(f"node name {name!r}{where} starts with the reserved prefix '__'")
    if name == "zarr.json":
        raise InvalidPathError(f"node name {name!r}{where} is reserved for metadata")
    if "/" in name or "\\" in name or "\x00" in name:
        raise InvalidPathError(f"node name {name!r}{where} contains '/', '\\\\' or NUL")
    return name


def normalize_path(path: str | None) -> str:
    if path is None:
        return ""
    if not isinstance(path, str):
        raise InvalidPathError(f"node path must be a string, got {type(path).__name__} {path!r}")
    stripped = path.strip("/")
    if stripped == "":
        return ""
    for name in stripped.split("/"):
        validate_name(name, path=path)
    return stripped


def join(parent: str, name: str) -> str:
    return f"{parent}/{name}" if parent else name


def parent_of(path: str) -> str:
    return path.rpartition("/")[0]


def basename(path: str) -> str:
    return path.rpartition("/")[2]

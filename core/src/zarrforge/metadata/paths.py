"""Node paths: validation and normalisation.

Users may write ``"/a/b"``, ``"a/b/"`` or ``"a/b"``; the engine works with the
normal form ``"a/b"`` (``""`` for the root). Each name must follow the v3
spec's node-name rules: not empty, not only periods, no ``/``, not ``zarr.json``.
Backslashes and NUL are refused too, since they escape or truncate paths on some
stores.

The spec also reserves names that start with ``__``. Other tools create such nodes
all the same (xarray with zarr-python stores a variable named ``None`` as
``__values__``), so zarrforge *reads* them - :func:`validate_name` and
``normalize_path``, which every path to an existing node goes through, accept
them - but does not *create* them unless asked: creation checks each new name with
:func:`validate_new_name` (``zarrforge.nodes.node_writing.prepare_nodes``), which
refuses them unless the caller passes ``allow_reserved_name=True``. Names starting
with ``__zarr`` are never nodes: the spec keeps that prefix for Zarr's own data, and
zarrforge's bookkeeping keys (``__zarrforge_unfinished.json``,
``__zarrforge_commits/``) use it, so no listing, path or view ever takes them for a
node.

``join``, ``parent_of`` and ``basename`` only split and join strings: they check
nothing and raise nothing.

Raises
------
zarrforge.errors.InvalidPathError
    ``normalize_path``, ``validate_name`` or ``validate_new_name`` is given a path that
    is not a string, or a name a node cannot have: empty, only periods, ``zarr.json``,
    starting with ``__zarr``, holding a slash, a backslash or NUL (and, for a new name
    unless allowed, starting with ``__``).

Examples
--------
>>> paths.normalize_path("/a/b/"), paths.normalize_path(None)
('a/b', '')
>>> paths.join("a/b", "c"), paths.join("", "c"), paths.parent_of("a/b/c"), paths.parent_of("a")
('a/b/c', 'c', 'a/b', '')
>>> paths.validate_name("__values__")  # reserved, but read: other tools write such nodes
'__values__'
>>> from zarrforge.errors import InvalidPathError
>>> try:
...     paths.normalize_path("a/../b")
... except InvalidPathError as exc:
...     print(type(exc).__name__)
InvalidPathError
"""

from __future__ import annotations

from ..errors import InvalidPathError

RESERVED_PREFIX = "__"  # the spec's reserved prefix: read, created only when asked
ZARR_PREFIX = "__zarr"  # Zarr's own data and zarrforge's bookkeeping keys: never a node


def validate_name(name: str, *, path: str | None = None) -> str:
    """``name`` if a node can have it (it may be one that exists); else an
    :class:`InvalidPathError`. A name with the reserved ``__`` prefix passes (peers
    write such nodes; see the module docstring), except ``__zarr...``."""
    where = f" in path {path!r}" if path is not None and path != name else ""
    if not isinstance(name, str):
        raise InvalidPathError(f"node name must be a string, got {name!r}")
    if name == "":
        raise InvalidPathError(f"empty node name{where}")
    if set(name) == {"."}:
        raise InvalidPathError(
            f"node name {name!r}{where} is not allowed: names made only of periods ('.', '..') are reserved"
        )
    if name.startswith(ZARR_PREFIX):
        raise InvalidPathError(
            f"node name {name!r}{where} starts with {ZARR_PREFIX!r}, a prefix "
            "reserved for Zarr's own data by the Zarr spec (and used by "
            "zarrforge's bookkeeping keys): no node has such a name"
        )
    if name == "zarr.json":
        raise InvalidPathError(f"node name {name!r}{where} is reserved for metadata")
    if "/" in name or "\\" in name or "\x00" in name:
        raise InvalidPathError(f"node name {name!r}{where} contains '/', '\\\\' or NUL")
    return name


def validate_new_name(name: str, *, path: str | None = None, allow_reserved_name: bool = False) -> str:
    """``name`` if a new node may be created with it: :func:`validate_name`, and, unless
    ``allow_reserved_name``, not starting with the reserved prefix ``__``."""
    validate_name(name, path=path)
    if name.startswith(RESERVED_PREFIX) and not allow_reserved_name:
        where = f" in path {path!r}" if path is not None and path != name else ""
        raise InvalidPathError(
            f"node name {name!r}{where} starts with {RESERVED_PREFIX!r}, a prefix the Zarr v3 "
            "spec reserves for the spec and its extensions, so zarrforge does not create such "
            "nodes by default (it reads those other tools wrote); create_array and "
            "create_group create one on purpose with allow_reserved_name=True"
        )
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

"""Creating and opening arrays and groups: the functions of ``import zarrforge``.

Modes follow zarr-python: ``"r"`` read-only; ``"r+"`` read/write, the node
must exist; ``"a"`` read/write, create if missing (a group, or an array given
``shape=``); ``"w"`` create, replacing any existing node; ``"w-"`` create, failing
if a node exists. ``open`` and ``open_array`` default, as zarr-python's, to ``"r"``
on a read-only store and ``"a"`` elsewhere; ``open_group`` to ``"a"``.

Opening an existing node warns, with an :class:`~zarrforge.errors.UnfinishedWriteWarning`,
when a write killed before it finished left its marker at the node's path or above it
(:func:`zarrforge.storing.unfinished.warn_if_unfinished`: one batched read); the node
opens all the same.

Creation (:mod:`zarrforge.user_api.creation`) validates everything and builds the
complete metadata *before* writing anything, so a bad argument never leaves
a half-created node, and ``overwrite=True`` never erases the old node unless
the new one can be written. Missing parent groups are created.

The format is chosen by ``zarr_format`` (a registered format name; ``3`` is
the default) when creating, and detected when opening: the configured default
format is tried first, then every other installed format.

``store`` may be a URL pipeline (``"file:/d/data.zip|zip:|zarr3:group/array"``,
:mod:`zarrforge.storing.storage`): its path comes first and ``path=`` is joined below it,
and its format segment chooses the format unless ``zarr_format=`` contradicts it
(an error naming both).

This module is the top of the core: no other core module imports it.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any

from .. import config
from ..engine.chunk_cache import pool_for
from ..errors import (
    ArrayNotFoundError,
    ContainsArrayError,
    DocumentTooLargeError,
    NodeNotFoundError,
    NodeOfAnotherFormatError,
    NodeTypeError,
    ReadOnlyError,
    URLPipelineError,
)
from ..metadata import paths
from ..nodes.consolidated import without_view
from ..nodes.hierarchy import detect_format, get_format, locate_node
from ..nodes.node import check_mode, missing_node, node_from_metadata, open_node
from ..storing import unfinished
from ..storing.storage import Location, StoreLike, resolve_location
from ..storing.unfinished import UnfinishedWrite
from .array_config import config_options
from .arrays import Array, mismatch
from .creation import (
    ARRAY_OPTIONS,
    CREATION_KEYWORDS,
    DEFAULT_FORMAT,
    check_array_options,
    create_array,
    create_group,
)
from .groups import Group
from .keywords import LEGACY_KEYWORDS, checked_keywords, drop_legacy, format_from, refuse_unknown

__all__ = [
    "DEFAULT_FORMAT",
    "consolidate_metadata",
    "create_array",
    "create_group",
    "detect_format",
    "get_format",
    "locate_node",
    "node_from_metadata",
    "open",
    "open_array",
    "open_group",
    "open_node",
    "remove_consolidated_metadata",
]


def _located(
    store: StoreLike, path: str, zarr_format: Any, mode: str | None, storage_options: dict[str, Any] | None
) -> tuple[Location, str]:
    """Where the node is, and the mode: zarr-python's default (``mode=None``) is ``"r"`` on
    a store that is read-only, else ``"a"``. A store that can only be opened read-only (an
    archive on a remote filesystem, an HTTP URL) is one."""
    if mode is not None:
        check_mode(mode)
        return resolve_location(
            store, path, zarr_format=zarr_format, read_only=(mode == "r"), storage_options=storage_options
        ), mode
    try:
        location = resolve_location(store, path, zarr_format=zarr_format, storage_options=storage_options)
    except (ReadOnlyError, URLPipelineError):
        # what a read-only opening says is the clearer error: a missing archive, say
        location = resolve_location(
            store, path, zarr_format=zarr_format, read_only=True, storage_options=storage_options
        )
    return location, "r" if location.store.read_only else "a"


#: what open_array and open take in ``**options`` (create_array's keywords, the array
#: options, ``config``), with their own named keywords, which suggestions may name too
_OPENING_KEYWORDS = CREATION_KEYWORDS | {"config", "mode", "use_consolidated"}


def _opening_format(function: str, options: dict[str, Any], zarr_format: Any) -> Any:
    """Check the ``**options`` of ``open_array`` or ``open`` before anything is looked up:
    zarr-python 2's keywords dropped or refused as ``zarrforge.create`` does them, any
    other unknown keyword refused naming the closest known one; the format to use
    (``zarr_version`` read as ``zarr_format``)."""
    drop_legacy(function, options, stacklevel=4)
    zarr_version = options.pop("zarr_version", None)
    if not options.keys() <= _OPENING_KEYWORDS:
        refuse_unknown(function, options, _OPENING_KEYWORDS | LEGACY_KEYWORDS)
    return format_from(function, zarr_format, zarr_version)


def _split_options(function: str, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``options`` as (runtime options of the handle, creation arguments), the runtime ones
    checked."""
    runtime = {k: v for k, v in options.items() if k in ARRAY_OPTIONS}
    runtime = {**config_options(function, options.get("config"), runtime), **runtime}
    check_array_options(function, runtime)
    return runtime, {k: v for k, v in options.items() if k not in ARRAY_OPTIONS and k != "config"}


def open_array(
    store: StoreLike = None,
    path: str = "",
    *,
    mode: str | None = None,
    zarr_format: Any = None,
    storage_options: dict[str, Any] | None = None,
    **options: Any,
) -> Array:
    """Open the array at ``path``; with zarr-python's modes and defaults.

    ``mode``: ``None`` (default) is ``"r"`` on a read-only store and ``"a"`` elsewhere;
    ``"a"`` and ``"w-"`` create the array when it is missing and ``shape=`` is given
    (``"w-"`` refuses an existing one), ``"w"`` creates it in place of what is there.
    Creation arguments (``shape``, ``dtype``, ``chunks``...) are :func:`create_array`'s;
    for an existing array, a ``shape`` or ``dtype`` it does not have is an error naming
    both. Runtime options (``order``, ``threads``...) apply either way.

    Parameters
    ----------
    store
        A :class:`zarrforge.abc.store.Store`, a :class:`zarrforge.storing.store_path.StorePath`, a
        local path or URL (or URL pipeline), or a mutable mapping; ``None``: a new in-memory store.
    path : str
        The array's path in ``store`` (joined below a URL pipeline's own path).
    mode : str or None
        ``"r"``, ``"r+"``, ``"a"``, ``"w"`` or ``"w-"`` (above); ``None``: the default.
    zarr_format : Any
        The format to open (or create) in; ``None``: detected when opening, the default when
        creating.
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.
    **options : Any
        Creation arguments of :func:`zarrforge.create_array` and runtime options (``order``,
        ``write_empty_chunks``, ``threads``, ``transformers``, ``read_only``, ``config``).

    Returns
    -------
    zarrforge.Array
        The array, opened (or created) in ``mode``.

    Raises
    ------
    TypeError
        A keyword it does not take (the message names the closest one it does), before
        anything is read.
    zarrforge.errors.ArrayNotFoundError
        No array at ``path`` and none to create.
    zarrforge.errors.NodeTypeError
        The node at ``path`` is a group.
    zarrforge.errors.ContainsArrayError
        ``mode="w-"`` and an array is at ``path``.
    zarrforge.errors.NodeOfAnotherFormatError
        The node at ``path`` is of another format than ``zarr_format``.
    """
    zarr_format = _opening_format("open_array", options, zarr_format)
    location, mode = _located(store, path, zarr_format, mode, storage_options)
    runtime, creation = _split_options("open_array", options)
    fmt_name = location.zarr_format
    if mode == "w":
        if "shape" not in creation:
            raise TypeError(
                "open_array(mode='w') creates the array in place of what is there: give shape= (and dtype=)"
            )
        return create_array(
            location.store, location.path, zarr_format=fmt_name, overwrite=True, **creation, **runtime
        )
    try:
        node = open_node(location.store, location.path, mode=mode, zarr_format=fmt_name, **runtime)
    except NodeOfAnotherFormatError:
        raise
    except NodeNotFoundError:
        if mode in ("a", "w-") and "shape" in creation:
            return create_array(location.store, location.path, zarr_format=fmt_name, **creation, **runtime)
        hint = (
            f"; give shape= and dtype= to create an array there (mode {mode!r} creates)"
            if mode in ("a", "w-")
            else ""
        )
        raise ArrayNotFoundError(
            f"no array at path {'/' + location.path!r} in {location.store!r}{hint}"
        ) from None
    if not isinstance(node, Array):
        raise NodeTypeError(f"the node at {node.name!r} is a group, not an array")
    if mode == "w-":
        raise ContainsArrayError(
            f"an array already exists at {node.name!r}; mode 'w-' creates "
            "only (mode 'a' opens it, 'w' replaces it)"
        )
    _check_matches(node, creation)
    unfinished.warn_if_unfinished(location.store, location.path)
    return node


def _check_matches(array: Array, creation: dict[str, Any]) -> None:
    differs = mismatch(array, creation.get("shape"), creation.get("dtype"))
    if differs:
        raise ValueError(f"{differs} given; open it without them, or with mode='w' to replace it")


@checked_keywords
def open_group(
    store: StoreLike = None,
    path: str = "",
    *,
    mode: str = "a",
    attributes: dict[str, Any] | None = None,
    zarr_format: Any = None,
    use_consolidated: bool | None = None,
    storage_options: dict[str, Any] | None = None,
    chunk_cache: Any = None,
    recheck: str = "open",
) -> Group:
    """Open a group; with mode ``"a"`` (the default) or ``"w"`` create it if needed.

    ``use_consolidated``: ``None`` (default) lists members from consolidated
    metadata when the group has it; ``False`` ignores it and reads the store;
    ``True`` requires it.

    Parameters
    ----------
    store
        A :class:`zarrforge.abc.store.Store`, a :class:`zarrforge.storing.store_path.StorePath`, a
        local path or URL (or URL pipeline), or a mutable mapping; ``None``: a new in-memory store.
    path : str
        The group's path in ``store``.
    mode : str
        ``"r"``, ``"r+"``, ``"a"`` (the default), ``"w"`` or ``"w-"``.
    attributes : dict or None
        The attributes of a group this call creates.
    zarr_format : Any
        The format to open (or create) in; ``None``: detected when opening, the default when
        creating.
    use_consolidated : bool or None
        Whether to read members from the consolidated metadata (above).
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.
    chunk_cache : int or zarrforge.ChunkCache or None
        The decoded-chunk cache of every array opened or created through the group: a pool
        shared by them all (a byte count makes one); ``None``: ``config.chunk_cache``'s.
    recheck : str
        When those arrays revalidate cached chunks: ``"open"``, ``"always"`` or ``"never"``
        (docs/lazy-and-cache.md).

    Returns
    -------
    zarrforge.Group
        The group, opened (or created) in ``mode``.

    Raises
    ------
    TypeError
        A keyword it does not take (the message names the closest one it does), before
        anything is read.
    zarrforge.errors.NodeNotFoundError
        No group at ``path`` in modes ``"r"`` and ``"r+"``.
    zarrforge.errors.NodeTypeError
        The node at ``path`` is an array.
    zarrforge.errors.ContainsNodeError
        ``mode="w-"`` and a node is at ``path``.
    """
    check_mode(mode)
    inherited = _inherited_options("open_group", {"chunk_cache": chunk_cache, "recheck": recheck})
    location = resolve_location(
        store, path, zarr_format=zarr_format, read_only=(mode == "r"), storage_options=storage_options
    )
    resolved, path, zarr_format = location.store, location.path, location.zarr_format
    if mode in ("w", "w-"):
        return create_group(
            resolved, path, attributes=attributes, zarr_format=zarr_format, overwrite=(mode == "w")
        )._inheriting(inherited)
    fmt = get_format(zarr_format) if zarr_format is not None else None
    found = locate_node(resolved, path, fmt, consolidated=use_consolidated is not False)
    if found is None:
        if mode == "a":
            group = create_group(resolved, path, attributes=attributes, zarr_format=zarr_format)
            return group._inheriting(inherited)
        raise missing_node(resolved, path, fmt, "group")
    node = node_from_metadata(
        resolved, path, *found, read_only=(mode == "r"), use_consolidated=use_consolidated
    )
    if not isinstance(node, Group):
        raise NodeTypeError(f"the node at {node.name!r} is an array, not a group")
    unfinished.warn_if_unfinished(resolved, path)
    return node._inheriting(inherited)


#: the array options a group hands down to the arrays opened or created through it
INHERITED_OPTIONS = ("chunk_cache", "recheck")


def _inherited_options(function: str, given: dict[str, Any]) -> dict[str, Any]:
    """The array options a group hands down, checked as create_array checks them; a
    chunk cache given as a byte count becomes one pool its arrays share (``0``: none,
    whatever ``config.chunk_cache`` says)."""
    options = {}
    if given.get("chunk_cache") is not None:
        options["chunk_cache"] = given["chunk_cache"]
    if given.get("recheck", "open") != "open":
        options["recheck"] = given["recheck"]
    check_array_options(function, options)
    if "chunk_cache" in options:
        options["chunk_cache"] = pool_for(options["chunk_cache"]) or 0
    return options


def open(  # noqa: A001  # zarr-python's name
    store: StoreLike = None,
    path: str = "",
    *,
    mode: str | None = None,
    zarr_format: Any = None,
    use_consolidated: bool | None = None,
    storage_options: dict[str, Any] | None = None,
    **options: Any,
) -> Any:
    """Open whatever node is at ``path``, an Array or a Group, as zarr-python's ``open``:
    ``mode=None`` is ``"r"`` on a read-only store and ``"a"`` elsewhere; with ``shape=``
    this is :func:`open_array` (which may create the array); otherwise a missing node is
    created as a group in modes ``"a"``, ``"w"`` and ``"w-"`` (``"w"`` replaces what is
    there with a new group).

    Parameters
    ----------
    store
        A :class:`zarrforge.abc.store.Store`, a :class:`zarrforge.storing.store_path.StorePath`, a
        local path or URL (or URL pipeline), or a mutable mapping; ``None``: a new in-memory store.
    path : str
        The node's path in ``store``.
    mode : str or None
        ``"r"``, ``"r+"``, ``"a"``, ``"w"`` or ``"w-"``; ``None``: the default (above).
    zarr_format : Any
        The format to open (or create) in; ``None``: detected when opening.
    use_consolidated : bool or None
        As for :func:`zarrforge.open_group`.
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.
    **options : Any
        Runtime options of an array; with ``shape=``, creation arguments of
        :func:`zarrforge.open_array`.

    Returns
    -------
    Any
        The :class:`zarrforge.Array` or :class:`zarrforge.Group` at ``path``.

    Raises
    ------
    TypeError
        A keyword it does not take (the message names the closest one it does), before
        anything is read.
    zarrforge.errors.NodeNotFoundError
        No node at ``path`` in modes ``"r"`` and ``"r+"``.
    zarrforge.errors.NodeOfAnotherFormatError
        The node at ``path`` is of another format than ``zarr_format``.
    """
    zarr_format = _opening_format("open", options, zarr_format)
    if "shape" in options:
        return open_array(
            store, path, mode=mode, zarr_format=zarr_format, storage_options=storage_options, **options
        )
    location, mode = _located(store, path, zarr_format, mode, storage_options)
    runtime, creation = _split_options("open", options)
    if creation:
        raise TypeError(
            f"open() got unexpected keyword argument(s) {sorted(creation)}; "
            "creation arguments need shape= (an array)"
        )

    inherited = _inherited_options("open", runtime)
    runtime_of_arrays = runtime
    runtime = {k: v for k, v in runtime.items() if k not in INHERITED_OPTIONS}

    def no_array_options(what: str) -> None:
        if runtime:
            raise TypeError(
                f"open(): array options {sorted(runtime)} given, but "
                f"{location.path or '/'!r} resolves to a group ({what}); give "
                "shape= to create an array, or leave them out"
            )

    if mode in ("w", "w-"):
        no_array_options("a new one")
        return open_group(
            location.store, location.path, mode=mode, zarr_format=location.zarr_format, **inherited
        )
    try:
        node = open_node(
            location.store,
            location.path,
            mode=mode,
            zarr_format=location.zarr_format,
            use_consolidated=use_consolidated,
            **runtime_of_arrays,
        )
    except NodeOfAnotherFormatError:
        raise
    except NodeNotFoundError:
        if mode == "a":
            no_array_options("a new one")
            return open_group(
                location.store, location.path, mode="a", zarr_format=location.zarr_format, **inherited
            )
        raise
    if isinstance(node, Group):
        no_array_options("the one stored")
        node._inheriting(inherited)
    unfinished.warn_if_unfinished(location.store, location.path)
    return node


def consolidate_metadata(
    store: Any, path: str = "", *, storage_options: dict[str, Any] | None = None
) -> Group:
    """Gather the metadata of every node below the group at ``path`` into it, walking the
    store (not any existing consolidated view); returns the group, reopened with the view.

    A view that would make the group's document larger than ``config.max_document_bytes``
    is refused before anything is written (readers could not open the group), with a
    :class:`~zarrforge.errors.DocumentTooLargeError` suggesting the sub-groups to
    consolidate instead.

    Parameters
    ----------
    store : Any
        The store (any store-like).
    path : str
        The group's path in ``store``.
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.

    Returns
    -------
    zarrforge.Group
        The group, reopened with its consolidated view.

    Raises
    ------
    zarrforge.errors.DocumentTooLargeError
        The view would make the group's document too large.
    zarrforge.errors.NodeNotFoundError
        No group at ``path``.
    """
    group = open_group(store, path, mode="r+", use_consolidated=False, storage_options=storage_options)
    members = group.members(max_depth=None)
    models = {name: without_view(node.metadata_model) for name, node in members}
    try:
        group.update_metadata(lambda model: dataclasses.replace(model, consolidated=models))
    except DocumentTooLargeError as exc:
        raise _view_too_large(group.path, list(models), exc) from exc
    return open_group(group.store, group.path, mode="r+")


def _view_too_large(path: str, members: list[str], exc: DocumentTooLargeError) -> DocumentTooLargeError:
    """The refusal of a view over the size limit, naming the largest sub-groups (by nodes
    below them) to consolidate instead."""
    below = collections.Counter(name.split("/", 1)[0] for name in members if "/" in name)
    if below:
        advice = "consolidate its sub-groups instead (each gets a view of its own), e.g. " + ", ".join(
            f"zarrforge.consolidate_metadata(store, {paths.join(path, name)!r}) ({count} nodes)"
            for name, count in below.most_common(3)
        )
    else:
        advice = "no sub-group holds enough of it to consolidate instead"
    where = "/" + path if path else "the root"
    return DocumentTooLargeError(
        f"a consolidated view of the {len(members)} nodes below {where} would make its "
        f"document {exc.size} bytes, over the limit of {exc.limit} bytes (zarrforge.config "
        f"max_document_bytes) that readers apply; nothing was written. {advice}; or raise "
        "max_document_bytes, for this writer and every reader",
        size=exc.size,
        limit=exc.limit,
        key=exc.key,
    )


def remove_consolidated_metadata(
    store: Any, path: str = "", *, storage_options: dict[str, Any] | None = None
) -> Group:
    """Rewrite the group at ``path`` without its consolidated view; returns the group.

    For repairing a group whose view made its document unreadable (written by an older
    release or another tool, over ``config.max_document_bytes``): the group's own
    document is read whatever its size (the limit is lifted, process-wide, for the
    duration of this call: a repair the user asks for, of the user's data), and
    written back with its attributes and everything else, the view left out.

    Parameters
    ----------
    store : Any
        The store (any store-like).
    path : str
        The group's path in ``store``.
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.

    Returns
    -------
    zarrforge.Group
        The group, reopened without a consolidated view.

    Raises
    ------
    zarrforge.errors.NodeNotFoundError
        No group at ``path``.
    """
    with config.set(max_document_bytes=None):
        group = open_group(store, path, mode="r+", use_consolidated=False, storage_options=storage_options)
        group.update_metadata(lambda model: dataclasses.replace(model, consolidated=None))
    return open_group(group.store, group.path, mode="r+", use_consolidated=False)


def unfinished_write(
    store: Any, path: str = "", *, storage_options: dict[str, Any] | None = None
) -> UnfinishedWrite | None:
    """What a write killed before it finished left at ``path`` of ``store``: the record of
    its marker (operation, process, host, start time), or ``None`` when no unfinished write
    of zarrforge's is marked there (``zarrforge.storing.unfinished``). Creating there again with
    ``overwrite=True`` (or ``mode="w"``) replaces the leftovers and the marker.

    Parameters
    ----------
    store : Any
        The store (any store-like), opened read-only.
    path : str
        The path in ``store``.
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.

    Returns
    -------
    zarrforge.storing.unfinished.UnfinishedWrite or None
        The marker's record, or ``None``.
    """
    location = resolve_location(store, path, read_only=True, storage_options=storage_options)
    return unfinished.unfinished_write(location.store, location.path)

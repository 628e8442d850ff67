"""Creating and opening arrays and groups.

Modes follow zarr-python: ``"r"`` read-only; ``"r+"`` read/write, the node
must exist; ``"a"`` read/write, create if missing (groups); ``"w"`` create,
replacing any existing node; ``"w-"`` create, failing if a node exists.

Creation validates everything (data type, grid, codecs, fill value, names)
and builds the complete metadata *before* writing anything, so a bad argument
never leaves a half-created node, and ``overwrite=True`` never erases the old
node unless the new one can be written. Missing parent groups are created.

The format is chosen by ``zarr_format`` (a registered format name; ``3`` is
the default) when creating, and detected when opening: the configured default
format is tried first, then every other installed format.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

from . import paths, registry
from .abc.format import ArrayCreationSpec, Format
from .abc.store import Store
from .consolidated import refresh_ancestors
from .metadata.components import shape_from_json
from .node import validate_extensions
from .read_memo import ReadMemo
from .errors import ContainsNodeError, NodeNotFoundError, NodeTypeError, ReadOnlyError
from .storage import StoreLike, resolve_store

DEFAULT_FORMAT = "3"
_MODES = ("r", "r+", "a", "w", "w-")


def get_format(zarr_format: Any = DEFAULT_FORMAT) -> Format:
    return registry.formats.get(str(zarr_format), field="zarr_format")()


def _formats_in_detection_order() -> list[Format]:
    names = [n for n in registry.formats.names() if not n.endswith(registry.FAMILY_SUFFIX)]
    ordered = [DEFAULT_FORMAT] * (DEFAULT_FORMAT in names) + [n for n in names if n != DEFAULT_FORMAT]
    return [registry.formats.get(name)() for name in ordered]


def locate_node(store: Store, path: str, fmt: Format | None = None) -> tuple[Format, Any] | None:
    """The format and metadata of the node at ``path``, or ``None`` if there is none.

    With ``fmt`` given only that format is asked; otherwise the default format
    first, then every other installed one.
    """
    for candidate in [fmt] if fmt is not None else _formats_in_detection_order():
        metadata = candidate.read_node(store, path)
        if metadata is not None:
            return candidate, metadata
    return None


def detect_format(store: Store, path: str) -> Format | None:
    found = locate_node(store, path)
    return found[0] if found else None


def _check_mode(mode: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"invalid mode {mode!r}; valid modes: {', '.join(_MODES)}")


def _store_for(store: StoreLike, mode: str, storage_options: dict[str, Any] | None) -> Store:
    return resolve_store(store, read_only=(mode == "r"), storage_options=storage_options)


def open_node(store: StoreLike, path: str = "", *, mode: str = "r", fmt: Format | None = None,
              storage_options: dict[str, Any] | None = None, **array_options: Any) -> Any:
    """Open the array or group at ``path``."""
    _check_mode(mode)
    resolved = _store_for(store, mode, storage_options)
    path = paths.normalize_path(path)
    found = locate_node(resolved, path, fmt)
    if found is None:
        raise NodeNotFoundError(f"no array or group at path {'/' + path!r} in {resolved!r}")
    return node_from_metadata(resolved, path, *found, read_only=(mode == "r"), **array_options)


def node_from_metadata(store: Store, path: str, fmt: Format, metadata: Any, *,
                       read_only: bool, view: Any = None, use_consolidated: bool | None = None,
                       **array_options: Any) -> Any:
    """An Array or Group for metadata already read (no store access).

    ``view`` is the consolidated view the node was found in, with its path there.
    """
    from .array import Array
    from .group import Group

    if metadata.node_type == "array":
        return Array._opened(store, path, metadata, fmt, read_only=read_only, view=view,
                             **array_options)
    return Group._opened(store, path, metadata, fmt, read_only=read_only, view=view,
                         use_consolidated=use_consolidated)


def _foreign_formats(store: Store, path: str, fmt: Format) -> list[Format]:
    """Installed formats other than ``fmt`` that have a node at ``path``."""
    return [other for other in _formats_in_detection_order()
            if other.name != fmt.name and other.detect(store, path)]


def _prepare_target(store: Store, path: str, fmt: Format, overwrite: bool,
                    checked_group: str | None = None) -> None:
    """Fail early if a node is in the way, or if a parent is an array or of another format.

    A hierarchy never mixes formats: a node of one format is not created where,
    or below where, a node of another format exists. ``checked_group``: an ancestor
    the caller knows to be a group of ``fmt`` with no node of another format at or
    above it; the walk up stops there.
    """
    if store.read_only:
        raise ReadOnlyError(f"cannot create a node in the read-only store {store!r}")
    in_the_way = ([fmt] if fmt.detect(store, path) else []) + _foreign_formats(store, path, fmt)
    if in_the_way and not overwrite:
        raise ContainsNodeError(f"a Zarr {in_the_way[0].name} node already exists at "
                                f"{'/' + path!r}; pass overwrite=True (or mode='w') to replace it")
    parent = path
    while parent:
        parent = paths.parent_of(parent)
        if parent == checked_group:
            break
        for other in _foreign_formats(store, parent, fmt):
            raise NodeTypeError(f"cannot create a Zarr {fmt.name} node {'/' + path!r} under the "
                                f"Zarr {other.name} node {'/' + parent!r}")
        found = fmt.read_node(store, parent)
        if found is not None and found.node_type != "group":
            raise NodeTypeError(f"cannot create {'/' + path!r}: its parent {'/' + parent!r} "
                                "is an array")


def _write_new_node(store: Store, path: str, fmt: Format, metadata: Any, overwrite: bool,
                    checked_group: str | None = None) -> None:
    if overwrite:
        for other in _foreign_formats(store, path, fmt):
            other.erase_node(store, path)
        if fmt.detect(store, path):
            fmt.erase_node(store, path)
            refresh_ancestors(store, fmt, path, None)
    missing = []
    parent = path
    while parent:
        parent = paths.parent_of(parent)
        if parent == checked_group or fmt.detect(store, parent):
            break
        missing.append(parent)
    for parent in reversed(missing):
        group = fmt.new_group()
        fmt.write_node(store, parent, group)
        refresh_ancestors(store, fmt, parent, group)
    fmt.write_node(store, path, metadata)
    refresh_ancestors(store, fmt, path, metadata)


def _shape_argument(shape: Any) -> tuple[int, ...]:
    """The ``shape=`` argument as a tuple of ints (numpy integers welcome), validated."""
    items = [shape] if not isinstance(shape, (tuple, list)) else list(shape)
    try:
        items = [operator.index(n) for n in items]
    except TypeError:
        pass  # shape_from_json names the offending value
    return shape_from_json(items)


def create_array(store: StoreLike = None, path: str = "", *, shape: Sequence[int] | int,
                 dtype: Any, chunks: Any = None, shards: Any = None, filters: Any = None,
                 serializer: Any = None, compressors: Any = "auto", codecs: Any = None,
                 fill_value: Any = None, attributes: dict[str, Any] | None = None,
                 dimension_names: Sequence[str | None] | None = None,
                 chunk_key_encoding: Any = None, storage_transformers: Any = None,
                 extensions: Any = None,
                 zarr_format: Any = DEFAULT_FORMAT, overwrite: bool = False,
                 fmt: Format | None = None, storage_options: dict[str, Any] | None = None,
                 _checked_group: str | None = None, **array_options: Any) -> Any:
    """Create an array and return it open for reading and writing.

    ``codecs`` is the complete v3 codec list and excludes ``filters``,
    ``serializer`` and ``compressors``. Codec arguments accept
    ``{"name": ..., "configuration": ...}`` objects, short-hand names or codec
    instances. ``chunks=None`` uses the whole array as one chunk.
    ``array_options`` are runtime settings (``order``, ``write_empty_chunks``,
    ``threads``, ``transformers``: callables wrapping the store for chunk I/O).
    ``_checked_group`` is for :class:`~zarrforge.group.Group` (see ``_prepare_target``).
    """
    from .array import Array

    if codecs is not None and (filters is not None or serializer is not None
                               or compressors not in ("auto", None)):
        raise ValueError("pass either codecs= (the complete list) or filters=/serializer=/"
                         "compressors=, not both")
    shape_t = _shape_argument(shape)
    fmt = fmt or get_format(zarr_format)
    resolved = _store_for(store, "w", storage_options)
    path = paths.normalize_path(path)
    spec = ArrayCreationSpec(
        shape=shape_t, dtype=dtype, chunks=chunks if chunks is not None else shape_t,
        shards=shards, filters=filters, serializer=serializer, compressors=compressors,
        codecs=codecs, fill_value=fill_value, attributes=attributes,
        dimension_names=dimension_names, chunk_key_encoding=chunk_key_encoding,
        storage_transformers=storage_transformers, extensions=extensions,
        order=array_options.get("order"))
    memo = ReadMemo(resolved)  # the checks and the writes read the same few documents
    _prepare_target(memo, path, fmt, overwrite, _checked_group)  # reads only
    metadata = fmt.new_array(spec)
    # Building the Array validates the codec chain against the array before any write.
    array = Array._validated(resolved, path, metadata, fmt, **array_options)
    _write_new_node(memo, path, fmt, metadata, overwrite, _checked_group)
    return array._announced()


def create_group(store: StoreLike = None, path: str = "", *,
                 attributes: dict[str, Any] | None = None, extensions: Any = None,
                 zarr_format: Any = DEFAULT_FORMAT,
                 overwrite: bool = False, fmt: Format | None = None,
                 storage_options: dict[str, Any] | None = None,
                 _checked_group: str | None = None) -> Any:
    """Create a group and return it open for writing (``_checked_group``: as for
    :func:`create_array`)."""
    from .group import Group

    fmt = fmt or get_format(zarr_format)
    resolved = _store_for(store, "w", storage_options)
    path = paths.normalize_path(path)
    metadata = fmt.new_group(attributes, extensions)
    validate_extensions(metadata)  # (new_group has refused what the format cannot write)
    memo = ReadMemo(resolved)
    _prepare_target(memo, path, fmt, overwrite, _checked_group)
    _write_new_node(memo, path, fmt, metadata, overwrite, _checked_group)
    return Group._opened(resolved, path, metadata, fmt)


def open_array(store: StoreLike = None, path: str = "", *, mode: str = "r",
               storage_options: dict[str, Any] | None = None, **array_options: Any) -> Any:
    from .array import Array

    node = open_node(store, path, mode=mode, storage_options=storage_options, **array_options)
    if not isinstance(node, Array):
        raise NodeTypeError(f"the node at {node.name!r} is a group, not an array")
    return node


def open_group(store: StoreLike = None, path: str = "", *, mode: str = "a",
               attributes: dict[str, Any] | None = None, zarr_format: Any = None,
               use_consolidated: bool | None = None,
               storage_options: dict[str, Any] | None = None) -> Any:
    """Open a group; with mode ``"a"`` (the default) or ``"w"`` create it if needed.

    ``use_consolidated``: ``None`` (default) lists members from consolidated
    metadata when the group has it; ``False`` ignores it and reads the store;
    ``True`` requires it.
    """
    from .group import Group

    _check_mode(mode)
    resolved = _store_for(store, mode, storage_options)
    path = paths.normalize_path(path)
    if mode in ("w", "w-"):
        return create_group(resolved, path, attributes=attributes,
                            zarr_format=zarr_format or DEFAULT_FORMAT, overwrite=(mode == "w"))
    fmt = get_format(zarr_format) if zarr_format is not None else None
    found = locate_node(resolved, path, fmt)
    if found is None:
        if mode == "a":
            return create_group(resolved, path, attributes=attributes,
                                zarr_format=zarr_format or DEFAULT_FORMAT)
        raise NodeNotFoundError(f"no group at path {'/' + path!r} in {resolved!r}")
    node = node_from_metadata(resolved, path, *found, read_only=(mode == "r"),
                              use_consolidated=use_consolidated)
    if not isinstance(node, Group):
        raise NodeTypeError(f"the node at {node.name!r} is an array, not a group")
    return node


def open(store: StoreLike = None, path: str = "", *, mode: str = "r",  # noqa: A001
         storage_options: dict[str, Any] | None = None, **array_options: Any) -> Any:
    """Open whatever node is at ``path``: an Array or a Group."""
    return open_node(store, path, mode=mode, storage_options=storage_options, **array_options)

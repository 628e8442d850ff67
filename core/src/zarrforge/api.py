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

from typing import Any, Sequence

from . import paths, registry
from .abc.format import ArrayCreationSpec, Format
from .abc.store import Store
from .errors import ContainsNodeError, NodeNotFoundError, NodeTypeError, ReadOnlyError
from .storage import StoreLike, resolve_store

DEFAULT_FORMAT = "3"
_MODES = ("r", "r+", "a", "w", "w-")


def get_format(zarr_format: Any = DEFAULT_FORMAT) -> Format:
    return registry.formats.get(str(zarr_format), field="zarr_format")()


def detect_format(store: Store, path: str) -> Format | None:
    names = registry.formats.names()
    ordered = [DEFAULT_FORMAT] * (DEFAULT_FORMAT in names) + [n for n in names if n != DEFAULT_FORMAT]
    for name in ordered:
        if name.endswith(registry.FAMILY_SUFFIX):
            continue
        fmt = registry.formats.get(name)()
        if fmt.detect(store, path):
            return fmt
    return None


def _check_mode(mode: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"invalid mode {mode!r}; valid modes: {', '.join(_MODES)}")


def _store_for(store: StoreLike, mode: str, storage_options: dict[str, Any] | None) -> Store:
    return resolve_store(store, read_only=(mode == "r"), storage_options=storage_options)


def open_node(store: StoreLike, path: str = "", *, mode: str = "r", fmt: Format | None = None,
              storage_options: dict[str, Any] | None = None, **array_options: Any) -> Any:
    """Open the array or group at ``path``."""
    from .array import Array
    from .group import Group

    _check_mode(mode)
    resolved = _store_for(store, mode, storage_options)
    path = paths.normalize_path(path)
    fmt = fmt or detect_format(resolved, path)
    if fmt is None or not fmt.detect(resolved, path):
        raise NodeNotFoundError(f"no array or group at path {'/' + path!r} in {resolved!r}")
    metadata = fmt.read_node(resolved, path)
    read_only = mode == "r"
    if metadata.node_type == "array":
        return Array._opened(resolved, path, metadata, fmt, read_only=read_only, **array_options)
    return Group._opened(resolved, path, metadata, fmt, read_only=read_only)


def _prepare_target(store: Store, path: str, fmt: Format, overwrite: bool) -> None:
    """Fail early if a node is in the way, or if a parent is an array."""
    if store.read_only:
        raise ReadOnlyError(f"cannot create a node in the read-only store {store!r}")
    if fmt.detect(store, path) and not overwrite:
        raise ContainsNodeError(f"a node already exists at {'/' + path!r}; pass overwrite=True "
                                "(or mode='w') to replace it")
    parent = path
    while parent:
        parent = paths.parent_of(parent)
        if fmt.detect(store, parent) and fmt.read_node(store, parent).node_type != "group":
            raise NodeTypeError(f"cannot create {'/' + path!r}: its parent {'/' + parent!r} "
                                "is an array")


def _write_new_node(store: Store, path: str, fmt: Format, metadata: Any, overwrite: bool) -> None:
    if overwrite and fmt.detect(store, path):
        fmt.erase_node(store, path)
    missing = []
    parent = path
    while parent:
        parent = paths.parent_of(parent)
        if fmt.detect(store, parent):
            break
        missing.append(parent)
    for parent in reversed(missing):
        fmt.write_node(store, parent, fmt.new_group())
    fmt.write_node(store, path, metadata)


def create_array(store: StoreLike = None, path: str = "", *, shape: Sequence[int] | int,
                 dtype: Any, chunks: Any = None, shards: Any = None, filters: Any = None,
                 serializer: Any = None, compressors: Any = "auto", codecs: Any = None,
                 fill_value: Any = None, attributes: dict[str, Any] | None = None,
                 dimension_names: Sequence[str | None] | None = None,
                 chunk_key_encoding: Any = None, storage_transformers: Any = None,
                 zarr_format: Any = DEFAULT_FORMAT, overwrite: bool = False,
                 fmt: Format | None = None, storage_options: dict[str, Any] | None = None,
                 **array_options: Any) -> Any:
    """Create an array and return it open for reading and writing.

    ``codecs`` is the complete v3 codec list and excludes ``filters``,
    ``serializer`` and ``compressors``. Codec arguments accept
    ``{"name": ..., "configuration": ...}`` objects, short-hand names or codec
    instances. ``chunks=None`` uses the whole array as one chunk.
    ``array_options`` are runtime settings (``order``, ``write_empty_chunks``,
    ``threads``).
    """
    from .array import Array

    if codecs is not None and (filters is not None or serializer is not None
                               or compressors not in ("auto", None)):
        raise ValueError("pass either codecs= (the complete list) or filters=/serializer=/"
                         "compressors=, not both")
    shape_t = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
    fmt = fmt or get_format(zarr_format)
    resolved = _store_for(store, "w", storage_options)
    path = paths.normalize_path(path)
    spec = ArrayCreationSpec(
        shape=shape_t, dtype=dtype, chunks=chunks if chunks is not None else shape_t,
        shards=shards, filters=filters, serializer=serializer, compressors=compressors,
        codecs=codecs, fill_value=fill_value, attributes=attributes,
        dimension_names=dimension_names, chunk_key_encoding=chunk_key_encoding,
        storage_transformers=storage_transformers)
    metadata = fmt.new_array(spec)
    # Building the Array validates the codec chain against the array before any write.
    Array(resolved, path, metadata, fmt, **array_options)._validate()
    _prepare_target(resolved, path, fmt, overwrite)
    _write_new_node(resolved, path, fmt, metadata, overwrite)
    return Array._opened(resolved, path, metadata, fmt, **array_options)


def create_group(store: StoreLike = None, path: str = "", *,
                 attributes: dict[str, Any] | None = None, zarr_format: Any = DEFAULT_FORMAT,
                 overwrite: bool = False, fmt: Format | None = None,
                 storage_options: dict[str, Any] | None = None) -> Any:
    from .group import Group

    fmt = fmt or get_format(zarr_format)
    resolved = _store_for(store, "w", storage_options)
    path = paths.normalize_path(path)
    metadata = fmt.new_group(attributes)
    fmt.document(metadata)  # fails on attributes JSON cannot hold, before any write
    _prepare_target(resolved, path, fmt, overwrite)
    _write_new_node(resolved, path, fmt, metadata, overwrite)
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
               storage_options: dict[str, Any] | None = None) -> Any:
    """Open a group; with mode ``"a"`` (the default) or ``"w"`` create it if needed."""
    from .group import Group

    _check_mode(mode)
    resolved = _store_for(store, mode, storage_options)
    path = paths.normalize_path(path)
    if mode in ("w", "w-"):
        return create_group(resolved, path, attributes=attributes,
                            zarr_format=zarr_format or DEFAULT_FORMAT, overwrite=(mode == "w"))
    fmt = get_format(zarr_format) if zarr_format is not None else detect_format(resolved, path)
    if (fmt is None or not fmt.detect(resolved, path)) and mode == "a":
        return create_group(resolved, path, attributes=attributes,
                            zarr_format=zarr_format or DEFAULT_FORMAT)
    node = open_node(resolved, path, mode=mode, fmt=fmt)
    if not isinstance(node, Group):
        raise NodeTypeError(f"the node at {node.name!r} is an array, not a group")
    return node


def open(store: StoreLike = None, path: str = "", *, mode: str = "r",  # noqa: A001
         storage_options: dict[str, Any] | None = None, **array_options: Any) -> Any:
    """Open whatever node is at ``path``: an Array or a Group."""
    return open_node(store, path, mode=mode, storage_options=storage_options, **array_options)

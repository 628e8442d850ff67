"""Creating arrays and groups: validate everything, then write.

Creation validates everything (data type, grid, codecs, fill value, names,
that the documents can be written as JSON, what is at and above the path)
and builds the complete metadata *before* writing anything, so a bad
argument never leaves a half-created node, and ``overwrite=True`` never
erases the old node unless the new one can be written. Missing parent groups
are created. This module turns the API's arguments into the format's model
and returns the opened node; the writing is
:func:`zarrforge.nodes.node_writing.write_nodes`'s (each document on the path read
and parsed once; whole or not at all).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..abc.format import ArrayCreationSpec, Format
from ..engine import chunking
from ..engine.chunk_cache import RECHECK_MODES, ChunkCache
from ..engine.codec_arguments import normalised
from ..errors import ZarrforgeError
from ..metadata.json_io import check_new_attributes
from ..nodes import hierarchy
from ..nodes.node import node_class, node_from_metadata, validate_entries
from ..nodes.node_writing import NewNode, write_nodes
from ..registries.resolution import check_ndim, data_type_from_user, shape_from_json
from ..storing.storage import StoreLike, resolve_location
from .array_config import config_options
from .keywords import checked_keywords, keywords_of, refuse_unknown

DEFAULT_FORMAT = hierarchy.DEFAULT_FORMAT


def _shape_argument(shape: Any) -> tuple[int, ...]:
    """The ``shape=`` argument as a tuple of ints (numpy integers welcome), validated."""
    if isinstance(shape, (tuple, list)):
        check_ndim(len(shape))  # before the per-dimension conversions below
    items = [shape] if not isinstance(shape, (tuple, list)) else list(shape)
    try:
        items = [operator.index(n) for n in items]
    except TypeError:
        pass  # shape_from_json names the offending value
    return shape_from_json(items)


def _item_size(dtype: Any) -> int | None:
    """Bytes an element of ``dtype`` takes, for picking and checking chunk shapes (``None``:
    a variable size, or a type the format alone knows: it reports any error itself)."""
    try:
        return data_type_from_user(dtype).item_size
    except ZarrforgeError:
        return None


def create_array(
    store: StoreLike = None,
    path: str = "",
    *,
    shape: Sequence[int] | int | None = None,
    dtype: Any = None,
    chunks: Any = None,
    shards: Any = None,
    filters: Any = None,
    serializer: Any = None,
    compressors: Any = "auto",
    codecs: Any = None,
    fill_value: Any = None,
    attributes: dict[str, Any] | None = None,
    dimension_names: Sequence[str | None] | None = None,
    chunk_key_encoding: Any = None,
    storage_transformers: Any = None,
    extensions: Any = None,
    zarr_format: Any = None,
    overwrite: bool = False,
    fmt: Format | None = None,
    storage_options: dict[str, Any] | None = None,
    name: str | None = None,
    data: Any = None,
    write_data: bool = True,
    config: Any = None,
    _checked_group: str | None = None,
    allow_reserved_name: bool = False,
    **array_options: Any,
) -> Any:
    """Create an array and return it open for reading and writing.

    zarr-python's forms are accepted too: ``name=`` for ``path`` (not both), and
    ``data=`` (an array-like: its shape and dtype unless given, and its values written
    unless ``write_data=False``).

    ``codecs`` is the complete v3 codec list and excludes ``filters``,
    ``serializer`` and ``compressors``. Codec arguments accept
    ``{"name": ..., "configuration": ...}`` objects, short-hand names, codec
    instances, and numcodecs and zarr-python codec objects
    (``zarrforge.engine.codec_arguments``). ``chunks``: ``None`` or ``"auto"`` picks a chunk
    shape of at most ``config.auto_chunk_bytes``; an int, or one entry per dimension, with
    ``-1``/``None`` for the whole dimension (``zarrforge.engine.chunking``).
    ``config`` is zarr-python's form of the runtime settings (``.array_config``).
    ``array_options`` are runtime settings (``order``, ``write_empty_chunks``,
    ``threads``, ``transformers``: callables wrapping the store for chunk I/O,
    ``chunk_cache`` and ``recheck``: the decoded-chunk cache, docs/lazy-and-cache.md).
    ``_checked_group`` is for :class:`~zarrforge.Group` (see
    ``zarrforge.nodes.hierarchy.survey``). ``zarr_format``: a registered format name;
    ``None`` takes the one a URL pipeline's format segment chose, else
    ``config.default_format`` (``"3"``). ``allow_reserved_name=True`` lets the new
    names (the array's, and its missing parents') start with ``__``, a prefix the Zarr
    v3 spec reserves and zarrforge refuses by default (:mod:`zarrforge.metadata.paths`);
    ``__zarr`` stays refused.

    Parameters
    ----------
    store
        A :class:`zarrforge.abc.store.Store`, a :class:`zarrforge.storing.store_path.StorePath`, a
        local path or URL (or URL pipeline), or a mutable mapping; ``None``: a new in-memory store.
    path : str
        The array's path in ``store``; missing parent groups are created.
    shape : Sequence[int] or int or None
        The array's shape (``None``: ``data``'s).
    dtype : Any
        The data type: a numpy dtype, its name, or a registered data type's name (``None``:
        ``data``'s).
    chunks : Any
        The chunk shape (above); with ``shards``, the inner chunks' shape.
    shards : Any
        The shard shape (chunks stored together in one key), ``"auto"``, or ``None``: no sharding.
    filters : Any
        Array-to-array codecs.
    serializer : Any
        The array-to-bytes codec; ``None``: the format's default.
    compressors : Any
        Bytes-to-bytes codecs; ``"auto"``: the default compressor; ``None``: none.
    codecs : Any
        The complete v3 codec list, instead of ``filters``, ``serializer`` and ``compressors``.
    fill_value : Any
        The value unwritten elements read as; ``None``: the data type's default.
    attributes : dict or None
        The array's attributes.
    dimension_names : Sequence[str or None] or None
        A name (or ``None``) per dimension.
    chunk_key_encoding : Any
        How chunk coordinates become keys (a name or a ``{"name", "configuration"}`` object).
    storage_transformers : Any
        The format's storage transformers.
    extensions : Any
        Extension fields of the array's metadata.
    zarr_format : Any
        The format (above).
    overwrite : bool
        Replace a node already at ``path`` (only once the new one can be written).
    fmt : zarrforge.abc.format.Format or None
        A format object to write with, instead of ``zarr_format``'s.
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.
    name : str or None
        zarr-python's name for ``path`` (not both).
    data : Any
        An array-like giving the shape, data type and values.
    write_data : bool
        Write ``data``'s values (else only its shape and data type are taken).
    config : Any
        zarr-python's form of the runtime settings.
    _checked_group : str or None
        Internal: the path of a group :class:`zarrforge.Group` has checked already.
    allow_reserved_name : bool
        Allow new names starting with ``__`` (above).
    **array_options : Any
        Runtime settings (above).

    Returns
    -------
    Any
        The new :class:`zarrforge.Array`, open for reading and writing.

    Raises
    ------
    TypeError
        A keyword it does not take (the message names the closest one it does), before
        anything is read or written.
    zarrforge.errors.ContainsNodeError
        A node is at ``path`` (or an unfinished write is marked there) and ``overwrite`` is false.
    zarrforge.errors.NodeTypeError
        A parent of ``path`` is an array.
    zarrforge.errors.ReadOnlyError
        The store is read-only.
    zarrforge.errors.MetadataError
        An argument makes no valid metadata (data type, codecs, fill value...).
    """
    if name is not None:
        if path:
            raise TypeError(f"create_array(): name={name!r} and path={path!r} both name the array; give one")
        path = name
    array_options = {**config_options("create_array", config, array_options), **array_options}
    check_array_options("create_array", array_options)
    values = None
    if data is not None:
        values = np.asarray(data)
        shape = values.shape if shape is None else shape
        dtype = values.dtype if dtype is None else dtype
    if shape is None or dtype is None:
        missing = " and ".join(n for n, v in (("shape", shape), ("dtype", dtype)) if v is None)
        raise TypeError(f"create_array() needs {missing} (or data= to take them from)")
    shape_t = _shape_argument(shape)
    check_new_attributes(attributes or {})
    location = resolve_location(store, path, zarr_format=zarr_format, storage_options=storage_options)
    fmt = fmt or hierarchy.get_format(location.zarr_format)
    resolved, path = location.store, location.path
    item_size = _item_size(dtype)
    shards = chunking.edges_grid(shards) or shards  # zarr-python's variable shards
    chunks = chunking.chunk_shape(chunks, shape_t, item_size, shards)
    if isinstance(shards, str) and shards == "auto" and isinstance(chunks, tuple):
        shards = chunking.auto_shards(shape_t, chunks, item_size)
    chunking.check_chunk_size(chunks, item_size, dtype)
    spec = ArrayCreationSpec(
        shape=shape_t,
        dtype=dtype,
        chunks=chunks,
        shards=shards,
        filters=filters,
        serializer=serializer,
        compressors=compressors,
        codecs=codecs,
        fill_value=fill_value,
        attributes=attributes,
        dimension_names=dimension_names,
        chunk_key_encoding=chunk_key_encoding,
        storage_transformers=storage_transformers,
        extensions=extensions,
        order=array_options.get("order"),
    )
    spec = normalised(spec, fmt)
    metadata = fmt.new_array(spec)
    rendered = fmt.render(metadata)
    # Opening validates the codec chain against the array, still before any write.
    array = node_class("array")._validated(resolved, path, metadata, fmt, **array_options)
    write_nodes(
        resolved,
        fmt,
        path,
        [NewNode(path, metadata, rendered)],
        overwrite=overwrite,
        checked_group=_checked_group,
        operation="create_array",
        allow_reserved_name=allow_reserved_name,
    )
    array = array._announced()
    if values is not None and write_data:
        array[...] = values
    return array


ARRAY_OPTIONS = {
    "order": "the name of a memory layout ('C', 'F' or a plugin's)",
    "write_empty_chunks": "True or False",
    "threads": "a positive int",
    "transformers": "a sequence of store wrappers",
    "read_only": "True or False",
    "chunk_cache": "a non-negative int of bytes (0: none) or a zarrforge.ChunkCache",
    "recheck": "'open', 'always' or 'never'",
}


#: every keyword :func:`create_array` takes: its parameters and the array options
CREATION_KEYWORDS = keywords_of(create_array) | ARRAY_OPTIONS.keys()


def check_array_options(function: str, options: dict[str, Any]) -> None:
    """Refuse, before anything is written, a runtime option ``function`` does not take or a
    value it cannot use (``threads='two'`` used to fail at the first write)."""
    if not options.keys() <= ARRAY_OPTIONS.keys():
        refuse_unknown(function, options, CREATION_KEYWORDS)
    for key, value in options.items():
        bad = (
            (key == "threads" and (not isinstance(value, int) or isinstance(value, bool) or value < 1))
            or (key in ("write_empty_chunks", "read_only") and not isinstance(value, bool))
            or (key == "order" and not isinstance(value, str))
            or (key == "recheck" and value not in RECHECK_MODES)
            or (
                key == "chunk_cache"
                and not isinstance(value, ChunkCache)
                and (not isinstance(value, int) or isinstance(value, bool) or value < 0)
            )
        )
        if bad:
            raise TypeError(f"{function}(): {key}={value!r}; give {ARRAY_OPTIONS[key]}")


@checked_keywords
def create_group(
    store: StoreLike = None,
    path: str = "",
    *,
    attributes: dict[str, Any] | None = None,
    extensions: Any = None,
    zarr_format: Any = None,
    overwrite: bool = False,
    fmt: Format | None = None,
    storage_options: dict[str, Any] | None = None,
    _checked_group: str | None = None,
    allow_reserved_name: bool = False,
) -> Any:
    """Create a group and return it open for writing (``_checked_group`` and
    ``allow_reserved_name``: as for :func:`create_array`).

    Parameters
    ----------
    store
        As for :func:`zarrforge.create_array`.
    path : str
        The group's path in ``store``; missing parent groups are created.
    attributes : dict or None
        The group's attributes.
    extensions : Any
        Extension fields of the group's metadata.
    zarr_format : Any
        The format; ``None``: a URL pipeline's, else ``config.default_format``.
    overwrite : bool
        Replace a node already at ``path``.
    fmt : zarrforge.abc.format.Format or None
        A format object to write with, instead of ``zarr_format``'s.
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.
    _checked_group : str or None
        Internal: as for :func:`zarrforge.create_array`.
    allow_reserved_name : bool
        As for :func:`zarrforge.create_array`.

    Returns
    -------
    Any
        The new :class:`zarrforge.Group`, open for writing.

    Raises
    ------
    TypeError
        A keyword it does not take (the message names the closest one it does), before
        anything is read or written.
    zarrforge.errors.ContainsNodeError
        A node is at ``path`` and ``overwrite`` is false.
    zarrforge.errors.NodeTypeError
        A parent of ``path`` is an array.
    zarrforge.errors.ReadOnlyError
        The store is read-only.
    """
    check_new_attributes(attributes or {})
    location = resolve_location(store, path, zarr_format=zarr_format, storage_options=storage_options)
    fmt = fmt or hierarchy.get_format(location.zarr_format)
    resolved, path = location.store, location.path
    metadata = fmt.new_group(attributes, extensions)
    validate_entries(metadata)
    rendered = fmt.render(metadata)
    write_nodes(
        resolved,
        fmt,
        path,
        [NewNode(path, metadata, rendered)],
        overwrite=overwrite,
        checked_group=_checked_group,
        operation="create_group",
        allow_reserved_name=allow_reserved_name,
    )
    return node_from_metadata(resolved, path, fmt, metadata, read_only=False)

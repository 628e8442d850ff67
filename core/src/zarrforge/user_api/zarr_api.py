"""zarr-python 3's convenience functions, by the same names and with the same meaning.

``import zarrforge as zarr`` and a zarr-python user's lines run on the zarrforge
engine::

    z = zarr.zeros((1000, 1000), chunks=(100, 100), dtype="i4", store="data.zarr")
    z = zarr.array(numpy_array, chunks=(10,))
    zarr.save("data.zarr", first=a, second=b)
    values = zarr.load("data.zarr")["first"]

Here: :func:`create`, :func:`zeros`, :func:`ones`, :func:`full`, :func:`empty`, their
``*_like`` forms, :func:`array`, :func:`from_array`, :func:`save`, :func:`save_array`,
:func:`save_group`, :func:`load`, :func:`open_consolidated`, :func:`group`,
:func:`tree` and :func:`open_like`; :func:`copy_all` and :func:`copy_store` raise
``NotImplementedError`` as zarr-python 3's do, naming :func:`zarrforge.copy`. They take zarr-python's keywords: ``store=``, ``path=``, ``name=``,
``compressor=`` (one codec, as in zarr-python 2) beside ``compressors=``,
``zarr_version=`` for ``zarr_format=``, ``dimension_separator=``, ``chunk_shape=``,
``config={"order", "write_empty_chunks"}``. Keywords zarr-python keeps from version 2
and ignores with a warning are ignored here with an :class:`~zarrforge.errors.IgnoredKeywordWarning`
saying why, where ignoring them is safe (``synchronizer``, ``meta_array``, ``cache_attrs``,
``cache_metadata``); those whose request zarrforge cannot honour and would silently betray
(``chunk_store``: the chunks would not go where asked; ``object_codec``) are refused when
given a value, saying why; anything else is a ``TypeError`` naming the function. Where zarrforge differs from zarr-python on purpose,
docs/coming-from-zarr-python.md says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from ..errors import NodeNotFoundError, ReadOnlyError
from ..metadata import paths
from ..nodes.hierarchy import default_format
from ..nodes.node import check_mode, open_node
from .api import consolidate_metadata, open_array, open_group
from .array_config import config_options
from .arrays import Array
from .copying import copy
from .creation import create_array
from .groups import Group
from .keywords import LEGACY_KEYWORDS, drop_legacy, format_from, keywords_of, refuse_unknown
from .like import chunking_of, like_arguments


def _unknown(function: Callable[..., Any], options: Mapping[str, Any]) -> None:
    """Refuse what is left of ``options`` once the zarr-python 2 keywords are taken out,
    naming the closest keyword ``function`` takes."""
    if options:
        refuse_unknown(f"zarrforge.{function.__name__}", options, keywords_of(function) | LEGACY_KEYWORDS)


def create(
    shape: Any,
    *,
    chunks: Any = None,
    dtype: Any = None,
    compressor: Any = "auto",
    fill_value: Any = None,
    order: str | None = None,
    store: Any = None,
    overwrite: bool = False,
    path: str | None = None,
    filters: Any = None,
    read_only: bool | None = None,
    dimension_separator: str | None = None,
    write_empty_chunks: bool | None = None,
    zarr_version: Any = None,
    zarr_format: Any = None,
    attributes: dict[str, Any] | None = None,
    chunk_shape: Any = None,
    chunk_key_encoding: Any = None,
    codecs: Any = None,
    dimension_names: Any = None,
    storage_options: dict[str, Any] | None = None,
    config: Mapping[str, Any] | None = None,
    compressors: Any = None,
    shards: Any = None,
    serializer: Any = None,
    mode: str | None = None,
    **legacy: Any,
) -> Array:
    """zarr-python's ``zarr.create``: a new array (in memory unless ``store`` says where);
    ``dtype`` defaults to float64. See the module docstring for the keywords.

    ``mode`` is zarr-python 2's way to say ``overwrite``: ``"w"`` replaces what is there,
    ``"w-"`` refuses it whatever ``overwrite`` says, ``"a"`` and ``"r+"`` (and ``None``)
    leave ``overwrite`` as given, and ``"r"`` cannot create.

    Parameters
    ----------
    shape : Any
        The array's shape: an int or a sequence of ints.
    chunks : Any
        The chunk shape, as for :func:`zarrforge.create_array`; not with ``chunk_shape``.
    dtype : Any
        The data type; ``None``: float64.
    compressor : Any
        One codec (zarr-python 2's form); ``"auto"``: the default compressors; ``None``: none.
        Not with ``compressors``.
    fill_value : Any
        The value unwritten elements read as.
    order : str or None
        The memory layout of chunks (``"C"``, ``"F"``); a runtime setting.
    store : Any
        Where to create the array (any store-like); ``None``: a new in-memory store.
    overwrite : bool
        Replace a node already at the path.
    path : str or None
        The array's path in ``store``; ``None``: the root.
    filters : Any
        Same as :func:`zarrforge.create_array`.
    read_only : bool or None
        Return the new array opened read-only.
    dimension_separator : str or None
        The chunk keys' separator (``"/"`` or ``"."``); not with ``chunk_key_encoding``.
    write_empty_chunks : bool or None
        Store chunks that hold only the fill value; a runtime setting.
    zarr_version : Any
        zarr-python 2's name for ``zarr_format`` (both may be given only if they agree).
    zarr_format : Any
        The format to write (``2``, ``3`` or a registered format's name); ``None``: the default
        format.
    attributes : dict or None
        The array's attributes.
    chunk_shape : Any
        zarr-python's other name for ``chunks`` (not both).
    chunk_key_encoding, codecs, dimension_names, storage_options, compressors, shards, serializer : Any
        Same as :func:`zarrforge.create_array`.
    config : Mapping or None
        zarr-python's runtime settings (``{"order", "write_empty_chunks"}``).
    mode : str or None
        zarr-python 2's way to say ``overwrite`` (above).
    **legacy : Any
        zarr-python 2 keywords: ignored with a warning, or refused (see the module docstring).

    Returns
    -------
    zarrforge.Array
        The new array, open for reading and writing (read-only with ``read_only=True``).

    Raises
    ------
    zarrforge.errors.ReadOnlyError
        ``mode="r"``, or a read-only store.
    zarrforge.errors.ContainsNodeError
        A node is at the path and ``overwrite`` is false.
    """
    drop_legacy("create", legacy)
    _unknown(create, legacy)
    if mode is not None:
        check_mode(mode)
        if mode == "r":
            raise ReadOnlyError(
                "zarrforge.create(mode='r'): a read-only mode cannot create an "
                "array; use open_array to read one"
            )
        overwrite = True if mode == "w" else False if mode == "w-" else overwrite
    zarr_format = format_from("create", zarr_format, zarr_version)
    if chunk_shape is not None:
        if chunks is not None:
            raise TypeError("zarrforge.create(): give chunks= or chunk_shape=, not both")
        chunks = chunk_shape
    if compressors is None:
        compressors = "auto" if compressor == "auto" else None if compressor is None else [compressor]
    elif compressor != "auto":
        raise TypeError("zarrforge.create(): give compressor= or compressors=, not both")
    if dimension_separator is not None:
        if chunk_key_encoding is not None:
            raise TypeError("zarrforge.create(): give dimension_separator= or chunk_key_encoding=, not both")
        v2 = str(zarr_format) == "2"
        chunk_key_encoding = {
            "name": "v2" if v2 else "default",
            "configuration": {"separator": dimension_separator},
        }
    keywords = {
        key: value
        for key, value in (("order", order), ("write_empty_chunks", write_empty_chunks))
        if value is not None
    }
    options = {**config_options("zarrforge.create", config, keywords), **keywords}
    array = create_array(
        store,
        path or "",
        shape=shape,
        dtype="float64" if dtype is None else dtype,
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
        zarr_format=zarr_format,
        overwrite=overwrite,
        storage_options=storage_options,
        **options,
    )
    if read_only:
        return open_array(array.store, array.path, mode="r")
    return array


def zeros(shape: Any, **kwargs: Any) -> Array:
    """An array of zeros (``create`` with ``fill_value=0``).

    Parameters
    ----------
    shape : Any
        The array's shape: an int or a sequence of ints.
    **kwargs : Any
        Any keyword of :func:`zarrforge.create`.

    Returns
    -------
    zarrforge.Array
        The new array.
    """
    return create(shape, fill_value=0, **kwargs)


def ones(shape: Any, **kwargs: Any) -> Array:
    """An array of ones (``create`` with ``fill_value=1``).

    Parameters
    ----------
    shape : Any
        The array's shape: an int or a sequence of ints.
    **kwargs : Any
        Any keyword of :func:`zarrforge.create`.

    Returns
    -------
    zarrforge.Array
        The new array.
    """
    return create(shape, fill_value=1, **kwargs)


def full(shape: Any, fill_value: Any, **kwargs: Any) -> Array:
    """An array of ``fill_value`` (``create`` with that fill value).

    Parameters
    ----------
    shape : Any
        The array's shape: an int or a sequence of ints.
    fill_value : Any
        The value every element reads as until written.
    **kwargs : Any
        Any other keyword of :func:`zarrforge.create`.

    Returns
    -------
    zarrforge.Array
        The new array.
    """
    return create(shape, fill_value=fill_value, **kwargs)


def empty(shape: Any, **kwargs: Any) -> Array:
    """An array whose unwritten elements read as the type's default fill value.

    Parameters
    ----------
    shape : Any
        The array's shape: an int or a sequence of ints.
    **kwargs : Any
        Any keyword of :func:`zarrforge.create`.

    Returns
    -------
    zarrforge.Array
        The new array.
    """
    return create(shape, **kwargs)


def zeros_like(a: Any, **kwargs: Any) -> Array:
    """An array of zeros like ``a`` (:func:`zarrforge.zeros`).

    ``a``'s shape and data type and, when ``a`` is a Zarr array (zarrforge's or another
    library's), its chunk shape; a keyword given wins.

    Parameters
    ----------
    a : Any
        The array (or array-like) to take the shape, data type and chunks from.
    **kwargs : Any
        Any keyword of :func:`zarrforge.create`; they win over what ``a`` gives.

    Returns
    -------
    zarrforge.Array
        The new array.
    """
    return zeros(**like_arguments(a, kwargs))


def ones_like(a: Any, **kwargs: Any) -> Array:
    """An array of ones like ``a`` (:func:`zarrforge.ones`).

    ``a``'s shape and data type and, when ``a`` is a Zarr array (zarrforge's or another
    library's), its chunk shape; a keyword given wins.

    Parameters
    ----------
    a : Any
        The array (or array-like) to take the shape, data type and chunks from.
    **kwargs : Any
        Any keyword of :func:`zarrforge.create`; they win over what ``a`` gives.

    Returns
    -------
    zarrforge.Array
        The new array.
    """
    return ones(**like_arguments(a, kwargs))


def full_like(a: Any, **kwargs: Any) -> Array:
    """An array like ``a`` filled with its fill value (:func:`zarrforge.full`).

    ``a``'s shape and data type and, when ``a`` is a Zarr array (zarrforge's or another
    library's), its chunk shape and its fill value; a keyword given wins.

    Parameters
    ----------
    a : Any
        The array (or array-like) to take the shape, data type, chunks and fill value from.
    **kwargs : Any
        Any keyword of :func:`zarrforge.create`; they win over what ``a`` gives.

    Returns
    -------
    zarrforge.Array
        The new array.
    """
    like = like_arguments(a, kwargs, fill=True)
    return full(like.pop("shape"), like.pop("fill_value"), **like)


def empty_like(a: Any, **kwargs: Any) -> Array:
    """An empty array like ``a`` (:func:`zarrforge.empty`).

    ``a``'s shape and data type and, when ``a`` is a Zarr array (zarrforge's or another
    library's), its chunk shape and its fill value; a keyword given wins.

    Parameters
    ----------
    a : Any
        The array (or array-like) to take the shape, data type, chunks and fill value from.
    **kwargs : Any
        Any keyword of :func:`zarrforge.create`; they win over what ``a`` gives.

    Returns
    -------
    zarrforge.Array
        The new array.
    """
    return empty(**like_arguments(a, kwargs, fill=True))


def open_like(a: Any, path: str, *, zarr_format: Any = None, **kwargs: Any) -> Array:
    """zarr-python's ``open_like``: :func:`open_array` at ``path`` (of ``store=``, in
    memory when none is given, as zarr-python's) with ``a``'s shape, data type, chunk
    shape and fill value (``.like.like_arguments``), so a missing array is created
    like ``a``. When ``a`` is a zarrforge Array of the format the call opens in
    (``zarr_format``, else the default format; ``a``'s own is not inherited), its shards
    and codecs are taken too. ``mode`` defaults to ``"a"``; ``kwargs`` win over what
    ``a`` gives.

    Parameters
    ----------
    a : Any
        The array (or array-like) the new array is made like.
    path : str
        The array's path in the store.
    zarr_format : Any
        The format to open in; ``None``: the default format.
    **kwargs : Any
        Keywords of :func:`zarrforge.open_array` (``store=``, ``mode=``, creation keywords).

    Returns
    -------
    zarrforge.Array
        The array at ``path``, created like ``a`` if missing.
    """
    target = str(zarr_format) if zarr_format is not None else default_format()
    like = like_arguments(a, {}, fill=True)
    if isinstance(a, Array) and a.format.name == target:
        like.update(chunking_of(a), filters=a.filters, serializer=a.serializer, compressors=a.compressors)
    like.update(kwargs)
    store = like.pop("store", None)
    if like.get("mode") is None:
        like["mode"] = "a"
    return open_array(store, path, zarr_format=zarr_format, **like)


_COPY_MOVED = (
    "zarr-python 3 does not implement it either (it raises NotImplementedError); "
    "use zarrforge.copy(source, dest, source_path=..., dest_path=...), which copies "
    "an array or a whole group, all of its members included, between stores and "
    "formats"
)


def copy_all(*args: Any, **kwargs: Any) -> tuple[int, int, int]:
    """zarr-python 2's ``copy_all``, which zarr-python 3 keeps as a name that raises
    ``NotImplementedError``: so does this one, pointing at :func:`zarrforge.copy`.

    Parameters
    ----------
    *args : Any
        Ignored.
    **kwargs : Any
        Ignored.

    Returns
    -------
    tuple of int
        Never: the call always raises.

    Raises
    ------
    NotImplementedError
        Always.
    """
    raise NotImplementedError(f"zarrforge.copy_all(): {_COPY_MOVED}")


def copy_store(*args: Any, **kwargs: Any) -> tuple[int, int, int]:
    """zarr-python 2's ``copy_store``, which zarr-python 3 keeps as a name that raises
    ``NotImplementedError``: so does this one, pointing at :func:`zarrforge.copy`.

    Parameters
    ----------
    *args : Any
        Ignored.
    **kwargs : Any
        Ignored.

    Returns
    -------
    tuple of int
        Never: the call always raises.

    Raises
    ------
    NotImplementedError
        Always.
    """
    raise NotImplementedError(f"zarrforge.copy_store(): {_COPY_MOVED}")


def array(data: Any, **kwargs: Any) -> Array:
    """A new array holding ``data`` (any array-like; an Array of ours is read).

    Its data type is ``data``'s, and an Array's chunks are kept, unless given.

    Parameters
    ----------
    data : Any
        The values (any array-like, or a :class:`zarrforge.Array`).
    **kwargs : Any
        Any keyword of :func:`zarrforge.create`.

    Returns
    -------
    zarrforge.Array
        The new array, holding ``data``'s values.
    """
    values = data[...] if isinstance(data, Array) else np.asarray(data)
    kwargs.setdefault("dtype", values.dtype)
    if isinstance(data, Array):
        kwargs.setdefault("chunks", data.chunks)
    created = create(values.shape, **kwargs)
    created[...] = values
    return created


_KEPT = ("chunks", "shards", "filters", "compressors", "serializer")


def _is_keep(value: Any) -> bool:
    return isinstance(value, str) and value == "keep"


def from_array(
    store: Any, *, data: Any, write_data: bool = True, name: str | None = None, **kwargs: Any
) -> Array:
    """zarr-python's ``from_array``: a new array at ``name`` of ``store`` shaped like ``data``
    and (``write_data``) holding its values. An Array of ours keeps its chunks, shards and
    codecs (zarr-python's ``"keep"``) unless given: it is copied, data and all.

    Parameters
    ----------
    store : Any
        Where to create the array (any store-like).
    data : Any
        The array-like (or :class:`zarrforge.Array`) to take the shape, data type and values from.
    write_data : bool
        Write ``data``'s values (else only the shape and data type are taken).
    name : str or None
        The new array's path in ``store``; ``None``: the root.
    **kwargs : Any
        Any keyword of :func:`zarrforge.create_array`; ``"keep"`` for ``chunks``, ``shards``,
        ``filters``, ``serializer`` or ``compressors`` takes ``data``'s (a zarrforge Array only).

    Returns
    -------
    zarrforge.Array
        The new array.
    """
    given = {key for key in _KEPT if key in kwargs}
    settings = {key: kwargs.pop(key, "keep") for key in _KEPT}
    ours = isinstance(data, Array)
    if (
        ours
        and write_data
        and all(map(_is_keep, settings.values()))
        and not kwargs.keys() - {"zarr_format", "overwrite", "storage_options"}
    ):
        return copy(
            data,
            store,
            dest_path=name or "",
            zarr_format=kwargs.get("zarr_format"),
            overwrite=kwargs.get("overwrite", False),
            storage_options=kwargs.get("storage_options"),
        )
    kept = (
        {
            "chunks": data.chunks,
            "shards": data.shards,
            "filters": data.filters,
            "serializer": data.serializer,
            "compressors": data.compressors,
        }
        if ours
        else {}
    )
    for key, value in settings.items():
        if _is_keep(value):
            if not ours:
                if key in given:
                    raise TypeError(
                        f"zarrforge.from_array(): {key}='keep' needs a zarrforge Array to keep it from"
                    )
                continue  # not given: create_array's default
            value = kept[key]
        kwargs[key] = value
    return create_array(store, name or "", data=data[...] if ours else data, write_data=write_data, **kwargs)


def save_array(
    store: Any,
    arr: Any,
    *,
    zarr_version: Any = None,
    zarr_format: Any = None,
    path: str | None = None,
    storage_options: dict[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """Write ``arr`` as the array at ``path`` of ``store``, replacing what is there.

    Parameters
    ----------
    store : Any
        Where to write (any store-like).
    arr : Any
        The values (any array-like).
    zarr_version : Any
        zarr-python 2's name for ``zarr_format`` (both may be given only if they agree).
    zarr_format : Any
        The format to write (``2``, ``3`` or a registered format's name); ``None``: the default
        format.
    path : str or None
        The array's path in ``store``; ``None``: the root.
    storage_options : dict or None
        Options for an fsspec URL store.
    **kwargs : Any
        Any other keyword of :func:`zarrforge.create`.
    """
    zarr_format = format_from("save_array", zarr_format, zarr_version)
    array(
        arr,
        store=store,
        path=path,
        zarr_format=zarr_format,
        overwrite=True,
        storage_options=storage_options,
        **kwargs,
    )


def save_group(
    store: Any,
    *args: Any,
    zarr_version: Any = None,
    zarr_format: Any = None,
    path: str | None = None,
    storage_options: dict[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """Write a group at ``path`` of ``store`` holding ``args`` as ``arr_0``, ``arr_1``...
    and ``kwargs`` by their names, replacing what is there.

    Parameters
    ----------
    store : Any
        Where to write (any store-like).
    *args : Any
        Array-likes, saved as ``arr_0``, ``arr_1``...
    zarr_version : Any
        zarr-python 2's name for ``zarr_format`` (both may be given only if they agree).
    zarr_format : Any
        The format to write (``2``, ``3`` or a registered format's name); ``None``: the default
        format.
    path : str or None
        The group's path in ``store``; ``None``: the root.
    storage_options : dict or None
        Options for an fsspec URL store.
    **kwargs : Any
        Array-likes, saved by their keyword names.

    Raises
    ------
    ValueError
        No array is given.
    """
    if not args and not kwargs:
        raise ValueError("zarrforge.save_group(): at least one array must be given")
    zarr_format = format_from("save_group", zarr_format, zarr_version)
    named = {f"arr_{i}": value for i, value in enumerate(args)} | kwargs
    root = paths.normalize_path(path or "")
    created = open_group(store, root, mode="w", zarr_format=zarr_format, storage_options=storage_options)
    for name, value in named.items():
        array(value, store=created.store, path=paths.join(root, name), zarr_format=created.format.name)


def save(
    store: Any,
    *args: Any,
    zarr_version: Any = None,
    zarr_format: Any = None,
    path: str | None = None,
    **kwargs: Any,
) -> None:
    """One array and no names: :func:`save_array`; else :func:`save_group`.

    Parameters
    ----------
    store : Any
        Where to write (any store-like).
    *args : Any
        The array-likes to save.
    zarr_version : Any
        zarr-python 2's name for ``zarr_format`` (both may be given only if they agree).
    zarr_format : Any
        The format to write (``2``, ``3`` or a registered format's name); ``None``: the default
        format.
    path : str or None
        The path in ``store``; ``None``: the root.
    **kwargs : Any
        Array-likes saved by their names (:func:`save_group`).
    """
    if len(args) == 1 and not kwargs:
        save_array(store, args[0], zarr_version=zarr_version, zarr_format=zarr_format, path=path)
    else:
        save_group(store, *args, zarr_version=zarr_version, zarr_format=zarr_format, path=path, **kwargs)


class LazyLoader(Mapping[str, Any]):
    """The arrays of a group by name, each read whole when it is looked up."""

    def __init__(self, group: Group) -> None:
        self._group = group
        self._names = [name for name, node in group.members() if isinstance(node, Array)]

    def __getitem__(self, name: str) -> Any:
        if name not in self._names:
            raise KeyError(name)
        return self._group[name][...]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"<LazyLoader {self._names}>"


def load(store: Any, path: str | None = None, zarr_format: Any = None, zarr_version: Any = None) -> Any:
    """The values of the array at ``path`` (a numpy array), or, for a group, a mapping of
    its arrays' names to their values, each read when looked up.

    Parameters
    ----------
    store : Any
        The store to read (any store-like).
    path : str or None
        The node's path in ``store``; ``None``: the root.
    zarr_format : Any
        The format the node must be in; ``None``: any.
    zarr_version : Any
        zarr-python 2's name for ``zarr_format``.

    Returns
    -------
    Any
        A numpy array (an array), or a ``LazyLoader`` mapping (a group).

    Raises
    ------
    zarrforge.errors.NodeNotFoundError
        No node at ``path``, or one of another format than ``zarr_format``.
    """
    zarr_format = format_from("load", zarr_format, zarr_version)
    node = open_node(store, path or "", mode="r")
    if zarr_format is not None and node.format.name != str(zarr_format):
        raise NodeNotFoundError(
            f"the node at {'/' + (path or '')!r} is Zarr {node.format.name}, not zarr_format={zarr_format!r}"
        )
    return node[...] if isinstance(node, Array) else LazyLoader(node)


def open_consolidated(*args: Any, use_consolidated: bool = True, **kwargs: Any) -> Group:
    """``open_group`` that requires the group's consolidated metadata.

    Parameters
    ----------
    *args : Any
        The positional arguments of :func:`zarrforge.open_group`.
    use_consolidated : bool
        Must be ``True``.
    **kwargs : Any
        The keywords of :func:`zarrforge.open_group`.

    Returns
    -------
    zarrforge.Group
        The group, read through its consolidated metadata.
    """
    if use_consolidated is not True:
        raise TypeError(
            "zarrforge.open_consolidated(): use_consolidated must be True (use open_group otherwise)"
        )
    return open_group(*args, use_consolidated=True, **kwargs)


def group(
    store: Any = None,
    *,
    overwrite: bool = False,
    path: str | None = None,
    zarr_version: Any = None,
    zarr_format: Any = None,
    attributes: dict[str, Any] | None = None,
    storage_options: dict[str, Any] | None = None,
    **legacy: Any,
) -> Group:
    """zarr-python's ``zarr.group``: the group at ``path``, created if missing (replaced,
    with ``overwrite=True``).

    Parameters
    ----------
    store : Any
        The store (any store-like); ``None``: a new in-memory store.
    overwrite : bool
        Replace what is at ``path`` with a new group.
    path : str or None
        The group's path in ``store``; ``None``: the root.
    zarr_version : Any
        zarr-python 2's name for ``zarr_format`` (both may be given only if they agree).
    zarr_format : Any
        The format to write (``2``, ``3`` or a registered format's name); ``None``: the default
        format.
    attributes : dict or None
        The new group's attributes.
    storage_options : dict or None
        Options for an fsspec URL store.
    **legacy : Any
        zarr-python 2 keywords: ignored with a warning, or refused (see the module docstring).

    Returns
    -------
    zarrforge.Group
        The group, open for writing.
    """
    drop_legacy("group", legacy)
    _unknown(group, legacy)
    return open_group(
        store,
        path or "",
        mode="w" if overwrite else "a",
        zarr_format=format_from("group", zarr_format, zarr_version),
        attributes=attributes,
        storage_options=storage_options,
    )


def tree(grp: Group, expand: bool | None = None, level: int | None = None) -> Any:
    """The group's hierarchy as text (``Group.tree``).

    Parameters
    ----------
    grp : zarrforge.Group
        The group to show.
    expand : bool or None
        Passed to :meth:`zarrforge.Group.tree`.
    level : int or None
        How many levels deep to show (``0``: the direct members); ``None``: all.

    Returns
    -------
    Any
        A :class:`zarrforge.user_api.tree_view.TreeText`.
    """
    return grp.tree(level=level, expand=expand)


__all__ = [
    "LazyLoader",
    "array",
    "consolidate_metadata",
    "copy_all",
    "copy_store",
    "create",
    "empty",
    "empty_like",
    "from_array",
    "full",
    "full_like",
    "group",
    "load",
    "ones",
    "ones_like",
    "open_consolidated",
    "open_like",
    "save",
    "save_array",
    "save_group",
    "tree",
    "zeros",
    "zeros_like",
]

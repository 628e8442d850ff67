"""The resolution step: from plain documents to implementations, through the registries.

A format reads a node as a :class:`~zarrforge.metadata.document.NodeDocument`
(nothing resolved) and resolves it into the model of
:mod:`zarrforge.abc.metadata` with these functions; creating an array resolves
the user's arguments the same way. Each takes the document's value (or the
API argument), validates its form, and builds the implementation through
:mod:`zarrforge.registry`. Errors name the field.

This is the only layer that turns names into code, and it does so only
through installed entry points or explicit registrations. What the spec
lets a reader ignore is handled here too: an unknown codec or generic
extension marked ``must_understand: false`` becomes a :class:`SkippedCodec`
(reading works without it, writing is refused) or an
:class:`~zarrforge.metadata.document.UnknownExtension` (kept verbatim).

A shape (``shape_from_json``, which every format reads its documents' ``shape``
with, and the ``shape=`` argument at creation) has at most :data:`MAX_NDIM` (64,
numpy's limit) dimensions: more is a :class:`~zarrforge.errors.MetadataError` naming
the field, the count and the limit, raised on the list's length before anything is
checked or built per dimension.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import config
from ..abc.chunk_grid import ChunkGrid
from ..abc.chunk_key_encoding import ChunkKeyEncoding
from ..abc.codec import Codec
from ..abc.data_type import DataType
from ..abc.extension import Extension, has_value_stage
from ..abc.format import NO_FILL_VALUE
from ..abc.memory_layout import MemoryLayout
from ..abc.metadata import ExtensionEntry
from ..abc.storage_transformer import StorageTransformer
from ..errors import MetadataError, SkippedExtensionWarning, UnknownExtensionError
from ..metadata.document import UnknownExtension
from ..metadata.extension_def import ExtensionRef, parse_extension
from ..metadata.extension_entries import PLACEMENTS_KEY, TOP_LEVEL, place_entries, raw_extension_entries
from . import plugin_failures, registry
from .registry import Registry


class SkippedCodec(Codec):
    """A codec entry no plugin understands that says ``must_understand: false``.

    The spec lets a reader ignore such a codec; the chain then decodes without
    it, and refuses to encode, since data written without the codec would not
    be what other readers expect. It is written back exactly as read.

    Raises
    ------
    TypeError
        From :meth:`from_json`: a skipped codec is built by the resolution step
        (:func:`codec_from_json`), never from the registry.

    Examples
    --------
    >>> skipped = SkippedCodec({"name": "x.nope", "must_understand": False})
    >>> skipped.name, skipped.to_json()
    ('x.nope', {'name': 'x.nope', 'must_understand': False})
    """

    kind = None  # type: ignore[assignment]

    def __init__(self, document: Any) -> None:
        self.document = document
        # the one codec whose name is the instance's: it stands for whichever codec was not found
        self.name = document if isinstance(document, str) else document.get("name", "")

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> SkippedCodec:
        raise TypeError("SkippedCodec is built by the resolution step, not from the registry")

    def to_json(self) -> Any:
        return self.document


def resolve(registry: Registry, ref: ExtensionRef, *args: Any, field: str) -> Any:
    """Build the implementation of ``ref`` from ``registry`` (``from_json(name, config, *args)``).

    Parameters
    ----------
    registry : zarrforge.registries.registry.Registry
        The registry of the extension point.
    ref : zarrforge.plugin_api.ExtensionRef
        The parsed metadata entry.
    *args : Any
        Further arguments of ``from_json`` (a chunk grid's shape).
    field : str
        The field the entry comes from, named by errors.

    Returns
    -------
    Any
        What the implementation's ``from_json`` returns.

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        No installed plugin provides ``ref.name``.
    zarrforge.errors.MetadataError
        The entry is invalid (the error names ``field``, or a field inside it).
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> ref = ExtensionRef("gzip", {"level": 5}, True, {"name": "gzip", "configuration": {"level": 5}})
    >>> resolve(registry.codecs, ref, field="codecs[1]").to_json()
    {'name': 'gzip', 'configuration': {'level': 5}}
    """
    implementation = registry.get(ref.name, field=f"{field}.name" if isinstance(ref.raw, dict) else field)
    try:
        return implementation.from_json(ref.name, ref.configuration, *args)
    except MetadataError as exc:  # any class: an UnknownExtensionError from a helper too
        raise exc.within(field) from exc
    except (TypeError, ValueError, KeyError) as exc:
        raise MetadataError(
            f"invalid {registry.point} {ref.name!r}: {exc}", field=field, value=ref.raw
        ) from exc
    except Exception as exc:
        if not plugin_failures.unexpected(exc):
            raise
        raise plugin_failures.failure(
            registry.point, ref.name, registry.origin(ref.name), exc, f"reading {field} = {ref.raw!r}"
        ) from exc


def data_type_from_json(value: Any, *, field: str = "data_type") -> DataType:
    """The data type a ``data_type`` metadata value names, through the registry.

    Parameters
    ----------
    value : Any
        The ``data_type`` value (a name, or ``{"name", "configuration"}``).
    field : str
        The field the value comes from, named by errors (default ``"data_type"``).

    Returns
    -------
    DataType
        The data type.

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        No installed plugin provides the data type.
    zarrforge.errors.MetadataError
        The value is invalid.
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> data_type_from_json("int32").to_json()
    'int32'
    >>> from zarrforge.errors import UnknownExtensionError
    >>> try:
    ...     data_type_from_json({"name": "x.nope"})
    ... except UnknownExtensionError as exc:
    ...     print(exc.field)
    data_type.name
    """
    ref = parse_extension(value, field=field, point="a data type")
    return resolve(registry.data_types, ref, field=field)


def data_type_from_user(value: Any) -> DataType:
    """A data type from an API argument: a DataType, a name, an object, anything numpy
    accepts, or a zarr-python data type object (``zarr.dtype.Int16()``), read by the v3
    metadata it writes for itself.

    Parameters
    ----------
    value : Any
        The ``dtype=`` argument.

    Returns
    -------
    DataType
        The data type.

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        No installed data type is named ``value`` or owns its numpy dtype.
    zarrforge.errors.MetadataError
        ``value`` is neither a data type name nor a numpy dtype (field ``dtype``).
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> data_type_from_user(np.float64).to_json(), data_type_from_user("<i4").to_json()
    ('float64', 'int32')
    """
    if isinstance(value, DataType):
        return value
    if type(value) is str:  # a name: resolved again only after a registry change
        generation = registry.generation()
        found_before = _NAMED_DATA_TYPES.get(value)
        if found_before is not None and found_before[0] == generation:
            return found_before[1]
        data_type = _data_type_from_user(value)
        if len(_NAMED_DATA_TYPES) >= _NAMED_DATA_TYPE_ENTRIES:
            _NAMED_DATA_TYPES.clear()
        _NAMED_DATA_TYPES[value] = (generation, data_type)
        return data_type
    return _data_type_from_user(value)


#: data type name -> (registry generation, the data type it resolved to): data types are
#: immutable values, so a name given again (every array a group's members create) is
#: not resolved again while no registry changes. Emptied when full.
_NAMED_DATA_TYPES: dict[str, tuple[int, DataType]] = {}
_NAMED_DATA_TYPE_ENTRIES = 256


def _data_type_from_user(value: Any) -> DataType:
    """:func:`data_type_from_user`, resolved now."""
    if _is_zarr_python_data_type(value):
        return data_type_from_json(value.to_json(zarr_format=3), field="dtype")
    if isinstance(value, (dict, str)) and (not isinstance(value, str) or value in registry.data_types):
        return data_type_from_json(value, field="dtype")
    try:
        np_dtype = np.dtype(value)
    except TypeError as exc:
        if isinstance(value, str):  # a name that is neither registered nor numpy's
            raise UnknownExtensionError(
                "data type",
                value,
                registry.data_types.names(),
                registry.data_types.provider_hint(value),
                field="dtype",
            ) from exc
        raise MetadataError(
            f"{value!r} is neither a registered data type name nor a numpy dtype; "
            f"registered: {', '.join(registry.data_types.names())}",
            field="dtype",
            value=value,
        ) from exc
    # The registered name usually is numpy's (float32, int8, bool): try it first, so the
    # common case loads one data type rather than every installed one.
    if np_dtype.name in registry.data_types:
        implementation = registry.data_types.get(np_dtype.name)
        with plugin_failures.named(
            "data type",
            np_dtype.name,
            lambda: registry.data_types.origin(np_dtype.name),
            f"asked for the numpy dtype {np_dtype}",
        ):
            found = implementation.from_numpy_dtype(np_dtype)
        if found is not None:
            return found
    found = registry.data_types.first_answer(
        lambda implementation: implementation.from_numpy_dtype(np_dtype),
        doing=f"asked whether it is the numpy dtype {np_dtype}",
    )
    if found is not None:
        return found
    raise UnknownExtensionError("data type", str(np_dtype), registry.data_types.names(), field="dtype")


def _is_zarr_python_data_type(value: Any) -> bool:
    """A zarr-python data type object (zarr.dtype's classes): its own JSON is the way in.
    Told by its class's module, so that no other object is asked for a ``to_json``."""
    module = type(value).__module__ or ""
    return (module == "zarr.dtype" or module.startswith(("zarr.core.dtype", "zarr.dtype."))) and callable(
        getattr(value, "to_json", None)
    )


def fill_value_from_user(data_type: DataType, value: Any) -> Any:
    """The ``fill_value=`` argument of a new array in ``data_type``'s terms (its default
    when ``None``); errors name the field ``fill_value``.

    Parameters
    ----------
    data_type : zarrforge.abc.data_type.DataType
        The array's data type.
    value : Any
        The ``fill_value=`` argument; ``None`` for the type's default.

    Returns
    -------
    Any
        The in-memory fill value.

    Raises
    ------
    zarrforge.errors.MetadataError
        ``value`` is ``NO_FILL_VALUE`` or not a valid fill value of the type.

    Examples
    --------
    >>> int32 = data_type_from_user("int32")
    >>> int(fill_value_from_user(int32, None)), int(fill_value_from_user(int32, 7))
    (0, 7)
    >>> from zarrforge.errors import MetadataError
    >>> try:
    ...     fill_value_from_user(int32, "x")
    ... except MetadataError as exc:
    ...     print(exc.field)
    fill_value
    """
    if value is None:
        return data_type.default_fill_value()
    if value is NO_FILL_VALUE:
        raise MetadataError(
            "this format records a fill value for every array; NO_FILL_VALUE "
            "(no fill value, Zarr v2's null) is for formats that can leave it "
            "out",
            field="fill_value",
            value=value,
        )
    try:
        return data_type.from_user_value(value)
    except MetadataError as exc:
        if exc.field is not None:
            raise
        raise exc.relocated("fill_value") from exc
    except (TypeError, ValueError, OverflowError) as exc:
        raise MetadataError(
            f"{value!r} is not a valid fill value for data type {data_type.to_json()!r}: {exc}",
            field="fill_value",
            value=value,
        ) from exc


def chunk_grid_from_json(value: Any, shape: Sequence[int], *, field: str = "chunk_grid") -> ChunkGrid:
    """The chunk grid a ``chunk_grid`` metadata value names, for an array of ``shape``.

    Parameters
    ----------
    value : Any
        The ``chunk_grid`` value.
    shape : Sequence[int]
        The array's shape.
    field : str
        The field the value comes from, named by errors (default ``"chunk_grid"``).

    Returns
    -------
    ChunkGrid
        The grid.

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        No installed plugin provides the grid.
    zarrforge.errors.MetadataError
        The value is invalid.
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> value = {"name": "regular", "configuration": {"chunk_shape": [10, 10]}}
    >>> chunk_grid_from_json(value, [100, 50]).to_json()
    {'name': 'regular', 'configuration': {'chunk_shape': [10, 10]}}
    """
    ref = parse_extension(value, field=field, point="a chunk grid")
    return resolve(registry.chunk_grids, ref, tuple(shape), field=field)


def chunk_key_encoding_from_json(value: Any, *, field: str = "chunk_key_encoding") -> ChunkKeyEncoding:
    """The chunk key encoding a ``chunk_key_encoding`` metadata value names.

    Parameters
    ----------
    value : Any
        The ``chunk_key_encoding`` value.
    field : str
        The field the value comes from, named by errors (default ``"chunk_key_encoding"``).

    Returns
    -------
    ChunkKeyEncoding
        The encoding.

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        No installed plugin provides the encoding.
    zarrforge.errors.MetadataError
        The value is invalid.
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> chunk_key_encoding_from_json({"name": "default"}).to_json()
    {'name': 'default', 'configuration': {'separator': '/'}}
    """
    ref = parse_extension(value, field=field, point="a chunk key encoding")
    return resolve(registry.chunk_key_encodings, ref, field=field)


def codec_from_json(value: Any, *, field: str) -> Codec:
    """A codec; an unknown one marked ``must_understand: false`` becomes a
    :class:`SkippedCodec` (with a warning): data can then be read, but not written.

    Parameters
    ----------
    value : Any
        One entry of a ``codecs`` list.
    field : str
        The field the value comes from (``"codecs[0]"``), named by errors.

    Returns
    -------
    Codec
        The codec, or a :class:`SkippedCodec`.

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        The codec is not installed and must be understood.
    zarrforge.errors.MetadataError
        The entry is invalid.
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> codec_from_json({"name": "gzip", "configuration": {"level": 5}}, field="codecs[1]").to_json()
    {'name': 'gzip', 'configuration': {'level': 5}}
    >>> from zarrforge.errors import UnknownExtensionError
    >>> try:
    ...     codec_from_json({"name": "x.nope"}, field="codecs[1]")
    ... except UnknownExtensionError as exc:
    ...     print(exc.field)
    codecs[1].name
    """
    ref = parse_extension(value, field=field, allow_skip=True)
    if not ref.must_understand and ref.name not in registry.codecs:
        warnings.warn(
            f"{field}: codec {ref.name!r} is not installed and says "
            "must_understand: false; it is skipped when reading, and writing to "
            "this array is refused",
            SkippedExtensionWarning,
            stacklevel=2,
        )
        return SkippedCodec(ref.raw)
    _must_be_understood(registry.codecs, ref, field)
    return resolve(registry.codecs, ref, field=field)


def codec_from_user(value: Any, *, field: str) -> Codec:
    """A codec argument of the API: a codec instance, a name, a ``{"name", "configuration"}``
    object, or a numcodecs configuration (``{"id": "zstd", "level": 3}``), which is the
    codec ``numcodecs.<id>`` (the name zarr-python's ``numcodecs.zarr3`` codecs write).

    Parameters
    ----------
    value : Any
        The codec argument.
    field : str
        The field the value comes from (``"codecs[0]"``), named by errors.

    Returns
    -------
    Codec
        The codec (``value`` itself when it is one).

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        The codec is not installed.
    zarrforge.errors.MetadataError
        The argument is invalid (a numcodecs ``id`` that is not a non-empty string).
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> codec = codec_from_user({"name": "gzip", "configuration": {"level": 3}}, field="codecs[1]")
    >>> codec.to_json()
    {'name': 'gzip', 'configuration': {'level': 3}}
    >>> codec_from_user(codec, field="codecs[1]") is codec  # a codec is returned as it is
    True
    """
    if isinstance(value, Codec):
        return value
    if isinstance(value, dict) and "id" in value and "name" not in value:
        codec_id = value["id"]
        if not isinstance(codec_id, str) or not codec_id:
            raise MetadataError(
                f"a numcodecs configuration's 'id' must be a non-empty string, got {codec_id!r}",
                field=f"{field}.id",
                value=codec_id,
            )
        configuration = {k: v for k, v in value.items() if k != "id"}
        value = {
            "name": f"numcodecs.{codec_id}",
            **({"configuration": configuration} if configuration else {}),
        }
    return codec_from_json(value, field=field)


def codecs_from_json(value: Any, *, field: str = "codecs") -> tuple[Codec, ...]:
    """The codecs of a ``codecs`` metadata list, each as :func:`codec_from_json` reads it.

    Parameters
    ----------
    value : Any
        The ``codecs`` value: a non-empty list.
    field : str
        The field the value comes from, named by errors (default ``"codecs"``).

    Returns
    -------
    tuple[Codec, ...]
        The codecs, in order.

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        A codec is not installed and must be understood.
    zarrforge.errors.MetadataError
        The value is not a non-empty list, or an entry is invalid.
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> codecs = codecs_from_json(["bytes", {"name": "gzip", "configuration": {"level": 1}}])
    >>> [codec.to_json() for codec in codecs]
    [{'name': 'bytes'}, {'name': 'gzip', 'configuration': {'level': 1}}]
    """
    if not isinstance(value, list) or not value:
        raise MetadataError(f"must be a non-empty list of codecs, got {value!r}", field=field, value=value)
    return tuple(codec_from_json(v, field=f"{field}[{i}]") for i, v in enumerate(value))


def extensions_from_json(
    value: Any, node_type: str, *, field: str = "extensions"
) -> tuple[ExtensionEntry, ...]:
    """The ZEP 10 ``extensions`` list: absent, or a non-empty list of extension entries.

    Parameters
    ----------
    value : Any
        The ``extensions`` value, ``None`` when absent.
    node_type : str
        ``"array"`` or ``"group"``: the node the list is on.
    field : str
        The field the value comes from, named by errors (default ``"extensions"``).

    Returns
    -------
    tuple[ExtensionEntry, ...]
        The entries, in order (empty when absent).

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        An extension is not installed and must be understood.
    zarrforge.errors.MetadataError
        The value is not a non-empty list, an entry is invalid or does not apply to
        ``node_type``, or an extension appears twice.
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> entry = {"name": "zarrforge.offset", "configuration": {"offset": [0, 5]}}
    >>> [extension.name for extension in extensions_from_json([entry], "array")]
    ['zarrforge.offset']
    >>> extensions_from_json(None, "group")
    ()
    """
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        raise MetadataError(
            f"must be a non-empty list of extensions (omit the field when there are none), got {value!r}",
            field=field,
            value=value,
        )
    return _resolved_entries(
        ((item, f"{field}[{i}]") for i, item in enumerate(value)), node_type, field=field
    )


def _resolved_entries(
    items: Iterable[tuple[Any, str]], node_type: str, *, field: str, key: str | None = None
) -> tuple[ExtensionEntry, ...]:
    """Each ``(entry, its field)`` resolved, in order; one name twice is refused at ``field``."""
    entries = tuple(extension_from_json(value, node_type, field=where) for value, where in items)
    names = [e.name for e in entries]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise MetadataError(
            f"extension(s) {duplicates} appear more than once", field=field, value=duplicates, key=key
        )
    return entries


def extension_from_json(value: Any, node_type: str, *, field: str) -> ExtensionEntry:
    """One entry of an ``extensions`` list: the extension, or an
    :class:`~zarrforge.plugin_api.UnknownExtension` for an entry no plugin understands that
    says ``must_understand: false``.

    Parameters
    ----------
    value : Any
        The entry (or an :class:`~zarrforge.abc.extension.Extension`, returned as it is).
    node_type : str
        ``"array"`` or ``"group"``: the node the entry is on.
    field : str
        The field the value comes from (``"extensions[0]"``), named by errors.

    Returns
    -------
    ExtensionEntry
        The extension, or the unknown entry kept as it is.

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        The extension is not installed and must be understood.
    zarrforge.errors.MetadataError
        The entry is invalid or does not apply to ``node_type``.
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> entry = {"name": "zarrforge.offset", "configuration": {"offset": [1, 2]}}
    >>> extension_from_json(entry, "array", field="extensions[0]").to_json()
    {'name': 'zarrforge.offset', 'configuration': {'offset': [1, 2]}}
    >>> extension_from_json({"name": "x.flag", "must_understand": False}, "group", field="extensions[0]")
    UnknownExtension(document={'name': 'x.flag', 'must_understand': False})
    """
    if isinstance(value, Extension):
        _refuse_a_skippable_value_stage(value, field)
        return value
    ref = parse_extension(value, field=field, allow_skip=True)
    if not ref.must_understand and ref.name not in registry.extensions:
        return UnknownExtension(ref.raw)
    _must_be_understood(registry.extensions, ref, field)
    extension = resolve(registry.extensions, ref, field=field)
    if node_type not in extension.node_types:
        raise MetadataError(
            f"extension {ref.name!r} applies to {sorted(extension.node_types)}, not to a {node_type}",
            field=field,
            value=ref.raw,
        )
    extension.must_understand = ref.mark
    _refuse_a_skippable_value_stage(extension, field)
    return extension


def _refuse_a_skippable_value_stage(extension: Extension, field: str) -> None:
    """An entry that changes values cannot be skipped: a reader without it would read the
    stored values as if they were the data."""
    if extension.must_understand or not has_value_stage(extension):
        return
    raise MetadataError(
        f"extension {extension.name!r} changes the values it stores (encode_values/"
        "decode_values), so it cannot be marked must_understand: false: a reader without "
        "it would read the stored values as the data; leave the member out or set it to true",
        field=f"{field}.must_understand",
        value=False,
    )


def _must_be_understood(table: Registry, ref: ExtensionRef, field: str) -> None:
    """Refuse an unknown entry that may not be skipped, saying why it may not."""
    if ref.name in table:
        return
    raise UnknownExtensionError(
        table.point,
        ref.name,
        table.names(),
        table.provider_hint(ref.name),
        field=f"{field}.name" if isinstance(ref.raw, dict) else field,
        note='it must be understood: the entry does not say "must_understand": false, '
        "so a reader without it cannot skip it",
    )


def extensions_to_json(entries: tuple[ExtensionEntry, ...]) -> list[Any]:
    """The ``extensions`` list that :func:`extensions_from_json` reads back as ``entries``.

    Parameters
    ----------
    entries : tuple[ExtensionEntry, ...]
        The entries (unknown ones are written as they were read).

    Returns
    -------
    list[Any]
        The entries' JSON, with ``"must_understand": false`` where an entry says so.
    """
    return [_entry_to_json(entry) for entry in entries]


def _entry_to_json(entry: ExtensionEntry) -> Any:
    if isinstance(entry, UnknownExtension):
        return entry.document
    document = entry.to_json()
    mark = entry.must_understand_mark
    if mark is not None:
        document = {"name": document} if isinstance(document, str) else dict(document)
        document["must_understand"] = mark
    return document


class DocumentExtensions(NamedTuple):
    """What :func:`extensions_from_document` found in a document.

    A plain named tuple of results. It raises nothing: a document's errors are raised by
    :func:`extensions_from_document`, which builds it.

    Examples
    --------
    >>> document = {"extensions": [{"name": "x.flag", "must_understand": False}]}
    >>> found = extensions_from_document(document, "group", known=())
    >>> found.format_data, found.top_level_keys
    ({'extension_placements': {'x.flag': 'list'}}, frozenset())
    >>> extensions_from_document({"attributes": {}}, "group", known=("attributes",))
    DocumentExtensions(entries=(), format_data={}, top_level_keys=frozenset())
    """

    #: the entries, in the order they apply
    entries: tuple[ExtensionEntry, ...]
    #: the model's ``format_data``, recording where each entry was read
    format_data: dict[str, Any]
    #: the top-level keys read as entries, which are not unknown fields to keep
    top_level_keys: frozenset[str]


def extensions_from_document(
    document: Mapping[str, Any], node_type: str, *, known: Collection[str], key: str | None = None
) -> DocumentExtensions:
    """A v3 document's extension entries, from its list and its top-level keys
    (``zarrforge.metadata.extension_entries``), resolved, with the ``format_data`` that
    records where each was read: keep it in the model, and :func:`extensions_to_document`
    writes each entry back where it was.

    Parameters
    ----------
    document : Mapping[str, Any]
        The node's stored document.
    node_type : str
        ``"array"`` or ``"group"``: the node the entries are on.
    known : Collection[str]
        The fields the format defines (never read as entries).
    key : str or None
        The document's store key, named by errors.

    Returns
    -------
    DocumentExtensions
        ``entries`` in the order they apply (list first, then top-level keys in document
        order), the model's ``format_data`` (empty when there are no entries), and
        ``top_level_keys``, which a format leaves out of the unknown fields it keeps.

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        An extension is not installed and must be understood.
    zarrforge.errors.MetadataError
        The list is not a non-empty list, an entry is invalid or does not apply to
        ``node_type``, or a name appears twice (in one form or across both).
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> document = {"zarr_format": 3, "node_type": "group", "attributes": {},
    ...             "x.flag": {"name": "x.flag", "must_understand": False}}
    >>> found = extensions_from_document(document, "group", known=("attributes",))
    >>> [entry.name for entry in found.entries], sorted(found.top_level_keys)
    (['x.flag'], ['x.flag'])
    """
    raw = raw_extension_entries(document, known, key=key)
    if not raw:
        return DocumentExtensions((), {}, frozenset())
    entries = _resolved_entries(((r.value, r.field) for r in raw), node_type, field="extensions", key=key)
    placements = {e.name: r.placement for e, r in zip(entries, raw, strict=True)}
    top_level = frozenset(r.field for r in raw if r.placement == TOP_LEVEL)
    return DocumentExtensions(entries, {PLACEMENTS_KEY: placements}, top_level)


def extensions_to_document(
    metadata: Any, *, reserved: Collection[str], default: str | None = None
) -> tuple[list[Any], dict[str, Any]]:
    """The ``extensions`` list and the top-level keys that write a model's entries back:
    each skippable entry where it was read (its ``format_data``), a new one in the
    ``default`` form, every other entry in the list.

    Parameters
    ----------
    metadata : Any
        The node's metadata model (its ``extensions`` and ``format_data``).
    reserved : Collection[str]
        The document's other keys (the format's fields, unknown fields kept), which a
        top-level entry never takes.
    default : str or None
        ``"top-level"`` or ``"list"``: the form of a new skippable entry (default: the
        ``skippable_extensions`` setting). A format that reads the list only passes
        ``"list"``.

    Returns
    -------
    tuple[list[Any], dict[str, Any]]
        The list (empty when no entry goes there: omit it) and the top-level entries.

    It raises nothing of its own: what an extension's ``to_json`` raises passes through.

    Examples
    --------
    >>> from zarrforge.abc.metadata import GroupMetadata
    >>> found = extensions_from_document(
    ...     {"extensions": [{"name": "x.flag", "must_understand": False}]}, "group", known=())
    >>> model = GroupMetadata({}, "3", extensions=found.entries, format_data=found.format_data)
    >>> extensions_to_document(model, reserved=("attributes",))  # read in the list: kept there
    ([{'name': 'x.flag', 'must_understand': False}], {})
    """
    placements = metadata.format_data.get(PLACEMENTS_KEY)
    return place_entries(
        ((e.name, _entry_to_json(e), not e.must_understand) for e in metadata.extensions),
        placements if isinstance(placements, Mapping) else {},
        default=config.get().skippable_extensions if default is None else default,
        reserved=reserved,
    )


def storage_transformers_from_json(
    value: Any, *, field: str = "storage_transformers"
) -> tuple[StorageTransformer, ...]:
    """The storage transformers of a ``storage_transformers`` metadata list.

    Parameters
    ----------
    value : Any
        The ``storage_transformers`` value, ``None`` when absent.
    field : str
        The field the value comes from, named by errors (default ``"storage_transformers"``).

    Returns
    -------
    tuple[StorageTransformer, ...]
        The transformers, in order (empty when absent).

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        A transformer is not installed.
    zarrforge.errors.MetadataError
        The value is not a list, or an entry is invalid.
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while building it.

    Examples
    --------
    >>> sharding = "https://purl.org/zarr/spec/storage_transformers/sharding/1.0"
    >>> entry = {"name": sharding, "configuration": {"type": "indexed", "chunks_per_shard": [2, 2]}}
    >>> [type(t).__name__ for t in storage_transformers_from_json([entry])]
    ['DraftShardingTransformer']
    >>> storage_transformers_from_json(None)
    ()
    """
    if value is None:
        return ()
    if not isinstance(value, list):
        raise MetadataError(f"must be a list, got {value!r}", field=field, value=value)
    result = []
    for i, v in enumerate(value):
        ref = parse_extension(v, field=f"{field}[{i}]", point="a storage transformer")
        result.append(resolve(registry.storage_transformers, ref, field=f"{field}[{i}]"))
    return tuple(result)


_LAYOUTS: dict[type[MemoryLayout], MemoryLayout] = {}


def memory_layout(name: str | MemoryLayout, *, field: str = "order") -> MemoryLayout:
    """The layout registered as ``name``. A layout takes no arguments and keeps no state
    (:mod:`zarrforge.abc.memory_layout`), so each class is instantiated once and shared:
    opening thousands of arrays builds no layout objects.

    Parameters
    ----------
    name : str or zarrforge.abc.memory_layout.MemoryLayout
        The layout's registered name (``"C"``, ``"F"``), or a layout (returned as it is).
    field : str
        The field the value comes from, named by errors (default ``"order"``).

    Returns
    -------
    MemoryLayout
        The shared layout instance.

    Raises
    ------
    zarrforge.errors.UnknownExtensionError
        No layout is registered as ``name``.
    zarrforge.errors.PluginFailureError
        The plugin failed unexpectedly (not with a zarrforge error) while constructing the layout.

    Examples
    --------
    >>> memory_layout("C")
    <memory layout 'C'>
    >>> memory_layout("F") is memory_layout("F")  # one shared instance per layout
    True
    """
    if type(name) is not str and isinstance(name, MemoryLayout):  # str first: ABC checks are slow
        return name
    cls = registry.memory_layouts.get(name, field=field)
    layout = _LAYOUTS.get(cls)
    if layout is None:
        with plugin_failures.named(
            "memory layout", name, lambda: registry.memory_layouts.origin(name), "being built"
        ):
            layout = _LAYOUTS[cls] = cls()
    return layout


MAX_EXTENT = 2**63 - 1  # lengths must fit a signed 64-bit index, as in every Zarr implementation


MAX_NDIM = 64  # numpy's most dimensions (NPY_MAXDIMS): an array of more cannot be held


def check_ndim(count: int, *, field: str = "shape") -> None:
    """Refuse a shape of ``count`` dimensions over :data:`MAX_NDIM`, before anything is
    built per dimension (a document declaring ten million dimensions must not cost
    seconds and gigabytes to refuse)."""
    if count > MAX_NDIM:
        raise MetadataError(
            f"has {count} dimensions, more than the {MAX_NDIM} an array can "
            "have (numpy's limit, which zarrforge holds chunks and results in; "
            "not a setting)",
            field=field,
            value=f"<{count} dimensions>",
        )


def shape_from_json(value: Any, *, field: str = "shape") -> tuple[int, ...]:
    """An array's ``shape`` metadata value, checked.

    Parameters
    ----------
    value : Any
        The ``shape`` value: a list of integers in ``[0, 2**63 - 1]``.
    field : str
        The field the value comes from, named by errors (default ``"shape"``).

    Returns
    -------
    tuple[int, ...]
        The shape.

    Raises
    ------
    zarrforge.errors.MetadataError
        The value is not such a list, or has more than ``MAX_NDIM`` (64) dimensions.

    Examples
    --------
    >>> shape_from_json([10, 20])
    (10, 20)
    >>> from zarrforge.errors import MetadataError
    >>> try:
    ...     shape_from_json([10, -1])
    ... except MetadataError as exc:
    ...     print(exc.field)
    shape
    """
    if isinstance(value, list):
        check_ndim(len(value), field=field)  # first: the checks below go per dimension
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_EXTENT for v in value
    ):
        raise MetadataError(
            f"must be a list of integers in [0, 2**63 - 1], got {value!r}", field=field, value=value
        )
    return tuple(value)


def dimension_names_from_json(
    value: Any, ndim: int, *, field: str = "dimension_names"
) -> tuple[str | None, ...] | None:
    """An array's ``dimension_names`` metadata value, checked.

    Parameters
    ----------
    value : Any
        The ``dimension_names`` value, ``None`` when absent.
    ndim : int
        The array's number of dimensions.
    field : str
        The field the value comes from, named by errors (default ``"dimension_names"``).

    Returns
    -------
    tuple[str | None, ...] or None
        One name (or ``None``) per dimension, or ``None`` when absent.

    Raises
    ------
    zarrforge.errors.MetadataError
        The value is not a list of ``ndim`` strings or nulls.

    Examples
    --------
    >>> dimension_names_from_json(["y", None], 2)
    ('y', None)
    >>> dimension_names_from_json(None, 2) is None
    True
    """
    if value is None:
        return None
    if (
        not isinstance(value, (list, tuple))
        or len(value) != ndim
        or not all(v is None or isinstance(v, str) for v in value)
    ):
        raise MetadataError(
            f"must be a list of {ndim} strings or nulls (one per dimension), got {value!r}",
            field=field,
            value=value,
        )
    return tuple(value)


def attributes_from_json(value: Any, *, field: str = "attributes") -> dict[str, Any]:
    """A node's ``attributes`` metadata value, checked.

    Parameters
    ----------
    value : Any
        The ``attributes`` value, ``None`` when absent.
    field : str
        The field the value comes from, named by errors (default ``"attributes"``).

    Returns
    -------
    dict[str, Any]
        The attributes (empty when absent).

    Raises
    ------
    zarrforge.errors.MetadataError
        The value is not an object.

    Examples
    --------
    >>> attributes_from_json({"units": "m"}), attributes_from_json(None)
    ({'units': 'm'}, {})
    """
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MetadataError(f"must be an object, got {value!r}", field=field, value=value)
    return value

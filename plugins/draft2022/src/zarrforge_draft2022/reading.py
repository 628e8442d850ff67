"""Reading: a 2022-draft node document -> the zarrforge model.

:func:`parse_array` and :func:`parse_group` take a document already loaded
from JSON and the hierarchy's :class:`~.entry_point.EntryPoint` (which says
the dialect and the minor version), and return the model or raise
:class:`~zarrforge.errors.MetadataError` naming the field (the caller adds the
store key). Nothing here touches a store. Both dialects are read without being
told which.

Array documents -> model
========================

=======================  ===========================================================
document                 model
=======================  ===========================================================
``shape``                ``shape``
``data_type``            a registered data type (:mod:`.data_types`); the byte order
                         of a numpy-style name goes to the ``bytes`` codec
``chunk_grid``           ``{"type": "regular", "chunk_shape", "separator"}``: the
                         ``regular`` grid; ``separator`` ("/" default, or ".") goes
                         to the :class:`DraftChunkKeyEncoding`. An extension grid
                         ``{"extension": URI, ...}`` resolves by URI.
``chunk_memory_layout``  resolved through the ``memory_layouts`` registry (``"C"``,
                         ``"F"``, another registered name, or ``{"extension": URI,
                         "type": ...}``: the URI). ``F`` becomes a leading
                         ``transpose`` codec with the reversed axis order: the draft
                         serialises an F chunk as the chunk with its dimension order
                         reversed, in C order -- exactly the bytes of the chunk in
                         Fortran order, as zarr-python 2 writes them. Kept for every
                         ``ndim`` (an identity for 0-d and 1-d arrays) so the layout
                         survives a round trip; on writing, a leading transpose that
                         reverses all axes is written back as ``"F"``. Any other
                         layout becomes a leading
                         :class:`~zarrforge.plugin_api.MemoryLayoutCodec`: the codecs
                         receive what the layout hands them (``codec_shape``,
                         ``for_codecs``), and the value read is kept
                         (:mod:`.spellings`) and written back.
``codecs``               mapped by URI (:mod:`.codecs`); when no entry serialises the
                         array (the endian codec), the draft's default conversion --
                         the ``bytes`` codec, little endian unless the type name says
                         ``>`` -- is inserted before the first bytes codec.
``compressor``           (zarr-python) one more codec, last; blosc's ``typesize`` is
                         the item size of what it compresses, so chunks are identical
                         to numcodecs'.
``attributes.filters``   (zarr-python dialect) numcodecs filters as zarr-python 2
                         keeps them: ``numcodecs.<id>`` codecs, removed from the
                         model's attributes and written back there.
``fill_value``           :mod:`.fill_values`; ``null`` keeps the data type's default
                         and is recorded as ``extra_fields["fill_value"] = None``
``storage_transformers`` :mod:`.transformers`; the entry point's global transformers
                         follow them (:class:`~.entry_point.GlobalStorageTransformer`)
``extensions``           draft entries ``{"extension", "must_understand",
                         "configuration"}``: known ones (``zarrforge.extensions``
                         under the URI) resolved, unknown ones with
                         ``must_understand: false`` kept verbatim, others refused
``attributes``           ``attributes``; ``dimension_names`` if present
``dimension_separator``  (zarr-python) accepted and ignored, as zarr-python does
other fields             kept when their value says ``"must_understand": false``,
                         else an error naming the field (ignored silently in a 3.x
                         hierarchy with x > 0, as the draft's stability policy allows)
=======================  ===========================================================

How the data type and each listed codec were spelled is kept in the model's
``format_data`` (:mod:`.spellings`), so that writing the node back reproduces it.
Every error names the field.
"""

from __future__ import annotations

from typing import Any

from zarrforge.errors import MetadataError, UnknownExtensionError
from zarrforge.plugin_api import formats as c
from zarrforge.plugin_api.formats import (
    ArrayMetadata,
    ChunkGrid,
    ChunkSpec,
    Codec,
    CodecChain,
    CodecKind,
    DataType,
    ExtensionEntry,
    GroupMetadata,
    MemoryLayoutCodec,
    UnknownExtension,
    registry,
    split_unknown_fields,
)

from . import codecs as codec_map
from . import data_types as dts
from . import fill_values as fills
from . import transformers as st
from .dialects import ZARR_PYTHON
from .entry_point import EntryPoint, check_extension
from .keys import DraftChunkKeyEncoding
from .spellings import FORMAT_NAME, Spellings

ARRAY_FIELDS = {
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_memory_layout",
    "fill_value",
    "extensions",
    "attributes",
    "codecs",
    "compressor",
    "storage_transformers",
    "dimension_names",
    "dimension_separator",
}
ARRAY_REQUIRED = ("shape", "data_type", "chunk_grid", "chunk_memory_layout", "fill_value")
GROUP_FIELDS = {"attributes"}


def parse_group(document: dict[str, Any], entry: EntryPoint) -> GroupMetadata:
    """A group's model from its document."""
    extra = _unknown_fields(document, GROUP_FIELDS, entry)
    return GroupMetadata(c.attributes_from_json(document.get("attributes")), FORMAT_NAME, extra)


def _unknown_fields(document: dict[str, Any], known: set[str], entry: EntryPoint) -> dict[str, Any]:
    """The fields outside ``known``, kept in ``extra_fields``; in a 3.0 hierarchy one that
    does not say ``"must_understand": false`` is an error."""
    if entry.minor > 0:  # a later 3.x: names this version does not define may be ignored
        return {k: v for k, v in document.items() if k not in known}
    return split_unknown_fields(document, known, key=None)  # type: ignore[arg-type]


def parse_array(document: dict[str, Any], entry: EntryPoint) -> ArrayMetadata:
    """An array's model from its document (the table above)."""
    missing = [f for f in ARRAY_REQUIRED if f not in document]
    if missing:
        raise MetadataError(f"array metadata lacks the required field(s) {missing}", field=missing[0])
    extra = _unknown_fields(document, ARRAY_FIELDS, entry)
    shape = c.shape_from_json(document["shape"])
    ndim = len(shape)
    data_type, byteorder = dts.parse_data_type(document["data_type"])
    spelled_type = (data_type, document["data_type"], byteorder)
    fill_value, was_null = fills.fill_value_from_json(data_type, document["fill_value"])
    if was_null:
        extra["fill_value"] = None
    grid, separator = parse_grid(document["chunk_grid"], shape)
    if "dimension_separator" in document and document["dimension_separator"] not in ("/", "."):
        raise MetadataError(
            f"must be '/' or '.', got {document['dimension_separator']!r}",
            field="dimension_separator",
            value=document["dimension_separator"],
        )
    layout = layout_codec(document["chunk_memory_layout"], ndim)
    attributes = dict(c.attributes_from_json(document.get("attributes")))
    filters: list[Any] = []
    if entry.dialect == ZARR_PYTHON and _looks_like_filters(attributes.get("filters")):
        filters = attributes.pop("filters")
    chunk_shape = grid.regular_chunk_shape or tuple(d.size(0) for d in grid.dimensions)
    codecs, codec_uris = parse_codecs(
        document, data_type, byteorder, fill_value, chunk_shape, layout, filters
    )
    return ArrayMetadata(
        shape=shape,
        data_type=data_type,
        chunk_grid=grid,
        chunk_key_encoding=DraftChunkKeyEncoding(separator, entry.dialect),
        fill_value=fill_value,
        codecs=codecs,
        attributes=attributes,
        format_name=FORMAT_NAME,
        dimension_names=c.dimension_names_from_json(document.get("dimension_names"), ndim),
        storage_transformers=(
            st.parse_list(document.get("storage_transformers"), field="storage_transformers")
            + entry.global_transformers()
        ),
        extra_fields=extra,
        extensions=parse_extensions(document.get("extensions")),
        format_data=Spellings(spelled_type, codec_uris, _spelled_layout(layout, document)).as_format_data(),
    )


def _spelled_layout(layout: Codec | None, document: dict[str, Any]) -> tuple[Codec, Any] | None:
    """The layout codec with the ``chunk_memory_layout`` value that named it, if any."""
    if isinstance(layout, MemoryLayoutCodec):
        return layout, document["chunk_memory_layout"]
    return None


def parse_grid(value: Any, shape: tuple[int, ...], *, field: str = "chunk_grid") -> tuple[ChunkGrid, str]:
    """``chunk_grid`` -> (the grid, the chunk key separator it names)."""
    if not isinstance(value, dict):
        raise MetadataError(f"must be an object, got {value!r}", field=field, value=value)
    separator = value.get("separator", "/")
    if separator not in ("/", "."):
        raise MetadataError(
            f"must be '/' or '.', got {separator!r}", field=f"{field}.separator", value=separator
        )
    if "extension" in value:
        uri = value["extension"]
        config = {k: v for k, v in value.items() if k not in ("extension", "separator")}
        if not isinstance(uri, str) or uri not in registry.chunk_grids:
            raise UnknownExtensionError(
                "chunk grid", str(uri), registry.chunk_grids.names(), field=f"{field}.extension"
            )
        return c.chunk_grid_from_json({"name": uri, "configuration": config}, shape, field=field), separator
    kind = value.get("type")
    if kind != "regular":
        raise MetadataError(
            f'unknown chunk grid type {kind!r}; the draft defines "regular" '
            "(extension grids are objects with 'extension')",
            field=f"{field}.type",
            value=kind,
        )
    unexpected = set(value) - {"type", "chunk_shape", "separator"}
    if unexpected:
        raise MetadataError(f"unexpected member(s) {sorted(unexpected)}", field=field, value=value)
    if "chunk_shape" not in value:
        raise MetadataError("a regular grid needs 'chunk_shape'", field=f"{field}.chunk_shape")
    try:
        grid = c.chunk_grid_from_json(
            {"name": "regular", "configuration": {"chunk_shape": value["chunk_shape"]}}, shape, field=field
        )
    except MetadataError as exc:
        renamed = _refield(exc, f"{field}.configuration.", f"{field}.")
        if renamed is exc:
            raise
        raise renamed from exc
    return grid, separator


def parse_codecs(
    document: dict[str, Any],
    data_type: DataType,
    byteorder: str | None,
    fill_value: Any,
    chunk_shape: tuple[int, ...],
    layout: Codec | None,
    filters: list[dict[str, Any]],
) -> tuple[tuple[Codec, ...], tuple[tuple[Codec, str], ...]]:
    """The codec chain: the layout's codec (:func:`layout_codec`), zarr-python's filters, ``codecs`` or
    ``compressor``, and the default ``bytes`` serialiser when none is listed; with each
    codec ``codecs``/``compressor`` listed, paired with the URI that named it."""
    ndim = len(chunk_shape)
    if "codecs" in document and "compressor" in document:
        raise MetadataError(
            "give either 'codecs' (the editor's draft) or 'compressor' (zarr-python 2), not both",
            field="compressor",
            value=document["compressor"],
        )
    references: list[tuple[Any, Any, str, str]] = []  # (uri, configuration, field, type field)
    listed = document.get("codecs")
    if listed is not None:
        if not isinstance(listed, list):
            raise MetadataError(
                f"must be a list of codec objects, got {listed!r}", field="codecs", value=listed
            )
        for i, entry in enumerate(listed):
            where = f"codecs[{i}]"
            if not isinstance(entry, dict) or "type" not in entry:
                raise MetadataError(
                    f"a codec is an object with 'type' (its URI) and optional 'configuration', got {entry!r}",
                    field=where,
                    value=entry,
                )
            unexpected = set(entry) - {"type", "configuration"}
            if unexpected:
                raise MetadataError(f"unexpected member(s) {sorted(unexpected)}", field=where, value=entry)
            references.append((entry["type"], entry.get("configuration"), where, f"{where}.type"))
    compressor = document.get("compressor")
    if compressor is not None:
        if not isinstance(compressor, dict) or "codec" not in compressor:
            raise MetadataError(
                f"the compressor is an object with 'codec' (its URI) and 'configuration', got {compressor!r}",
                field="compressor",
                value=compressor,
            )
        references.append(
            (compressor["codec"], compressor.get("configuration"), "compressor", "compressor.codec")
        )

    spec = ChunkSpec(chunk_shape, data_type, fill_value, c.memory_layout("C"))
    codecs: list[Codec] = []
    if layout is not None:
        codecs.append(layout)
    current = byteorder or "<"
    for i, config in enumerate(filters):
        where = f"attributes.filters[{i}]"
        options = {k: v for k, v in config.items() if k != "id"}
        document_: dict[str, Any] = {"name": f"numcodecs.{config['id']}"}
        if options:
            document_["configuration"] = options
        codecs.append(c.codec_from_json(document_, field=where))
        for key in ("astype", "encode_dtype"):
            if isinstance(config.get(key), str) and config[key][:1] in "<>":
                current = config[key][:1]
                break

    def build(ref: tuple[Any, Any, str, str], item_size: int | None) -> Codec:
        uri, configuration, where, type_where = ref
        return codec_map.codec_from_draft(
            uri, configuration, field=where, type_field=type_where, ndim=ndim, item_size=item_size
        )

    built = [build(ref, None) for ref in references]
    codecs.extend(built)
    # The representation entering the first bytes codec: after the array codecs.
    for codec in codecs:
        if codec.kind is not CodecKind.ARRAY_ARRAY:
            break
        try:
            codec.validate(spec)
            spec = codec.resolve(spec)  # type: ignore[attr-defined]
        except MetadataError as exc:
            raise MetadataError(exc.message, field="codecs", value=exc.value) from exc
    item_size = spec.data_type.item_size
    if item_size:
        for i, (ref, codec) in enumerate(zip(references, built)):
            document = codec.to_json()  # read through the declared configuration
            if document.get("name") == "blosc" and "typesize" not in (document.get("configuration") or {}):
                position = next(j for j, k in enumerate(codecs) if k is codec)
                codecs[position] = built[i] = build(ref, item_size)
    if not any(k.kind is CodecKind.ARRAY_BYTES for k in codecs):
        position = next((j for j, k in enumerate(codecs) if k.kind is CodecKind.BYTES_BYTES), len(codecs))
        serializer: dict[str, Any] = {"name": "bytes"}
        if spec.data_type.has_endianness:
            serializer["configuration"] = {"endian": "big" if current == ">" else "little"}
        codecs.insert(position, c.codec_from_json(serializer, field="data_type"))
    CodecChain(codecs)  # refuses a list out of order (skipped codecs aside), naming "codecs"
    return tuple(codecs), tuple((codec, ref[0]) for ref, codec in zip(references, built))


def parse_extensions(value: Any, *, field: str = "extensions") -> tuple[ExtensionEntry, ...]:
    """``extensions``: known URIs resolved, unknown ones (``must_understand: false``) kept."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise MetadataError(f"must be a list, got {value!r}", field=field, value=value)
    entries: list[ExtensionEntry] = []
    for i, item in enumerate(value):
        where = f"{field}[{i}]"
        check_extension(item, field=where)
        uri = item["extension"]
        if uri in registry.extensions:
            converted: dict[str, Any] = {"name": uri, "must_understand": item.get("must_understand", True)}
            if item.get("configuration") is not None:
                converted["configuration"] = item["configuration"]
            entries.append(c.extension_from_json(converted, "array", field=where))
        else:
            entries.append(UnknownExtension(item))  # must_understand: false, kept verbatim
    return tuple(entries)


def layout_codec(value: Any, ndim: int, *, field: str = "chunk_memory_layout") -> Codec | None:
    """The leading codec ``chunk_memory_layout`` stands for: none for ``"C"``, a
    ``transpose`` reversing the axes for ``"F"``, else a
    :class:`~zarrforge.plugin_api.MemoryLayoutCodec` of the layout registered under the
    name (or an extension object's URI)."""
    if isinstance(value, dict):
        name, where = value.get("extension"), f"{field}.extension"
    else:
        name, where = value, field
    if not isinstance(name, str) or not name:
        raise MetadataError(
            f'must be "C", "F", a registered layout name or an extension object, got {value!r}',
            field=field,
            value=value,
        )
    layout = c.memory_layout(name, field=where)
    if name == "C" and not isinstance(value, dict):
        return None
    if name == "F" and not isinstance(value, dict):
        return layout_transpose(list(range(ndim))[::-1])
    return MemoryLayoutCodec(layout)


def layout_transpose(order: list[int]) -> Codec:
    """The leading ``transpose`` codec that stands for an F ``chunk_memory_layout``."""
    return c.codec_from_json(
        {"name": "transpose", "configuration": {"order": order}}, field="chunk_memory_layout"
    )


def _refield(exc: MetadataError, old: str, new: str) -> MetadataError:
    """``exc`` with the field prefix ``old`` replaced by ``new`` (the draft's nesting)."""
    if exc.field is None or not exc.field.startswith(old):
        return exc
    return exc.relocated(new + exc.field[len(old) :])


def _looks_like_filters(value: Any) -> bool:
    """zarr-python 2 keeps an array's numcodecs filters as attributes["filters"]."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, dict) and isinstance(v.get("id"), str) and v["id"] for v in value)
    )

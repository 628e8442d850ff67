"""Translating between ``.zarray`` documents and the zarrforge model.

The codecs are :mod:`zarrforge_v2.codecs`' part, the ``dtype`` and
``fill_value`` :mod:`zarrforge_v2.data_types`'; this module puts a document
together and takes it apart.

Reading (:func:`parse_array`) builds an :class:`ArrayMetadata` whose codec
chain produces exactly the bytes a v2 implementation stores:

====================  ===========================================================
``.zarray``           model
====================  ===========================================================
``dtype``             the registered data type for the numpy dtype
                      (``data_type_from_user``); the byte order goes to the
                      ``bytes`` codec's ``endian``. ``"|O"`` with a
                      ``vlen-utf8`` / ``vlen-bytes`` filter is the ``string`` /
                      ``bytes`` data type of zarrforge-dtypes.
``order: "F"``        a leading ``transpose`` codec with reversed axes: a chunk
                      transposed that way and serialised in C order is the
                      Fortran-order byte stream v2 stores (and the one the
                      filters see, as in zarr-python). Present for every
                      ``ndim`` (an identity for 0-d and 1-d arrays), so the
                      order survives a round trip.
``filters``           ``numcodecs.<id>`` codecs; array filters (delta,
                      fixedscaleoffset, ...) before the serializer, byte
                      filters after it; the object codec is the serializer.
serializer            ``bytes`` with the byte order the last filter leaves
                      (the dtype's, or a filter's ``astype``).
``compressor``        ``numcodecs.<id>``, except where a registered v3 codec
                      writes the same bytes: ``gzip``, ``zstd``, ``crc32c``
                      (also as byte filters), and ``blosc`` with ``typesize``
                      the item size (numcodecs shuffles by the item size of
                      the array it is given; the v3 codec sees bytes).
                      numcodecs' ``shuffle: -1`` (auto) is resolved the way
                      numcodecs resolves it; the configuration as read is kept
                      in ``format_data`` (:mod:`.read_configs`) so it is
                      written back as -1.
``chunks``            the ``regular`` chunk grid.
separator             the ``v2`` chunk key encoding.
``fill_value``        decoded with the v2 encodings; ``null`` keeps the data
                      type's default as the model's fill value and is recorded
                      as ``extra_fields["fill_value"] = None`` so it is written
                      back as ``null``.
other keys            kept in ``extra_fields`` and written back.
====================  ===========================================================

Writing (:func:`zarray_document`) inverts this. Models that v2 cannot hold
(a transpose that is not a full reversal, a serializer other than ``bytes``
or a vlen codec, several bytes -> bytes codecs is fine -- all but the last
become filters --, an irregular grid, a non-``v2`` key encoding) raise
:class:`MetadataError`.
"""

from __future__ import annotations

from typing import Any

from zarrforge.errors import MetadataError
from zarrforge.plugin_api import formats as c
from zarrforge.plugin_api.formats import ArrayMetadata

from ._util import _is_int
from .codecs import _check_codec_config, _codec_list, _input_byteorder, build_codecs, split_codecs
from .data_types import data_type_from_v2, dtype_byteorder, dtype_string, fill_value_from_v2, fill_value_to_v2
from .read_configs import ReadConfigs

FORMAT_NAME = "2"
ZARRAY = ".zarray"
ZGROUP = ".zgroup"
ZATTRS = ".zattrs"
ZMETADATA = ".zmetadata"

# zarr-python 3's key order for .zarray.
ARRAY_KEYS = (
    "shape",
    "chunks",
    "dtype",
    "fill_value",
    "order",
    "filters",
    "dimension_separator",
    "compressor",
    "zarr_format",
)
REQUIRED_KEYS = ("shape", "chunks", "dtype")
DIMENSIONS_ATTRIBUTE = "_ARRAY_DIMENSIONS"


def _shape_list(value: Any, field: str) -> tuple[int, ...]:
    return c.shape_from_json(value, field=field)


def chunks_from_json(value: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(_is_int(v) and v >= 1 for v in value):
        raise MetadataError(
            f"must be a list of positive integers, got {value!r}", field="chunks", value=value
        )
    if len(value) != len(shape):
        raise MetadataError(
            f"has {len(value)} entries but shape {list(shape)} has {len(shape)}; "
            "there must be one chunk length per dimension",
            field="chunks",
            value=value,
        )
    return tuple(value)


def dimension_names_from_attributes(attributes: dict[str, Any], ndim: int) -> tuple[str, ...] | None:
    names = attributes.get(DIMENSIONS_ATTRIBUTE)
    if isinstance(names, list) and len(names) == ndim and all(isinstance(n, str) for n in names):
        return tuple(names)
    return None


def parse_array(document: dict[str, Any], attributes: dict[str, Any]) -> ArrayMetadata:
    """The model of a ``.zarray`` document (errors name the field, not the key)."""
    if "zarr_format" not in document:
        raise MetadataError('is missing; a .zarray document must have "zarr_format": 2', field="zarr_format")
    if document["zarr_format"] != 2 or isinstance(document["zarr_format"], bool):
        raise MetadataError(
            f"expected 2, got {document['zarr_format']!r}", field="zarr_format", value=document["zarr_format"]
        )
    missing = [k for k in REQUIRED_KEYS if k not in document]
    if missing:
        raise MetadataError(f"array metadata lacks the required field(s) {missing}", field=missing[0])
    shape = _shape_list(document["shape"], "shape")
    chunks = chunks_from_json(document["chunks"], shape)
    order = document.get("order", "C")
    if order not in ("C", "F"):
        raise MetadataError(f"must be 'C' or 'F', got {order!r}", field="order", value=order)
    separator = document.get("dimension_separator", ".")
    if separator not in (".", "/"):
        raise MetadataError(
            f"must be '.' or '/', got {separator!r}", field="dimension_separator", value=separator
        )
    filters = _codec_list(document.get("filters"), "filters")
    compressor = document.get("compressor")
    if compressor is not None:
        _check_codec_config(compressor, "compressor")
    data_type, object_codec = data_type_from_v2(document["dtype"], filters)
    byteorder = dtype_byteorder(document["dtype"])
    raw_fill = document.get("fill_value")
    extra = {k: v for k, v in document.items() if k not in ARRAY_KEYS}
    if raw_fill is None:
        fill_value = data_type.default_fill_value()
        extra = {"fill_value": None, **extra}
    else:
        fill_value = fill_value_from_v2(data_type, raw_fill, byteorder)
    codecs, read_configs = build_codecs(
        data_type,
        chunks,
        fill_value,
        order=order,
        filters=filters,
        object_codec=object_codec,
        compressor=compressor,
        byteorder=byteorder,
    )
    try:
        grid = c.chunk_grid_from_json(
            {"name": "regular", "configuration": {"chunk_shape": list(chunks)}}, shape, field="chunks"
        )
    except MetadataError as exc:  # the v3 grid's own field path is not in a .zarray
        raise exc.relocated("chunks") from None
    return ArrayMetadata(
        shape=shape,
        data_type=data_type,
        chunk_grid=grid,
        chunk_key_encoding=c.chunk_key_encoding_from_json(
            {"name": "v2", "configuration": {"separator": separator}}, field="dimension_separator"
        ),
        fill_value=fill_value,
        codecs=codecs,
        attributes=attributes,
        format_name=FORMAT_NAME,
        dimension_names=dimension_names_from_attributes(attributes, len(shape)),
        extra_fields=extra,
        format_data={FORMAT_NAME: read_configs} if read_configs.entries else {},
    )


def read_configs_of(metadata: ArrayMetadata) -> ReadConfigs:
    """The configurations ``metadata`` was read with (none for a model built elsewhere)."""
    found = metadata.format_data.get(FORMAT_NAME)
    return found if isinstance(found, ReadConfigs) else ReadConfigs()


def zarray_document(metadata: ArrayMetadata) -> dict[str, Any]:
    parts = split_codecs(metadata, read_configs_of(metadata))
    data_type = metadata.data_type
    byteorder = "<"
    if parts["object_id"] is not None:
        dtype = "|O"
    else:
        found = _input_byteorder(parts["array_filters"])
        if found is not None:
            byteorder = found
        elif parts["endian"] == "big":
            byteorder = ">"
        dtype = dtype_string(data_type, byteorder)
    chunk_shape = metadata.chunk_grid.regular_chunk_shape
    if chunk_shape is None:
        raise MetadataError("Zarr v2 arrays have a regular chunk grid only", field="chunks")
    encoding = metadata.chunk_key_encoding.to_json()
    if not isinstance(encoding, dict) or encoding.get("name") != "v2":
        raise MetadataError(
            f"Zarr v2 arrays use the v2 chunk key encoding, not {encoding!r}",
            field="chunk_key_encoding",
            value=encoding,
        )
    separator = (encoding.get("configuration") or {}).get("separator", ".")
    extra = dict(metadata.extra_fields)
    if "fill_value" in extra and extra["fill_value"] is None:
        extra.pop("fill_value")
        fill = None
    else:
        extra.pop("fill_value", None)
        fill = fill_value_to_v2(data_type, metadata.fill_value, byteorder)
    doc: dict[str, Any] = {
        "shape": list(metadata.shape),
        "chunks": list(chunk_shape),
        "dtype": dtype,
        "fill_value": fill,
        "order": parts["order"],
        "filters": parts["filters"] or None,
        "dimension_separator": separator,
        "compressor": parts["compressor"],
        "zarr_format": 2,
    }
    for k, v in extra.items():
        if k not in doc:
            doc[k] = v
    return doc


def zattrs_document(metadata: Any) -> dict[str, Any]:
    """The ``.zattrs`` of a node: its attributes, with ``_ARRAY_DIMENSIONS`` for arrays.

    The attributes win when they hold ``_ARRAY_DIMENSIONS`` already;
    otherwise string dimension names are added under that key.
    """
    attributes = dict(metadata.attributes)
    names = metadata.dimension_names if isinstance(metadata, ArrayMetadata) else None
    if (
        names is not None
        and DIMENSIONS_ATTRIBUTE not in attributes
        and all(isinstance(n, str) for n in names)
    ):
        attributes[DIMENSIONS_ATTRIBUTE] = list(names)
    return attributes

"""Building the ``.zarray`` of a new array from the API's arguments.

The arguments are turned into a ``.zarray`` document, which is then read
with :func:`~zarrforge_v2.mapping.parse_array`, so a new array's model is
exactly what reading its document back gives.

* ``dtype``: anything :func:`~zarrforge.plugin_api.data_type_from_user`
  accepts. A big-endian numpy dtype (``">f8"``) is stored big-endian.
  ``string`` / ``bytes`` (zarrforge-dtypes) become ``"|O"`` with the
  ``vlen-utf8`` / ``vlen-bytes`` object codec, as zarr-python writes them.
  A data type without a v2 type string is refused.
* ``compressors``: ``"auto"`` is zarr-python 3's v2 default,
  ``{"id": "zstd", "level": 0}`` (:func:`default_compressors`); ``None`` or
  ``[]`` is no compressor; at most one compressor (v2 has a single
  ``compressor`` field).
* ``filters``: array filters (``numcodecs.delta``, ...) and byte filters.
* ``serializer``: ``bytes`` (its ``endian`` sets the dtype's byte order) or,
  for string/bytes types, the matching vlen codec.
* ``codecs``: a complete chain is accepted too; a leading ``transpose`` that
  reverses the axes means ``order: "F"``, the bytes -> bytes codecs but the
  last become filters, the last the compressor.
* ``order``: ``"F"`` when the creation spec carries ``order="F"`` (see the
  package README: the core does not pass it yet) or the codecs start with a
  reversing ``transpose``.
* ``chunk_key_encoding``: ``None`` (separator ``"."``), ``"."`` or ``"/"``,
  or the ``v2`` encoding in any form (``{"name": "v2", "separator": "/"}``).
* ``dimension_names``: stored as the ``_ARRAY_DIMENSIONS`` attribute.

The codec arguments arrive normalised (:mod:`zarrforge.engine.codec_arguments`: numcodecs
codec objects as their configuration). Each may be a numcodecs configuration
(``{"id": "zlib", "level": 1}``), a zarrforge codec name or ``{"name": ...,
"configuration": ...}`` object, or a codec instance.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from zarrforge.abc.chunk_grid import ChunkGrid
from zarrforge.abc.chunk_key_encoding import ChunkKeyEncoding
from zarrforge.abc.codec import ArrayArrayCodec, ChunkSpec, Codec, CodecKind
from zarrforge.abc.data_type import DataType
from zarrforge.abc.format import NO_FILL_VALUE, ArrayCreationSpec
from zarrforge.abc.metadata import ArrayMetadata
from zarrforge.errors import MetadataError
from zarrforge.plugin_api import formats as c
from zarrforge.plugin_api.formats import registry, warn_uncompressed

from .codecs import OBJECT_CODECS, SERIALIZER_TO_OBJECT_ID, numcodecs_codec, v2_config
from .data_types import dtype_string, fill_value_to_v2, leaf_byteorders
from .mapping import DIMENSIONS_ATTRIBUTE, parse_array, zarray_document

DEFAULT_COMPRESSOR = {"id": "zstd", "level": 0}


def user_codec(value: Any, *, field: str) -> Codec:
    """A zarrforge codec for any form a normalised codec argument may take."""
    if isinstance(value, dict) and "id" in value and "name" not in value:
        if not isinstance(value["id"], str):
            raise MetadataError(
                f"'id' must be a string, got {value['id']!r}", field=f"{field}.id", value=value["id"]
            )
        if value["id"] in OBJECT_CODECS:
            return c.codec_from_json({"name": OBJECT_CODECS[value["id"]][1]}, field=field)
        return numcodecs_codec(value, field=field)
    if isinstance(value, str) and value in OBJECT_CODECS:
        return c.codec_from_json({"name": value}, field=field)
    return c.codec_from_user(value, field=field)


def _chunks(chunks: Any, shape: tuple[int, ...]) -> list[int]:
    if isinstance(chunks, ChunkGrid):
        regular = chunks.with_shape(shape).regular_chunk_shape
        if regular is None:
            raise MetadataError(
                "Zarr v2 arrays have regular chunks only", field="chunks", value=chunks.to_json()
            )
        return list(regular)
    if isinstance(chunks, dict):
        grid = c.chunk_grid_from_json(chunks, shape, field="chunks")
        return _chunks(grid, shape)
    if isinstance(chunks, int):
        chunks = (chunks,) * len(shape)
    chunks = tuple(chunks)
    if len(chunks) != len(shape):
        raise MetadataError(
            f"{list(chunks)} has {len(chunks)} entries but the array has {len(shape)} dimensions",
            field="chunks",
            value=list(chunks),
        )
    out = []
    for n, s in zip(chunks, shape):
        if n is None or n == -1:
            out.append(max(1, s))
        elif isinstance(n, (int, np.integer)) and not isinstance(n, bool):
            out.append(max(1, int(n)))
        else:
            raise MetadataError(
                f"chunk lengths must be integers, got {n!r}", field="chunks", value=list(chunks)
            )
    return out


def _separator(value: Any) -> str:
    if value is None:
        return "."
    if isinstance(value, str) and value in (".", "/"):
        return value
    if isinstance(value, ChunkKeyEncoding):
        value = value.to_json()
    if isinstance(value, dict) and "name" in value and "configuration" not in value:
        value = {"name": value["name"], "configuration": {k: v for k, v in value.items() if k != "name"}}
    name = value.get("name") if isinstance(value, dict) else value
    if name != "v2":
        raise MetadataError(
            f"Zarr v2 arrays use the v2 chunk key encoding (separator '.' or '/'), not {value!r}",
            field="chunk_key_encoding",
            value=value,
        )
    encoding = c.chunk_key_encoding_from_json(value, field="chunk_key_encoding")
    separator: str = encoding.to_json()["configuration"]["separator"]
    return separator


def _requested_byteorder(dtype: Any) -> str | None:
    """'>' for an explicitly big-endian numpy dtype argument."""
    if isinstance(dtype, DataType) or (isinstance(dtype, str) and dtype in registry.data_types):
        return None
    try:
        np_dtype = np.dtype(dtype)
    except Exception:  # noqa: BLE001  # numpy raises several types for an argument that is no dtype
        return None
    if np_dtype.fields is not None:  # a structured dtype: big-endian if all its fields are
        return ">" if leaf_byteorders(np_dtype) == {">"} else None
    return ">" if np_dtype.str[0] == ">" else None


def _split_full_chain(codecs: list[Codec]) -> tuple[list[Codec], Codec | None, list[Codec]]:
    at = [i for i, codec in enumerate(codecs) if codec.kind is CodecKind.ARRAY_BYTES]
    if len(at) != 1:
        raise MetadataError(
            f"the codec list must contain exactly one array -> bytes codec, found {len(at)}", field="codecs"
        )
    return codecs[: at[0]], codecs[at[0]], codecs[at[0] + 1 :]


def default_compressors() -> list[Any]:
    """zarr-python 3's default compressor for Zarr v2 (when a plugin provides it)."""
    if "numcodecs.zstd" in registry.codecs:
        return [DEFAULT_COMPRESSOR]
    warn_uncompressed("2", "numcodecs.zstd")
    return []


def new_array(spec: ArrayCreationSpec) -> ArrayMetadata:
    if spec.shards is not None:
        raise MetadataError(
            "Zarr v2 has no sharding; create the array with zarr_format=3", field="shards", value=spec.shards
        )
    if spec.storage_transformers:
        raise MetadataError(
            "Zarr v2 has no storage transformers",
            field="storage_transformers",
            value=spec.storage_transformers,
        )
    if spec.extensions:
        raise MetadataError(
            "Zarr v2 arrays have no extensions (ZEP 10 is Zarr v3 only)",
            field="extensions",
            value=repr(spec.extensions),
        )
    shape = tuple(spec.shape)
    ndim = len(shape)
    chunks = _chunks(spec.chunks, shape)
    data_type = c.data_type_from_user(spec.dtype)

    # --- the codec arguments, as zarrforge codecs ---------------------------------------
    source = "codecs" if spec.codecs is not None else "filters"
    if spec.codecs is not None:
        full = [user_codec(v, field=f"codecs[{i}]") for i, v in enumerate(spec.codecs)]
        array_codecs, serializer, tail = _split_full_chain(full)
        compressors = tail[-1:]
        byte_filters = tail[:-1]
    else:
        array_codecs, byte_filters = [], []
        for i, value in enumerate(spec.filters):
            codec = user_codec(value, field=f"filters[{i}]")
            if codec.kind is CodecKind.ARRAY_ARRAY:
                if byte_filters:
                    raise MetadataError(
                        "array filters must come before byte filters",
                        field=f"filters[{i}]",
                        value=codec.to_json(),
                    )
                array_codecs.append(codec)
            elif codec.kind is CodecKind.BYTES_BYTES:
                byte_filters.append(codec)
            else:
                raise MetadataError(
                    f"{codec.to_json()['name']!r} is a serializer; pass it as serializer=",
                    field=f"filters[{i}]",
                    value=codec.to_json(),
                )
        serializer = None if spec.serializer is None else user_codec(spec.serializer, field="serializer")
        raw = spec.compressors
        if len(raw) > 1:
            raise MetadataError(
                f"Zarr v2 arrays have a single compressor, got {len(raw)}; pass "
                "one compressor (byte filters such as checksums may go in "
                "filters=)",
                field="compressors",
                value=repr(raw),
            )
        compressors = [user_codec(v, field=f"compressors[{i}]") for i, v in enumerate(raw)]
        for i, codec in enumerate(compressors):
            if codec.kind is not CodecKind.BYTES_BYTES:
                raise MetadataError(
                    f"{codec.to_json()['name']!r} is not a bytes -> bytes codec",
                    field=f"compressors[{i}]",
                    value=codec.to_json(),
                )

    # --- order: a leading reversing transpose, or the spec's order ------------------------
    order = spec.order or "C"
    if order not in ("C", "F"):
        raise MetadataError(f"must be 'C' or 'F', got {order!r}", field="order", value=order)
    if array_codecs and array_codecs[0].to_json().get("name") == "transpose":
        permutation = list(array_codecs[0].to_json()["configuration"]["order"])
        if permutation != list(range(ndim))[::-1]:
            raise MetadataError(
                f"Zarr v2 stores chunks in C or F order only; transpose "
                f"{permutation} is neither (F is the full reversal "
                f"{list(range(ndim))[::-1]})",
                field=f"{source}[0]",
                value=permutation,
            )
        order = "F"
        array_codecs = array_codecs[1:]

    # --- the serializer and the byte order -------------------------------------------------
    layout = c.memory_layout("C")
    no_fill = spec.fill_value is NO_FILL_VALUE  # recorded as null
    fill_value = c.fill_value_from_user(data_type, None if no_fill else spec.fill_value)
    chunk_spec = ChunkSpec(tuple(chunks), data_type, fill_value, layout)
    object_id = None
    byteorder = _requested_byteorder(spec.dtype)
    if serializer is None and data_type.item_size is None:
        default = data_type.default_serializer()
        if default is not None:
            serializer = user_codec(default, field="serializer")
    if serializer is not None:
        name = serializer.to_json().get("name")
        object_id = SERIALIZER_TO_OBJECT_ID.get(name) if isinstance(name, str) else None
        if object_id is None:
            if name != "bytes":
                raise MetadataError(
                    f"Zarr v2 arrays store the array's bytes: the serializer must "
                    f"be 'bytes' (or vlen-utf8/vlen-bytes for strings and bytes), "
                    f"got {name!r}",
                    field="serializer",
                    value=serializer.to_json(),
                )
            endian = (serializer.to_json().get("configuration") or {}).get("endian")
            if endian is not None:
                wanted = ">" if endian == "big" else "<"
                if byteorder is not None and byteorder != wanted:
                    raise MetadataError(
                        f"the serializer's endian {endian!r} contradicts the big-endian dtype {spec.dtype!r}",
                        field="serializer",
                        value=serializer.to_json(),
                    )
                byteorder = wanted
    if data_type.item_size is None and object_id is None:
        raise MetadataError(
            f"data type {data_type.to_json()!r} has no fixed size; Zarr v2 stores "
            "it as an object array with the vlen-utf8 or vlen-bytes codec",
            field="serializer",
        )

    # --- filters and compressor as numcodecs configurations --------------------------------
    evolved_spec = chunk_spec
    filter_configs = []
    for i, codec in enumerate(array_codecs):
        codec = codec.evolve(evolved_spec)
        filter_configs.append(v2_config(codec, field=f"filters[{i}]"))
        evolved_spec = cast(ArrayArrayCodec, codec).resolve(evolved_spec)  # an array -> array codec
    if object_id is not None:
        filter_configs.append({"id": object_id})
    for i, codec in enumerate(byte_filters):
        filter_configs.append(v2_config(codec.evolve(evolved_spec), field=f"filters[{i}]"))
    compressor = None
    for codec in compressors:
        compressor = v2_config(codec.evolve(evolved_spec), field="compressors[0]")
        if compressor["id"] == "zstd" and not compressor.get("checksum"):
            compressor.pop("checksum", None)

    # --- attributes and dimension names ------------------------------------------------------
    attributes = dict(c.attributes_from_json(spec.attributes, field="attributes"))
    if spec.dimension_names is not None:
        names = c.dimension_names_from_json(spec.dimension_names, ndim)
        if names is not None:
            if not all(isinstance(n, str) for n in names):
                raise MetadataError(
                    "Zarr v2 keeps dimension names in the _ARRAY_DIMENSIONS "
                    "attribute (the xarray convention), which needs a string for "
                    f"every dimension; got {list(names)}",
                    field="dimension_names",
                    value=list(names),
                )
            existing = attributes.get(DIMENSIONS_ATTRIBUTE)
            if existing is not None and existing != list(names):
                raise MetadataError(
                    f"dimension_names {list(names)} contradict the attribute _ARRAY_DIMENSIONS {existing!r}",
                    field="dimension_names",
                    value=list(names),
                )
            attributes[DIMENSIONS_ATTRIBUTE] = list(names)

    if object_id is not None:
        dtype = "|O"
    else:
        dtype = dtype_string(data_type, byteorder or "<")
    document = {
        "shape": list(shape),
        "chunks": chunks,
        "dtype": dtype,
        "fill_value": None if no_fill else fill_value_to_v2(data_type, fill_value, byteorder or "<"),
        "order": order,
        "filters": filter_configs or None,
        "dimension_separator": _separator(spec.chunk_key_encoding),
        "compressor": compressor,
        "zarr_format": 2,
    }
    metadata = parse_array(document, attributes)
    if metadata.data_type != data_type:
        raise MetadataError(
            f"data type {data_type.to_json()!r} has no Zarr v2 type string: "
            f"{dtype!r} reads back as {metadata.data_type.to_json()!r}",
            field="dtype",
            value=spec.dtype,
        )
    zarray_document(metadata)  # must be writable (render() checks the JSON)
    return metadata

"""Creation: a new array's or group's model from the API's arguments.

:func:`new_array` turns an :class:`~zarrforge.plugin_api.ArrayCreationSpec`
into an :class:`ArrayMetadata` the draft can state, or raises
:class:`~zarrforge.errors.MetadataError` naming the argument:

* ``dtype``: a registered data type, a draft type name (``"float64"``,
  ``"<f8"``), an extension object (written as given: :mod:`.spellings`) or
  anything numpy understands; a big-endian numpy dtype gives a big-endian
  ``bytes`` codec.
* ``chunks`` / ``shards``: a regular grid only; shards become the draft's
  sharding storage transformer (``chunks_per_shard``), so the shard shape
  must be a multiple of the chunk shape.
* ``chunk_key_encoding``: a separator (``"/"``, ``"."``) or an encoding whose
  keys are ``c`` + the coordinates joined by one.
* codecs: ``codecs`` (a whole chain) or ``filters`` + ``serializer`` +
  ``compressors`` (normalised by :mod:`zarrforge.engine.codec_arguments`); a codec
  may be given by its draft URI (and is written under that URI). ``"auto"``
  compressors are zarr-python 2's default blosc (:func:`default_compressors`:
  none for 0-d arrays, or when no plugin registers blosc).
* ``order`` (else the format's ``chunk_memory_layout`` option): the chunk memory
  layout, any registered name. ``"C"`` adds nothing, ``"F"`` a leading ``transpose``
  reversing the axes, any other layout a leading
  :class:`~zarrforge.plugin_api.MemoryLayoutCodec` (unless the codecs given already
  start with one: a copied array's). The codecs after it receive the array the layout
  hands them, so array -> array codecs must fit its shape (1-D for a layout that keeps
  the default ``codec_shape``); one that does not is refused here.

What the chosen dialect cannot write is refused later, when the document is
rendered (:mod:`.documents`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zarrforge.errors import MetadataError
from zarrforge.plugin_api import formats as c
from zarrforge.plugin_api.formats import (
    ArrayCreationSpec,
    ArrayMetadata,
    ChunkGrid,
    ChunkSpec,
    Codec,
    CodecKind,
    DataType,
    GroupMetadata,
    MemoryLayoutCodec,
    evolve_codecs,
    registry,
)

from . import codecs as codec_map
from . import data_types as dts
from . import transformers as st
from .entry_point import GlobalStorageTransformer
from .keys import DraftChunkKeyEncoding
from .reading import layout_transpose
from .spellings import FORMAT_NAME, Spellings

# zarr-python 2's default compressor: Blosc(cname="lz4", clevel=5, shuffle=SHUFFLE, blocksize=0).
DEFAULT_COMPRESSOR = {
    "name": "blosc",
    "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "blocksize": 0},
}


def new_group(attributes: dict[str, Any] | None = None, extensions: Any = None) -> GroupMetadata:
    """A new group's model (the draft has no group extensions)."""
    if extensions:
        raise MetadataError("the 2022 draft has no group extensions", field="extensions", value=extensions)
    return GroupMetadata(c.attributes_from_json(attributes), FORMAT_NAME)


def default_compressors(spec: ArrayCreationSpec) -> list[Any]:
    """zarr-python 2's default blosc, except for 0-d arrays (and, with a warning, when no
    plugin registers blosc)."""
    if len(spec.shape) == 0:
        return []
    if "blosc" in registry.codecs:
        return [DEFAULT_COMPRESSOR]
    c.warn_uncompressed("draft-2022", "blosc")
    return []


def new_array(
    spec: ArrayCreationSpec,
    *,
    dialect: str,
    memory_layout: str,
    global_transformers: tuple[GlobalStorageTransformer, ...],
) -> ArrayMetadata:
    """A new array's model: its chunk keys in ``dialect``, ``spec.order`` or else
    ``memory_layout`` its chunk memory layout, after its own storage transformers the
    hierarchy's ``global_transformers``."""
    shape = spec.shape
    data_type, byteorder = _user_data_type(spec.dtype)
    spelled_type = (data_type, spec.dtype, byteorder) if _is_extension_object(spec.dtype) else None
    fill_value = c.fill_value_from_user(data_type, spec.fill_value)
    chunks = _chunk_shape(spec.chunks, shape, field="chunks")
    transformers = list(st.parse_list(spec.storage_transformers, field="storage_transformers"))
    if spec.shards is not None:
        shards = _chunk_shape(spec.shards, shape, field="shards")
        if any(s % n for s, n in zip(shards, chunks)):
            raise MetadataError(
                f"the shard shape {list(shards)} must be a multiple of the chunk "
                f"shape {list(chunks)} (the draft's sharding transformer "
                "groups whole chunks)",
                field="shards",
                value=list(shards),
            )
        transformers.append(
            st.parse(
                {
                    "extension": "https://purl.org/zarr/spec/storage_transformers/sharding/1.0",
                    "type": "indexed",
                    "configuration": {"chunks_per_shard": [s // n for s, n in zip(shards, chunks)]},
                },
                field="shards",
            )
        )
    grid = c.chunk_grid_from_json(
        {"name": "regular", "configuration": {"chunk_shape": list(chunks)}}, shape, field="chunks"
    )
    named: list[tuple[Codec, str]] = []
    layout, layout_field = (
        (spec.order, "order") if spec.order is not None else (memory_layout, "chunk_memory_layout")
    )
    given = _user_codecs(
        spec,
        data_type,
        byteorder,
        ndim=len(shape),
        memory_layout=layout,
        layout_field=layout_field,
        named=named,
    )
    codecs = _evolved(given, ChunkSpec(chunks, data_type, fill_value, c.memory_layout("C")))
    # evolve_codecs answers one codec for each, in order: the URI follows its codec.
    codec_uris = tuple(
        (evolved, uri) for codec, evolved in zip(given, codecs) for known, uri in named if known is codec
    )
    metadata = ArrayMetadata(
        shape=shape,
        data_type=data_type,
        chunk_grid=grid,
        chunk_key_encoding=DraftChunkKeyEncoding(_separator(spec.chunk_key_encoding), dialect),
        fill_value=fill_value,
        codecs=codecs,
        attributes=c.attributes_from_json(spec.attributes, field="attributes"),
        format_name=FORMAT_NAME,
        dimension_names=c.dimension_names_from_json(spec.dimension_names, len(shape)),
        storage_transformers=tuple(transformers) + global_transformers,
        extensions=c.extensions_from_json(spec.extensions, "array"),
        format_data=Spellings(spelled_type, codec_uris).as_format_data(),
    )
    return metadata  # render() refuses what the draft cannot state


def _evolved(codecs: list[Codec], spec: ChunkSpec) -> tuple[Codec, ...]:
    """``evolve_codecs``, after checking the array -> array codecs that follow a layout's
    codec against the array the layout hands them."""
    if codecs and isinstance(codecs[0], MemoryLayoutCodec):
        layout = codecs[0]
        received = layout.resolve(spec)
        for i, codec in enumerate(codecs[1:], 1):
            if codec.kind is not CodecKind.ARRAY_ARRAY:
                break
            try:
                codec.validate(received)
            except MetadataError as exc:
                raise MetadataError(
                    f"{exc.message} (the memory layout {layout.layout.name!r} hands the "
                    f"codecs an array of shape {list(received.shape)} for chunks of "
                    f"{list(spec.shape)})",
                    field=f"codecs[{i}]",
                    value=codec.to_json(),
                ) from exc
            received = codec.resolve(received)  # type: ignore[attr-defined]
    return evolve_codecs(codecs, spec)


def _chunk_shape(chunks: Any, shape: tuple[int, ...], *, field: str) -> tuple[int, ...]:
    if isinstance(chunks, ChunkGrid):
        regular = chunks.regular_chunk_shape
        if regular is None:
            raise MetadataError("the 2022 draft's format creates regular grids only", field=field)
        return tuple(regular)
    if isinstance(chunks, int):
        chunks = (chunks,) * len(shape)
    chunks = tuple(chunks)
    if len(chunks) != len(shape):
        raise MetadataError(
            f"{list(chunks)} has {len(chunks)} entries but the array has {len(shape)} dimensions",
            field=field,
            value=list(chunks),
        )
    return tuple(max(1, int(n)) if n is not None and n != -1 else max(1, s) for n, s in zip(chunks, shape))


def _separator(value: Any) -> str:
    if value is None:
        return "/"
    if isinstance(value, str):
        return value
    if isinstance(value, DraftChunkKeyEncoding):
        return value.separator
    if isinstance(value, dict):
        if value.get("name") not in (None, "default", FORMAT_NAME):
            raise MetadataError(
                f"the 2022 draft's chunk keys are 'c' + the coordinates joined "
                f"by a separator; {value.get('name')!r} keys cannot be "
                "expressed",
                field="chunk_key_encoding",
                value=value,
            )
        config = value.get("configuration") or value
        separator: str = config.get("separator", "/")  # checked by DraftChunkKeyEncoding
        return separator
    raise MetadataError(
        f"expected a separator ('/' or '.') or a chunk key encoding, got {value!r}",
        field="chunk_key_encoding",
        value=value,
    )


def _is_extension_object(value: Any) -> bool:
    return isinstance(value, dict) and "extension" in value


def _user_data_type(value: Any) -> tuple[DataType, str | None]:
    if isinstance(value, DataType):
        return value, None
    if _is_extension_object(value):
        return dts.parse_extension_object(value, field="dtype")
    if isinstance(value, str):
        try:
            return dts.parse_name(value, field="dtype")
        except MetadataError:
            pass
    try:
        np_dtype = np.dtype(value)
    except TypeError:
        np_dtype = None
    data_type = c.data_type_from_user(value)
    order = None
    if np_dtype is not None and np_dtype.itemsize > 1 and data_type.has_endianness:
        order = (
            ">"
            if np_dtype.byteorder == ">" or (np_dtype.byteorder == "=" and np.little_endian is False)
            else "<"
        )
    return data_type, order


def _user_codec(value: Any, *, field: str, ndim: int, named: list[tuple[Codec, str]]) -> Codec:
    """The codec for an argument; one given by its draft URI is added to ``named`` with it."""
    if isinstance(value, Codec):
        return value
    if isinstance(value, dict) and ("type" in value or "codec" in value):
        uri = value["type"] if "type" in value else value["codec"]
        codec = codec_map.codec_from_draft(
            uri,
            value.get("configuration"),
            field=field,
            type_field=f"{field}.type",
            ndim=ndim,
            item_size=None,
        )
    elif isinstance(value, str) and codec_map.codec_id_of(value) is not None:
        uri = value
        codec = codec_map.codec_from_draft(
            value, None, field=field, type_field=field, ndim=ndim, item_size=None
        )
    else:
        return c.codec_from_user(value, field=field)
    named.append((codec, uri))
    return codec


def _user_codecs(
    spec: ArrayCreationSpec,
    data_type: DataType,
    byteorder: str | None,
    *,
    ndim: int,
    memory_layout: str,
    layout_field: str,
    named: list[tuple[Codec, str]],
) -> list[Codec]:
    if spec.codecs is not None:
        codecs = [
            _user_codec(v, field=f"codecs[{i}]", ndim=ndim, named=named) for i, v in enumerate(spec.codecs)
        ]
    else:
        filters = [
            _user_codec(v, field=f"filters[{i}]", ndim=ndim, named=named) for i, v in enumerate(spec.filters)
        ]
        endian = "big" if byteorder == ">" else "little"
        default = (
            {"name": "bytes", "configuration": {"endian": endian}}
            if data_type.has_endianness
            else {"name": "bytes"}
        )
        serializer = _user_codec(spec.serializer or default, field="serializer", ndim=ndim, named=named)
        codecs = [
            *filters,
            serializer,
            *(
                _user_codec(v, field=f"compressors[{i}]", ndim=ndim, named=named)
                for i, v in enumerate(spec.compressors)
            ),
        ]
    if codecs and isinstance(codecs[0], MemoryLayoutCodec):
        return codecs  # a copied array's layout, already first
    if memory_layout == "F" and not (codecs and codecs[0].to_json().get("name") == "transpose"):
        codecs.insert(0, layout_transpose(list(range(ndim))[::-1]))
    elif memory_layout not in ("C", "F"):
        codecs.insert(0, MemoryLayoutCodec(c.memory_layout(memory_layout, field=layout_field)))
    return codecs

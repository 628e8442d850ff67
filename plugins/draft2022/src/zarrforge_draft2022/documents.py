"""Writing: the zarrforge model -> a 2022-draft node document in a dialect.

:func:`node_document` (:func:`array_document`, :func:`group_document`) returns the JSON object of a
node's document; :func:`dump` serialises it the way the dialect's writer does.
What the draft (or the dialect) cannot state is refused with a
:class:`~zarrforge.errors.MetadataError` naming the field, never dropped:

* ``"zarr-python"``: array -> array codecs and all but the last bytes -> bytes
  codec become numcodecs filters in ``attributes["filters"]``, the last bytes
  -> bytes codec the ``compressor``; the serialiser must be ``bytes``, whose
  ``endian`` is spelled in the numpy-style data type name.
* ``"editor"``: every codec in a ``codecs`` list of ``{"type": URI,
  "configuration"}``; a ``bytes`` serialiser is listed (as the endian codec)
  only when the data type name does not already say its byte order.

A leading ``transpose`` that reverses all axes is written as
``chunk_memory_layout: "F"`` (one that keeps them, as ``"C"``); a leading
:class:`~zarrforge.plugin_api.MemoryLayoutCodec` as its layout (:func:`layout_value`:
the value it was read from, else the registered name, a URI as the draft's extension
object), which the ``"zarr-python"`` dialect refuses unless it is ``C`` or ``F``
(zarr-python 2 reads no other layout); the
entry point's global storage transformers are not repeated in the array's
document. Where the model's :mod:`.spellings` say how the data type or a codec
was spelled, that spelling is written again. The inverse of :mod:`.reading`.
"""

from __future__ import annotations

import json
from typing import Any

from zarrforge.errors import MetadataError
from zarrforge.plugin_api.formats import (
    ArrayMetadata,
    ChunkGrid,
    Codec,
    CodecKind,
    ExtensionEntry,
    GroupMetadata,
    MemoryLayoutCodec,
    NodeMetadata,
    UnknownExtension,
    check_document_size,
    dump_document,
    numcodecs_configuration,
)

from . import codecs as codec_map
from . import data_types as dts
from . import fill_values as fills
from . import transformers as st
from .dialects import ZARR_PYTHON
from .entry_point import GlobalStorageTransformer
from .keys import DraftChunkKeyEncoding
from .spellings import Spellings, spellings_of


def dump(document: dict[str, Any], dialect: str) -> bytes:
    """JSON as the dialect's writer produces it (zarr-python: sorted keys, 4-space indent, ASCII)."""
    if dialect == ZARR_PYTHON:
        try:
            data = json.dumps(
                document, indent=4, sort_keys=True, ensure_ascii=True, separators=(",", ": "), allow_nan=True
            ).encode("ascii")
        except (TypeError, ValueError) as exc:
            raise MetadataError(f"cannot be written as JSON: {exc}") from exc
        if b"NaN" in data or b"Infinity" in data:
            # NaN/Infinity tokens in attributes only, as zarr-python 2: the core's writer
            # refuses them anywhere else, naming the field
            dump_document(document)
        check_document_size(len(data), key=None, writing=True)  # readers could not open it
        return data
    return dump_document(document)


def key_encoding(metadata: ArrayMetadata, dialect: str) -> DraftChunkKeyEncoding:
    """The array's chunk key encoding in ``dialect``: its own when that is the draft's in
    ``dialect``, else the draft's with the same separator."""
    encoding = metadata.chunk_key_encoding
    if isinstance(encoding, DraftChunkKeyEncoding) and encoding.dialect == dialect:
        return encoding
    return DraftChunkKeyEncoding(encoding.separator or "/", dialect)


def codec_reference(codec: Codec, *, field: str, spellings: Spellings = Spellings()) -> dict[str, Any]:
    """A ``codecs`` entry of the editor dialect: ``{"type": URI[, "configuration"]}``, under
    the URI ``spellings`` says the codec was read with when it names the same codec."""
    uri, config = codec_map.draft_reference(
        codec, field=field, registry_names=True, remembered=spellings.uri_of(codec)
    )
    return {"type": uri, "configuration": config} if config else {"type": uri}


def node_document(metadata: NodeMetadata, dialect: str) -> dict[str, Any]:
    """A node's document in ``dialect``."""
    if isinstance(metadata, ArrayMetadata):
        return array_document(metadata, dialect)
    return group_document(metadata)


def group_document(metadata: GroupMetadata) -> dict[str, Any]:
    """A group's document (the same in both dialects)."""
    if metadata.consolidated is not None:
        raise MetadataError(
            "the 2022 draft has no consolidated metadata; a hierarchy is "
            "listed with list_prefix('meta/root/') instead",
            field="consolidated_metadata",
        )
    if metadata.extensions:
        raise MetadataError("the 2022 draft has no group extensions", field="extensions")
    doc: dict[str, Any] = {"attributes": metadata.attributes}
    doc.update(metadata.extra_fields)
    return doc


def array_document(metadata: ArrayMetadata, dialect: str) -> dict[str, Any]:
    """An array's document in ``dialect``."""
    ndim = len(metadata.shape)
    codecs = list(metadata.codecs)
    layout: Any = "C"
    first = codecs[0] if codecs else None
    spellings = spellings_of(metadata)
    if isinstance(first, MemoryLayoutCodec):
        layout, codecs = layout_value(first, spellings), codecs[1:]
        if dialect == ZARR_PYTHON and layout not in ("C", "F"):
            raise MetadataError(
                f"zarr-python 2 reads only the chunk memory layouts 'C' and "
                f"'F', not {first.layout.name!r}; write this hierarchy in the "
                "'editor' dialect",
                field="chunk_memory_layout",
                value=first.layout.name,
            )
    elif (
        first is not None
        and first.kind is CodecKind.ARRAY_ARRAY
        and first.to_json().get("name") == "transpose"
    ):
        order = list(first.to_json()["configuration"]["order"])
        if order == list(range(ndim))[::-1]:
            layout, codecs = "F", codecs[1:]
        elif order == list(range(ndim)):
            codecs = codecs[1:]
    ab = [j for j, k in enumerate(codecs) if k.kind is CodecKind.ARRAY_BYTES]
    if len(ab) != 1:
        raise MetadataError(
            f"the codec list must contain exactly one array -> bytes codec, found {len(ab)}", field="codecs"
        )
    array_codecs, serializer, bytes_codecs = codecs[: ab[0]], codecs[ab[0]], codecs[ab[0] + 1 :]
    serializer_json = serializer.to_json()
    endian = (
        (serializer_json.get("configuration") or {}).get("endian")
        if serializer_json.get("name") == "bytes"
        else None
    )
    grid = metadata.chunk_grid
    encoding = key_encoding(metadata, dialect)
    chunk_grid = grid_document(grid, encoding.separator)
    doc: dict[str, Any] = {"shape": list(metadata.shape)}
    attributes = dict(metadata.attributes)
    position = {id(k): i for i, k in enumerate(metadata.codecs)}
    spelled_type = spellings.spelling_of(metadata.data_type)

    def where(codec: Codec) -> str:
        return f"codecs[{position.get(id(codec), '?')}]"

    if dialect == ZARR_PYTHON:
        filters: list[dict[str, Any]] = []
        for codec in array_codecs:
            filters.append(_numcodecs_filter(codec, field=where(codec)))
        if serializer_json.get("name") != "bytes":
            raise MetadataError(
                f"zarr-python 2 serialises chunks with numpy only, not with "
                f"{serializer_json.get('name')!r}; write this hierarchy in the "
                "'editor' dialect",
                field="codecs",
                value=serializer_json,
            )
        spelled_endian = endian
        if filters:
            spelled_endian = "little"  # the array zarr-python filters is in memory order
        data_type, _ = dts.spell(metadata.data_type, spelled_endian, dialect, remembered=spelled_type)
        compressor = None
        if bytes_codecs:
            *byte_filters, last = bytes_codecs
            for codec in byte_filters:
                filters.append(_numcodecs_filter(codec, field=where(codec), before=True))
            uri, config = codec_map.draft_reference(
                last, field=where(last), registry_names=False, remembered=spellings.uri_of(last)
            )
            compressor = {"codec": uri, "configuration": config}
        if filters:
            attributes["filters"] = filters
        doc.update(chunk_grid=chunk_grid, data_type=data_type, chunk_memory_layout=layout)
        if compressor is not None:
            doc["compressor"] = compressor
        if encoding.separator != "/":
            doc["dimension_separator"] = encoding.separator
    else:
        data_type, spelled = dts.spell(metadata.data_type, endian, dialect, remembered=spelled_type)

        def reference(codec: Codec) -> dict[str, Any]:
            return codec_reference(codec, field=where(codec), spellings=spellings)

        listed = [reference(k) for k in array_codecs]
        if serializer_json.get("name") == "bytes":
            # The endian codec is listed only when the type name does not say the byte
            # order already, or when the document being rewritten listed it.
            explicit = spellings.uri_of(serializer) is not None
            stated = {"<": "little", ">": "big"}.get(spelled or "")
            if endian is not None and (explicit or (endian != (stated or "little"))):
                listed.append(reference(serializer))
        else:
            listed.append(reference(serializer))
        listed.extend(reference(k) for k in bytes_codecs)
        doc.update(data_type=data_type, chunk_grid=chunk_grid, chunk_memory_layout=layout, codecs=listed)
    doc["fill_value"] = fills.fill_value_to_json(metadata.data_type, metadata.fill_value, dialect)
    doc["extensions"] = extensions_document(metadata.extensions)
    doc["attributes"] = attributes
    own = [t for t in metadata.storage_transformers if not isinstance(t, GlobalStorageTransformer)]
    if own:
        doc["storage_transformers"] = [
            st.to_draft(t, field=f"storage_transformers[{i}]") for i, t in enumerate(own)
        ]
    if metadata.dimension_names is not None:
        doc["dimension_names"] = list(metadata.dimension_names)
    doc.update(metadata.extra_fields)
    return doc


def layout_value(codec: MemoryLayoutCodec, spellings: Spellings = Spellings()) -> Any:
    """``chunk_memory_layout`` for the layout codec ``codec``: the value it was read from;
    else the layout's registered name, and for a name that is a URI the draft's
    extension object ``{"extension": URI, "type": <the URI's last segment>}``."""
    read = spellings.layout_of(codec)
    if read is not None:
        return read
    name = codec.layout.name
    if "://" in name:
        return {"extension": name, "type": name.rstrip("/").rsplit("/", 1)[-1]}
    return name


def _numcodecs_filter(codec: Codec, *, field: str, before: bool = False) -> dict[str, Any]:
    """A ``numcodecs.<id>`` codec as zarr-python 2 keeps a filter: ``{"id": ..., **config}``."""
    document = codec.to_json()
    name = document.get("name", "")
    config = numcodecs_configuration(document)  # None for any codec but numcodecs.<id>
    if config is None:
        where = (
            "before the compressor (zarr-python 2 stores a single compressor, and "
            "numcodecs filters ahead of it)"
            if before
            else "among the filters (zarr-python 2 applies numcodecs filters only)"
        )
        raise MetadataError(
            f"codec {name!r} has no place {where}; write this hierarchy in the 'editor' dialect",
            field=field,
            value=document,
        )
    return config  # every setting, as zarr-python 2 writes


def grid_document(grid: ChunkGrid, separator: str) -> dict[str, Any]:
    """``chunk_grid``: the regular grid, or an extension grid named by its URI."""
    document = grid.to_json()
    if document.get("name") == "regular":
        return {
            "type": "regular",
            "chunk_shape": list(document["configuration"]["chunk_shape"]),
            "separator": separator,
        }
    name = document.get("name")
    if isinstance(name, str) and "://" in name:
        return {"extension": name, **(document.get("configuration") or {}), "separator": separator}
    raise MetadataError(
        f"chunk grid {name!r} has no form in the 2022 draft (it defines the "
        "regular grid; other grids are extensions named by URI)",
        field="chunk_grid",
        value=document,
    )


def extensions_document(entries: tuple[ExtensionEntry, ...]) -> list[Any]:
    """``extensions`` as draft entries; unknown ones as they were read."""
    result: list[Any] = []
    for entry in entries:
        if isinstance(entry, UnknownExtension):
            result.append(entry.document)
            continue
        document = entry.to_json()
        name = document if isinstance(document, str) else document.get("name")
        item: dict[str, Any] = {"extension": name, "must_understand": entry.must_understand}
        if isinstance(document, dict) and document.get("configuration") is not None:
            item["configuration"] = document["configuration"]
        result.append(item)
    return result

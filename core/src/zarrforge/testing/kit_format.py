"""The conformance kit's own format, and the codec, chunk grid and key encoding it writes.

The suites build scratch hierarchies to try a plugin in a real array (a codec as a
serializer, a data type, a chunk grid, an extension...). They build them in this
format, on :class:`~zarrforge.testing.kit_store.KitMemoryStore`, so that they need no
plugin besides the one under test and give the same answer whatever else is
installed. It is for the kit's scratch hierarchies, not for users, and is registered
in-process only while a suite's test runs (:mod:`zarrforge.testing.scaffolding`).

What it is: the final v3 format's layout, without its extras. A node at ``p`` has
its document at ``p/zarr.json``, with ``"zarr_format": "zarrforge-kit"`` (so no
other format takes it for its own, and zarrforge refuses to write over it where the
kit's format is not registered: :mod:`zarrforge.nodes.unreadable`); chunks live under
``p/`` at the key the array's chunk key encoding gives. The document holds
``node_type``, ``attributes`` and ``extensions`` and, for an array, ``shape``,
``data_type``, ``chunk_grid``, ``chunk_key_encoding``, ``fill_value``, ``codecs`` and,
when set, ``dimension_names`` and ``storage_transformers``; other members are refused.
No consolidated metadata, no shards, no memory layout but C and F (not recorded).

A new array gets, where its arguments name none:

* the chunk grid ``zarrforge-kit.regular`` (:class:`KitRegularGrid`: every chunk of
  ``chunk_shape``, edge chunks stored whole);
* the key encoding ``zarrforge-kit.keys`` (:class:`KitKeyEncoding`: ``c/1/0``, ``c``
  for a 0-d array);
* the serializer the data type asks for (``DataType.default_serializer``), else
  ``zarrforge-kit.bytes`` (:class:`KitBytesCodec`: the elements in C order,
  little-endian where the byte order matters; fixed-size types only);
* no compressor (``compressors="auto"`` means none).

Every other name an array's arguments give (a data type, a codec, a grid document, a
key encoding, storage transformers, extensions) is resolved through the registries,
as any format resolves them: that is how a suite tries the plugin under test.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..abc.chunk_grid import RegularDimension
from ..errors import CorruptChunkError, MetadataError
from ..plugin_api import (
    ArrayBytesCodec,
    ArrayCreationSpec,
    ArrayMetadata,
    ChunkGrid,
    ChunkKeyEncoding,
    ChunkSpec,
    ChunksUnderNode,
    Codec,
    CodecKind,
    DimensionChunking,
    Format,
    GroupMetadata,
    NodeDocument,
    NodeMetadata,
    Store,
    attributes_from_json,
    child_names,
    chunk_grid_from_json,
    chunk_key_encoding_from_json,
    codec_from_user,
    codecs_from_json,
    data_type_from_json,
    data_type_from_user,
    dimension_names_from_json,
    dump_document,
    evolve_codecs,
    extensions_from_document,
    extensions_from_json,
    extensions_to_document,
    fill_value_from_user,
    load_document,
    memory_layout,
    shape_from_json,
    storage_transformers_from_json,
)

FORMAT_NAME = "zarrforge-kit"
BYTES_CODEC = "zarrforge-kit.bytes"
REGULAR_GRID = "zarrforge-kit.regular"
KEY_ENCODING = "zarrforge-kit.keys"
DOCUMENT_NAME = "zarr.json"

_ARRAY_MEMBERS = frozenset(
    {
        "zarr_format",
        "node_type",
        "shape",
        "data_type",
        "chunk_grid",
        "chunk_key_encoding",
        "fill_value",
        "codecs",
        "attributes",
        "dimension_names",
        "storage_transformers",
        "extensions",
    }
)
_ARRAY_REQUIRED = _ARRAY_MEMBERS - {"attributes", "dimension_names", "storage_transformers", "extensions"}
_GROUP_MEMBERS = frozenset({"zarr_format", "node_type", "attributes", "extensions"})


def _no_configuration(name: str, configuration: dict[str, Any] | None) -> None:
    if configuration:
        raise MetadataError(
            f"{name!r} takes no configuration, got {configuration!r}",
            field="configuration",
            value=configuration,
        )


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class KitBytesCodec(ArrayBytesCodec):
    """A fixed-size chunk's elements in C order, little-endian where the byte order
    matters; a stored chunk of another length is a :class:`CorruptChunkError`."""

    name = BYTES_CODEC

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> KitBytesCodec:
        _no_configuration(name, configuration)
        return cls()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name}

    def validate(self, spec: ChunkSpec) -> None:
        if spec.data_type.item_size is None or spec.dtype.hasobject:
            raise MetadataError(
                f"{self.name!r} encodes fixed-size data types only, not {spec.data_type.to_json()!r}",
                field="name",
                value=self.name,
            )

    def _stored(self, spec: ChunkSpec) -> np.dtype:
        dtype = spec.dtype
        return dtype.newbyteorder("<") if spec.data_type.has_endianness else dtype

    def encoded_size(self, spec: ChunkSpec) -> int | None:
        return spec.nbytes

    def plain_dtype(self, spec: ChunkSpec) -> np.dtype | None:
        if spec.data_type.item_size is None or spec.dtype.hasobject:
            return None
        return self._stored(spec)

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes:
        return np.ascontiguousarray(chunk, dtype=self._stored(spec)).tobytes()

    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        expected = spec.nbytes
        if expected is None or len(data) != expected:
            raise CorruptChunkError(
                f"a stored chunk of {len(data)} bytes, where {expected} hold a chunk of shape {spec.shape}"
            )
        stored = np.frombuffer(data, dtype=self._stored(spec)).reshape(spec.shape)
        return stored.astype(spec.dtype, copy=True)


class KitRegularGrid(ChunkGrid):
    """Every chunk of ``chunk_shape`` (edge chunks stored whole)."""

    name = REGULAR_GRID

    def __init__(self, chunk_shape: Sequence[int], shape: Sequence[int]) -> None:
        self._chunk_shape = tuple(int(c) for c in chunk_shape)
        self._dimensions = tuple(RegularDimension(int(n), c) for n, c in zip(shape, self._chunk_shape))

    @classmethod
    def from_json(
        cls, name: str, configuration: dict[str, Any] | None, shape: Sequence[int]
    ) -> KitRegularGrid:
        configuration = configuration or {}
        unknown = sorted(set(configuration) - {"chunk_shape"})
        if unknown:
            raise MetadataError(
                f"unknown configuration key(s) {unknown}",
                field=f"configuration.{unknown[0]}",
                value=configuration,
            )
        chunks = configuration.get("chunk_shape")
        if (
            not isinstance(chunks, (list, tuple))
            or len(chunks) != len(shape)
            or not all(_is_count(c) and 0 < c < 2**63 for c in chunks)
        ):
            raise MetadataError(
                f"must be {len(shape)} positive integers, one per dimension, got {chunks!r}",
                field="configuration.chunk_shape",
                value=chunks,
            )
        return cls(chunks, shape)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"chunk_shape": list(self._chunk_shape)}}

    @property
    def dimensions(self) -> tuple[DimensionChunking, ...]:
        return self._dimensions

    def with_shape(self, shape: Sequence[int]) -> KitRegularGrid:
        return KitRegularGrid(self._chunk_shape, shape)

    @property
    def regular_chunk_shape(self) -> tuple[int, ...]:
        return self._chunk_shape


class KitKeyEncoding(ChunkKeyEncoding):
    """``c`` then each coordinate, ``/``-separated: ``c/1/0`` (``c`` for a 0-d array)."""

    name = KEY_ENCODING

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> KitKeyEncoding:
        _no_configuration(name, configuration)
        return cls()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name}

    def encode_key(self, coords: Sequence[int]) -> str:
        return "/".join(["c", *(str(int(i)) for i in coords)])

    def decode_key(self, key: str, ndim: int) -> tuple[int, ...] | None:
        head, *parts = key.split("/")
        if head != "c" or len(parts) != ndim:
            return None
        # only the spelling encode_key gives: "01" is no chunk
        if not all(p.isascii() and p.isdigit() and (p == "0" or p[0] != "0") for p in parts):
            return None
        return tuple(int(p) for p in parts)


class KitFormat(ChunksUnderNode, Format):
    """The kit's scratch format (see the module docstring)."""

    name = FORMAT_NAME

    # --- reading ------------------------------------------------------------------------

    @staticmethod
    def _key(path: str) -> str:
        return f"{path}/{DOCUMENT_NAME}" if path else DOCUMENT_NAME

    def document_key(self, path: str, node_type: str) -> str | None:
        return self._key(path)

    def read_document(self, store: Store, path: str) -> NodeDocument | None:
        key = self._key(path)
        data = store.get(key)
        if data is None:
            return None
        document = load_document(data, key=key)
        if document.get("zarr_format") != FORMAT_NAME:
            return None  # another format's zarr.json
        node_type = document.get("node_type")
        if node_type not in ("array", "group"):
            raise MetadataError(
                f"must be 'array' or 'group', got {node_type!r}", field="node_type", value=node_type, key=key
            )
        return NodeDocument(self.name, node_type, key, document)

    def resolve(self, document: NodeDocument) -> NodeMetadata:
        try:
            return self._resolved(dict(document.content), document.node_type)
        except MetadataError as exc:
            raise exc.at(document.key) from None

    def _resolved(self, content: dict[str, Any], node_type: str) -> NodeMetadata:
        allowed = _GROUP_MEMBERS if node_type == "group" else _ARRAY_MEMBERS
        unknown = sorted(set(content) - allowed)
        if unknown:
            raise MetadataError(
                f"the kit's format has no member {unknown[0]!r}", field=unknown[0], value=content[unknown[0]]
            )
        attributes = attributes_from_json(content.get("attributes"))
        if node_type == "group":
            return GroupMetadata(
                attributes,
                self.name,
                extensions=extensions_from_document(content, "group", known=allowed).entries,
            )
        missing = sorted(_ARRAY_REQUIRED - set(content))
        if missing:
            raise MetadataError(f"array documents need {missing}", field=missing[0])
        shape = shape_from_json(content["shape"])
        data_type = data_type_from_json(content["data_type"])
        return ArrayMetadata(
            shape=shape,
            data_type=data_type,
            chunk_grid=chunk_grid_from_json(content["chunk_grid"], shape),
            chunk_key_encoding=chunk_key_encoding_from_json(content["chunk_key_encoding"]),
            fill_value=data_type.fill_value_from_json(content["fill_value"]),
            codecs=codecs_from_json(content["codecs"]),
            attributes=attributes,
            format_name=self.name,
            dimension_names=dimension_names_from_json(content.get("dimension_names"), len(shape)),
            storage_transformers=storage_transformers_from_json(content.get("storage_transformers")),
            extensions=extensions_from_document(content, "array", known=allowed).entries,
        )

    def document_attributes(self, document: NodeDocument) -> dict[str, Any] | None:
        try:
            return attributes_from_json(document.content.get("attributes"))
        except MetadataError as exc:
            raise exc.at(document.key) from None

    def list_children(self, store: Store, path: str) -> list[str]:
        return child_names(store, path, lambda child: self.read_document(store, child) is not None)

    # --- writing ------------------------------------------------------------------------

    def document(self, metadata: NodeMetadata) -> dict[str, Any]:
        if isinstance(metadata, GroupMetadata):
            doc: dict[str, Any] = {
                "zarr_format": FORMAT_NAME,
                "node_type": "group",
                "attributes": dict(metadata.attributes),
            }
        else:
            doc = {
                "zarr_format": FORMAT_NAME,
                "node_type": "array",
                "shape": list(metadata.shape),
                "data_type": metadata.data_type.to_json(),
                "chunk_grid": metadata.chunk_grid.to_json(),
                "chunk_key_encoding": metadata.chunk_key_encoding.to_json(),
                "fill_value": metadata.data_type.fill_value_to_json(metadata.fill_value),
                "codecs": [codec.to_json() for codec in metadata.codecs],
                "attributes": dict(metadata.attributes),
            }
            if metadata.dimension_names is not None:
                doc["dimension_names"] = list(metadata.dimension_names)
            if metadata.storage_transformers:
                doc["storage_transformers"] = [t.to_json() for t in metadata.storage_transformers]
        if metadata.extensions:  # the kit's format keeps every entry in the list
            doc["extensions"] = extensions_to_document(metadata, reserved=(), default="list")[0]
        return doc

    def render(self, metadata: NodeMetadata) -> bytes:
        return dump_document(self.document(metadata))

    def write_node(self, store: Store, path: str, metadata: NodeMetadata, rendered: Any = None) -> None:
        store.set(self._key(path), self.render(metadata) if rendered is None else rendered)

    def erase_node(self, store: Store, path: str) -> None:
        store.erase_prefix(f"{path}/" if path else "")

    def new_group(self, attributes: dict[str, Any] | None = None, extensions: Any = None) -> GroupMetadata:
        return GroupMetadata(
            attributes_from_json(attributes), self.name, extensions=extensions_from_json(extensions, "group")
        )

    def new_array(self, spec: ArrayCreationSpec) -> ArrayMetadata:
        if spec.shards is not None:
            raise MetadataError(
                "the kit's format has no shards; name a sharding codec as the serializer",
                field="shards",
                value=spec.shards,
            )
        if spec.order not in (None, "C", "F"):
            raise MetadataError(
                f"the kit's format records no memory layout, so it takes "
                f"order 'C' or 'F' only, not {spec.order!r}",
                field="order",
                value=spec.order,
            )
        shape = tuple(spec.shape)
        data_type = data_type_from_user(spec.dtype)
        fill_value = fill_value_from_user(data_type, spec.fill_value)
        grid = self._grid(spec.chunks, shape)
        chunk_shape = grid.regular_chunk_shape or tuple(
            d.size(0) if d.nchunks else 1 for d in grid.dimensions
        )
        codecs = evolve_codecs(
            self._codecs(spec, data_type),
            ChunkSpec(tuple(chunk_shape), data_type, fill_value, memory_layout("C")),
        )
        return ArrayMetadata(
            shape=shape,
            data_type=data_type,
            chunk_grid=grid,
            chunk_key_encoding=self._key_encoding(spec.chunk_key_encoding),
            fill_value=fill_value,
            codecs=codecs,
            attributes=attributes_from_json(spec.attributes, field="attributes"),
            format_name=self.name,
            dimension_names=dimension_names_from_json(spec.dimension_names, len(shape)),
            storage_transformers=storage_transformers_from_json(spec.storage_transformers),
            extensions=extensions_from_json(spec.extensions, "array"),
        )

    @staticmethod
    def _grid(chunks: Any, shape: tuple[int, ...]) -> ChunkGrid:
        if isinstance(chunks, ChunkGrid):
            return chunks.with_shape(shape)
        if isinstance(chunks, dict):
            return chunk_grid_from_json(chunks, shape, field="chunks")
        if _is_count(chunks):
            chunks = (chunks,) * len(shape)
        if not isinstance(chunks, (list, tuple)) or len(chunks) != len(shape):
            raise MetadataError(
                f"give one chunk length per dimension of {list(shape)}, got {chunks!r}",
                field="chunks",
                value=chunks,
            )
        lengths = [max(1, int(n)) if n is not None and n != -1 else max(1, s) for n, s in zip(chunks, shape)]
        return KitRegularGrid.from_json(REGULAR_GRID, {"chunk_shape": lengths}, shape)

    @staticmethod
    def _key_encoding(value: Any) -> ChunkKeyEncoding:
        if value is None:
            return KitKeyEncoding()
        if isinstance(value, ChunkKeyEncoding):
            return value
        return chunk_key_encoding_from_json(value, field="chunk_key_encoding")

    @staticmethod
    def _codecs(spec: ArrayCreationSpec, data_type: Any) -> tuple[Codec, ...]:
        if spec.codecs is not None:
            return tuple(codec_from_user(c, field=f"codecs[{i}]") for i, c in enumerate(spec.codecs))
        filters = [
            _of_kind(codec_from_user(c, field=f"filters[{i}]"), CodecKind.ARRAY_ARRAY, f"filters[{i}]")
            for i, c in enumerate(spec.filters)
        ]
        serializer = spec.serializer or data_type.default_serializer() or {"name": BYTES_CODEC}
        compressors = [
            _of_kind(
                codec_from_user(c, field=f"compressors[{i}]"), CodecKind.BYTES_BYTES, f"compressors[{i}]"
            )
            for i, c in enumerate(spec.compressors)
        ]
        return (
            *filters,
            _of_kind(codec_from_user(serializer, field="serializer"), CodecKind.ARRAY_BYTES, "serializer"),
            *compressors,
        )


def _of_kind(codec: Codec, kind: CodecKind, field: str) -> Codec:
    """``codec``, if it is of the ``kind`` its argument takes (or states no kind: another
    library's codec, adapted); else an error naming the argument."""
    own = codec.kind
    if own is not None and own is not kind:
        raise MetadataError(
            f"{codec.to_json().get('name')!r} is {own.value}, but this argument takes {kind.value} codecs",
            field=field,
            value=codec.to_json(),
        )
    return codec


__all__ = [
    "BYTES_CODEC",
    "FORMAT_NAME",
    "KEY_ENCODING",
    "REGULAR_GRID",
    "KitBytesCodec",
    "KitFormat",
    "KitKeyEncoding",
    "KitRegularGrid",
]

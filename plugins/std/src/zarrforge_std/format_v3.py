"""The final Zarr v3 format: one ``zarr.json`` per node.

Registered as format ``"3"``. A node at path ``p`` has its document at
``p/zarr.json`` (``zarr.json`` for the root); chunks live under ``p/`` at the
key the array's chunk key encoding gives. Unknown top-level fields follow the
``must_understand`` rule; ``consolidated_metadata`` in group documents is
recognised (the spec sanctions it) and kept. Legacy spellings that other
implementations still read are rewritten to the spec's before parsing
(:mod:`zarrforge_std.legacy_v3`), so they are read but never written.

Defaults for new arrays match zarr-python 3: a regular grid, the ``default``
chunk key encoding with ``/``, the ``bytes`` serializer (little-endian),
and ``zstd`` (level 0, no checksum) as compressor when it is installed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from zarrforge import paths, registry
from zarrforge.abc.chunk_grid import ChunkGrid
from zarrforge.abc.chunk_key_encoding import ChunkKeyEncoding
from zarrforge.abc.codec import ChunkSpec, Codec
from zarrforge.abc.data_type import DataType
from zarrforge.abc.format import ArrayCreationSpec, ChunksUnderNode, Format
from zarrforge.abc.store import Store
from zarrforge.codec_chain import CodecChain
from zarrforge.errors import InvalidPathError, MetadataError
from zarrforge.metadata import components as c
from zarrforge.metadata.extension_def import message_of
from zarrforge.metadata.json_io import dump_document, load_document
from zarrforge.metadata.model import ArrayMetadata, GroupMetadata, NodeMetadata
from zarrforge.metadata.must_understand import split_unknown_fields

from . import legacy_v3

METADATA_KEY = "zarr.json"
FORMAT_NAME = "3"
ARRAY_FIELDS = {"zarr_format", "node_type", "shape", "data_type", "chunk_grid",
                "chunk_key_encoding", "fill_value", "codecs", "attributes",
                "storage_transformers", "dimension_names", "extensions"}
ARRAY_REQUIRED = ARRAY_FIELDS - {"attributes", "storage_transformers", "dimension_names",
                                 "extensions"}
GROUP_FIELDS = {"zarr_format", "node_type", "attributes", "consolidated_metadata", "extensions"}

DEFAULT_SERIALIZER = {"name": "bytes"}
DEFAULT_COMPRESSOR = {"name": "zstd", "configuration": {"level": 0, "checksum": False}}
DEFAULT_KEY_ENCODING = {"name": "default", "configuration": {"separator": "/"}}


def metadata_key(path: str) -> str:
    return f"{path}/{METADATA_KEY}" if path else METADATA_KEY


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


class V3Format(ChunksUnderNode, Format):
    name = FORMAT_NAME

    # --- reading ------------------------------------------------------------------

    def detect(self, store: Store, path: str) -> bool:
        try:
            return self.read_node(store, path) is not None
        except MetadataError:
            return True  # a v3 node, but broken: read_node reports it with the key and field

    def read_node(self, store: Store, path: str) -> NodeMetadata | None:
        key = metadata_key(path)
        data = store.get(key)
        if data is None:
            return None
        document = load_document(data, key=key)
        if document.get("zarr_format") != 3:
            return None  # another format's document (the 2022 draft's entry point, say)
        try:
            return self.parse(document, key=key)
        except MetadataError as exc:
            if exc.key is None:
                exc.key = key
                exc.args = (f"in {key!r}: {exc.args[0]}",) if exc.args else exc.args
            raise

    def parse(self, document: dict[str, Any], *, key: str) -> NodeMetadata:
        if document.get("zarr_format") != 3:
            raise MetadataError(f"expected 3, got {document.get('zarr_format')!r}",
                                field="zarr_format", value=document.get("zarr_format"), key=key)
        node_type = document.get("node_type")
        if node_type == "group":
            extra = split_unknown_fields(document, GROUP_FIELDS, key=key)
            consolidated = self._parse_consolidated(document.get("consolidated_metadata"), extra,
                                                    key=key)
            return GroupMetadata(c.attributes_from_json(document.get("attributes")),
                                 FORMAT_NAME, extra, consolidated,
                                 c.extensions_from_json(document.get("extensions"), "group"))
        if node_type != "array":
            raise MetadataError(f"must be 'array' or 'group', got {node_type!r}",
                                field="node_type", value=node_type, key=key)
        missing = sorted(ARRAY_REQUIRED - set(document))
        if missing:
            raise MetadataError(f"array metadata lacks the required field(s) {missing}",
                                field=missing[0], key=key)
        extra = split_unknown_fields(document, ARRAY_FIELDS, key=key)
        shape = c.shape_from_json(document["shape"])
        data_type = c.data_type_from_json(document["data_type"])
        document = legacy_v3.normalized(document, ndim=len(shape),
                                        has_endianness=data_type.has_endianness)
        fill_value = data_type.fill_value_from_json(document["fill_value"])
        return ArrayMetadata(
            shape=shape,
            data_type=data_type,
            chunk_grid=c.chunk_grid_from_json(document["chunk_grid"], shape),
            chunk_key_encoding=c.chunk_key_encoding_from_json(document["chunk_key_encoding"]),
            fill_value=fill_value,
            codecs=c.codecs_from_json(document["codecs"]),
            attributes=c.attributes_from_json(document.get("attributes")),
            format_name=FORMAT_NAME,
            dimension_names=c.dimension_names_from_json(document.get("dimension_names"), len(shape)),
            storage_transformers=c.storage_transformers_from_json(document.get("storage_transformers")),
            extra_fields=extra,
            extensions=c.extensions_from_json(document.get("extensions"), "array"),
        )

    def _parse_consolidated(self, value: Any, extra: dict[str, Any], *, key: str
                            ) -> dict[str, NodeMetadata] | None:
        """Consolidated metadata as zarr-python 3 writes it (``kind: inline``).

        A null, an empty nested object (zarr-python writes one into each child
        group of a consolidated hierarchy) or an unknown ``kind`` gives ``None``;
        the last is kept verbatim because it is marked ``must_understand: false``.
        """
        field = "consolidated_metadata"
        if value is None:
            return None
        if not isinstance(value, dict) or value.get("must_understand") is not False:
            raise MetadataError("must be null or an object with \"must_understand\": false, "
                                f"got {value!r}", field=field, value=value)
        if value.get("kind") != "inline":
            extra[field] = value
            return None
        entries = value.get("metadata")
        if not isinstance(entries, dict):
            raise MetadataError(f"must be an object of node documents, got {entries!r}",
                                field=f"{field}.metadata", value=entries)
        models: dict[str, NodeMetadata] = {}
        for name, document in entries.items():
            where = f"{field}.metadata[{name!r}]"
            try:
                relative = paths.normalize_path(name)
            except InvalidPathError as exc:
                raise MetadataError(str(exc), field=where, value=name) from exc
            if not relative or not isinstance(document, dict):
                raise MetadataError("entries must map non-empty node paths to documents",
                                    field=where, value=document)
            try:
                model = self.parse(document, key=key)
            except MetadataError as exc:
                inner = f"{where}.{exc.field}" if exc.field else where
                raise MetadataError(message_of(exc), field=inner, value=exc.value, key=key) from exc
            if isinstance(model, GroupMetadata):
                model = dataclasses.replace(model, consolidated=None)  # this view is authoritative
            models[relative] = model
        return models

    # --- writing ------------------------------------------------------------------

    def document(self, metadata: NodeMetadata) -> dict[str, Any]:
        if isinstance(metadata, GroupMetadata):
            doc: dict[str, Any] = {"zarr_format": 3, "node_type": "group",
                                   "attributes": metadata.attributes}
            if metadata.consolidated is not None:
                doc["consolidated_metadata"] = {
                    "kind": "inline", "must_understand": False,
                    "metadata": {name: self.document(model)
                                 for name, model in sorted(metadata.consolidated.items())}}
        else:
            doc = {
                "zarr_format": 3,
                "node_type": "array",
                "shape": list(metadata.shape),
                "data_type": metadata.data_type.to_json(),
                "chunk_grid": metadata.chunk_grid.to_json(),
                "chunk_key_encoding": metadata.chunk_key_encoding.to_json(),
                "fill_value": metadata.data_type.fill_value_to_json(metadata.fill_value),
                "codecs": [codec.to_json() for codec in metadata.codecs],
                "attributes": metadata.attributes,
            }
            if metadata.dimension_names is not None:
                doc["dimension_names"] = list(metadata.dimension_names)
            if metadata.storage_transformers:
                doc["storage_transformers"] = [t.to_json() for t in metadata.storage_transformers]
        if metadata.extensions:
            doc["extensions"] = c.extensions_to_json(metadata.extensions)
        doc.update(metadata.extra_fields)
        return doc

    # new_array and new_group render the document they create (to refuse what JSON cannot
    # hold before anything is written); writing that same metadata object next reuses the
    # bytes.
    _rendered: tuple[NodeMetadata, bytes] | None = None

    def write_node(self, store: Store, path: str, metadata: NodeMetadata) -> None:
        key = metadata_key(path)
        rendered = self._rendered
        if rendered is not None and rendered[0] is metadata:
            data = rendered[1]
            self._rendered = None  # used once: the creation's own write
        else:
            data = dump_document(self.document(metadata), key=key)
        store.set(key, data)

    def new_group(self, attributes: dict[str, Any] | None = None,
                  extensions: Any = None) -> GroupMetadata:
        metadata = GroupMetadata(c.attributes_from_json(attributes), FORMAT_NAME,
                                 extensions=c.extensions_from_json(extensions, "group"))
        self._rendered = (metadata, dump_document(self.document(metadata)))  # as new_array
        return metadata

    def new_array(self, spec: ArrayCreationSpec) -> ArrayMetadata:
        shape = spec.shape
        data_type = c.data_type_from_user(spec.dtype)
        if spec.fill_value is None:
            fill_value = data_type.default_fill_value()
        else:
            try:
                fill_value = data_type.from_user_value(spec.fill_value)
            except (TypeError, ValueError, OverflowError) as exc:
                if isinstance(exc, MetadataError):
                    raise
                raise MetadataError(f"{spec.fill_value!r} is not a valid fill value for data type "
                                    f"{data_type.to_json()!r}: {exc}", field="fill_value",
                                    value=spec.fill_value) from exc
        outer_chunks = spec.shards if spec.shards is not None else spec.chunks
        grid = self._grid(outer_chunks, shape)
        codecs = self._codecs(spec, data_type)
        if spec.shards is not None:
            codecs = (self._sharding_codec(spec, codecs),)
        chunk_shape = grid.regular_chunk_shape or tuple(d.size(0) for d in grid.dimensions)
        layout = c.memory_layout("C")
        chain = CodecChain.evolved(codecs, ChunkSpec(chunk_shape, data_type, fill_value, layout))
        metadata = ArrayMetadata(
            shape=shape,
            data_type=data_type,
            chunk_grid=grid,
            chunk_key_encoding=self._key_encoding(spec.chunk_key_encoding),
            fill_value=fill_value,
            codecs=chain.codecs,
            attributes=c.attributes_from_json(spec.attributes, field="attributes"),
            format_name=FORMAT_NAME,
            dimension_names=c.dimension_names_from_json(spec.dimension_names, len(shape)),
            storage_transformers=c.storage_transformers_from_json(spec.storage_transformers),
            extensions=c.extensions_from_json(spec.extensions, "array"),
        )
        # everything must be representable as JSON (metadata is frozen: the bytes stay valid)
        self._rendered = (metadata, dump_document(self.document(metadata)))
        return metadata

    @staticmethod
    def _grid(chunks: Any, shape: tuple[int, ...]) -> ChunkGrid:
        if isinstance(chunks, ChunkGrid):
            return chunks.with_shape(shape)
        if isinstance(chunks, dict):
            return c.chunk_grid_from_json(chunks, shape, field="chunks")
        if isinstance(chunks, int):
            chunks = (chunks,) * len(shape)
        chunk_shape = [max(1, int(n)) if n is not None else max(1, s)
                       for n, s in zip(chunks, shape)] if len(chunks) == len(shape) else list(chunks)
        return c.chunk_grid_from_json({"name": "regular", "configuration": {"chunk_shape": chunk_shape}},
                                      shape, field="chunks")

    @staticmethod
    def _key_encoding(value: Any) -> ChunkKeyEncoding:
        if value is None:
            value = DEFAULT_KEY_ENCODING
        if isinstance(value, ChunkKeyEncoding):
            return value
        if isinstance(value, dict) and "name" in value and "configuration" not in value:
            # zarr-python's flat form {"name": "v2", "separator": "."}
            value = {"name": value["name"],
                     "configuration": {k: v for k, v in value.items() if k != "name"}}
        return c.chunk_key_encoding_from_json(value, field="chunk_key_encoding")

    @staticmethod
    def _codecs(spec: ArrayCreationSpec, data_type: DataType) -> tuple[Codec, ...]:
        if spec.codecs is not None:
            return tuple(c.codec_from_user(v, field=f"codecs[{i}]")
                         for i, v in enumerate(_as_list(spec.codecs)))
        filters = [c.codec_from_user(v, field=f"filters[{i}]")
                   for i, v in enumerate(_as_list(spec.filters))]
        default = data_type.default_serializer() or DEFAULT_SERIALIZER
        serializer = c.codec_from_user(spec.serializer or default, field="serializer")
        if isinstance(spec.compressors, str) and spec.compressors == "auto":
            compressors = [DEFAULT_COMPRESSOR] if "zstd" in registry.codecs else []
        else:
            compressors = _as_list(spec.compressors)
        return tuple([*filters, serializer,
                      *(c.codec_from_user(v, field=f"compressors[{i}]")
                        for i, v in enumerate(compressors))])

    @staticmethod
    def _sharding_codec(spec: ArrayCreationSpec, inner: tuple[Codec, ...]) -> Codec:
        inner_chunks = spec.chunks if not isinstance(spec.chunks, int) else (spec.chunks,) * len(spec.shape)
        return c.codec_from_user({
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": list(inner_chunks),
                "codecs": [codec.to_json() for codec in inner],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                 {"name": "crc32c"}],
                "index_location": "end",
            },
        }, field="shards")

    # --- layout -------------------------------------------------------------------

    def list_children(self, store: Store, path: str) -> list[str]:
        prefix = f"{path}/" if path else ""
        names = []
        for child in store.list_dir(prefix).prefixes:
            name = child.rstrip("/")
            try:
                paths.validate_name(name)
            except InvalidPathError:
                continue  # chunk directories such as "c" of a root array, or foreign data
            if store.exists(metadata_key(paths.join(path, name))):
                names.append(name)
        return sorted(names)

    def erase_node(self, store: Store, path: str) -> None:
        store.erase_prefix(f"{path}/" if path else "")

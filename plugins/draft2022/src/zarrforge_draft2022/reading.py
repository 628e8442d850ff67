"""The 2022 draft's node documents -> the resolved model (the table in :mod:`.format`).

:class:`DocumentReader` is a mixin of :class:`~.format.Draft2022Format`: it parses
one array or group document of a hierarchy whose entry point is known, resolving
every name through the registries. Errors name the field; the format adds the key.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zarrforge import plugin_api as c
from zarrforge.errors import MetadataError, UnknownExtensionError
from zarrforge.plugin_api import (ChunkGrid, ChunkSpec, Codec, CodecKind, DataType, SkippedCodec,
                                  check_order, registry)
from zarrforge.plugin_api import (ArrayMetadata, ExtensionEntry, GroupMetadata, UnknownExtension,
                                  split_unknown_fields)

from . import codecs as codec_map
from . import data_types as dts
from . import fill_values as fills
from . import transformers as st
from .dialects import ZARR_PYTHON
from .entry_point import EntryPoint, check_extension
from .keys import DraftChunkKeyEncoding

FORMAT_NAME = "draft-2022"
ARRAY_FIELDS = {"shape", "data_type", "chunk_grid", "chunk_memory_layout", "fill_value",
                "extensions", "attributes", "codecs", "compressor", "storage_transformers",
                "dimension_names", "dimension_separator"}
ARRAY_REQUIRED = ("shape", "data_type", "chunk_grid", "chunk_memory_layout", "fill_value")
GROUP_FIELDS = {"attributes"}


def _refield(exc: MetadataError, old: str, new: str) -> MetadataError:
    """``exc`` with the field prefix ``old`` replaced by ``new`` (the draft's nesting)."""
    if exc.field is None or not exc.field.startswith(old) or type(exc) is not MetadataError:
        return exc
    field = new + exc.field[len(old):]
    return MetadataError(exc.message, field=field, value=exc.value, key=exc.key)



def _layout_permutation(value: Any, ndim: int, *, field: str = "chunk_memory_layout"
                        ) -> list[int] | None:
    """None for C order, the reversed axes for F order (resolved through the registry)."""
    if isinstance(value, dict):
        name, where = value.get("extension"), f"{field}.extension"
    else:
        name, where = value, field
    if not isinstance(name, str) or not name:
        raise MetadataError(f"must be \"C\", \"F\" or an extension object, got {value!r}",
                            field=field, value=value)
    layout = registry.memory_layouts.get(name, field=where)()
    probe = np.arange(24).reshape(2, 3, 4)
    flat = np.asarray(layout.linearize(probe))
    if np.array_equal(flat, probe.ravel(order="C")):
        return None
    if np.array_equal(flat, probe.ravel(order="F")):
        return list(range(ndim))[::-1]
    raise MetadataError(f"memory layout {name!r} orders elements neither row-major (C) nor "
                        "column-major (F); the draft-2022 format can express only those",
                        field=field, value=value)



def _looks_like_filters(value: Any) -> bool:
    """zarr-python 2 keeps an array's numcodecs filters as attributes["filters"]."""
    return (isinstance(value, list) and bool(value)
            and all(isinstance(v, dict) and isinstance(v.get("id"), str) and v["id"] for v in value))


class DocumentReader:
    """Parsing node documents (mixed into :class:`~.format.Draft2022Format`)."""

    def _parse_group(self, document: dict[str, Any], entry: EntryPoint) -> GroupMetadata:
        extra = self._unknown_fields(document, GROUP_FIELDS, entry)
        return GroupMetadata(c.attributes_from_json(document.get("attributes")), FORMAT_NAME, extra)

    @staticmethod
    def _unknown_fields(document: dict[str, Any], known: set[str], entry: EntryPoint
                        ) -> dict[str, Any]:
        if entry.minor > 0:  # a later 3.x: names this version does not define may be ignored
            return {k: v for k, v in document.items() if k not in known}
        return split_unknown_fields(document, known, key=None)  # type: ignore[arg-type]

    def _parse_array(self, document: dict[str, Any], entry: EntryPoint) -> ArrayMetadata:
        missing = [f for f in ARRAY_REQUIRED if f not in document]
        if missing:
            raise MetadataError(f"array metadata lacks the required field(s) {missing}",
                                field=missing[0])
        extra = self._unknown_fields(document, ARRAY_FIELDS, entry)
        shape = c.shape_from_json(document["shape"])
        ndim = len(shape)
        data_type, byteorder = dts.parse_data_type(document["data_type"])
        fill_value, was_null = fills.fill_value_from_json(data_type, document["fill_value"])
        if was_null:
            extra["fill_value"] = None
        grid, separator = self._parse_grid(document["chunk_grid"], shape)
        if "dimension_separator" in document and document["dimension_separator"] not in ("/", "."):
            raise MetadataError(f"must be '/' or '.', got {document['dimension_separator']!r}",
                                field="dimension_separator", value=document["dimension_separator"])
        permutation = _layout_permutation(document["chunk_memory_layout"], ndim)
        attributes = dict(c.attributes_from_json(document.get("attributes")))
        filters: list[Any] = []
        if entry.dialect == ZARR_PYTHON and _looks_like_filters(attributes.get("filters")):
            filters = attributes.pop("filters")
        chunk_shape = grid.regular_chunk_shape or tuple(d.size(0) for d in grid.dimensions)
        codecs = self._parse_codecs(document, data_type, byteorder, fill_value, chunk_shape,
                                    permutation, filters)
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
            storage_transformers=(st.parse_list(document.get("storage_transformers"),
                                                field="storage_transformers")
                                  + entry.global_transformers()),
            extra_fields=extra,
            extensions=self._parse_extensions(document.get("extensions")),
        )

    @staticmethod
    def _parse_grid(value: Any, shape: tuple[int, ...], *, field: str = "chunk_grid"
                    ) -> tuple[ChunkGrid, str]:
        if not isinstance(value, dict):
            raise MetadataError(f"must be an object, got {value!r}", field=field, value=value)
        separator = value.get("separator", "/")
        if separator not in ("/", "."):
            raise MetadataError(f"must be '/' or '.', got {separator!r}", field=f"{field}.separator",
                                value=separator)
        if "extension" in value:
            uri = value["extension"]
            config = {k: v for k, v in value.items() if k not in ("extension", "separator")}
            if not isinstance(uri, str) or uri not in registry.chunk_grids:
                raise UnknownExtensionError("chunk grid", str(uri), registry.chunk_grids.names(),
                                            field=f"{field}.extension")
            return c.chunk_grid_from_json({"name": uri, "configuration": config}, shape,
                                          field=field), separator
        kind = value.get("type")
        if kind != "regular":
            raise MetadataError(f"unknown chunk grid type {kind!r}; the draft defines \"regular\" "
                                "(extension grids are objects with 'extension')",
                                field=f"{field}.type", value=kind)
        unexpected = set(value) - {"type", "chunk_shape", "separator"}
        if unexpected:
            raise MetadataError(f"unexpected member(s) {sorted(unexpected)}", field=field,
                                value=value)
        if "chunk_shape" not in value:
            raise MetadataError("a regular grid needs 'chunk_shape'", field=f"{field}.chunk_shape")
        try:
            grid = c.chunk_grid_from_json(
                {"name": "regular", "configuration": {"chunk_shape": value["chunk_shape"]}}, shape,
                field=field)
        except MetadataError as exc:
            renamed = _refield(exc, f"{field}.configuration.", f"{field}.")
            if renamed is exc:
                raise
            raise renamed from exc
        return grid, separator

    def _parse_codecs(self, document: dict[str, Any], data_type: DataType,
                      byteorder: str | None, fill_value: Any, chunk_shape: tuple[int, ...],
                      permutation: list[int] | None, filters: list[dict[str, Any]]
                      ) -> tuple[Codec, ...]:
        ndim = len(chunk_shape)
        if "codecs" in document and "compressor" in document:
            raise MetadataError("give either 'codecs' (the editor's draft) or 'compressor' "
                                "(zarr-python 2), not both", field="compressor",
                                value=document["compressor"])
        references: list[tuple[Any, Any, str, str]] = []  # (uri, configuration, field, type field)
        listed = document.get("codecs")
        if listed is not None:
            if not isinstance(listed, list):
                raise MetadataError(f"must be a list of codec objects, got {listed!r}",
                                    field="codecs", value=listed)
            for i, entry in enumerate(listed):
                where = f"codecs[{i}]"
                if not isinstance(entry, dict) or "type" not in entry:
                    raise MetadataError(f"a codec is an object with 'type' (its URI) and optional "
                                        f"'configuration', got {entry!r}", field=where, value=entry)
                unexpected = set(entry) - {"type", "configuration"}
                if unexpected:
                    raise MetadataError(f"unexpected member(s) {sorted(unexpected)}", field=where,
                                        value=entry)
                references.append((entry["type"], entry.get("configuration"), where, f"{where}.type"))
        compressor = document.get("compressor")
        if compressor is not None:
            if not isinstance(compressor, dict) or "codec" not in compressor:
                raise MetadataError(f"the compressor is an object with 'codec' (its URI) and "
                                    f"'configuration', got {compressor!r}", field="compressor",
                                    value=compressor)
            references.append((compressor["codec"], compressor.get("configuration"), "compressor",
                               "compressor.codec"))

        spec = ChunkSpec(chunk_shape, data_type, fill_value, c.memory_layout("C"))
        codecs: list[Codec] = []
        if permutation is not None:
            transpose = c.codec_from_json({"name": "transpose",
                                           "configuration": {"order": permutation}},
                                          field="chunk_memory_layout")
            codecs.append(transpose)
        current = byteorder or "<"
        for i, config in enumerate(filters):
            where = f"attributes.filters[{i}]"
            options = {k: v for k, v in config.items() if k != "id"}
            document_ = {"name": f"numcodecs.{config['id']}"}
            if options:
                document_["configuration"] = options
            codecs.append(c.codec_from_json(document_, field=where))
            for key in ("astype", "encode_dtype"):
                if isinstance(config.get(key), str) and config[key][:1] in "<>":
                    current = config[key][:1]
                    break

        def build(ref: tuple[Any, Any, str, str], item_size: int | None) -> Codec:
            uri, configuration, where, type_where = ref
            return codec_map.codec_from_draft(uri, configuration, field=where, type_field=type_where,
                                              ndim=ndim, item_size=item_size)

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
            for ref, codec in zip(references, built):
                if getattr(codec, "name", None) == "blosc" and getattr(codec, "typesize", 1) is None:
                    position = next(j for j, k in enumerate(codecs) if k is codec)
                    codecs[position] = build(ref, item_size)
        if not any(k.kind is CodecKind.ARRAY_BYTES for k in codecs):
            position = next((j for j, k in enumerate(codecs) if k.kind is CodecKind.BYTES_BYTES),
                            len(codecs))
            serializer: dict[str, Any] = {"name": "bytes"}
            if spec.data_type.has_endianness:
                serializer["configuration"] = {"endian": "big" if current == ">" else "little"}
            codecs.insert(position, c.codec_from_json(serializer, field="data_type"))
        check_order([k for k in codecs if not isinstance(k, SkippedCodec)], field="codecs")
        return tuple(codecs)

    @staticmethod
    def _parse_extensions(value: Any, *, field: str = "extensions") -> tuple[ExtensionEntry, ...]:
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
                converted: dict[str, Any] = {"name": uri,
                                             "must_understand": item.get("must_understand", True)}
                if item.get("configuration") is not None:
                    converted["configuration"] = item["configuration"]
                entries.append(c.extension_from_json(converted, "array", field=where))
            else:
                entries.append(UnknownExtension(item))  # must_understand: false, kept verbatim
        return tuple(entries)

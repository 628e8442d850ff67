"""The 2022 editor's draft of Zarr v3 as a zarrforge format (registered as ``"draft-2022"``).

Layout (see :mod:`.keys`): one entry point ``zarr.json`` per hierarchy,
``meta/root/<path>.array.json`` / ``.group.json`` per node (the root's at
``meta/root.array.json`` / ``meta/root.group.json``), chunks under
``data/root/<path>/c<i><sep><j>``. A path with descendants but no document
of its own is an *implicit group*. Erasing follows the draft: a node's
documents, then ``erase_prefix`` of ``meta/root/<path>/`` and
``data/root/<path>/``; erasing the root also removes ``zarr.json`` (so a
hierarchy created again in its place may take another dialect).

Both dialects (:mod:`.dialects`) are read without being told which; new
hierarchies are written in the option's dialect (``"zarr-python"`` by
default), nodes added to an existing one in its dialect.

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
                         ``"F"``, or ``{"extension": URI, ...}``) and checked to be
                         row- or column-major. ``F`` becomes a leading ``transpose``
                         codec with the reversed axis order: the draft serialises an
                         F chunk as the chunk with its dimension order reversed, in C
                         order -- exactly the bytes of the chunk in Fortran order, as
                         zarr-python 2 writes them. Kept for every ``ndim`` (an
                         identity for 0-d and 1-d arrays) so the layout survives a
                         round trip; on writing, a leading transpose that reverses
                         all axes is written back as ``"F"``.
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

Every error names the store key and the field.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Iterator, Sequence

import numpy as np

from zarrforge import plugin_api as c
from zarrforge.errors import InvalidPathError, MetadataError, UnknownExtensionError
from zarrforge.plugin_api import (ArrayCreationSpec, ChunkGrid, ChunkSpec, Codec, CodecKind,
                                  DataType, Format, NodeDocument, SkippedCodec, Store, check_order,
                                  evolve_codecs,
                                  dump_document, load_document, paths, registry)
from zarrforge.plugin_api import (ArrayMetadata, ExtensionEntry, GroupMetadata, NodeMetadata,
                                  UnknownExtension, split_unknown_fields)

from . import codecs as codec_map
from . import data_types as dts
from . import fill_values as fills
from . import transformers as st
from .dialects import ZARR_PYTHON, get_default_dialect, normalize_dialect
from .entry_point import (EntryPoint, GlobalStorageTransformer, cached_entry_point, check_extension,
                          new_entry_point, with_key)
from .keys import (ENTRY_POINT_KEY, DraftChunkKeyEncoding, array_key, data_prefix, group_key,
                   meta_prefix, validate_draft_path)

FORMAT_NAME = "draft-2022"
ARRAY_FIELDS = {"shape", "data_type", "chunk_grid", "chunk_memory_layout", "fill_value",
                "extensions", "attributes", "codecs", "compressor", "storage_transformers",
                "dimension_names", "dimension_separator"}
ARRAY_REQUIRED = ("shape", "data_type", "chunk_grid", "chunk_memory_layout", "fill_value")
GROUP_FIELDS = {"attributes"}

# zarr-python 2's default compressor: Blosc(cname="lz4", clevel=5, shuffle=SHUFFLE, blocksize=0).
DEFAULT_COMPRESSOR = {"name": "blosc",
                      "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle",
                                        "blocksize": 0}}


def _refield(exc: MetadataError, old: str, new: str) -> MetadataError:
    """``exc`` with the field prefix ``old`` replaced by ``new`` (the draft's nesting)."""
    if exc.field is None or not exc.field.startswith(old) or type(exc) is not MetadataError:
        return exc
    field = new + exc.field[len(old):]
    return MetadataError(exc.message, field=field, value=exc.value, key=exc.key)


def dump(document: dict[str, Any], dialect: str) -> bytes:
    """JSON as the dialect's writer produces it (zarr-python: sorted keys, 4-space indent, ASCII)."""
    if dialect == ZARR_PYTHON:
        try:
            return json.dumps(document, indent=4, sort_keys=True, ensure_ascii=True,
                              separators=(",", ": "), allow_nan=False).encode("ascii")
        except (TypeError, ValueError) as exc:
            raise MetadataError(f"cannot be written as JSON: {exc}") from exc
    return dump_document(document)


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


class Draft2022Format(Format):
    """The 2022 draft's format.

    ``dialect``: the dialect of hierarchies this instance creates (default:
    :func:`~zarrforge_draft2022.dialects.get_default_dialect`, or the dialect of
    the hierarchy this instance last read). ``chunk_memory_layout``: ``"C"``
    (default) or ``"F"`` for new arrays. ``storage_transformers``: global storage
    transformers of a new hierarchy (editor dialect).
    """

    name = FORMAT_NAME

    def __init__(self, dialect: str | None = None, *, chunk_memory_layout: str = "C",
                 storage_transformers: Sequence[Any] = ()) -> None:
        self._dialect = normalize_dialect(dialect) if dialect is not None else None
        if chunk_memory_layout not in ("C", "F"):
            raise ValueError(f"chunk_memory_layout must be 'C' or 'F', got {chunk_memory_layout!r}")
        self._layout = chunk_memory_layout
        self._global = st.parse_list(list(storage_transformers), field="storage_transformers")
        self._seen: EntryPoint | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<Draft2022Format dialect={self.dialect!r}>"

    @property
    def dialect(self) -> str:
        """The dialect this instance writes new hierarchies in."""
        if self._dialect is not None:
            return self._dialect
        if self._seen is not None:
            return self._seen.dialect
        return get_default_dialect()

    # --- the entry point --------------------------------------------------------------

    def entry_point(self, store: Store) -> EntryPoint | None:
        """The hierarchy's entry point, or None when ``zarr.json`` is absent or not the draft's."""
        data = store.get(ENTRY_POINT_KEY)
        if data is None:
            return None
        entry = cached_entry_point(data)
        if entry is not None:
            with self._lock:
                self._seen = entry
        return entry

    def _entry_for_writing(self, store: Store, dialect: str) -> tuple[EntryPoint, bool]:
        """The hierarchy's entry point, or a new one (``True``: not yet written)."""
        entry = self.entry_point(store)
        if entry is not None:
            return entry, False
        if store.get(ENTRY_POINT_KEY) is not None:
            raise MetadataError("the store's root holds a document of another format (the "
                                "final v3 format's root node, say); a 2022-draft hierarchy "
                                "cannot be created over it", field="zarr_format",
                                key=ENTRY_POINT_KEY)
        return new_entry_point(dialect, self._global), True

    # --- reading ----------------------------------------------------------------------

    def read_document(self, store: Store, path: str) -> NodeDocument | None:
        entry = self.entry_point(store)
        if entry is None:
            return None
        meta = entry.meta_store(store)
        suffix = entry.suffix
        for key, node_type in ((array_key(path, suffix), "array"),
                               (group_key(path, suffix), "group")):
            data = meta.get(key)
            if data is not None:
                return NodeDocument(FORMAT_NAME, node_type, key,
                                    {"entry_point": entry, "document": load_document(data, key=key)})
        if next(iter(meta.list_prefix(meta_prefix(path))), None) is not None:
            return NodeDocument(FORMAT_NAME, "group", group_key(path, suffix),
                                {"entry_point": entry, "document": None})  # implicit group
        return None

    def resolve(self, document: NodeDocument) -> NodeMetadata:
        entry, content = document.content["entry_point"], document.content["document"]
        if content is None:
            return GroupMetadata({}, FORMAT_NAME)  # implicit group
        parse = self._parse_array if document.node_type == "array" else self._parse_group
        try:
            return parse(content, entry)
        except MetadataError as exc:
            raise with_key(exc, document.key)

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

    # --- writing ----------------------------------------------------------------------

    def _encoding(self, metadata: ArrayMetadata, dialect: str | None = None) -> DraftChunkKeyEncoding:
        encoding = metadata.chunk_key_encoding
        if isinstance(encoding, DraftChunkKeyEncoding) and (dialect is None
                                                            or encoding.dialect == dialect):
            return encoding
        separator = getattr(encoding, "separator", "/")
        return DraftChunkKeyEncoding(separator, dialect or self.dialect)

    def document(self, metadata: NodeMetadata) -> dict[str, Any]:
        if isinstance(metadata, GroupMetadata):
            return self._group_document(metadata)
        return self._array_document(metadata, self._encoding(metadata).dialect)

    @staticmethod
    def _group_document(metadata: GroupMetadata) -> dict[str, Any]:
        if metadata.consolidated is not None:
            raise MetadataError("the 2022 draft has no consolidated metadata; a hierarchy is "
                                "listed with list_prefix('meta/root/') instead",
                                field="consolidated_metadata")
        if metadata.extensions:
            raise MetadataError("the 2022 draft has no group extensions", field="extensions")
        doc: dict[str, Any] = {"attributes": metadata.attributes}
        doc.update(metadata.extra_fields)
        return doc

    def _array_document(self, metadata: ArrayMetadata, dialect: str) -> dict[str, Any]:
        ndim = len(metadata.shape)
        codecs = [k for k in metadata.codecs]
        layout = "C"
        first = codecs[0] if codecs else None
        if first is not None and first.kind is CodecKind.ARRAY_ARRAY and \
                first.to_json().get("name") == "transpose":
            order = list(first.to_json()["configuration"]["order"])
            if order == list(range(ndim))[::-1]:
                layout, codecs = "F", codecs[1:]
            elif order == list(range(ndim)):
                codecs = codecs[1:]
        ab = [j for j, k in enumerate(codecs) if k.kind is CodecKind.ARRAY_BYTES]
        if len(ab) != 1:
            raise MetadataError(f"the codec list must contain exactly one array -> bytes codec, "
                                f"found {len(ab)}", field="codecs")
        array_codecs, serializer, bytes_codecs = codecs[:ab[0]], codecs[ab[0]], codecs[ab[0] + 1:]
        serializer_json = serializer.to_json()
        endian = (serializer_json.get("configuration") or {}).get("endian") \
            if serializer_json.get("name") == "bytes" else None
        grid = metadata.chunk_grid
        encoding = self._encoding(metadata, dialect)
        chunk_grid = self._grid_document(grid, encoding.separator)
        doc: dict[str, Any] = {"shape": list(metadata.shape)}
        attributes = dict(metadata.attributes)
        position = {id(k): i for i, k in enumerate(metadata.codecs)}

        def where(codec: Codec) -> str:
            return f"codecs[{position.get(id(codec), '?')}]"

        if dialect == ZARR_PYTHON:
            filters: list[dict[str, Any]] = []
            for codec in array_codecs:
                filters.append(self._numcodecs_filter(codec, field=where(codec)))
            if serializer_json.get("name") != "bytes":
                raise MetadataError(f"zarr-python 2 serialises chunks with numpy only, not with "
                                    f"{serializer_json.get('name')!r}; write this hierarchy in the "
                                    "'editor' dialect", field="codecs", value=serializer_json)
            spelled_endian = endian
            if filters:
                spelled_endian = "little"  # the array zarr-python filters is in memory order
            data_type, _ = dts.spell(metadata.data_type, spelled_endian, dialect)
            compressor = None
            if bytes_codecs:
                *byte_filters, last = bytes_codecs
                for codec in byte_filters:
                    filters.append(self._numcodecs_filter(codec, field=where(codec), before=True))
                uri, config = codec_map.draft_reference(last, field=where(last),
                                                        registry_names=False)
                compressor = {"codec": uri, "configuration": config}
            if filters:
                attributes["filters"] = filters
            doc.update(chunk_grid=chunk_grid, data_type=data_type,
                       chunk_memory_layout=layout)
            if compressor is not None:
                doc["compressor"] = compressor
            if encoding.separator != "/":
                doc["dimension_separator"] = encoding.separator
        else:
            data_type, spelled = dts.spell(metadata.data_type, endian, dialect)
            listed: list[dict[str, Any]] = []
            for codec in array_codecs:
                uri, config = codec_map.draft_reference(codec, field=where(codec),
                                                        registry_names=True)
                listed.append({"type": uri, "configuration": config} if config else {"type": uri})
            if serializer_json.get("name") == "bytes":
                explicit = getattr(serializer, codec_map.URI_ATTR, None) is not None
                stated = {"<": "little", ">": "big"}.get(spelled or "")
                if endian is not None and (explicit or (endian != (stated or "little"))):
                    uri, config = codec_map.draft_reference(serializer, field=where(serializer),
                                                            registry_names=True)
                    listed.append({"type": uri, "configuration": config})
            else:
                uri, config = codec_map.draft_reference(serializer, field=where(serializer),
                                                        registry_names=True)
                listed.append({"type": uri, "configuration": config} if config else {"type": uri})
            for codec in bytes_codecs:
                uri, config = codec_map.draft_reference(codec, field=where(codec),
                                                        registry_names=True)
                listed.append({"type": uri, "configuration": config} if config else {"type": uri})
            doc.update(data_type=data_type, chunk_grid=chunk_grid, chunk_memory_layout=layout,
                       codecs=listed)
        doc["fill_value"] = fills.fill_value_to_json(metadata.data_type, metadata.fill_value,
                                                     dialect)
        doc["extensions"] = self._extensions_document(metadata.extensions)
        doc["attributes"] = attributes
        own = [t for t in metadata.storage_transformers
               if not isinstance(t, GlobalStorageTransformer)]
        if own:
            doc["storage_transformers"] = [st.to_draft(t, field=f"storage_transformers[{i}]")
                                           for i, t in enumerate(own)]
        if metadata.dimension_names is not None:
            doc["dimension_names"] = list(metadata.dimension_names)
        doc.update(metadata.extra_fields)
        return doc

    @staticmethod
    def _numcodecs_filter(codec: Codec, *, field: str, before: bool = False) -> dict[str, Any]:
        document = codec.to_json()
        name = document.get("name", "")
        if not isinstance(name, str) or not name.startswith("numcodecs."):
            where = ("before the compressor (zarr-python 2 stores a single compressor, and "
                     "numcodecs filters ahead of it)" if before else
                     "among the filters (zarr-python 2 applies numcodecs filters only)")
            raise MetadataError(f"codec {name!r} has no place {where}; write this hierarchy in "
                                "the 'editor' dialect", field=field, value=document)
        return {"id": name[len("numcodecs."):], **(document.get("configuration") or {})}

    @staticmethod
    def _grid_document(grid: ChunkGrid, separator: str) -> dict[str, Any]:
        document = grid.to_json()
        if document.get("name") == "regular":
            return {"type": "regular",
                    "chunk_shape": list(document["configuration"]["chunk_shape"]),
                    "separator": separator}
        name = document.get("name")
        if isinstance(name, str) and "://" in name:
            return {"extension": name, **(document.get("configuration") or {}),
                    "separator": separator}
        raise MetadataError(f"chunk grid {name!r} has no form in the 2022 draft (it defines the "
                            "regular grid; other grids are extensions named by URI)",
                            field="chunk_grid", value=document)

    @staticmethod
    def _extensions_document(entries: tuple[ExtensionEntry, ...]) -> list[Any]:
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

    def render(self, metadata: NodeMetadata) -> bytes:
        """The node's document in this format's dialect (the hierarchy's, once written,
        may differ: ``write_node`` renders again for it)."""
        if isinstance(metadata, ArrayMetadata):
            dialect = self._encoding(metadata).dialect
            return dump(self._array_document(metadata, dialect), dialect)
        return dump(self._group_document(metadata), self.dialect)

    def write_node(self, store: Store, path: str, metadata: NodeMetadata,
                   rendered: bytes | None = None) -> None:
        validate_draft_path(path)
        is_array = isinstance(metadata, ArrayMetadata)
        dialect = self._encoding(metadata).dialect if is_array else self.dialect  # type: ignore[arg-type]
        entry, new = self._entry_for_writing(store, dialect)
        key = (array_key if is_array else group_key)(path, entry.suffix)
        try:
            if is_array:
                self._check_against_hierarchy(metadata, entry)  # type: ignore[arg-type]
            if rendered is None or entry.dialect != dialect:
                if is_array:
                    document = self._array_document(metadata, entry.dialect)  # type: ignore[arg-type]
                else:
                    document = self._group_document(metadata)  # type: ignore[arg-type]
                rendered = dump(document, entry.dialect)
        except MetadataError as exc:
            raise with_key(exc, key)
        if new:  # the entry point first: a node document without one would be invisible
            store.set(ENTRY_POINT_KEY, dump(entry.to_json(), entry.dialect))
            with self._lock:
                self._seen = entry
        entry.meta_store(store).set(key, rendered)

    @staticmethod
    def _check_against_hierarchy(metadata: ArrayMetadata, entry: EntryPoint) -> None:
        encoding = metadata.chunk_key_encoding
        if (len(metadata.shape) == 0 and isinstance(encoding, DraftChunkKeyEncoding)
                and encoding.dialect != entry.dialect):
            raise MetadataError(
                f"this 0-d array was built for the {encoding.dialect!r} dialect but the hierarchy "
                f"uses {entry.dialect!r} (its only chunk key differs: 'c' vs 'c0'); create it "
                "through the opened group, or pass fmt=Draft2022Format(dialect="
                f"{entry.dialect!r})", field="zarr_format")
        given = tuple(t for t in metadata.storage_transformers
                      if isinstance(t, GlobalStorageTransformer))
        if given != entry.global_transformers():
            raise MetadataError(
                "the hierarchy's global storage transformers "
                f"{[t.to_json() for t in entry.transformers]} differ from those this array was "
                f"built with {[t.to_json() for t in given]}; create it through the opened group",
                field="storage_transformers")

    # --- creating ---------------------------------------------------------------------

    def new_group(self, attributes: dict[str, Any] | None = None,
                  extensions: Any = None) -> GroupMetadata:
        if extensions:
            raise MetadataError("the 2022 draft has no group extensions", field="extensions",
                                value=extensions)
        return GroupMetadata(c.attributes_from_json(attributes), FORMAT_NAME)

    def new_array(self, spec: ArrayCreationSpec) -> ArrayMetadata:
        dialect = self.dialect
        shape = spec.shape
        data_type, byteorder = self._user_data_type(spec.dtype)
        fill_value = c.fill_value_from_user(data_type, spec.fill_value)
        chunks = self._chunk_shape(spec.chunks, shape, field="chunks")
        transformers = list(st.parse_list(spec.storage_transformers, field="storage_transformers"))
        if spec.shards is not None:
            shards = self._chunk_shape(spec.shards, shape, field="shards")
            if any(s % n for s, n in zip(shards, chunks)):
                raise MetadataError(f"the shard shape {list(shards)} must be a multiple of the chunk "
                                    f"shape {list(chunks)} (the draft's sharding transformer "
                                    "groups whole chunks)", field="shards", value=list(shards))
            transformers.append(st.parse({
                "extension": "https://purl.org/zarr/spec/storage_transformers/sharding/1.0",
                "type": "indexed",
                "configuration": {"chunks_per_shard": [s // n for s, n in zip(shards, chunks)]}},
                field="shards"))
        grid = c.chunk_grid_from_json({"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
                                      shape, field="chunks")
        codecs = self._user_codecs(spec, data_type, byteorder, ndim=len(shape))
        codecs = evolve_codecs(codecs, ChunkSpec(chunks, data_type, fill_value,
                                                 c.memory_layout("C")))
        if self._seen is not None:
            global_transformers = self._seen.global_transformers()
        else:
            global_transformers = tuple(GlobalStorageTransformer(t) for t in self._global)
        metadata = ArrayMetadata(
            shape=shape,
            data_type=data_type,
            chunk_grid=grid,
            chunk_key_encoding=DraftChunkKeyEncoding(self._separator(spec.chunk_key_encoding),
                                                     dialect),
            fill_value=fill_value,
            codecs=codecs,
            attributes=c.attributes_from_json(spec.attributes, field="attributes"),
            format_name=FORMAT_NAME,
            dimension_names=c.dimension_names_from_json(spec.dimension_names, len(shape)),
            storage_transformers=tuple(transformers) + global_transformers,
            extensions=c.extensions_from_json(spec.extensions, "array"),
        )
        return metadata  # render() refuses what the draft cannot state

    @staticmethod
    def _chunk_shape(chunks: Any, shape: tuple[int, ...], *, field: str) -> tuple[int, ...]:
        if isinstance(chunks, ChunkGrid):
            regular = chunks.regular_chunk_shape
            if regular is None:
                raise MetadataError("the 2022 draft's format creates regular grids only",
                                    field=field)
            return tuple(regular)
        if isinstance(chunks, int):
            chunks = (chunks,) * len(shape)
        chunks = tuple(chunks)
        if len(chunks) != len(shape):
            raise MetadataError(f"{list(chunks)} has {len(chunks)} entries but the array has "
                                f"{len(shape)} dimensions", field=field, value=list(chunks))
        return tuple(max(1, int(n)) if n is not None and n != -1 else max(1, s)
                     for n, s in zip(chunks, shape))

    @staticmethod
    def _separator(value: Any) -> str:
        if value is None:
            return "/"
        if isinstance(value, str):
            return value
        if isinstance(value, DraftChunkKeyEncoding):
            return value.separator
        if isinstance(value, dict):
            if value.get("name") not in (None, "default", FORMAT_NAME):
                raise MetadataError(f"the 2022 draft's chunk keys are 'c' + the coordinates joined "
                                    f"by a separator; {value.get('name')!r} keys cannot be "
                                    "expressed", field="chunk_key_encoding", value=value)
            config = value.get("configuration") or value
            return config.get("separator", "/")
        raise MetadataError(f"expected a separator ('/' or '.') or a chunk key encoding, got "
                            f"{value!r}", field="chunk_key_encoding", value=value)

    @staticmethod
    def _user_data_type(value: Any) -> tuple[DataType, str | None]:
        if isinstance(value, DataType):
            return value, None
        if isinstance(value, dict) and "extension" in value:
            return dts.parse_data_type(value, field="dtype")
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
            order = ">" if np_dtype.byteorder == ">" or (
                np_dtype.byteorder == "=" and np.little_endian is False) else "<"
        return data_type, order

    def _user_codec(self, value: Any, *, field: str, ndim: int) -> Codec:
        if isinstance(value, Codec):
            return value
        if isinstance(value, dict) and ("type" in value or "codec" in value):
            uri = value.get("type", value.get("codec"))
            return codec_map.codec_from_draft(uri, value.get("configuration"), field=field,
                                              type_field=f"{field}.type", ndim=ndim, item_size=None)
        if isinstance(value, str) and codec_map.codec_id_of(value) is not None:
            return codec_map.codec_from_draft(value, None, field=field, type_field=field, ndim=ndim,
                                              item_size=None)
        return c.codec_from_user(value, field=field)

    def _user_codecs(self, spec: ArrayCreationSpec, data_type: DataType, byteorder: str | None,
                     *, ndim: int) -> list[Codec]:
        def as_list(value: Any) -> list[Any]:
            if value is None:
                return []
            return list(value) if isinstance(value, (list, tuple)) else [value]

        if spec.codecs is not None:
            codecs = [self._user_codec(v, field=f"codecs[{i}]", ndim=ndim)
                      for i, v in enumerate(as_list(spec.codecs))]
        else:
            filters = [self._user_codec(v, field=f"filters[{i}]", ndim=ndim)
                       for i, v in enumerate(as_list(spec.filters))]
            endian = "big" if byteorder == ">" else "little"
            default = {"name": "bytes", "configuration": {"endian": endian}} \
                if data_type.has_endianness else {"name": "bytes"}
            serializer = self._user_codec(spec.serializer or default, field="serializer", ndim=ndim)
            if isinstance(spec.compressors, str) and spec.compressors == "auto":
                compressors = [DEFAULT_COMPRESSOR] if ndim > 0 and "blosc" in registry.codecs else []
            else:
                compressors = as_list(spec.compressors)
            codecs = [*filters, serializer,
                      *(self._user_codec(v, field=f"compressors[{i}]", ndim=ndim)
                        for i, v in enumerate(compressors))]
        if self._layout == "F" and not (codecs and codecs[0].to_json().get("name") == "transpose"):
            codecs.insert(0, c.codec_from_json(
                {"name": "transpose", "configuration": {"order": list(range(ndim))[::-1]}},
                field="chunk_memory_layout"))
        return codecs

    # --- layout -----------------------------------------------------------------------

    def chunk_key(self, path: str, metadata: ArrayMetadata, coords: Sequence[int]) -> str:
        return data_prefix(path) + self._encoding(metadata).encode_key(coords)

    def chunk_coords(self, path: str, metadata: ArrayMetadata, key: str) -> tuple[int, ...] | None:
        prefix = data_prefix(path)
        if not key.startswith(prefix):
            return None
        coords = self._encoding(metadata).decode_key(key[len(prefix):], len(metadata.shape))
        if coords is None or not all(i < n for i, n in zip(coords, metadata.chunk_grid.grid_shape)):
            return None
        return coords

    def stored_chunks(self, store: Store, path: str, metadata: ArrayMetadata
                      ) -> Iterator[tuple[int, ...]]:
        for key in store.list_prefix(data_prefix(path)):
            coords = self.chunk_coords(path, metadata, key)
            if coords is not None:
                yield coords

    def list_children(self, store: Store, path: str) -> list[str]:
        entry = self.entry_point(store)
        if entry is None:
            return []
        listing = entry.meta_store(store).list_dir(meta_prefix(path))
        names = set()
        endings = (f".array{entry.suffix}", f".group{entry.suffix}")
        for key in listing.keys:
            for ending in endings:
                if key.endswith(ending) and len(key) > len(ending):
                    names.add(key[:-len(ending)])
        names.update(prefix.rstrip("/") for prefix in listing.prefixes)
        valid = []
        for name in names:
            try:
                paths.validate_name(name)
            except InvalidPathError:
                continue
            valid.append(name)
        return sorted(valid)

    def erase_node(self, store: Store, path: str) -> None:
        entry = self.entry_point(store)
        if entry is None:
            return
        meta = entry.meta_store(store)
        meta.delete(array_key(path, entry.suffix))
        meta.delete(group_key(path, entry.suffix))
        meta.erase_prefix(meta_prefix(path))
        meta.erase_prefix(data_prefix(path))
        if not path:
            store.delete(ENTRY_POINT_KEY)  # the root is the hierarchy: its entry point goes too


def _looks_like_filters(value: Any) -> bool:
    """zarr-python 2 keeps an array's numcodecs filters as attributes["filters"]."""
    return (isinstance(value, list) and bool(value)
            and all(isinstance(v, dict) and isinstance(v.get("id"), str) and v["id"] for v in value))

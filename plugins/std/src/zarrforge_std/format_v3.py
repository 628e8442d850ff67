"""The final Zarr v3 format: one ``zarr.json`` per node.

Registered as format ``"3"``. A node at path ``p`` has its document at
``p/zarr.json`` (``zarr.json`` for the root); chunks live under ``p/`` at the
key the array's chunk key encoding gives. Unknown top-level fields follow the
``must_understand`` rule; ``consolidated_metadata`` in group documents is
recognised (the spec sanctions it) and kept. Legacy spellings that other
implementations still read are rewritten to the spec's before parsing
(:mod:`zarrforge_std.legacy_v3`), so they are read but never written.

Reading is lenient where peers are: zarr-python 3 writes the bare JSON tokens
``NaN``, ``Infinity`` and ``-Infinity`` into attributes (xarray's
``missing_value``), so documents holding them are read (the values become
Python floats). Writing is strict JSON: a fill value is written in the spec's
string form (``"NaN"``); attributes holding a non-finite float are refused
with an error naming the attribute.

Consolidated metadata entries are kept as read (plain documents) until a
member is opened, so an entry no installed plugin understands fails only
that member.

v3 records no memory layout (``bytes`` serialises in C order, ``transpose``
expresses other orders): a new array whose ``order`` is not C or F, or whose codecs
carry a recorded layout (a copied 2022-draft array's ``MemoryLayoutCodec``), is refused
with :func:`no_layout_message`, which names an installed format that records one.

Defaults for new arrays match zarr-python 3: a regular grid, the ``default``
chunk key encoding with ``/``, the ``bytes`` serializer (little-endian),
and ``zstd`` (level 0, no checksum) as compressor when it is installed.

A *variant* of the format (a ZEP prototype changing part of the layout)
subclasses :class:`V3Format` and overrides only the members named in
:data:`VARIANT_HOOKS` (docs/plugin-guide/formats.md, "Variant formats"); every other
member, and every name starting with ``_``, is internal and may change.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar, cast

from zarrforge.errors import InvalidPathError, MetadataError
from zarrforge.plugin_api.formats import (
    ArrayCreationSpec,
    ArrayMetadata,
    ChunkGrid,
    ChunkKeyEncoding,
    ChunkSpec,
    ChunksUnderNode,
    Codec,
    CodecKind,
    CreationMemo,
    DataType,
    Format,
    GroupMetadata,
    IndexedEntries,
    ListedContent,
    MemoryLayoutCodec,
    NodeDocument,
    NodeMetadata,
    ParseMemo,
    RawJSON,
    RawMembers,
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
    dump_document_parts,
    evolve_codecs,
    extensions_from_document,
    extensions_from_json,
    extensions_to_document,
    fill_value_from_user,
    load_document,
    load_document_keeping_raw,
    memory_layout,
    paths,
    registry,
    shape_from_json,
    split_unknown_fields,
    storage_transformers_from_json,
    warn_uncompressed,
)

from . import legacy_v3

METADATA_KEY = "zarr.json"
FORMAT_NAME = "3"
ARRAY_FIELDS = {
    "zarr_format",
    "node_type",
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
    "attributes",
    "storage_transformers",
    "dimension_names",
    "extensions",
}
ARRAY_REQUIRED = ARRAY_FIELDS - {"attributes", "storage_transformers", "dimension_names", "extensions"}
GROUP_FIELDS = {"zarr_format", "node_type", "attributes", "consolidated_metadata", "extensions"}
_LISTED_MEMBERS = ("zarr_format", "node_type", "attributes")  # what a member listing asks of an array
_VIEW_ENTRIES = ("consolidated_metadata", "metadata")  # kept as text in a large document
_ENTRY_MEMBERS = ("node_type", "consolidated_metadata")  # what reading a view asks of an entry
# a root read to survey the hierarchy and read again to update its view is parsed once
_LARGE_DOCUMENTS = ParseMemo(min_bytes=1 << 20)
_CREATIONS = CreationMemo()

DEFAULT_SERIALIZER = {"name": "bytes"}
DEFAULT_COMPRESSOR = {"name": "zstd", "configuration": {"level": 0, "checksum": False}}
DEFAULT_KEY_ENCODING = {"name": "default", "configuration": {"separator": "/"}}


_ARGUMENT_FOR = {
    CodecKind.ARRAY_ARRAY: "filters=",
    CodecKind.ARRAY_BYTES: "serializer=",
    CodecKind.BYTES_BYTES: "compressors=",
}


def _of_kind(codec: Codec, kind: CodecKind, field: str) -> Codec:
    """``codec``, if it is of the ``kind`` its argument takes; else an error naming the
    argument the codec belongs in."""
    if codec.kind is not kind and codec.kind is not None:
        name = codec.to_json().get("name")
        raise MetadataError(
            f"codec {name!r} is {codec.kind.value}, but {field.split('[')[0]} "
            f"takes {kind.value} codecs; pass it as {_ARGUMENT_FOR[codec.kind]}",
            field=field,
            value=name,
        )
    return codec


def no_layout_message(layout: str) -> str:
    """Why a v3 array cannot take the memory layout ``layout`` (other than C or F), naming
    an installed format that records one (``Format.recording_memory_layouts``)."""
    recording = registry.formats.first_answer(
        lambda fmt: fmt.recording_memory_layouts(), doing="asked for a format recording memory layouts"
    )
    where = (
        f"the {recording.name!r} format records a chunk memory layout and encodes the chunks through it"
        if recording is not None
        else "no installed format records one (zarrforge-draft2022's 'draft-2022' does)"
    )
    return (
        f"the memory layout {layout} cannot be stored in a v3 array: v3 records no "
        "memory layout (its 'bytes' codec serialises in C order, and F or any other "
        "axis order is expressed with the 'transpose' codec), so the layout would not "
        f"change the stored chunks; {where}"
    )


def metadata_key(path: str) -> str:
    return f"{path}/{METADATA_KEY}" if path else METADATA_KEY


def _attributes_out(metadata: NodeMetadata, keep_raw: bool) -> Any:
    """The attributes to write: text kept as read goes back as it was (``keep_raw``)."""
    attributes = metadata.attributes
    if isinstance(attributes, ListedContent):
        raw = attributes.raw
        return raw if keep_raw and raw is not None else dict(attributes)
    return attributes


def _view_too_large(view: RawJSON, key: str) -> str:
    return (
        f"the consolidated view in {key!r} ({view.encoded_size} bytes) "
        "makes the document larger than zarrforge.config max_document_bytes, so it is "
        "not read (members are read from the store). Remove it with "
        "zarrforge.remove_consolidated_metadata() (zarrforge consolidate --remove), or "
        "raise max_document_bytes to use it"
    )


#: What a variant of the format may override (docs/plugin-guide/formats.md, "Variant formats"):
#: class attributes first, then methods. Each is used by every path that needs it (reading,
#: listing, writing, rewriting), so overriding one changes the format consistently.
VARIANT_HOOKS = (
    "name",
    "metadata_name",
    "zarr_format_value",
    "required_fields",
    "metadata_key",
    "node_type_of",
    "parse",
    "document",
    "new_array",
    "new_group",
    "default_compressors",
)


def _ignorable(value: Any) -> bool:
    """May a reader that does not know this top-level field ignore it (``must_understand``)?"""
    return isinstance(value, dict) and value.get("must_understand") is False


class V3Format(ChunksUnderNode, Format):
    name = FORMAT_NAME
    #: the document of each node, ``<node>/zarr.json``
    metadata_name: ClassVar[str] = METADATA_KEY
    #: the ``zarr_format`` member of this format's documents: read (a document with
    #: another value is not this format's) and written
    zarr_format_value: ClassVar[Any] = 3
    #: top-level fields of a variant's own that every one of its documents carries: a
    #: document lacking one is not the variant's (:meth:`node_type_of`), and a document of
    #: the same ``zarr_format`` and key holding them, which plain v3 would refuse
    #: (``must_understand``), is handed to the variant by v3 when read (see
    #: :meth:`read_document`). Empty for v3 itself.
    required_fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        legacy = cls.__dict__.get("_node_type")
        if legacy is not None and "node_type_of" not in cls.__dict__:
            warnings.warn(
                f"{cls.__qualname__} overrides V3Format._node_type, which is "
                "deprecated (it goes in 0.3): override node_type_of(document, key)",
                DeprecationWarning,
                stacklevel=2,
            )
            method = legacy.__get__  # a staticmethod, as V3Format's was, or a plain method

            def node_type_of(self: V3Format, document: dict[str, Any], key: str) -> str | None:
                found: str | None = method(self, type(self))(document, key)
                return found

            cls.node_type_of = node_type_of  # type: ignore[method-assign]

    def metadata_key(self, path: str) -> str:
        """The store key of the document of the node at ``path``."""
        return f"{path}/{self.metadata_name}" if path else self.metadata_name

    # --- reading ------------------------------------------------------------------

    def read_document(self, store: Store, path: str) -> NodeDocument | None:
        """The node's document, or ``None``. A document of this format's ``zarr_format``
        with top-level fields it would refuse (``must_understand``) is handed over to an
        installed variant whose :attr:`required_fields` it holds, if one claims it
        (:meth:`node_type_of`): the document then names that variant
        (``NodeDocument.format_name``) and detection opens the node with it, from the
        bytes read here. Plain documents are never offered to a variant."""
        key = self.metadata_key(path)
        data = store.get(key)
        if data is None:
            return None
        document = _LARGE_DOCUMENTS.parse(data, (self.name, key), lambda data: self._document_from(data, key))
        return None if document is None else self._claimed(document, path)

    def _claimed(self, document: NodeDocument, path: str) -> NodeDocument:
        """``document``, or the same document named for the installed variant claiming it
        by its required fields (see :meth:`read_document`)."""
        known = (GROUP_FIELDS if document.node_type == "group" else ARRAY_FIELDS).union(self.required_fields)
        content = document.content
        unknown = {name for name, value in content.items() if name not in known and not _ignorable(value)}
        if not unknown:
            return document  # what plain documents cost: one look at the top-level names

        def claims(implementation: Any) -> NodeDocument | None:
            if not (
                isinstance(implementation, type)
                and issubclass(implementation, V3Format)
                and implementation is not type(self)
                and implementation.required_fields
                and unknown.intersection(implementation.required_fields)
            ):
                return None
            variant = implementation()
            if variant.metadata_key(path) != document.key:
                return None
            node_type = variant.node_type_of(dict(content), document.key)
            return (
                None
                if node_type is None
                else dataclasses.replace(document, format_name=variant.name, node_type=node_type)
            )

        claimed = registry.formats.first_answer(
            claims, doing="asked whether it claims a v3 document by its required fields"
        )
        return document if claimed is None else claimed

    def detect(self, store: Store, path: str) -> bool:
        """Is a node of this format at ``path`` (a broken one included)? A document handed
        to a variant (:meth:`read_document`) is the variant's node, not this format's."""
        try:
            document = self.read_document(store, path)
        except MetadataError:
            return True
        return document is not None and document.format_name == self.name

    def _document_from(self, data: bytes, key: str) -> NodeDocument | None:
        # a large consolidated view's entries stay text until a member is opened
        document = load_document_keeping_raw(
            data, key=key, allow_nan=True, at=_VIEW_ENTRIES, kept=_ENTRY_MEMBERS, raw_values=("attributes",)
        )
        node_type = self.node_type_of(document, key)
        return None if node_type is None else NodeDocument(self.name, node_type, key, document)

    def node_type_of(self, document: dict[str, Any], key: str) -> str | None:
        """The node type of a parsed document read at ``key``: ``"array"`` or ``"group"``,
        ``None`` for another format's document (one whose ``zarr_format`` is not
        :attr:`zarr_format_value`: the 2022 draft's entry point, say; or one lacking a
        field of :attr:`required_fields`);
        :class:`~zarrforge.errors.MetadataError` for this format's document with a bad
        ``node_type``. Opening, detection and member listings all ask it."""
        if document.get("zarr_format") != self.zarr_format_value:
            return None
        if any(field not in document for field in self.required_fields):
            return None  # a variant's: v3's own (or another variant's) document
        node_type = document.get("node_type")
        if node_type not in ("array", "group"):
            raise MetadataError(
                f"must be 'array' or 'group', got {node_type!r}", field="node_type", value=node_type, key=key
            )
        checked: str = node_type
        return checked

    @staticmethod
    def _node_type(document: dict[str, Any], key: str) -> str | None:
        """Deprecated (goes in 0.3): :meth:`node_type_of`, as the v3 format itself answers."""
        warnings.warn(
            "V3Format._node_type is deprecated (it goes in 0.3): use node_type_of(document, key)",
            DeprecationWarning,
            stacklevel=2,
        )
        return V3Format().node_type_of(document, key)

    def document_key(self, path: str, node_type: str) -> str | None:
        return self.metadata_key(path)

    def resolve(self, document: NodeDocument) -> NodeMetadata:
        try:
            content = document.content
            return self.parse(content if type(content) is dict else dict(content), key=document.key)
        except MetadataError as exc:
            raise exc.at(document.key) from None

    def document_attributes(self, document: NodeDocument) -> dict[str, Any]:
        try:
            return dict(self._attributes(document.content.get("attributes"), document.key))
        except MetadataError as exc:
            raise exc.at(document.key) from None

    def parse(self, document: dict[str, Any], *, key: str) -> NodeMetadata:
        """The model of a node's parsed document (every name resolved); a variant reading
        fields of its own takes them out of the document before calling this."""
        if document.get("zarr_format") != self.zarr_format_value:
            raise MetadataError(
                f"expected {self.zarr_format_value!r}, got {document.get('zarr_format')!r}",
                field="zarr_format",
                value=document.get("zarr_format"),
                key=key,
            )
        node_type = document.get("node_type")
        if node_type == "group":
            extra = split_unknown_fields(document, GROUP_FIELDS, key=key)
            found = extensions_from_document(document, "group", known=GROUP_FIELDS, key=key)
            extra = _without(extra, found.top_level_keys)
            view = document.get("consolidated_metadata")
            unused = None
            if type(view) is RawJSON:  # set aside unread: over the size limit
                extra["consolidated_metadata"] = view  # written back as it was
                consolidated, unused = None, _view_too_large(view, key)
            else:
                consolidated = self._parse_consolidated(view, extra, key=key)
            return GroupMetadata(
                self._attributes(document.get("attributes"), key),
                self.name,
                extra,
                consolidated,
                found.entries,
                format_data=found.format_data,
                view_unused=unused,
            )
        if node_type != "array":
            raise MetadataError(
                f"must be 'array' or 'group', got {node_type!r}", field="node_type", value=node_type, key=key
            )
        missing = sorted(ARRAY_REQUIRED - set(document))
        if missing:
            raise MetadataError(
                f"array metadata lacks the required field(s) {missing}", field=missing[0], key=key
            )
        extra = split_unknown_fields(document, ARRAY_FIELDS, key=key)
        shape = shape_from_json(document["shape"])
        data_type = data_type_from_json(document["data_type"])
        document = legacy_v3.normalized(
            document,
            ndim=len(shape),
            has_endianness=data_type.has_endianness,
            endianness_of=lambda target: data_type_from_json(target).has_endianness,
        )
        fill_value = data_type.fill_value_from_json(document["fill_value"])
        found = extensions_from_document(document, "array", known=ARRAY_FIELDS, key=key)
        return ArrayMetadata(
            shape=shape,
            data_type=data_type,
            chunk_grid=chunk_grid_from_json(document["chunk_grid"], shape),
            chunk_key_encoding=chunk_key_encoding_from_json(document["chunk_key_encoding"]),
            fill_value=fill_value,
            codecs=codecs_from_json(document["codecs"]),
            attributes=self._attributes(document.get("attributes"), key),
            format_name=self.name,
            dimension_names=dimension_names_from_json(document.get("dimension_names"), len(shape)),
            storage_transformers=storage_transformers_from_json(document.get("storage_transformers")),
            extra_fields=_without(extra, found.top_level_keys),
            extensions=found.entries,
            format_data=found.format_data,
        )

    @staticmethod
    def _attributes(value: Any, key: str) -> Any:
        """A node's attributes: large ones were kept as text when read, and are parsed
        at their first use (a ``ListedContent``)."""
        if type(value) is RawJSON:
            if value.kept is None:
                raise MetadataError("must be an object, got an array", field="attributes", key=key)
            return ListedContent.of_raw(value, key=f"{key} (attributes)")
        return attributes_from_json(value)

    def _parse_consolidated(
        self, value: Any, extra: dict[str, Any], *, key: str
    ) -> Mapping[str, NodeDocument] | None:
        """Consolidated metadata as zarr-python 3 writes it (``kind: inline``).

        A null, an empty nested object (zarr-python writes one into each child
        group of a consolidated hierarchy) or an unknown ``kind`` gives ``None``;
        the last is kept verbatim because it is marked ``must_understand: false``.
        Entries are checked for shape (an object with a node type) and kept as
        documents: each is resolved when its member is opened.
        """
        field = "consolidated_metadata"
        if value is None:
            return None
        if not isinstance(value, dict) or value.get("must_understand") is not False:
            raise MetadataError(
                f'must be null or an object with "must_understand": false, got {value!r}',
                field=field,
                value=value,
            )
        if value.get("kind") != "inline":
            extra[field] = value
            return None
        entries = value.get("metadata")
        if type(entries) is RawMembers:
            return self._indexed_consolidated(entries, key=key)
        if not isinstance(entries, dict):
            raise MetadataError(
                f"must be an object of node documents, got {entries!r}",
                field=f"{field}.metadata",
                value=entries,
            )
        documents: dict[str, NodeDocument] = {}
        for name, document in entries.items():
            where = f"{field}.metadata[{name!r}]"
            try:
                relative = paths.normalize_path(name)
            except InvalidPathError as exc:
                raise MetadataError(str(exc), field=where, value=name) from exc
            entry_key = f"{key} ({where})"
            if type(document) is RawJSON and document.kept is not None:
                document = ListedContent.of_raw(document, key=entry_key)  # parsed when opened
            if not relative or not isinstance(document, (dict, ListedContent)):
                raise MetadataError(
                    "entries must map non-empty node paths to documents",
                    field=where,
                    value=document.text[:200] if type(document) is RawJSON else document,
                )
            node_type = document.get("node_type")
            if node_type not in ("array", "group"):
                raise MetadataError(
                    f"must be 'array' or 'group', got {node_type!r}",
                    field=f"{where}.node_type",
                    value=node_type,
                )
            if node_type == "group" and document.get("consolidated_metadata") is not None:
                # this view is authoritative: nested views are not read
                document = {k: v for k, v in document.items() if k != "consolidated_metadata"}
            documents[relative] = NodeDocument(self.name, node_type, entry_key, document)
        return documents

    def _indexed_consolidated(self, members: RawMembers, *, key: str) -> IndexedEntries:
        """:meth:`_parse_consolidated` for a view read as an index of its members: the
        same checks, with no object built per entry. An entry whose document must change
        (a name spelled otherwise than its normal path, a nested view) is recorded as a
        change, and written back changed, as the dict form would be."""
        field = "consolidated_metadata.metadata"
        kinds = members.kinds()
        for _, i, kept in kinds:
            node_type = kept.get("node_type")
            if node_type not in ("array", "group"):
                raise MetadataError(
                    f"must be 'array' or 'group', got {node_type!r}",
                    field=f"{field}[{members.names[i]!r}].node_type",
                    value=node_type,
                )

        document_of = functools.partial(self._entry_document, key)  # picklable, as a dict is
        entries = IndexedEntries(members, document_of)
        for name in members.names:
            try:
                relative = paths.normalize_path(name)
            except InvalidPathError as exc:
                raise MetadataError(str(exc), field=f"{field}[{name!r}]", value=name) from exc
            if not relative:
                raise MetadataError(
                    "entries must map non-empty node paths to documents",
                    field=f"{field}[{name!r}]",
                    value=name,
                )
            if relative != name:
                entries[relative] = entries[name]
                del entries[name]
        for kind, _, kept in kinds:
            if kept["node_type"] == "group" and kept.get("consolidated_metadata") is not None:
                for j in members.members_of_kind(kind):  # this view is authoritative
                    name = paths.normalize_path(members.names[j])
                    document = document_of(members.names[j], {members.names[j]: members.value(j)})
                    entries[name] = dataclasses.replace(
                        document,
                        content={k: v for k, v in document.content.items() if k != "consolidated_metadata"},
                    )
        return entries

    def _entry_document(self, key: str, name: str, members: dict[str, RawJSON]) -> NodeDocument:
        """The document of the view entry ``name`` of the group document at ``key``."""
        raw = members[name]
        entry_key = f"{key} (consolidated_metadata.metadata[{name!r}])"
        kept = cast("dict[str, Any]", raw.kept)  # an object: _indexed_consolidated checked each node_type
        return NodeDocument(self.name, kept["node_type"], entry_key, ListedContent.of_raw(raw, key=entry_key))

    # --- writing ------------------------------------------------------------------

    def document(self, metadata: NodeMetadata | NodeDocument) -> dict[str, Any]:
        """The JSON a node is stored as. A variant overriding it changes what is written
        too (:meth:`render`, :meth:`write_node`)."""
        return self._document(metadata, keep_raw=False)

    def _written(self, metadata: NodeMetadata) -> dict[str, Any]:
        # Consolidated entries kept as text are written as that text, unparsed; a variant's
        # own document() is written as it returns it.
        if type(self).document is not V3Format.document:
            return self.document(metadata)
        return self._document(metadata, keep_raw=True)

    def _document(self, metadata: NodeMetadata | NodeDocument, *, keep_raw: bool) -> dict[str, Any]:
        """``keep_raw``: consolidated entries kept as their text stay text (for writing)."""
        if isinstance(metadata, NodeDocument):  # a consolidated entry kept as read
            content = metadata.content
            raw = content.raw if keep_raw and isinstance(content, ListedContent) else None
            return raw if raw is not None else dict(content)  # type: ignore[return-value]
        if isinstance(metadata, GroupMetadata):
            doc: dict[str, Any] = {
                "zarr_format": self.zarr_format_value,
                "node_type": "group",
                "attributes": _attributes_out(metadata, keep_raw),
            }
            view = metadata.consolidated
            if view is not None:
                doc["consolidated_metadata"] = {
                    "kind": "inline",
                    "must_understand": False,
                    "metadata": view.edited(lambda entry: self._document(entry, keep_raw=True))
                    if keep_raw and isinstance(view, IndexedEntries)
                    else {
                        name: self._document(entry, keep_raw=keep_raw) for name, entry in sorted(view.items())
                    },
                }
        else:
            doc = {
                "zarr_format": self.zarr_format_value,
                "node_type": "array",
                "shape": list(metadata.shape),
                "data_type": metadata.data_type.to_json(),
                "chunk_grid": metadata.chunk_grid.to_json(),
                "chunk_key_encoding": metadata.chunk_key_encoding.to_json(),
                "fill_value": metadata.data_type.fill_value_to_json(metadata.fill_value),
                "codecs": [codec.to_json() for codec in metadata.codecs],
                "attributes": _attributes_out(metadata, keep_raw),
            }
            if metadata.dimension_names is not None:
                doc["dimension_names"] = list(metadata.dimension_names)
            if metadata.storage_transformers:
                doc["storage_transformers"] = [t.to_json() for t in metadata.storage_transformers]
        if metadata.extensions:
            listed, top_level = extensions_to_document(
                metadata,
                reserved=(GROUP_FIELDS if isinstance(metadata, GroupMetadata) else ARRAY_FIELDS)
                | metadata.extra_fields.keys(),
            )
            if listed:
                doc["extensions"] = listed
            doc.update(top_level)
        doc.update(metadata.extra_fields)
        return doc

    def render(self, metadata: NodeMetadata) -> bytes:
        return dump_document(self._written(metadata))

    def write_node(
        self, store: Store, path: str, metadata: NodeMetadata, rendered: bytes | None = None
    ) -> None:
        key = self.metadata_key(path)
        if rendered is not None:
            store.set(key, rendered)
            return
        parts = dump_document_parts(self._written(metadata), key=key)
        if len(parts) == 1:
            store.set(key, parts[0])
        else:  # a large view written back as the spans it was read in, never joined here
            store.set_parts(key, parts)

    def new_group(self, attributes: dict[str, Any] | None = None, extensions: Any = None) -> GroupMetadata:
        return GroupMetadata(
            attributes_from_json(attributes), self.name, extensions=extensions_from_json(extensions, "group")
        )

    def default_compressors(self, spec: ArrayCreationSpec) -> list[Any]:
        """zstd at level 0 without checksum, as zarr-python 3 writes (when a plugin provides
        zstd)."""
        if "zstd" in registry.codecs:
            return [DEFAULT_COMPRESSOR]
        warn_uncompressed(self.name, "zstd")
        return []

    def new_array(self, spec: ArrayCreationSpec) -> ArrayMetadata:
        """The new array's model; the v3 format itself (not a variant, which may build
        from more than the spec) gives again the model it built for equal arguments
        (:class:`CreationMemo`): a group's members created one by one resolve their codecs
        once."""
        if type(self) is V3Format:
            return _CREATIONS.new_array(self, spec, self._new_array)
        return self._new_array(spec)

    def _new_array(self, spec: ArrayCreationSpec) -> ArrayMetadata:
        shape = spec.shape
        if spec.order not in (None, "C", "F"):
            raise MetadataError(no_layout_message(repr(spec.order)), field="order", value=spec.order)
        data_type = data_type_from_user(spec.dtype)
        fill_value = fill_value_from_user(data_type, spec.fill_value)
        outer_chunks = spec.shards if spec.shards is not None else spec.chunks
        grid = self._grid(outer_chunks, shape)
        codecs = self._codecs(spec, data_type)
        for i, codec in enumerate(codecs):
            if isinstance(codec, MemoryLayoutCodec):  # a copied draft-2022 array's layout
                raise MetadataError(
                    no_layout_message(repr(codec.layout.name)), field=f"codecs[{i}]", value=codec.to_json()
                )
        if spec.shards is not None:
            codecs = (self._sharding_codec(spec, codecs),)
        # a dimension without chunks (length 0) has no chunk 0 to ask the size of
        chunk_shape = grid.regular_chunk_shape or tuple(
            d.size(0) if d.nchunks else 1 for d in grid.dimensions
        )
        layout = memory_layout("C")
        codecs = evolve_codecs(codecs, ChunkSpec(chunk_shape, data_type, fill_value, layout))
        metadata = ArrayMetadata(
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
        return metadata

    @staticmethod
    def _grid(chunks: Any, shape: tuple[int, ...]) -> ChunkGrid:
        if isinstance(chunks, ChunkGrid):
            return chunks.with_shape(shape)
        if isinstance(chunks, dict):
            return chunk_grid_from_json(chunks, shape, field="chunks")
        if isinstance(chunks, int):
            chunks = (chunks,) * len(shape)
        chunk_shape = (
            [max(1, int(n)) if n is not None else max(1, s) for n, s in zip(chunks, shape)]
            if len(chunks) == len(shape)
            else list(chunks)
        )
        return chunk_grid_from_json(
            {"name": "regular", "configuration": {"chunk_shape": chunk_shape}}, shape, field="chunks"
        )

    @staticmethod
    def _key_encoding(value: Any) -> ChunkKeyEncoding:
        if value is None:
            value = DEFAULT_KEY_ENCODING
        if isinstance(value, ChunkKeyEncoding):
            return value
        # zarr-python's flat form {"name": "v2", "separator": "."} is accepted here too
        return chunk_key_encoding_from_json(legacy_v3.key_encoding(value), field="chunk_key_encoding")

    @staticmethod
    def _codecs(spec: ArrayCreationSpec, data_type: DataType) -> tuple[Codec, ...]:
        if spec.codecs is not None:
            return tuple(codec_from_user(v, field=f"codecs[{i}]") for i, v in enumerate(spec.codecs))
        filters = [
            _of_kind(codec_from_user(v, field=f"filters[{i}]"), CodecKind.ARRAY_ARRAY, f"filters[{i}]")
            for i, v in enumerate(spec.filters)
        ]
        default = data_type.default_serializer() or DEFAULT_SERIALIZER
        serializer = _of_kind(
            codec_from_user(spec.serializer or default, field="serializer"),
            CodecKind.ARRAY_BYTES,
            "serializer",
        )
        return (
            *filters,
            serializer,
            *(
                _of_kind(
                    codec_from_user(v, field=f"compressors[{i}]"), CodecKind.BYTES_BYTES, f"compressors[{i}]"
                )
                for i, v in enumerate(spec.compressors)
            ),
        )

    @staticmethod
    def _sharding_codec(spec: ArrayCreationSpec, inner: tuple[Codec, ...]) -> Codec:
        inner_chunks = spec.chunks if not isinstance(spec.chunks, int) else (spec.chunks,) * len(spec.shape)
        return codec_from_user(
            {
                "name": "sharding_indexed",
                "configuration": {
                    "chunk_shape": list(inner_chunks),
                    "codecs": [codec.to_json() for codec in inner],
                    "index_codecs": [
                        {"name": "bytes", "configuration": {"endian": "little"}},
                        {"name": "crc32c"},
                    ],
                    "index_location": "end",
                },
            },
            field="shards",
        )

    # --- layout -------------------------------------------------------------------

    def list_children(self, store: Store, path: str) -> list[str]:
        return child_names(store, path, lambda child: store.exists(self.metadata_key(child)))

    def child_documents(self, store: Store, path: str) -> list[tuple[str, NodeDocument | None]]:
        # A child is a directory holding a zarr.json: reading it is the test (no stat
        # first). An array's document is kept as its bytes with its attributes parsed
        # (ListedContent): what a listing needs, at a fraction of the memory.
        children: list[tuple[str, NodeDocument | None]] = []
        for name in child_names(store, path, lambda child: True):
            key = self.metadata_key(f"{path}/{name}" if path else name)
            data = store.get(key)
            if data is None:
                continue
            try:
                document = load_document(data, key=key, allow_nan=True)
                node_type = self.node_type_of(document, key)
            except MetadataError:
                children.append((name, None))
                continue
            if node_type == "array":
                content: Any = ListedContent(data, document, key=key, kept=_LISTED_MEMBERS)
                children.append((name, NodeDocument(self.name, node_type, key, content)))
            elif node_type is not None:
                children.append((name, NodeDocument(self.name, node_type, key, document)))
        return children

    def erase_node(self, store: Store, path: str) -> None:
        store.erase_prefix(f"{path}/" if path else "")


def _without(extra: dict[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    """The unknown fields kept as they are: those not read as extension entries."""
    return {name: value for name, value in extra.items() if name not in keys} if keys else extra

"""The Zarr v2 storage format, registered as format ``"2"``.

A node at path ``p`` keeps its documents at ``p/.zarray`` (arrays) or
``p/.zgroup`` (groups), its attributes at ``p/.zattrs`` and, for a group
with consolidated metadata, the documents of everything below it at
``p/.zmetadata``. Chunks live at ``p/<i>.<j>`` (or ``p/<i>/<j>``).

Reading a node asks for its four possible documents in one ``get_many``; a
path with neither ``.zarray`` nor ``.zgroup`` holds no v2 node (``None``),
whatever other files (a v3 ``zarr.json``) are there. Listing children only
counts sub-paths with a ``.zarray`` or ``.zgroup``, so a v2 group never
lists v3 nodes, and the v3 format never lists v2 ones.

Writing an array writes ``.zattrs`` (always, as zarr-python 3 does) and then
``.zarray``; a group ``.zattrs``, ``.zgroup`` and, when its model carries
consolidated metadata, ``.zmetadata`` (a stale ``.zmetadata`` is removed when
the model has none).

``document(metadata)`` returns the node's documents keyed by name:
``{".zarray": {...}, ".zattrs": {...}}`` or ``{".zgroup": {...}, ".zattrs":
{...}[, ".zmetadata": {...}]}``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from zarrforge.errors import MetadataError
from zarrforge.plugin_api.formats import (
    ArrayCreationSpec,
    ArrayMetadata,
    ChunksUnderNode,
    Format,
    GroupMetadata,
    NodeDocument,
    NodeMetadata,
    Store,
    child_names,
)

from . import _json
from .consolidated import attributes_document, consolidated_document, resolve_node
from .creation import default_compressors, new_array
from .mapping import (
    FORMAT_NAME,
    ZARRAY,
    ZATTRS,
    ZGROUP,
    ZMETADATA,
    dimension_names_from_attributes,
    zarray_document,
    zattrs_document,
)


def node_key(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


# a rendered document: its bytes, or for a large .zmetadata its pieces (_json.dump_parts)
Rendered = bytes | list[bytes | memoryview]


class V2Format(ChunksUnderNode, Format):
    name = FORMAT_NAME

    # --- reading ------------------------------------------------------------------

    def detect(self, store: Store, path: str) -> bool:
        # A v2 node is there when .zarray or .zgroup is, readable or not (read_node
        # reports a broken one with its key and field); .zattrs alone is no node.
        found = store.get_many([(node_key(path, ZARRAY), None), (node_key(path, ZGROUP), None)])
        return any(value is not None for value in found)

    def read_document(self, store: Store, path: str) -> NodeDocument | None:
        keys = [node_key(path, name) for name in (ZARRAY, ZGROUP, ZATTRS, ZMETADATA)]
        zarray, zgroup, zattrs, zmetadata = store.get_many([(k, None) for k in keys])
        if zarray is None and zgroup is None:
            return None
        if zarray is not None and zgroup is not None:
            raise MetadataError(
                f"both {keys[0]!r} and {keys[1]!r} exist; a node is either an array or a group", key=keys[0]
            )
        content: dict[str, Any] = {
            ZATTRS: None if zattrs is None else _json.load_lenient(zattrs, key=keys[2])
        }
        if zarray is not None:
            content[ZARRAY] = _json.load_strict(zarray, key=keys[0])
            return NodeDocument(FORMAT_NAME, "array", keys[0], content)
        if zgroup is None:  # never: one of the two is there (checked above)
            return None
        content[ZGROUP] = _json.load_strict(zgroup, key=keys[1])
        if zmetadata is None:
            content[ZMETADATA] = None
            return NodeDocument(FORMAT_NAME, "group", keys[1], content)

        def group_document(zmetadata: bytes) -> NodeDocument:
            content[ZMETADATA] = _json.load_consolidated(zmetadata, key=keys[3])
            return NodeDocument(FORMAT_NAME, "group", keys[1], content)

        # a large view: equal documents read again in one operation are the same object
        shared: NodeDocument = _json.shared_parse(
            zmetadata, (FORMAT_NAME, keys[1], zgroup, zattrs), group_document
        )
        return shared

    def resolve(self, document: NodeDocument) -> NodeMetadata:
        return resolve_node(document)

    def document_key(self, path: str, node_type: str) -> str | None:
        return node_key(path, ZARRAY if node_type == "array" else ZGROUP)

    def consolidated_keys(self, path: str) -> list[str]:
        return [node_key(path, ZMETADATA)]

    # --- writing ------------------------------------------------------------------

    def document(self, metadata: NodeMetadata) -> dict[str, Any]:
        attributes = zattrs_document(metadata)
        if isinstance(metadata, ArrayMetadata):
            return {ZARRAY: zarray_document(metadata), ZATTRS: attributes}
        group = {"zarr_format": 2}
        docs: dict[str, Any] = {ZGROUP: group, ZATTRS: attributes}
        if metadata.consolidated is not None:
            docs[ZMETADATA] = consolidated_document(metadata, group)
        return docs

    def render(self, metadata: NodeMetadata, path: str | None = None) -> list[tuple[str, Rendered]]:
        """``(document name, bytes)`` pairs in writing order; a bad value fails here,
        naming the document's key when ``path`` is given."""
        docs = self.document(metadata)

        def dump(name: str, **options: Any) -> bytes:
            key = None if path is None else node_key(path, name)
            return _json.dump(docs[name], key=key, **options)

        attrs = dump(ZATTRS, allow_nan=True)
        if isinstance(metadata, ArrayMetadata):
            return [(ZATTRS, attrs), (ZARRAY, dump(ZARRAY))]
        rendered: list[tuple[str, Rendered]] = [(ZATTRS, attrs), (ZGROUP, dump(ZGROUP))]
        if ZMETADATA in docs:  # pieces, when a view read as an index is written back
            key = None if path is None else node_key(path, ZMETADATA)
            rendered.append((ZMETADATA, _json.dump_parts(docs[ZMETADATA], allow_nan=True, key=key)))
        return rendered

    def write_node(
        self,
        store: Store,
        path: str,
        metadata: NodeMetadata,
        rendered: list[tuple[str, Rendered]] | None = None,
    ) -> None:
        if rendered is None:
            rendered = self.render(metadata, path)
        _set_changed(store, [(node_key(path, name), data) for name, data in rendered])
        key = node_key(path, ZMETADATA)
        if isinstance(metadata, GroupMetadata) and metadata.consolidated is None and store.exists(key):
            store.delete(key)

    def with_attributes(self, metadata: NodeMetadata, attributes: dict[str, Any]) -> NodeMetadata:
        """The model with new attributes, ``dimension_names`` following ``_ARRAY_DIMENSIONS``.

        Not part of the core contract yet (the core replaces ``attributes``
        alone); see the README.
        """
        if isinstance(metadata, ArrayMetadata):
            return dataclasses.replace(
                metadata,
                attributes=attributes,
                dimension_names=dimension_names_from_attributes(attributes, metadata.ndim),
            )
        return dataclasses.replace(metadata, attributes=attributes)

    def new_group(self, attributes: dict[str, Any] | None = None, extensions: Any = None) -> GroupMetadata:
        if extensions:
            raise MetadataError(
                "Zarr v2 groups have no extensions (ZEP 10 is Zarr v3 only)",
                field="extensions",
                value=repr(extensions),
            )
        return GroupMetadata(attributes_document(attributes, field="attributes"), FORMAT_NAME)

    def default_compressors(self, spec: ArrayCreationSpec) -> list[Any]:
        return default_compressors()

    def new_array(self, spec: ArrayCreationSpec) -> ArrayMetadata:
        return new_array(spec)

    # --- layout -------------------------------------------------------------------

    def list_children(self, store: Store, path: str) -> list[str]:
        return child_names(
            store,
            path,
            lambda child: store.exists(node_key(child, ZARRAY)) or store.exists(node_key(child, ZGROUP)),
        )

    def erase_node(self, store: Store, path: str) -> None:
        store.erase_prefix(f"{path}/" if path else "")


def _set_changed(store: Store, documents: list[tuple[str, Rendered]]) -> None:
    """Write the documents whose stored bytes differ, in order.

    A v2 node is several documents and stores offer no transaction across keys;
    writing only what changed means an attribute update touches ``.zattrs``
    alone and a resize ``.zarray`` alone, so a failure cannot leave one half
    of a change on disk. (A new node writes ``.zattrs`` before ``.zarray`` /
    ``.zgroup``: the node does not exist until its last document is there.)
    """
    stored = store.get_many([(key, None) for key, _ in documents])
    for (key, data), old in zip(documents, stored):
        if isinstance(data, list):  # a large .zmetadata as pieces: compared, written, unjoined
            if old is None or not _equal(old, data):
                store.set_parts(key, data)
        elif old is None or bytes(old) != data:
            store.set(key, data)


def _equal(value: bytes, parts: list[bytes | memoryview]) -> bool:
    """Whether ``value`` is the concatenation of ``parts``, without joining them."""
    if len(value) != sum(len(part) for part in parts):
        return False
    view, start = memoryview(value), 0
    for part in parts:
        if view[start : start + len(part)] != part:
            return False
        start += len(part)
    return True

"""Consolidated metadata of v2 hierarchies: the ``.zmetadata`` document.

The layout zarr-python (2 and 3) reads and writes::

    {"metadata": {".zgroup": {...}, ".zattrs": {...},
                  "a/.zarray": {...}, "a/.zattrs": {...}, "g/.zgroup": {...}, ...},
     "zarr_consolidated_format": 1}

Keys are the store keys of every metadata document below the group, relative
to it. Reading builds the models of every node below the group (the group's
own ``.zgroup``/``.zattrs`` entries are written for other readers but the
group's attributes come from its ``.zattrs``, as zarr-python does). Only the
v2 document names count: a ``zarr.json`` found in the mapping is ignored, so
a v2 view never picks up v3 nodes. A node with ``.zattrs`` but neither
``.zarray`` nor ``.zgroup`` is ignored, as it is in the store. zarr-python 3
writes a ``consolidated_metadata`` member into the ``.zgroup`` entries of
child groups; unknown ``.zgroup`` members are dropped (the v2 spec forbids
them). Read leniently: a document with a ``metadata`` mapping and no
``zarr_consolidated_format`` at all is taken as format 1 (kerchunk's parquet reference
sets write their ``.zmetadata`` so, with a ``record_size`` member beside it); any other
value of the member is refused.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Iterator
from typing import Any

from zarrforge.errors import InvalidPathError, MetadataError
from zarrforge.plugin_api.formats import (
    REMOVED,
    ArrayMetadata,
    EntryLayout,
    GroupMetadata,
    IndexedEntries,
    NodeDocument,
    NodeMetadata,
    RawJSON,
    RawMembers,
    paths,
)

from . import _json
from .mapping import (
    FORMAT_NAME,
    ZARRAY,
    ZATTRS,
    ZGROUP,
    ZMETADATA,
    parse_array,
    zarray_document,
    zattrs_document,
)

CONSOLIDATED_FORMAT = 1
_UNVERSIONED = object()  # no "zarr_consolidated_format" member at all
# In the content of a node document read from a .zmetadata mapping: the node's path there.
ENTRY = "consolidated entry"


def check_group_document(document: dict[str, Any]) -> None:
    value = document.get("zarr_format")
    if value != 2 or isinstance(value, bool):
        raise MetadataError(f"expected 2, got {value!r}", field="zarr_format", value=value)


def attributes_document(value: Any, *, field: str | None) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MetadataError(f"attributes must be a JSON object, got {value!r}", field=field, value=value)
    return value


def parse_consolidated(document: dict[str, Any], *, key: str) -> dict[str, NodeDocument]:
    """The documents of the nodes a ``.zmetadata`` document (at store ``key``) describes,
    checked for shape only: each is resolved (:func:`node_from_documents`) when its
    member is opened, so one entry zarrforge cannot read fails that member alone."""
    version = document.get("zarr_consolidated_format", _UNVERSIONED)
    entries = document.get("metadata")
    if version is _UNVERSIONED and (isinstance(entries, dict) or _json.is_indexed(entries)):
        version = CONSOLIDATED_FORMAT  # kerchunk's parquet reference sets (module docstring)
    if version != CONSOLIDATED_FORMAT or isinstance(version, bool):
        raise MetadataError(
            f"expected {CONSOLIDATED_FORMAT}, got {version!r}",
            field="zarr_consolidated_format",
            value=version,
        )
    if _json.is_indexed(entries):
        indexed = _indexed_nodes(entries, key=key)
        if indexed is not None:
            return indexed  # type: ignore[return-value]
        entries = _json.load_lenient(entries.source, key=key)["metadata"]
    if not isinstance(entries, dict):
        raise MetadataError(
            f"must be an object mapping store keys to documents, got {entries!r}",
            field="metadata",
            value=entries,
        )
    nodes: dict[str, dict[str, Any]] = {}
    for entry_key, value in entries.items():
        node, _, name = entry_key.rpartition("/")
        if name not in (ZARRAY, ZGROUP, ZATTRS):
            continue  # zarr.json and anything else: not a v2 document
        if not isinstance(value, dict):
            raise MetadataError(
                f"must be a JSON object, got {value!r}", field=f"metadata[{entry_key!r}]", value=value
            )
        nodes.setdefault(node, {})[name] = value
    found: dict[str, NodeDocument] = {}
    for node, documents in sorted(nodes.items()):
        if not node.strip("/"):
            continue  # the group's own documents
        first = f"metadata[{node + '/' + next(iter(documents))!r}]"
        try:
            relative = paths.normalize_path(node)
        except InvalidPathError as exc:
            raise MetadataError(str(exc), field=first, value=node) from exc
        if ZARRAY in documents and ZGROUP in documents:
            raise MetadataError(
                f"node {node!r} has both .zarray and .zgroup entries",
                field=f"metadata[{node + '/' + ZARRAY!r}]",
            )
        if ZARRAY not in documents and ZGROUP not in documents:
            continue  # .zattrs alone is no node, as in the store
        node_type = "array" if ZARRAY in documents else "group"
        content = {name: documents.get(name) for name in (ZARRAY, ZGROUP, ZATTRS)}
        found[relative] = NodeDocument(FORMAT_NAME, node_type, key, {**content, ENTRY: node})
    return found


_NODE_DOCUMENTS = (ZARRAY, ZGROUP)


class NodeLayout(EntryLayout):
    """How a ``.zmetadata`` mapping holds a node: ``<path>/.zarray`` or ``<path>/.zgroup``,
    and ``<path>/.zattrs`` (a node is there when one of the first two is). ``orphans``:
    the members that are neither the group's own documents nor a node's, which the
    mapping drops when it is written (as one built from the nodes leaves them out)."""

    def __init__(self, orphans: tuple[str, ...] = ()) -> None:
        self.orphans = orphans

    def entries(self, base: RawMembers) -> Iterator[str]:
        for name in base.names:
            node, _, document = name.rpartition("/")
            if node and document in _NODE_DOCUMENTS:
                yield node

    def members(self, base: RawMembers, name: str) -> list[tuple[str, int]]:
        found = [
            (f"{name}/{document}", base.index(f"{name}/{document}")) for document in (ZARRAY, ZGROUP, ZATTRS)
        ]
        if found[0][1] is None and found[1][1] is None:
            return []  # .zattrs alone is no node, as in the store
        return [(member, i) for member, i in found if i is not None]

    def written(self, name: str, value: Any) -> dict[str, Any]:
        return {f"{name}/{document}": content for document, content in value.items()}


def _indexed_nodes(members: RawMembers, *, key: str) -> IndexedEntries | None:
    """:func:`parse_consolidated`'s nodes served from an index of the mapping's members,
    with the same checks; ``None`` where a node's path is not in its normal form (the
    dict form renames it, and names a bad one)."""
    recent: collections.deque[str] = collections.deque(maxlen=2)  # the names before
    orphans = []
    for name in members.names:
        node, _, document = name.rpartition("/")
        if node and document in (ZARRAY, ZGROUP, ZATTRS):
            try:
                if paths.normalize_path(node) != node:
                    return None
            except InvalidPathError:
                return None
            if document == ZARRAY:
                recent.append(name)
                continue
            zarray = f"{node}/{ZARRAY}"
            # sorted, an array's .zarray comes just before its .zattrs: no lookup then
            has_zarray = zarray in recent or members.index(zarray) is not None
            if document == ZGROUP and has_zarray:
                raise MetadataError(
                    f"node {node!r} has both .zarray and .zgroup entries", field=f"metadata[{zarray!r}]"
                )
            if document == ZATTRS and not has_zarray and members.index(f"{node}/{ZGROUP}") is None:
                orphans.append(name)  # .zattrs alone is no node
        elif name not in (ZGROUP, ZATTRS):
            orphans.append(name)  # not a v2 document: zarr.json, anything else
        recent.append(name)
    return IndexedEntries(members, functools.partial(_entry_document, key), NodeLayout(tuple(orphans)))


def _entry_document(key: str, node: str, members: dict[str, RawJSON]) -> NodeDocument:
    """The documents of the node at ``node`` in the ``.zmetadata`` at ``key``, each parsed
    now (the node is being opened)."""
    content: dict[str, Any] = {ENTRY: node}
    for document in (ZARRAY, ZGROUP, ZATTRS):
        raw = members.get(f"{node}/{document}")
        content[document] = (
            None
            if raw is None
            else _json.load_lenient(
                raw.text.encode("utf-8"), key=f"{key} (metadata[{node + '/' + document!r}])"
            )
        )
    node_type = "array" if content[ZARRAY] is not None else "group"
    return NodeDocument(FORMAT_NAME, node_type, key, content)


def _located(exc: MetadataError, document: NodeDocument, name: str) -> MetadataError:
    """``exc`` naming where the node's document ``name`` is: its own store key, or, for
    an entry of a ``.zmetadata`` mapping, the ``.zmetadata`` key and the entry's field."""
    entry = document.content.get(ENTRY)
    if entry is not None:
        return exc.within(f"metadata[{entry + '/' + name!r}]").at(document.key)
    return exc.at(_located_key(document, name))


def resolve_node(document: NodeDocument) -> NodeMetadata:
    """The model of a v2 node from its documents (``.zarray`` or ``.zgroup``, ``.zattrs``
    and, for a group, ``.zmetadata``); errors name the document's key and field."""
    content = document.content
    try:
        attributes = attributes_document(content.get(ZATTRS), field=None)
    except MetadataError as exc:
        raise _located(exc, document, ZATTRS) from None
    if document.node_type == "array":
        try:
            return parse_array(content[ZARRAY], attributes)
        except MetadataError as exc:
            raise _located(exc, document, ZARRAY) from None
    try:
        check_group_document(content[ZGROUP])
    except MetadataError as exc:
        raise _located(exc, document, ZGROUP) from None
    consolidated = None
    if content.get(ZMETADATA) is not None:
        try:
            consolidated = parse_consolidated(content[ZMETADATA], key=_located_key(document, ZMETADATA))
        except MetadataError as exc:
            raise _located(exc, document, ZMETADATA) from None
    return GroupMetadata(attributes, FORMAT_NAME, {}, consolidated)


def _located_key(document: NodeDocument, name: str) -> str:
    """The store key of the node's document ``name`` (a sibling of its main document)."""
    node = document.key.rpartition("/")[0]
    return f"{node}/{name}" if node else name


def consolidated_document(group: GroupMetadata, group_document: dict[str, Any]) -> dict[str, Any]:
    """The ``.zmetadata`` of ``group`` (whose ``consolidated`` is set). A view read as an
    index is written as its edits (:meth:`IndexedEntries.edited`): the unchanged nodes
    as the bytes they were read in."""
    own = {ZGROUP: group_document, ZATTRS: zattrs_document(group)}
    view = group.consolidated
    if isinstance(view, IndexedEntries):
        orphans = view.layout.orphans if isinstance(view.layout, NodeLayout) else ()
        metadata: Any = view.edited(_node_documents, members={**dict.fromkeys(orphans, REMOVED), **own})
    else:
        metadata = dict(own)
        for relative, model in (view or {}).items():
            metadata.update(
                {f"{relative}/{name}": document for name, document in _node_documents(model).items()}
            )
        metadata = dict(sorted(metadata.items()))  # by key, as zarr-python 2 writes it
    return {"metadata": metadata, "zarr_consolidated_format": CONSOLIDATED_FORMAT}


def _node_documents(model: NodeMetadata | NodeDocument) -> dict[str, Any]:
    """A view entry's documents, by name (``.zarray``/``.zgroup``, ``.zattrs``)."""
    if isinstance(model, NodeDocument):  # an entry kept as read: written back as it was
        return {
            name: model.content[name]
            for name in (ZARRAY, ZGROUP, ZATTRS)
            if model.content.get(name) is not None
        }
    if isinstance(model, ArrayMetadata):
        return {ZARRAY: zarray_document(model), ZATTRS: zattrs_document(model)}
    return {ZGROUP: {"zarr_format": 2}, ZATTRS: zattrs_document(model)}

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
them).
"""

from __future__ import annotations

from typing import Any

from zarrforge import paths
from zarrforge.errors import InvalidPathError, MetadataError
from zarrforge.metadata.extension_def import message_of
from zarrforge.metadata.model import ArrayMetadata, GroupMetadata, NodeMetadata

from .mapping import (FORMAT_NAME, ZARRAY, ZATTRS, ZGROUP, parse_array, zarray_document,
                      zattrs_document)

CONSOLIDATED_FORMAT = 1


def check_group_document(document: dict[str, Any]) -> None:
    value = document.get("zarr_format")
    if value != 2 or isinstance(value, bool):
        raise MetadataError(f"expected 2, got {value!r}", field="zarr_format", value=value)


def attributes_document(value: Any, *, field: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MetadataError(f"attributes must be a JSON object, got {value!r}", field=field,
                            value=value)
    return value


def parse_consolidated(document: dict[str, Any]) -> dict[str, NodeMetadata]:
    """The models of the nodes a ``.zmetadata`` document describes (errors name the field)."""
    version = document.get("zarr_consolidated_format")
    if version != CONSOLIDATED_FORMAT or isinstance(version, bool):
        raise MetadataError(f"expected {CONSOLIDATED_FORMAT}, got {version!r}",
                            field="zarr_consolidated_format", value=version)
    entries = document.get("metadata")
    if not isinstance(entries, dict):
        raise MetadataError(f"must be an object mapping store keys to documents, got {entries!r}",
                            field="metadata", value=entries)
    nodes: dict[str, dict[str, Any]] = {}
    for key, value in entries.items():
        node, _, name = key.rpartition("/")
        if name not in (ZARRAY, ZGROUP, ZATTRS):
            continue  # zarr.json and anything else: not a v2 document
        if not isinstance(value, dict):
            raise MetadataError(f"must be a JSON object, got {value!r}",
                                field=f"metadata[{key!r}]", value=value)
        nodes.setdefault(node, {})[name] = value
    models: dict[str, NodeMetadata] = {}
    for node, documents in sorted(nodes.items()):
        if not node.strip("/"):
            continue  # the group's own documents
        try:
            relative = paths.normalize_path(node)
        except InvalidPathError as exc:
            raise MetadataError(str(exc), field=f"metadata[{node + '/' + next(iter(documents))!r}]",
                                value=node) from exc
        attributes = attributes_document(documents.get(ZATTRS),
                                         field=f"metadata[{node + '/' + ZATTRS!r}]")
        if ZARRAY in documents and ZGROUP in documents:
            raise MetadataError(f"node {node!r} has both .zarray and .zgroup entries",
                                field=f"metadata[{node + '/' + ZARRAY!r}]")
        if ZARRAY in documents:
            where = f"metadata[{node + '/' + ZARRAY!r}]"
            try:
                models[relative] = parse_array(documents[ZARRAY], attributes)
            except MetadataError as exc:
                raise _located(exc, where) from exc
        elif ZGROUP in documents:
            where = f"metadata[{node + '/' + ZGROUP!r}]"
            try:
                check_group_document(documents[ZGROUP])
            except MetadataError as exc:
                raise _located(exc, where) from exc
            models[relative] = GroupMetadata(attributes, FORMAT_NAME)
    return models


def _located(exc: MetadataError, where: str) -> MetadataError:
    field = f"{where}.{exc.field}" if exc.field else where
    if type(exc) is MetadataError:
        return MetadataError(message_of(exc), field=field, value=exc.value)
    exc.field = field
    return exc


def consolidated_document(group: GroupMetadata, group_document: dict[str, Any]) -> dict[str, Any]:
    """The ``.zmetadata`` of ``group`` (whose ``consolidated`` is set)."""
    metadata: dict[str, Any] = {ZGROUP: group_document, ZATTRS: zattrs_document(group)}
    for relative, model in sorted((group.consolidated or {}).items()):
        if isinstance(model, ArrayMetadata):
            metadata[f"{relative}/{ZARRAY}"] = zarray_document(model)
        else:
            metadata[f"{relative}/{ZGROUP}"] = {"zarr_format": 2}
        metadata[f"{relative}/{ZATTRS}"] = zattrs_document(model)
    return {"metadata": metadata, "zarr_consolidated_format": CONSOLIDATED_FORMAT}

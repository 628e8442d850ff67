"""Stored hierarchies as models read them, and hierarchies from models.

This is the storage side of the models, below them: it speaks metadata documents
and works on any :class:`~zarrforge_zom.protocols.ModelNode`, without importing
:mod:`.models` (which builds ``GroupSpec.from_zarr`` on :func:`stored_nodes` and
``spec.to_zarr`` on :func:`to_zarr`).

:func:`stored_nodes` opens the node once and walks its members once
(``Group.members(max_depth=None)``); a group with consolidated metadata lists
and opens every member from it, so the whole model costs the root's metadata
read. Each node's documents are its format's own (``Format.document``), so the
ZOM holds exactly what is stored, minus the consolidated metadata itself (a
storage detail the ``members`` express).

:func:`to_zarr` works in two phases, like zarrforge's creation functions:

1. *Plan*: every node's documents are parsed and checked by its format, the
   array's codec chain included, in a private in-memory store. A model the
   format refuses (an unknown codec, a fill value the data type cannot hold)
   raises :class:`~zarrforge_zom.errors.SpecError` naming the node, and
   nothing is written.
2. *Write*: zarrforge's node-writing service
   (:func:`zarrforge.hierarchy_api.write_nodes`, the one creation and copying
   use) writes the planned nodes whole or not at all. Unless ``overwrite``,
   any existing node at a planned path is a
   :class:`~zarrforge.errors.ContainsNodeError` listing them; with
   ``overwrite`` the node at ``path`` (and everything below it) is erased
   first. A node of another format at or above ``path`` is refused, as
   creation refuses it. Missing parent groups are created, then every node
   top-down; consolidated metadata of ancestor groups is kept current, and
   ``consolidate=True`` consolidates the new hierarchy. A failure removes what
   was written.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any, NamedTuple, cast

import zarrforge
from zarrforge.abc.metadata import GroupMetadata
from zarrforge.errors import NodeTypeError, ZarrforgeError
from zarrforge.hierarchy_api import NewNode, get_format, paths, resolve_store, write_nodes
from zarrforge.hierarchy_api import open_node as open_stored

from .errors import SpecError, UnsupportedFormatError
from .protocols import ModelGroup, ModelNode

ZOM_FORMATS = ("3", "2")


def _is_node(value: Any) -> bool:
    return isinstance(value, (zarrforge.Array, zarrforge.Group))


def open_node(node_or_url: Any, path: str = "", *, storage_options: dict[str, Any] | None = None) -> Any:
    """A zarrforge node from a node (and a path below it), a store or a URL, read-only."""
    if _is_node(node_or_url):
        if not path:
            return node_or_url
        if not isinstance(node_or_url, zarrforge.Group):
            raise NodeTypeError(f"{node_or_url.name!r} is an array; it has no member {path!r}")
        return node_or_url[path]
    return zarrforge.open(node_or_url, path, mode="r", storage_options=storage_options)


class StoredNode(NamedTuple):
    """One stored node as a model is built from it."""

    path: str  # relative to the node the walk started at; "" for that node
    name: str  # the node's own name in its store, for error messages
    zarr_format: int
    node_type: str  # "array" or "group"
    documents: dict[str, Any]  # as ``Node.documents()`` gives them: format documents by name


def stored_node(node: Any, path: str = "") -> StoredNode:
    """The documents of one zarrforge node, without its members or consolidated metadata."""
    model = node.metadata_model
    name = model.format_name
    if name not in ZOM_FORMATS:
        raise UnsupportedFormatError(
            f"{node.name!r} is stored in the format {name!r}; ZEP 6 defines object models "
            "for Zarr v2 and v3 only"
        )
    if isinstance(model, GroupMetadata) and model.consolidated is not None:
        model = dataclasses.replace(model, consolidated=None)
    documents = node.format.document(model)
    if name == "3":  # the v3 format gives the content of zarr.json
        documents = {"zarr.json": {k: v for k, v in documents.items() if k != "consolidated_metadata"}}
    return StoredNode(path, node.name, int(name), model.node_type, documents)


def stored_nodes(
    node_or_url: Any, path: str = "", *, storage_options: dict[str, Any] | None = None
) -> Iterator[StoredNode]:
    """The node at ``node_or_url`` (and ``path``), then every node below it, parents
    before their members."""
    node = open_node(node_or_url, path, storage_options=storage_options)
    root = stored_node(node)
    yield root
    if root.node_type == "group":
        for name, member in node.members(max_depth=None):
            yield stored_node(member, name)


# --- creating hierarchies ----------------------------------------------------------------


def _format_of(spec: ModelNode) -> Any:
    return get_format(spec.zarr_format)


def _stage(spec: ModelNode, fmt: Any, where: str) -> Any:
    """Parse and check one node's documents through its format; returns the model."""
    scratch = resolve_store(None)
    try:
        for key, document in spec.documents().items():
            scratch.set(key, json.dumps(document, allow_nan=True).encode("utf-8"))
        node = open_stored(scratch, "", mode="r", fmt=fmt)
    except ZarrforgeError as exc:
        field = getattr(exc, "field", None)
        message = str(exc)
        raise SpecError(
            f"Zarr v{spec.zarr_format} cannot hold this node: {message}", node=where, field=field
        ) from exc
    return node.metadata_model


def plan(spec: ModelNode, path: str = "") -> list[tuple[str, Any]]:
    """``(store path, model)`` of every node ``spec`` describes below ``path``, checked by
    the format; nothing is written."""
    fmt = _format_of(spec)
    path = paths.normalize_path(path)
    nodes = cast(ModelGroup, spec).walk() if spec.node_type == "group" else [("", spec)]
    return [(paths.join(path, rel) if rel else path, _stage(node, fmt, "/" + rel)) for rel, node in nodes]


def to_zarr(
    spec: ModelNode,
    store: Any,
    path: str = "",
    *,
    overwrite: bool = False,
    consolidate: bool = False,
    storage_options: dict[str, Any] | None = None,
) -> Any:
    """Create the hierarchy ``spec`` describes at ``path`` of ``store``; returns its root."""
    if consolidate and spec.node_type != "group":
        raise SpecError("only a group can hold consolidated metadata", field="consolidate")
    fmt = _format_of(spec)
    path = paths.normalize_path(path)
    planned = plan(spec, path)
    resolved = resolve_store(store, storage_options=storage_options)
    write_nodes(
        resolved,
        fmt,
        path,
        [NewNode(p, model) for p, model in planned],
        overwrite=overwrite,
        operation="zom to_zarr",
    )
    if consolidate:
        zarrforge.consolidate_metadata(resolved, path)
    return open_stored(resolved, path, mode="r+", fmt=fmt)

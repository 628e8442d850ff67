"""The surface application plugins build on: whole hierarchies, not extension points.

An application plugin (the command line, the ZEP 6 object models, the xarray
backend) works with nodes as a user does, through the user API (``zarrforge``),
plus the few hierarchy tools below that the user API does not hand out. It
imports from the core only ``zarrforge``, ``zarrforge.abc``, ``zarrforge.errors``
and this module (``tests/test_layers.py`` checks). The conformance kit
(:mod:`zarrforge.testing`) builds its scratch hierarchies through this module too. Extension-point plugins use
:mod:`zarrforge.plugin_api` instead, the layer underneath.

Finding and opening nodes
    :func:`resolve_store` (what a user passed as a store, as a
    :class:`~zarrforge.abc.store.Store`), :func:`resolve_pipeline` (what a URL pipeline
    such as ``"file:/d/data.zip|zip:|zarr3:group"`` names, as the
    :class:`~zarrforge.abc.url_adapter.PipelineState` its last segment leaves),
    :func:`locate_document` (the plain
    document of the node at a path, asking the installed formats, the default first),
    :func:`locate_node` (the same, resolved), :func:`open_node` (an
    :class:`~zarrforge.Array` or :class:`~zarrforge.Group` from resolved metadata).

Formats
    :func:`installed_formats` (their names, the default first), :func:`get_format`
    (one by name; ``None``: ``config.default_format``), :func:`candidate_keys` (the
    keys where the core looks for a node of a format that is not installed, so as never
    to write over it: :mod:`zarrforge.nodes.unreadable`).

Writing
    :func:`write_nodes` with :class:`NewNode`: new nodes written whole or not at all,
    after the checks creation makes (nothing in the way, no ancestor array, no node of
    another format at or above the path); :func:`refresh_consolidated` (rewrite the
    consolidated views above a changed node); :func:`check_shareable` (refuse, plainly,
    to hand an array on a store of this process to dask's distributed workers);
    :func:`marking_unfinished` (mark a write of several nodes and their data as
    unfinished until it ends, so leftovers of a killed process are told apart:
    :mod:`zarrforge.storing.unfinished`), :func:`unfinished_writes_below` (the markers
    such writes left at and below a path, one listing: what ``zarrforge check`` reports
    where no node stands).

Documents and names
    :class:`NodeDocument` and :class:`UnknownExtension` (a node's plain document and an
    extension it names that is not installed), :func:`check_document` (refuse, before
    writing, what a metadata document cannot hold as JSON), :data:`paths` (``normalize_path``,
    ``join``, ``parent_of``, ``validate_name``), and :class:`Registry`, for an
    application that lets other distributions extend it through entry points of its
    own (the command line's commands).
"""

from __future__ import annotations

from .metadata import paths
from .metadata.document import NodeDocument, UnknownExtension
from .metadata.json_io import check_document
from .nodes.hierarchy import get_format, installed_formats, locate_document, locate_node, refresh_consolidated
from .nodes.node import open_node
from .nodes.node_writing import NewNode, write_nodes
from .nodes.unreadable import candidate_keys
from .registries.registry import Registry
from .storing.storage import resolve_pipeline, resolve_store
from .storing.unfinished import marking as marking_unfinished
from .storing.unfinished import unfinished_writes_below
from .user_api.dask_bridge import check_shareable

__all__ = [
    "NewNode",
    "NodeDocument",
    "Registry",
    "UnknownExtension",
    "candidate_keys",
    "check_document",
    "check_shareable",
    "get_format",
    "installed_formats",
    "locate_document",
    "locate_node",
    "marking_unfinished",
    "open_node",
    "paths",
    "refresh_consolidated",
    "resolve_pipeline",
    "resolve_store",
    "unfinished_writes_below",
    "write_nodes",
]

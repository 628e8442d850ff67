"""The surface of the core that plugins build on; everything else in core is internal.

This is the bottom layer of the plugin surface: what an extension-point plugin
(a codec, data type, chunk grid, key encoding, memory layout, storage
transformer, extension, store, URL adapter or format) builds on. It imports
nothing above it: no module that builds arrays, opens nodes, schedules chunks or
resolves stores (``tests/test_layers.py`` checks the whole import closure). Such a
plugin imports from the core only:

* ``zarrforge.abc`` and its modules: the contracts of every extension point,
  each module's docstring being its contract, and the resolved node model
  (:mod:`zarrforge.abc.metadata`);
* ``zarrforge.errors``: the exceptions;
* ``zarrforge.testing``: the conformance kit;
* this module: the contracts again (so one import serves), and the tools listed
  below;
* ``__version__`` from ``zarrforge`` (the plugins are released with the core).

Application plugins (the command line, the object models, the xarray backend)
work on whole hierarchies instead: they use the user API and
:mod:`zarrforge.hierarchy_api`. The hierarchy tools this module used to hand out
(``open_node``, ``locate_node``, ``write_nodes``, ``resolve_store``...) still
resolve here, with a :class:`DeprecationWarning`, until 0.3.

Names here keep their meaning across releases; the modules they come from may
move.

Documents (plain, unresolved: :mod:`zarrforge.metadata`)
    :class:`NodeDocument`, :class:`ListedContent`, :class:`UnknownExtension`, :class:`ExtensionRef`,
    :func:`parse_extension`, :func:`load_document` (and :func:`load_document_keeping_raw`,
    its large-view form, with :class:`RawJSON`, :class:`RawMembers` and the view over
    them, :class:`IndexedEntries` with its :class:`EntryLayout`; :class:`ParseMemo`
    shares one parse of a
    large document between the readers of one operation) / :func:`dump_document`
    (:func:`dump_document_parts`, its pieces for ``Store.set_parts``) /
    :func:`check_document` (strict JSON of metadata documents),
    :func:`check_document_size` (refuse a document over ``config.max_document_bytes``,
    for a format that encodes documents its own way),
    :func:`split_unknown_fields` (the ``must_understand`` rule for top-level fields).

Resolution (names to implementations, through the registries)
    ``data_type_from_json`` / ``data_type_from_user``, ``chunk_grid_from_json``,
    ``chunk_key_encoding_from_json``, ``codec_from_json`` / ``codec_from_user`` /
    ``codecs_from_json``, ``extensions_from_json`` / ``extension_from_json`` /
    ``extensions_to_json``, ``storage_transformers_from_json``, ``memory_layout``,
    ``shape_from_json``, ``dimension_names_from_json``, ``attributes_from_json``,
    ``fill_value_from_user`` (a new array's ``fill_value=`` argument),
    :func:`resolve` (one reference through one registry), :class:`SkippedCodec`,
    ``MAX_EXTENT``; the registries themselves as :data:`registry` (``registry.codecs``...:
    a facade of the extension points, not the registry module), and :class:`Registry`
    for a plugin that loads entry points of its own (the command line's commands).

Chunks and codec chains
    :class:`CodecChain` (a validated ``array -> array``*, ``array -> bytes``,
    ``bytes -> bytes``* list; usable inside an ``array -> bytes`` codec, as
    sharding uses it for its inner chunks), :func:`check_order`, :func:`evolve_codecs`
    (a new array's codecs with their array-dependent defaults filled in),
    :func:`all_equal_fill` (does a chunk hold only the fill value?),
    :func:`check_allocation` (refuse a chunk over ``config.max_chunk_bytes`` or
    ``max_request_bytes``),
    :func:`map_parallel` (a function over independent parts of a chunk, such as
    sharding's inner chunks, on the threads of the engine call in progress),
    :func:`current_chunk` (the grid coordinates of the chunk being encoded, for a codec
    whose choices depend on it) and :func:`encoding_chunk` (set it, for a codec that
    encodes sub-chunks of its own),
    :func:`normalize_basic_selection` (a user's basic selection as one ``int`` or
    ``range`` per dimension, for an extension's ``map_selection``),
    :func:`check_shareable` (refuse early, and plainly, to hand an array on a store of
    this process to dask's distributed workers),
    :class:`MemoryLayoutCodec` (a recorded chunk memory layout as the first codec of the
    chain, for a format that records one; a format that records none refuses it),
    :func:`json_ready` (another library's codec configuration as plain JSON values, for
    a codec that wraps numcodecs or zarr-python codecs).

Formats
    :func:`child_names` (a format's ``list_children`` from one listing),
    :data:`paths` (``normalize_path``, ``join``, ``parent_of``, ``validate_name``),
    :data:`versions` (``one_version``, ``still_changing``, ``TRIES``: for stores that read
    ranges of one version with a request per range, each answer naming its version),
    :func:`read_modify_write` (an update of stored values that loses no concurrent
    update, on a store with conditional writes: what a format that keeps several nodes
    in one stored document writes that document with),
    :data:`config`, :func:`hookimpl`, :func:`plugin_manager` (pluggy's manager, for a
    plugin that adds hook specifications of its own), :func:`declared_hooks` (the names
    every specification declares), :func:`hook_plugins` (the installed hook plugins with
    their distributions, and why any failed to load).
"""

from __future__ import annotations

from . import config, paths, versions
from .registry_facade import FACADE as registry
from .registry import Registry
from .abc import *  # noqa: F403 - the contracts, re-exported whole
from .abc import __all__ as _contracts
from .chunk_context import current_chunk, encoding_chunk
from .codec_arguments import json_ready, numcodecs_configuration, warn_uncompressed
from .codec_chain import CodecChain, check_order, evolve_codecs
from .hooks import declared_hooks, hook_plugins, hookimpl, plugin_manager
from .indexing import normalize_basic_selection
from .layout_codec import MemoryLayoutCodec
from .listing import child_names
from .optimistic import read_modify_write
from .metadata.document import ListedContent, NodeDocument, UnknownExtension
from .metadata.extension_def import ExtensionRef, parse_extension
from .metadata.indexed_view import EntryLayout, IndexedEntries
from .metadata.json_io import check_document, dump_document, dump_document_parts, load_document
from .metadata.json_io import check_size as check_document_size
from .metadata.must_understand import split_unknown_fields
from .metadata.raw_json import RawJSON
from .metadata.raw_members import REMOVED, EditedMembers, RawMembers
from .metadata.raw_reading import load_document_keeping_raw
from .metadata.parse_memo import ParseMemo
from .parallel import map_parallel
from .chunk_helpers import all_equal_fill, check_allocation
from .resolution import (MAX_EXTENT, SkippedCodec, attributes_from_json, chunk_grid_from_json,
                         chunk_key_encoding_from_json, codec_from_json, codec_from_user,
                         codecs_from_json, data_type_from_json, data_type_from_user,
                         dimension_names_from_json, extension_from_json, extensions_from_json,
                         extensions_to_json, fill_value_from_user, memory_layout, resolve,
                         shape_from_json, storage_transformers_from_json)

__all__ = sorted([
    *_contracts,
    "CodecChain", "EditedMembers", "EntryLayout", "ExtensionRef", "IndexedEntries", "ListedContent", "MAX_EXTENT", "MemoryLayoutCodec",
    "NodeDocument", "ParseMemo", "REMOVED", "RawJSON", "RawMembers", "Registry", "SkippedCodec", "UnknownExtension",
    "all_equal_fill", "attributes_from_json", "check_allocation", "check_document",
    "check_document_size", "check_order", "child_names", "chunk_grid_from_json",
    "chunk_key_encoding_from_json", "codec_from_json", "codec_from_user", "codecs_from_json",
    "config", "current_chunk", "data_type_from_json", "data_type_from_user",
    "declared_hooks", "dimension_names_from_json", "dump_document", "dump_document_parts", "encoding_chunk", "evolve_codecs",
    "extension_from_json", "extensions_from_json", "extensions_to_json", "fill_value_from_user",
    "hook_plugins", "hookimpl", "json_ready", "load_document", "load_document_keeping_raw", "map_parallel", "memory_layout",
    "normalize_basic_selection", "numcodecs_configuration", "parse_extension", "paths",
    "plugin_manager", "read_modify_write", "registry", "resolve", "shape_from_json",
    "split_unknown_fields",
    "storage_transformers_from_json", "versions", "warn_uncompressed",
])

# Moved to zarrforge.hierarchy_api (application plugins' surface) in 0.2; resolvable here,
# with a warning, until 0.3. The import is deferred so this layer still imports nothing above it.
_MOVED_TO_HIERARCHY_API = frozenset({
    "NewNode", "check_shareable", "get_format", "installed_formats", "locate_document",
    "locate_node", "open_node", "refresh_consolidated", "resolve_store", "write_nodes"})


def __getattr__(name: str):
    if name in _MOVED_TO_HIERARCHY_API:
        import warnings

        from . import hierarchy_api

        warnings.warn(f"zarrforge.plugin_api.{name} moved to zarrforge.hierarchy_api.{name} "
                      "(the surface of application plugins); the old name goes in 0.3",
                      DeprecationWarning, stacklevel=2)
        return getattr(hierarchy_api, name)
    raise AttributeError(f"module 'zarrforge.plugin_api' has no attribute {name!r}")

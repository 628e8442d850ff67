"""The surface of a format plugin (the ``formats`` extension point: v3, v2, a draft...).

Contract: :mod:`zarrforge.abc.format`: a format reads a node's stored documents into a
plain :class:`NodeDocument`, resolves it into the node model of
:mod:`zarrforge.abc.metadata` (:class:`ArrayMetadata`, :class:`GroupMetadata`), writes
and erases nodes, lists children and creates arrays from an
:class:`ArrayCreationSpec`. The contracts of what a format resolves names into come with it
(:class:`Codec` with :class:`CodecKind` and :class:`ChunkSpec`, :class:`DataType`,
:class:`ChunkGrid`, :class:`ChunkKeyEncoding`).

Tools, by step:

Documents (plain, unresolved)
    :class:`NodeDocument`, :class:`ListedContent` (a listed member's bytes, parsed
    when opened: what the engine's member listing reads), :func:`load_document` and
    :func:`load_document_keeping_raw` (its large-document form, with :class:`RawJSON`,
    :class:`RawMembers`, the edits of one, :class:`EditedMembers` with its
    :data:`REMOVED` marker, and the view :class:`IndexedEntries` over such members
    with its :class:`EntryLayout`; :class:`ParseMemo` shares one parse between the
    readers of one operation), :func:`dump_document` / :func:`dump_document_parts`
    (its pieces for ``Store.set_parts``), :func:`check_document_size` (refuse a
    document over ``config.max_document_bytes``, for a format that encodes documents
    its own way), :func:`split_unknown_fields` (the ``must_understand`` rule for
    top-level fields).

Resolution (names to implementations, through the registries)
    :func:`data_type_from_json` / :func:`data_type_from_user`,
    :func:`fill_value_from_user`, :func:`chunk_grid_from_json`,
    :func:`chunk_key_encoding_from_json`, :func:`codec_from_json` /
    :func:`codec_from_user` / :func:`codecs_from_json` (with :class:`SkippedCodec`),
    :func:`extensions_from_json` / :func:`extension_from_json` (with
    :class:`UnknownExtension`), and for a v3 document's entries in both their forms (the
    list, and top-level keys: ``zarrforge.metadata.extension_entries``)
    :func:`extensions_from_document` / :func:`extensions_to_document` (with
    :class:`DocumentExtensions`),
    :func:`storage_transformers_from_json`, :func:`memory_layout`,
    :func:`shape_from_json`, :func:`dimension_names_from_json`,
    :func:`attributes_from_json`; :func:`resolve` with :class:`ExtensionRef` (one
    reference through one registry), :data:`registry`.

Codecs of a new array
    :class:`CodecChain`, :func:`evolve_codecs` (a new array's codecs with their
    array-dependent defaults filled in), :class:`MemoryLayoutCodec` (a recorded
    memory layout as the first codec), :func:`warn_uncompressed`,
    :func:`numcodecs_configuration` (a codec as numcodecs configures it, what a v2
    document records).

Hierarchies
    :func:`child_names` (``list_children`` from one listing), :data:`paths`,
    :data:`config`.

Engine services (they stay here whichever plugins use them):

* :func:`read_modify_write`: an update of stored values that loses no concurrent update
  on a store with conditional writes (the engine's optimistic concurrency, which its own
  metadata updates nest in): what a format that keeps several nodes in one stored
  document writes that document with;
* :func:`dump_document_parts`: the engine's document writer, as the pieces
  ``Store.set_parts`` takes (members kept as read are never copied);
* :func:`resolve` with :class:`ExtensionRef`: one reference through one registry, a
  failing plugin reported as the engine reports every plugin failure;
* :class:`CreationMemo`: the model a format built for a new array, given again for the
  next one asked for with equal arguments while the registries and settings are
  unchanged (the v3 format builds through one).

Examples
--------
:data:`REMOVED` as a member's new value removes it from members read as
:class:`RawMembers`; the other members are written as they were read:

>>> import json
>>> from zarrforge.metadata.raw_members import read_members
>>> data = b'{"a": {"x": 1}, "b": {"x": 2}}'
>>> members, _ = read_members(data, 0, kept=(), scan=json.JSONDecoder().scan_once)
>>> edited = members.edited({"a": REMOVED, "c": {"x": 3}})
>>> len(edited), json.loads(b"".join(dump_document_parts({"m": edited})))
(2, {'m': {'b': {'x': 2}, 'c': {'x': 3}}})

Here ``b`` is written from the bytes it was read from.
"""

from __future__ import annotations

from .. import config
from ..abc.chunk_grid import ChunkGrid
from ..abc.chunk_key_encoding import ChunkKeyEncoding
from ..abc.codec import ChunkSpec, Codec, CodecKind
from ..abc.data_type import DataType
from ..abc.format import NO_FILL_VALUE, ArrayCreationSpec, ChunksUnderNode, Format
from ..abc.metadata import ArrayMetadata, ExtensionEntry, GroupMetadata, NodeMetadata
from ..abc.store import ABSENT, Store
from ..engine.codec_arguments import numcodecs_configuration, warn_uncompressed
from ..engine.codec_chain import CodecChain, evolve_codecs
from ..engine.layout_codec import MemoryLayoutCodec
from ..metadata import paths
from ..metadata.document import ListedContent, NodeDocument, UnknownExtension
from ..metadata.extension_def import ExtensionRef
from ..metadata.indexed_view import EntryLayout, IndexedEntries
from ..metadata.json_io import check_size as check_document_size
from ..metadata.json_io import dump_document, dump_document_parts, load_document
from ..metadata.must_understand import split_unknown_fields
from ..metadata.parse_memo import ParseMemo
from ..metadata.raw_json import RawJSON
from ..metadata.raw_members import REMOVED, EditedMembers, RawMembers
from ..metadata.raw_reading import load_document_keeping_raw
from ..registries.creation_memo import CreationMemo
from ..registries.registry_facade import FACADE as registry
from ..registries.resolution import (
    DocumentExtensions,
    SkippedCodec,
    attributes_from_json,
    chunk_grid_from_json,
    chunk_key_encoding_from_json,
    codec_from_json,
    codec_from_user,
    codecs_from_json,
    data_type_from_json,
    data_type_from_user,
    dimension_names_from_json,
    extension_from_json,
    extensions_from_document,
    extensions_from_json,
    extensions_to_document,
    fill_value_from_user,
    memory_layout,
    resolve,
    shape_from_json,
    storage_transformers_from_json,
)
from ..storing.listing import child_names
from ..storing.optimistic import read_modify_write

__all__ = [
    "ABSENT",
    "ArrayCreationSpec",
    "ArrayMetadata",
    "ChunkGrid",
    "ChunkKeyEncoding",
    "ChunkSpec",
    "ChunksUnderNode",
    "Codec",
    "CodecChain",
    "CodecKind",
    "CreationMemo",
    "DataType",
    "DocumentExtensions",
    "EditedMembers",
    "EntryLayout",
    "ExtensionEntry",
    "ExtensionRef",
    "Format",
    "GroupMetadata",
    "IndexedEntries",
    "ListedContent",
    "MemoryLayoutCodec",
    "NO_FILL_VALUE",
    "NodeDocument",
    "NodeMetadata",
    "ParseMemo",
    "REMOVED",
    "RawJSON",
    "RawMembers",
    "SkippedCodec",
    "Store",
    "UnknownExtension",
    "attributes_from_json",
    "check_document_size",
    "child_names",
    "chunk_grid_from_json",
    "chunk_key_encoding_from_json",
    "codec_from_json",
    "codec_from_user",
    "codecs_from_json",
    "config",
    "data_type_from_json",
    "data_type_from_user",
    "dimension_names_from_json",
    "dump_document",
    "dump_document_parts",
    "evolve_codecs",
    "extension_from_json",
    "extensions_from_document",
    "extensions_from_json",
    "extensions_to_document",
    "fill_value_from_user",
    "load_document",
    "load_document_keeping_raw",
    "memory_layout",
    "numcodecs_configuration",
    "paths",
    "read_modify_write",
    "registry",
    "resolve",
    "shape_from_json",
    "split_unknown_fields",
    "storage_transformers_from_json",
    "warn_uncompressed",
]

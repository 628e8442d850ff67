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

This class handles the store: the entry point (read, cached, written before
the first node document), keys, listing and erasing. What a document means
is :mod:`.reading`, what the model becomes :mod:`.documents`, and new arrays
and groups :mod:`.creation`. Every error names the store key and the field.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from zarrforge.errors import InvalidPathError, MetadataError
from zarrforge.plugin_api.formats import (
    ArrayCreationSpec,
    ArrayMetadata,
    ChunksUnderNode,
    Format,
    GroupMetadata,
    NodeDocument,
    NodeMetadata,
    Store,
    load_document,
    paths,
)

from . import creation
from . import transformers as st
from .dialects import get_default_dialect, normalize_dialect
from .documents import dump, key_encoding, node_document
from .entry_point import EntryPoint, GlobalStorageTransformer, cached_entry_point, new_entry_point, with_key
from .keys import (
    ENTRY_POINT_KEY,
    DraftChunkKeyEncoding,
    array_key,
    data_prefix,
    group_key,
    meta_prefix,
    validate_draft_path,
)
from .reading import parse_array, parse_group
from .spellings import FORMAT_NAME

__all__ = ["FORMAT_NAME", "Draft2022Format", "dump"]


class Draft2022Format(ChunksUnderNode, Format):
    """The 2022 draft's format.

    ``dialect``: the dialect of hierarchies this instance creates (default:
    :func:`~zarrforge_draft2022.dialects.get_default_dialect`, or the dialect of
    the hierarchy this instance last read). ``chunk_memory_layout``: the layout of new
    arrays created without ``order=``: ``"C"`` (default), ``"F"`` or any registered
    memory layout's name (resolved when an array is created).
    ``storage_transformers``: global storage transformers of a new hierarchy (editor
    dialect).
    """

    name = FORMAT_NAME

    def __init__(
        self,
        dialect: str | None = None,
        *,
        chunk_memory_layout: str = "C",
        storage_transformers: Sequence[Any] = (),
    ) -> None:
        self._dialect = normalize_dialect(dialect) if dialect is not None else None
        if not isinstance(chunk_memory_layout, str) or not chunk_memory_layout:
            raise ValueError(
                f"chunk_memory_layout must be a memory layout's registered name "
                f"('C', 'F' or a plugin's), got {chunk_memory_layout!r}"
            )
        self._layout = chunk_memory_layout
        self._global = st.parse_list(list(storage_transformers), field="storage_transformers")
        self._seen: EntryPoint | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<Draft2022Format dialect={self.dialect!r}>"

    @classmethod
    def recording_memory_layouts(cls) -> Draft2022Format:
        """The editor's dialect: its documents name any layout (zarr-python 2's dialect
        refuses those it cannot read)."""
        return cls(dialect="editor")

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
            raise MetadataError(
                "the store's root holds a document of another format (the "
                "final v3 format's root node, say); a 2022-draft hierarchy "
                "cannot be created over it",
                field="zarr_format",
                key=ENTRY_POINT_KEY,
            )
        return new_entry_point(dialect, self._global), True

    # --- reading ----------------------------------------------------------------------

    def read_document(self, store: Store, path: str) -> NodeDocument | None:
        entry = self.entry_point(store)
        if entry is None:
            return None
        meta = entry.meta_store(store)
        suffix = entry.suffix
        for key, node_type in ((array_key(path, suffix), "array"), (group_key(path, suffix), "group")):
            data = meta.get(key)
            if data is not None:
                return NodeDocument(
                    FORMAT_NAME,
                    node_type,
                    key,
                    {"entry_point": entry, "document": load_document(data, key=key)},
                )
        if next(iter(meta.list_prefix(meta_prefix(path))), None) is not None:
            return NodeDocument(
                FORMAT_NAME, "group", group_key(path, suffix), {"entry_point": entry, "document": None}
            )  # implicit group
        return None

    def document_key(self, path: str, node_type: str) -> str | None:
        seen = self._seen  # the suffix is the hierarchy's (its entry point)
        suffix = seen.suffix if seen is not None else ".json"
        return (array_key if node_type == "array" else group_key)(path, suffix)

    def resolve(self, document: NodeDocument) -> NodeMetadata:
        entry, content = document.content["entry_point"], document.content["document"]
        if content is None:
            return GroupMetadata({}, FORMAT_NAME)  # implicit group
        parse = parse_array if document.node_type == "array" else parse_group
        try:
            return parse(content, entry)
        except MetadataError as exc:
            raise with_key(exc, document.key) from None

    # --- writing ----------------------------------------------------------------------

    def _encoding(self, metadata: ArrayMetadata) -> DraftChunkKeyEncoding:
        """The array's chunk key encoding; a foreign one becomes the draft's in this
        instance's dialect."""
        encoding = metadata.chunk_key_encoding
        if isinstance(encoding, DraftChunkKeyEncoding):
            return encoding
        return key_encoding(metadata, self.dialect)

    def _dialect_of(self, metadata: NodeMetadata) -> str:
        """The dialect ``metadata`` is rendered in before its hierarchy is known."""
        if isinstance(metadata, ArrayMetadata):
            return self._encoding(metadata).dialect
        return self.dialect

    def document(self, metadata: NodeMetadata) -> dict[str, Any]:
        return node_document(metadata, self._dialect_of(metadata))

    def render(self, metadata: NodeMetadata) -> bytes:
        """The node's document in this format's dialect (the hierarchy's, once written,
        may differ: ``write_node`` renders again for it)."""
        dialect = self._dialect_of(metadata)
        return dump(node_document(metadata, dialect), dialect)

    def write_node(
        self, store: Store, path: str, metadata: NodeMetadata, rendered: bytes | None = None
    ) -> None:
        validate_draft_path(path)
        is_array = isinstance(metadata, ArrayMetadata)
        dialect = self._dialect_of(metadata)
        entry, new = self._entry_for_writing(store, dialect)
        key = (array_key if is_array else group_key)(path, entry.suffix)
        try:
            if is_array:
                self._check_against_hierarchy(metadata, entry)  # type: ignore[arg-type]
            if rendered is None or entry.dialect != dialect:
                rendered = dump(node_document(metadata, entry.dialect), entry.dialect)
        except MetadataError as exc:
            raise with_key(exc, key) from None
        if new:  # the entry point first: a node document without one would be invisible
            store.set(ENTRY_POINT_KEY, dump(entry.to_json(), entry.dialect))
            with self._lock:
                self._seen = entry
        entry.meta_store(store).set(key, rendered)

    @staticmethod
    def _check_against_hierarchy(metadata: ArrayMetadata, entry: EntryPoint) -> None:
        encoding = metadata.chunk_key_encoding
        if (
            len(metadata.shape) == 0
            and isinstance(encoding, DraftChunkKeyEncoding)
            and encoding.dialect != entry.dialect
        ):
            raise MetadataError(
                f"this 0-d array was built for the {encoding.dialect!r} dialect but the hierarchy "
                f"uses {entry.dialect!r} (its only chunk key differs: 'c' vs 'c0'); create it "
                "through the opened group, or pass fmt=Draft2022Format(dialect="
                f"{entry.dialect!r})",
                field="zarr_format",
            )
        given = tuple(t for t in metadata.storage_transformers if isinstance(t, GlobalStorageTransformer))
        if given != entry.global_transformers():
            raise MetadataError(
                "the hierarchy's global storage transformers "
                f"{[t.to_json() for t in entry.transformers]} differ from those this array was "
                f"built with {[t.to_json() for t in given]}; create it through the opened group",
                field="storage_transformers",
            )

    # --- creating ---------------------------------------------------------------------

    def new_group(self, attributes: dict[str, Any] | None = None, extensions: Any = None) -> GroupMetadata:
        return creation.new_group(attributes, extensions)

    def default_compressors(self, spec: ArrayCreationSpec) -> list[Any]:
        return creation.default_compressors(spec)

    def new_array(self, spec: ArrayCreationSpec) -> ArrayMetadata:
        if self._seen is not None:
            global_transformers = self._seen.global_transformers()
        else:
            global_transformers = tuple(GlobalStorageTransformer(t) for t in self._global)
        return creation.new_array(
            spec, dialect=self.dialect, memory_layout=self._layout, global_transformers=global_transformers
        )

    # --- layout -----------------------------------------------------------------------

    def chunk_prefix(self, path: str) -> str:
        return data_prefix(path)

    def key_encoding(self, metadata: ArrayMetadata) -> DraftChunkKeyEncoding:
        return self._encoding(metadata)

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
                    names.add(key[: -len(ending)])
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

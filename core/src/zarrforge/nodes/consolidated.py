"""Consolidated metadata: the documents of a whole hierarchy kept in its root group.

A group's model may carry ``consolidated``: the metadata of every node below
it, keyed by path relative to the group. A group opened with such a view
lists and opens every node below it from the view, with no store request;
the view is shared by the group and every node opened through it. A name
missing from the view is still looked up in the store, so nodes other tools
added are found; nodes other tools *removed* or changed are not noticed
until the hierarchy is consolidated again or opened with
``use_consolidated=False``.

Entries stay as read (plain :class:`~zarrforge.metadata.document.NodeDocument`)
until a member is opened: :meth:`ConsolidatedView.get` resolves an entry
through the group's format then, so an entry naming a codec, data type or
extension no installed plugin provides fails when that member is opened,
with its own error, and never the group or its listing.

Keeping it correct: every metadata change made through zarrforge (creating
or erasing a node, attributes, resize) updates the shared in-memory view and,
through :func:`zarrforge.nodes.hierarchy.refresh_consolidated`, the stored view of
every ancestor group that has one. Building a view is
:func:`zarrforge.consolidate_metadata`.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping, MutableMapping

from ..abc.format import Format
from ..abc.metadata import GroupMetadata, NodeMetadata
from ..metadata.document import NodeDocument
from ..metadata.indexed_view import IndexedEntries

Entry = NodeMetadata | NodeDocument


def without_view(model: NodeMetadata) -> NodeMetadata:
    """Entries never nest views: the outermost view is authoritative."""
    if isinstance(model, GroupMetadata) and model.consolidated is not None:
        return dataclasses.replace(model, consolidated=None)
    return model


class ConsolidatedView:
    """A shared, mutable index of node metadata keyed by path relative to one group.

    ``fmt`` resolves entries kept as documents; a view without one holds models only.
    """

    def __init__(self, entries: Mapping[str, Entry], fmt: Format | None = None) -> None:
        # a view read as an index (IndexedEntries) stays one: copied, not built
        self._entries: MutableMapping[str, Entry] = (
            entries.copy() if isinstance(entries, IndexedEntries) else dict(entries)
        )
        self._format = fmt
        self._lock = threading.Lock()

    def get(self, relative: str) -> NodeMetadata | None:
        """The model of the entry at ``relative`` (resolved now if it was kept as read);
        a :class:`~zarrforge.errors.MetadataError` if it cannot be resolved."""
        with self._lock:
            entry = self._entries.get(relative)
        if not isinstance(entry, NodeDocument):
            return entry
        if self._format is None:
            raise TypeError("a ConsolidatedView holding documents needs the format that resolves them")
        model = without_view(self._format.resolve(entry))
        with self._lock:
            if self._entries.get(relative) is entry:
                self._entries[relative] = model
        return model

    def __contains__(self, relative: str) -> bool:
        with self._lock:
            return relative in self._entries

    def children(self, relative: str) -> list[str]:
        prefix = f"{relative}/" if relative else ""
        with self._lock:
            return sorted(
                name[len(prefix) :]
                for name in self._entries
                if name.startswith(prefix) and "/" not in name[len(prefix) :]
            )

    def put(self, relative: str, model: NodeMetadata) -> None:
        with self._lock:
            self._entries[relative] = without_view(model)

    def remove(self, relative: str) -> None:
        with self._lock:
            for name in [
                n for n in self._entries if n == relative or n.startswith(relative + "/") or not relative
            ]:
                del self._entries[name]

    def entries(self) -> MutableMapping[str, Entry]:
        """Every entry, models and documents as held (what the group's model stores)."""
        with self._lock:
            return self._entries.copy()  # type: ignore[attr-defined]

"""A consolidated view's entries, served from the members of the document they were read in.

A format that reads a large view as :class:`~zarrforge.metadata.raw_members.RawMembers`
gives its group model an :class:`IndexedEntries`: a mapping of relative paths to
entries that builds an entry's document only when it is asked for (``document_of``,
the format's), and records changes (an entry put, an entry removed) beside the index
instead of copying it. Writing the view back is then
:meth:`IndexedEntries.edited`: the index with its changes, which
:func:`~zarrforge.metadata.json_io.dump_document_parts` (or a format's own writer)
writes as spans of the source for everything unchanged. A consolidated view of 50,000
members changed by one costs the bytes it was read in, an index of a few bytes a
member, and the changed entry.

How entries lie in the members is the format's :class:`EntryLayout`: one member per
entry, named by the entry's path, is the default (Zarr v3's ``consolidated_metadata``);
Zarr v2's ``.zmetadata`` keeps a node as up to three members (``a/.zarray``,
``a/.zattrs``) and says so with a layout of its own.

Contract: an entry's document is built once (``document_of(name, members)``, given the
entry's members as :class:`~zarrforge.metadata.raw_json.RawJSON` by member name) and
kept while the view is: a view whose every entry is opened costs what a dict of
documents would. Iteration gives the stored entries in source order, then the added
ones. ``document_of`` and the layout must be picklable (a module-level function or a
bound method, not a closure), as a dict of documents is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import Any

from .raw_json import RawJSON
from .raw_members import REMOVED, EditedMembers, RawMembers

_UNSET: Any = object()


class EntryLayout:
    """How the entries of a view lie in the members of its object (see the module
    docstring). This one: each entry is the member named by its path. A format whose
    entries span several members subclasses it. It raises nothing.

    Examples
    --------
    >>> view = {f"n{i:04d}": {"node_type": "group", "attributes": {"pad": "x" * 600}} for i in range(2000)}
    >>> data = dump_document({"zarr_format": 3, "view": view})  # over 1 MiB: indexed, not built
    >>> members = load_document_keeping_raw(data, key="zarr.json", at=("view",), kept=("node_type",))["view"]
    >>> layout = EntryLayout()
    >>> layout.members(members, "n0002"), layout.members(members, "absent")
    ([('n0002', 2)], [])
    >>> layout.written("a/b", {"node_type": "group"})
    {'a/b': {'node_type': 'group'}}
    """

    def entries(self, base: RawMembers) -> Iterable[str]:
        """The stored entries' names, in source order."""
        return base.names

    def members(self, base: RawMembers, name: str) -> list[tuple[str, int]]:
        """The members holding entry ``name``, as ``(member name, index)``; none if the
        view holds no such entry."""
        i = base.index(name)
        return [] if i is None else [(name, i)]

    def written(self, name: str, value: Any) -> dict[str, Any]:
        """The members that hold entry ``name`` written as ``value`` (what the format's
        ``write`` gave :meth:`IndexedEntries.edited`), by member name."""
        return {name: value}


class IndexedEntries(MutableMapping[str, Any]):
    """The entries of a view read as ``base``, with ``changes`` (name to entry, or
    :data:`~zarrforge.metadata.raw_members.REMOVED`) over it; see the module docstring.
    What ``document_of`` raises, reading an entry for the first time, comes out unchanged.

    Parameters
    ----------
    base : RawMembers
        The view's object, as read.
    document_of : Callable[[str, dict[str, RawJSON]], Any]
        Builds an entry's document from its name and its members' values (the format's).
    layout : EntryLayout or None
        How entries lie in the members (default: one member per entry).
    changes : dict[str, Any] or None
        Changes already made (for copies).
    shared : dict[str, Any] or None
        The built documents shared with the instance copied (for copies).

    Raises
    ------
    KeyError
        An entry the view does not hold is read or deleted.

    Examples
    --------
    >>> view = {f"n{i:04d}": {"node_type": "group", "attributes": {"pad": "x" * 600}} for i in range(2000)}
    >>> data = dump_document({"zarr_format": 3, "view": view})  # over 1 MiB: indexed, not built
    >>> members = load_document_keeping_raw(data, key="zarr.json", at=("view",), kept=("node_type",))["view"]
    >>> entries = IndexedEntries(members, lambda name, values: load_document(values[name].text, key=name))
    >>> len(entries), entries["n0002"]["node_type"]
    (2000, 'group')
    >>> entries["new"] = {"node_type": "array"}
    >>> del entries["n0001"]
    >>> len(entries), "n0001" in entries
    (2000, False)
    >>> written = load_document(dump_document({"view": entries.edited(lambda entry: entry)}), key="zarr.json")
    >>> written["view"]["new"], "n0001" in written["view"]
    ({'node_type': 'array'}, False)
    >>> try:
    ...     entries["absent"]
    ... except KeyError as exc:
    ...     print(repr(exc))
    KeyError('absent')
    """

    __slots__ = ("_changes", "_document_of", "_layout", "_shared", "base")

    def __init__(
        self,
        base: RawMembers,
        document_of: Callable[[str, dict[str, RawJSON]], Any],
        layout: EntryLayout | None = None,
        *,
        changes: dict[str, Any] | None = None,
        shared: dict[str, Any] | None = None,
    ) -> None:
        self.base = base
        self._document_of = document_of
        self._layout = layout or EntryLayout()
        self._changes: dict[str, Any] = changes or {}
        # shared by copies: the documents built so far (the same entry is the same
        # object: a view caching an entry's model checks that it is still the one it
        # resolved), and the number of stored entries once counted
        self._shared: dict[str, Any] = {"built": {}} if shared is None else shared

    @property
    def layout(self) -> EntryLayout:
        """How the entries lie in the members (the format's)."""
        return self._layout

    def _stored(self, name: str) -> list[tuple[str, int]]:
        return self._layout.members(self.base, name)

    def __getitem__(self, name: str) -> Any:
        found = self._changes.get(name, _UNSET)
        if found is REMOVED:
            raise KeyError(name)
        if found is not _UNSET:
            return found
        built = self._shared["built"]
        document = built.get(name)
        if document is None:
            members = self._stored(name) if isinstance(name, str) else []
            if not members:
                raise KeyError(name)
            values = {member: self.base.value(i) for member, i in members}
            document = built.setdefault(name, self._document_of(name, values))
        return document

    def __contains__(self, name: object) -> bool:
        found = self._changes.get(name, _UNSET)  # type: ignore[call-overload]
        if found is not _UNSET:
            return found is not REMOVED
        return isinstance(name, str) and bool(self._stored(name))

    def __iter__(self) -> Iterator[str]:
        changes = self._changes
        if not changes:
            yield from self._layout.entries(self.base)
            return
        for name in self._layout.entries(self.base):
            if changes.get(name) is not REMOVED:
                yield name
        for name, entry in list(changes.items()):
            if entry is not REMOVED and not self._stored(name):
                yield name

    def __len__(self) -> int:
        count = self._shared.get("count")
        if count is None:
            count = self._shared["count"] = sum(1 for _ in self._layout.entries(self.base))
        for name, entry in self._changes.items():
            stored = bool(self._stored(name))
            if entry is REMOVED:
                count -= stored
            elif not stored:
                count += 1
        return count

    def __setitem__(self, name: str, entry: Any) -> None:
        self._changes[name] = entry

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._changes[name] = REMOVED

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IndexedEntries) and other.base is self.base:
            return other._changes == self._changes
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dict

    def copy(self) -> IndexedEntries:
        """The same entries, sharing the index; changes to either are their own."""
        return IndexedEntries(
            self.base, self._document_of, self._layout, changes=dict(self._changes), shared=self._shared
        )

    def edited(self, write: Callable[[Any], Any], members: dict[str, Any] | None = None) -> EditedMembers:
        """The view as it is to be written: the stored members, with each changed entry
        written as ``write(entry)`` returns it (placed in members by the layout), and
        ``members``: other members to write as given (a format's own documents kept in
        the same object, such as v2's ``.zgroup``)."""
        changes: dict[str, Any] = {}
        for name, entry in self._changes.items():
            for member, _ in self._stored(name):
                changes[member] = REMOVED
            if entry is not REMOVED:
                changes.update(self._layout.written(name, write(entry)))
        changes.update(members or {})
        return self.base.edited(changes)

"""A consolidated view's entries, served from the members of the document they were read in.

A format that reads a large view as :class:`~zarrforge.metadata.raw_members.RawMembers`
gives its group model an :class:`IndexedEntries`: a mapping of relative paths to
entries that builds an entry's document only when it is asked for (``document_of``,
the format's), and records changes (an entry put, an entry removed) beside the index
instead of copying it. Writing the view back is then
:meth:`IndexedEntries.edited`: the index with its changes, which
:func:`~zarrforge.metadata.json_io.dump_document_parts` writes as spans of the source
for everything unchanged. A consolidated view of 50,000 members changed by one costs
the bytes it was read in, an index of a few bytes a member, and the changed entry.

Contract: names are the view's keys as stored (a format that stores other spellings
of a path records the normalised name as a change); an entry's document is built
once (``document_of``, the format's) and kept while the view is: a view whose every
entry is opened costs what a dict of documents would. Iteration gives the stored members in source order, then the added
ones.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, MutableMapping

from .raw_json import RawJSON
from .raw_members import REMOVED, EditedMembers, RawMembers

_UNSET: Any = object()


class IndexedEntries(MutableMapping[str, Any]):
    """The entries of a view read as ``base``, with ``changes`` (name to entry, or
    :data:`~zarrforge.metadata.raw_members.REMOVED`) over it; see the module docstring."""

    __slots__ = ("base", "_document_of", "_changes", "_built")

    def __init__(self, base: RawMembers, document_of: Callable[[str, RawJSON], Any],
                 changes: dict[str, Any] | None = None,
                 built: dict[str, Any] | None = None) -> None:
        self.base = base
        self._document_of = document_of
        self._changes: dict[str, Any] = changes or {}
        # documents built so far, shared by copies: the same entry is the same object
        # (a view caching an entry's model checks that it is still the one it resolved)
        self._built: dict[str, Any] = {} if built is None else built

    def __getitem__(self, name: str) -> Any:
        found = self._changes.get(name, _UNSET)
        if found is REMOVED:
            raise KeyError(name)
        if found is not _UNSET:
            return found
        document = self._built.get(name)
        if document is None:
            i = self.base.index(name)
            if i is None:
                raise KeyError(name)
            document = self._built.setdefault(name, self._document_of(name, self.base.value(i)))
        return document

    def __contains__(self, name: object) -> bool:
        found = self._changes.get(name, _UNSET)  # type: ignore[call-overload]
        if found is not _UNSET:
            return found is not REMOVED
        return isinstance(name, str) and self.base.index(name) is not None

    def __iter__(self) -> Iterator[str]:
        changes = self._changes
        if not changes:
            yield from self.base.names
            return
        for name in self.base.names:
            if changes.get(name) is not REMOVED:
                yield name
        for name, entry in list(changes.items()):
            if entry is not REMOVED and self.base.index(name) is None:
                yield name

    def __len__(self) -> int:
        return len(self.base.edited(self._changes))

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
        return IndexedEntries(self.base, self._document_of, dict(self._changes), self._built)

    def edited(self, write: Callable[[Any], Any]) -> EditedMembers:
        """The view as it is to be written: the stored members, with each changed entry
        written as ``write(entry)`` returns it (the JSON value of its document)."""
        return self.base.edited({name: entry if entry is REMOVED else write(entry)
                                 for name, entry in self._changes.items()})

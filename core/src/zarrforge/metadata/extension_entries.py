"""Where a v3 document keeps its ZEP 10 extension entries, and where they go when written.

ZEP 10 puts every entry in the node's ``extensions`` list. zarr-python 3 and tensorstore
refuse a document holding that list (even an empty one), but open, and keep on rewrite, a
top-level key whose value is an object with ``"must_understand": false``. So an entry a
reader may skip has a second form, a top-level key named after the extension::

    "zarrforge.array-statistics": {"name": "zarrforge.array-statistics",
                                   "configuration": {...}, "must_understand": false}

Contract:

* :func:`raw_extension_entries` is the one accessor for the entries of a stored document:
  the list's entries first (field ``extensions[i]``), then the top-level ones in document
  order (field: the key). A key is a top-level entry when the format does not know it and
  its value is an object whose ``name`` is the key, whose ``must_understand`` is ``false``
  and which has no member besides ``name``, ``configuration`` and ``must_understand``;
  any other unknown key stays an unknown field (:mod:`.must_understand`). The list, when
  present, is a non-empty list (ZEP 10); one name in both forms is a
  :class:`~zarrforge.errors.MetadataError` naming both places.
* :func:`place_entries` splits the entries to write into the list and the top-level keys:
  an entry that must be understood goes in the list (peers refusing it is intended); a
  skippable one keeps the form it was read in, and a new one takes the default form; a
  name the format uses for a field of its own stays in the list. An empty list is
  omitted by the caller.
* A model records the form of each entry it read in its ``format_data`` under
  :data:`PLACEMENTS_KEY` (``{name: "list" | "top-level"}``), so that rewriting a node,
  or replacing one of its entries, keeps each entry where it was.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping
from typing import Any, Literal

from ..errors import MetadataError

Placement = Literal["list", "top-level"]
LIST: Placement = "list"
TOP_LEVEL: Placement = "top-level"
#: the ``format_data`` key under which a model records where each of its entries was read
PLACEMENTS_KEY = "extension_placements"
_ENTRY_MEMBERS = frozenset({"name", "configuration", "must_understand"})


@dataclasses.dataclass(frozen=True)
class RawExtensionEntry:
    """One extension entry of a stored document, unresolved."""

    value: Any  # as stored: a short-hand name, or an object with "name"
    field: str  # where it is, for errors: "extensions[0]", or its top-level key
    placement: Placement


def is_top_level_entry(key: str, value: Any) -> bool:
    """Whether the unknown top-level ``key`` holding ``value`` is an extension entry
    (see the module docstring).

    Parameters
    ----------
    key : str
        The document's key.
    value : Any
        Its value.

    Returns
    -------
    bool
        ``True`` for an entry in the top-level form.
    """
    return (
        isinstance(value, dict)
        and value.get("name") == key
        and value.get("must_understand") is False
        and _ENTRY_MEMBERS.issuperset(value)
    )


def raw_extension_entries(
    document: Mapping[str, Any], known: Collection[str] = (), *, key: str | None = None
) -> tuple[RawExtensionEntry, ...]:
    """The document's extension entries: the list's, then the top-level ones.

    Parameters
    ----------
    document : Mapping[str, Any]
        The node's stored document (a v3 ``zarr.json`` object).
    known : Collection[str]
        The fields the format defines, never read as entries (none by default: no field
        of v3 looks like an entry, but a format may define one that does).
    key : str or None
        The document's store key, named by errors.

    Returns
    -------
    tuple[RawExtensionEntry, ...]
        The entries, in the order they apply.

    Raises
    ------
    zarrforge.errors.MetadataError
        ``extensions`` is not a non-empty list, or one name is in both forms.
    """
    listed = document.get("extensions")
    entries: list[RawExtensionEntry] = []
    if listed is not None:
        if not isinstance(listed, list) or not listed:
            raise MetadataError(
                "must be a non-empty list of extensions (omit the field when there are none), "
                f"got {listed!r}",
                field="extensions",
                value=listed,
                key=key,
            )
        entries.extend(RawExtensionEntry(v, f"extensions[{i}]", LIST) for i, v in enumerate(listed))
    listed_at = {_name_of(e.value): e.field for e in entries}
    for name, value in document.items():
        if name in known or not is_top_level_entry(name, value):  # "extensions" holds a list
            continue
        if name in listed_at:
            raise MetadataError(
                f"extension {name!r} is both in the list, at {listed_at[name]}, and a top-level "
                f"key {name!r}; keep one of the two",
                field=listed_at[name],
                value=name,
                key=key,
            )
        entries.append(RawExtensionEntry(value, name, TOP_LEVEL))
    return tuple(entries)


def _name_of(value: Any) -> Any:
    return value if isinstance(value, str) else value.get("name") if isinstance(value, dict) else None


def place_entries(
    entries: Iterable[tuple[str, Any, bool]],
    placements: Mapping[str, str],
    *,
    default: str,
    reserved: Collection[str],
) -> tuple[list[Any], dict[str, Any]]:
    """Where each entry to write goes (see the module docstring).

    Parameters
    ----------
    entries : Iterable[tuple[str, Any, bool]]
        ``(name, entry as written, skippable)`` for each entry, in order; a skippable
        entry's JSON carries ``"must_understand": false``.
    placements : Mapping[str, str]
        The form each entry was read in, by name (new entries are absent).
    default : str
        The form of a new skippable entry: ``"top-level"`` or ``"list"``.
    reserved : Collection[str]
        The document's other keys (the format's fields, unknown fields kept): a top-level
        entry never takes one of them.

    Returns
    -------
    tuple[list[Any], dict[str, Any]]
        The ``extensions`` list (possibly empty) and the top-level entries by key.
    """
    listed: list[Any] = []
    top_level: dict[str, Any] = {}
    for name, written, skippable in entries:
        form = placements.get(name, default)
        if (
            skippable
            and form == TOP_LEVEL
            and name not in reserved
            and name != "extensions"  # the list's own key, whatever the caller reserved
            and is_top_level_entry(name, written)
        ):
            top_level[name] = written
        else:
            listed.append(written)
    return listed, top_level

"""The members of a large JSON object, indexed in the bytes they were read from.

A consolidated view of 50,000 members is most of its root document. Changing one
member (creating a node below the root) must not cost a Python object per member, nor
a second copy of the text: :class:`RawMembers` indexes the object's members where they
lie in the document's UTF-8 bytes (each member's name, and the byte span of its name
and of its value) and keeps, per member, only the few top-level values the reader
asked for (``kept``), shared between members that have equal ones. A member's value
is built on demand as a :class:`~zarrforge.metadata.raw_json.RawJSON` over the bytes.

:meth:`RawMembers.edited` gives an :class:`EditedMembers`: the same object with some
members replaced, added or removed, which
:func:`~zarrforge.metadata.json_io.dump_document_parts` writes as byte spans of the
source for every run of unchanged members, and as JSON only for what changed. A
store that writes a list of buffers (``Store.set_parts``) then never holds the new
document whole.

:func:`read_members` builds the index, or raises :class:`Unusual` for anything it does
not read (an entry that is not an object, a duplicate name, text that is not JSON),
leaving the caller to parse the document whole, which names the error. Each member's
value is parsed once as it is indexed (checked as JSON, its kept members taken), and
dropped.

This module also holds the bracket counter that finds where an object or array ends
in UTF-8 bytes without building it (:func:`container_end_in_bytes`).
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .raw_json import ABSENT_MEMBER, RawJSON

#: the value of a member removed in :meth:`RawMembers.edited`
REMOVED: Any = object()


class Unusual(Exception):
    """Text the fast readers do not read: the whole parse decides what it is."""


_QUOTE, _BACKSLASH = 0x22, 0x5C
_OPENING, _CLOSING = (0x7B, 0x5B), (0x7D, 0x5D)  # { [ and } ]
_BLOCK = 1 << 18  # 256 KiB: the block's masks are a few times its size


def _brackets(data: bytes, start: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The brackets outside strings of the object or array opening at byte ``start``, a
    block of 256 KiB at a time, in numpy (a value of millions of small lists is millions of
    brackets, too many for a Python loop): per block, their byte offsets, whether each
    opens, and the depth after each (1 inside the container itself). The last block ends
    at the bracket that closes the container; :class:`Unusual` if none does. UTF-8 keeps
    every byte of a multi-byte character above 0x7F, so quotes, backslashes and
    brackets are found byte by byte."""
    codes = np.frombuffer(data, dtype=np.uint8)
    depth, in_string, position = 0, 0, start
    while position < len(codes):
        block = codes[position : position + _BLOCK]
        quotes = block == _QUOTE
        for at in (np.flatnonzero(quotes[1:] & (block[:-1] == _BACKSLASH)) + 1).tolist():
            run = 0  # backslashes before the quote: an odd run escapes it
            while position + at - run - 1 >= 0 and codes[position + at - run - 1] == _BACKSLASH:
                run += 1
            quotes[at] = run % 2 == 0
        if quotes[0] and position > start and codes[position - 1] == _BACKSLASH:
            run = 0
            while codes[position - run - 1] == _BACKSLASH:
                run += 1
            quotes[0] = run % 2 == 0
        inside = np.bitwise_xor.accumulate(quotes.view(np.uint8)) ^ in_string
        outside = inside == 0
        opening = ((block == _OPENING[0]) | (block == _OPENING[1])) & outside
        closing = ((block == _CLOSING[0]) | (block == _CLOSING[1])) & outside
        found = np.flatnonzero(opening | closing)
        if found.size:
            opens = opening[found]
            levels = depth + np.cumsum(np.where(opens, 1, -1))
            ended = np.flatnonzero(levels == 0)
            if ended.size:
                last = int(ended[0]) + 1
                yield position + found[:last], opens[:last], levels[:last]
                return
            yield position + found, opens, levels
            depth = int(levels[-1])
        in_string = int(inside[-1])
        position += _BLOCK
    raise Unusual


def container_end_in_bytes(data: bytes, start: int) -> int:
    """The byte offset after the object or array opening at byte ``start`` of ``data``
    (UTF-8), found by counting brackets outside strings. It checks nothing else: what it
    spans is not known to be JSON."""
    last = None
    for positions, _, _ in _brackets(data, start):
        last = positions
    return int(last[-1]) + 1  # type: ignore[index]


_SPACE = rb"[ \t\n\r]*"
#: a member's name and its colon (the name's JSON string, between its quotes, is group 1);
#: between two members a comma comes first
MEMBER_NAME = re.compile(_SPACE + rb'"((?:[^"\\\x00-\x1f]|\\.)*)"' + _SPACE + b":" + _SPACE)
_NEXT_NAME = re.compile(_SPACE + b"," + MEMBER_NAME.pattern)
#: JSON whitespace, in bytes
SPACE = re.compile(_SPACE)
_BATCH_BYTES = 1 << 18  # members checked per decoded piece of the source
_BATCH_MEMBERS = 4096


def member_name(raw: bytes) -> str:
    """The name whose JSON string, between its quotes, is ``raw``."""
    try:
        if b"\\" not in raw:
            return raw.decode("utf-8")
        return json.loads(b'"' + raw + b'"')
    except ValueError as exc:  # UnicodeDecodeError too
        raise Unusual from exc


def _hashable(value: Any) -> Any:
    """What tells kept values apart (``1`` from ``true``; containers by their JSON)."""
    kind = type(value)
    if kind is dict or kind is list:
        return kind, json.dumps(value, sort_keys=True)
    return kind, value


def read_members(
    data: bytes, start: int, *, kept: tuple[str, ...], scan: Callable[[str, int], tuple[Any, int]]
) -> tuple[RawMembers, int]:
    """The :class:`RawMembers` of the object opening at byte ``start`` of ``data``, whose
    every member is itself an object, and the byte offset after it. ``scan`` is a JSON
    decoder's ``scan_once`` (strict or lenient): each member's value is parsed with it to
    check it and take its ``kept`` members. :class:`Unusual` for anything else."""
    starts: list[np.ndarray] = []
    ends: list[np.ndarray] = []
    end = start
    for positions, opens, levels in _brackets(data, start):
        starts.append(positions[opens & (levels == 2)])
        ends.append(positions[~opens & (levels == 1)] + 1)
        end = int(positions[-1]) + 1
    value_starts = np.concatenate(starts).astype(np.int64)
    value_ends = np.concatenate(ends).astype(np.int64)
    count = len(value_starts)
    if len(value_ends) != count or (
        count
        and not (
            data[start] == 0x7B and bool(np.all(np.frombuffer(data, np.uint8)[value_starts] == _OPENING[0]))
        )
    ):
        raise Unusual  # a member that is not an object: the whole parse names it
    name_starts = np.empty(count, dtype=np.int64)
    name_ends = np.empty(count, dtype=np.int64)
    last_name: str | None = None
    in_order = True
    kinds: dict[Any, int] = {}
    kind_values: list[tuple[Any, ...]] = []
    kind_of = np.empty(count, dtype=np.int32)
    previous, separator = start + 1, MEMBER_NAME
    # a batch of members at a time, as Python ints: offsets of all of them as Python
    # objects would cost more than the index itself
    for first in range(0, count, _BATCH_MEMBERS):
        batch_starts = value_starts[first : first + _BATCH_MEMBERS].tolist()
        batch_ends = value_ends[first : first + _BATCH_MEMBERS].tolist()
        for j, (value_start, value_end) in enumerate(zip(batch_starts, batch_ends)):
            match = separator.fullmatch(data, previous, value_start)
            if match is None:
                raise Unusual
            name = member_name(match.group(1))  # checked here, built again when asked for
            if last_name is not None and name <= last_name:
                in_order = False
            last_name = name
            name_starts[first + j] = match.start(1) - 1
            name_ends[first + j] = match.end(1) + 1
            previous, separator = value_end, _NEXT_NAME
        j, size = 0, len(batch_starts)
        while j < size:  # the values, a decoded piece of the source at a time
            piece_first, piece_start = j, batch_starts[j]
            while j < size and batch_ends[j] - piece_start < _BATCH_BYTES:
                j += 1
            j = max(j, piece_first + 1)
            piece_end = batch_ends[j - 1]
            try:
                text = data[piece_start:piece_end].decode("utf-8")
            except UnicodeDecodeError as exc:
                raise Unusual from exc
            ascii_only = len(text) == piece_end - piece_start
            for m in range(piece_first, j):
                try:
                    if ascii_only:
                        parsed, value_end = scan(text, batch_starts[m] - piece_start)
                        consumed = value_end + piece_start == batch_ends[m]
                    else:
                        own = data[batch_starts[m] : batch_ends[m]].decode("utf-8")
                        parsed, value_end = scan(own, 0)
                        consumed = value_end == len(own)
                except (ValueError, StopIteration, RecursionError) as exc:
                    raise Unusual from exc
                if not consumed or type(parsed) is not dict:
                    raise Unusual
                values = tuple([parsed.get(name, ABSENT_MEMBER) for name in kept])
                identity = tuple([_hashable(v) for v in values])
                kind = kinds.get(identity)
                if kind is None:
                    kind = kinds[identity] = len(kind_values)
                    kind_values.append(values)
                kind_of[first + m] = kind
    if SPACE.fullmatch(data, previous, end - 1) is None:
        raise Unusual
    members = RawMembers(
        data,
        _Names(data, name_starts, name_ends),
        value_starts,
        value_ends,
        kept,
        kind_values,
        kind_of,
        in_order=in_order,
    )
    return members, end


class _Names(Sequence[str]):
    """The members' names, built from the source when asked for: a Python string per
    member would cost more than the rest of the index."""

    __slots__ = ("_ends", "_source", "_starts")

    def __init__(self, source: bytes, starts: np.ndarray, ends: np.ndarray) -> None:
        self._source, self._starts, self._ends = source, starts, ends

    def __len__(self) -> int:
        return len(self._starts)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return member_name(self._source[int(self._starts[i]) + 1 : int(self._ends[i]) - 1])

    def __iter__(self) -> Iterator[str]:
        source = self._source
        for first in range(0, len(self._starts), _BATCH_MEMBERS):
            ends = self._ends[first : first + _BATCH_MEMBERS].tolist()
            for start, end in zip(self._starts[first : first + _BATCH_MEMBERS].tolist(), ends):
                yield member_name(source[start + 1 : end - 1])

    def __eq__(self, other: object) -> bool:
        return list(self) == other if isinstance(other, list) else NotImplemented


class RawMembers:
    """The members of one JSON object of ``source`` (see the module docstring): names in
    source order, byte spans, and the ``kept`` values of each. Read-only, shareable.

    A reader builds it (``read_members``, through
    :func:`~zarrforge.metadata.raw_reading.load_document_keeping_raw`); a plugin reads
    members by position (:meth:`index`, :meth:`value`, :meth:`kept`) and changes them
    with :meth:`edited`. Built over names that include a duplicate, it raises the
    reader's internal ``Unusual``, which sends the reader to parse the document whole.

    Raises
    ------
    IndexError
        :meth:`value`, :meth:`kept` or :meth:`run` is given a position past the members.

    Examples
    --------
    >>> view = {f"n{i:04d}": {"node_type": "group", "attributes": {"pad": "x" * 600}} for i in range(2000)}
    >>> data = dump_document({"zarr_format": 3, "view": view})  # over 1 MiB: indexed, not built
    >>> members = load_document_keeping_raw(data, key="zarr.json", at=("view",), kept=("node_type",))["view"]
    >>> type(members).__name__, len(members), members.index("n0002"), members.index("absent")
    ('RawMembers', 2000, 2, None)
    >>> members.kept(2), members.value(2).text[:22]
    ({'node_type': 'group'}, '{"node_type": "group",')
    """

    __slots__ = (
        "_kind_of",
        "_kinds",
        "_name_starts",
        "_order",
        "_value_ends",
        "_value_starts",
        "kept_names",
        "names",
        "source",
    )

    def __init__(
        self,
        source: bytes,
        names: _Names,
        value_starts: np.ndarray,
        value_ends: np.ndarray,
        kept_names: tuple[str, ...],
        kinds: list[tuple[Any, ...]],
        kind_of: np.ndarray,
        *,
        in_order: bool,
    ) -> None:
        self.source = source
        #: the members' names in source order (a sequence of str, built when read)
        self.names = names
        self._name_starts = names._starts
        self._value_starts = value_starts
        self._value_ends = value_ends
        self.kept_names = kept_names
        self._kinds = kinds
        self._kind_of = kind_of
        # names in source order are usually sorted (zarrforge and zarr-python write them
        # so); otherwise lookups go through the sorted order, kept as indices
        self._order: np.ndarray | None = None
        if not in_order:
            order = np.argsort(np.array(list(names), dtype=object), kind="stable")
            ordered = (names[i] for i in order.tolist())
            if any(a == b for a, b in itertools.pairwise(ordered)):
                raise Unusual  # a duplicate name: the whole parse names it
            self._order = order

    def __len__(self) -> int:
        return len(self.names)

    @property
    def in_order(self) -> bool:
        """Whether the members are sorted by name in the source."""
        return self._order is None

    def index(self, name: str) -> int | None:
        """The position of the member ``name`` in the source order, ``None`` if absent."""
        names = self.names
        if self._order is None:
            i = bisect.bisect_left(names, name)
            return i if i < len(names) and names[i] == name else None
        order = self._order
        i = bisect.bisect_left(range(len(order)), name, key=lambda j: names[order[j]])
        if i < len(order) and names[order[i]] == name:
            return int(order[i])
        return None

    def insertion_point(self, name: str) -> int:
        """Where a new member ``name`` goes in the source order: its place by name when
        the members are sorted, else after the last."""
        if self._order is None:
            return bisect.bisect_left(self.names, name)
        return len(self.names)

    def kept(self, i: int) -> dict[str, Any]:
        """The kept members of member ``i``'s value (``ABSENT_MEMBER`` for one it
        lacks); a fresh dict, its values shared and read-only."""
        return dict(zip(self.kept_names, self._kinds[int(self._kind_of[i])]))

    def kinds(self) -> list[tuple[int, int, dict[str, Any]]]:
        """Each distinct set of kept values: its number (for :meth:`members_of_kind`), the
        first member that has it, and the kept members present (absent ones left out)."""
        firsts = np.unique(self._kind_of, return_index=True)[1]
        return [
            (
                int(self._kind_of[i]),
                int(i),
                {name: value for name, value in self.kept(int(i)).items() if value is not ABSENT_MEMBER},
            )
            for i in firsts
        ]

    def members_of_kind(self, kind: int) -> list[int]:
        """The members whose kept values are kind number ``kind`` (see :meth:`kinds`)."""
        return [int(i) for i in np.flatnonzero(self._kind_of == kind)]

    def value(self, i: int) -> RawJSON:
        """Member ``i``'s value, as its text in the source, with its kept members."""
        return RawJSON(self.source, int(self._value_starts[i]), int(self._value_ends[i]), self.kept(i))

    def run(self, first: int, stop: int) -> memoryview:
        """The source bytes of members ``first`` to ``stop - 1`` (source order), from the
        first one's name to the last one's value, with the separators between them."""
        return memoryview(self.source)[int(self._name_starts[first]) : int(self._value_ends[stop - 1])]

    def edited(self, changes: Mapping[str, Any]) -> EditedMembers:
        """This object with ``changes``: a member's new value (a JSON value to write), or
        :data:`REMOVED`."""
        return EditedMembers(self, dict(changes))


class EditedMembers:
    """:class:`RawMembers` with some members changed (see :meth:`RawMembers.edited`):
    what :func:`~zarrforge.metadata.json_io.dump_document_parts` writes, unchanged
    members as spans of the source. It raises nothing.

    Parameters
    ----------
    base : RawMembers
        The members as read.
    changes : dict[str, Any]
        Member name to its new value (a JSON value), or :data:`REMOVED`.

    Examples
    --------
    >>> view = {f"n{i:04d}": {"node_type": "group", "attributes": {"pad": "x" * 600}} for i in range(2000)}
    >>> data = dump_document({"zarr_format": 3, "view": view})  # over 1 MiB: indexed, not built
    >>> members = load_document_keeping_raw(data, key="zarr.json", at=("view",), kept=("node_type",))["view"]
    >>> edited = members.edited({"n0001": REMOVED, "n0002": {"node_type": "array"}, "n9999": {}})
    >>> len(edited)
    2000
    >>> [type(piece).__name__ if type(piece) is memoryview else piece for piece in edited.pieces()]
    ['memoryview', ('n0002', {'node_type': 'array'}), 'memoryview', ('n9999', {})]
    >>> written = load_document(dump_document({"view": edited}), key="zarr.json")["view"]
    >>> "n0001" in written, written["n0002"], len(written)
    (False, {'node_type': 'array'}, 2000)
    """

    __slots__ = ("base", "changes")

    def __init__(self, base: RawMembers, changes: dict[str, Any]) -> None:
        self.base = base
        self.changes = changes

    def __len__(self) -> int:
        base, count = self.base, len(self.base)
        for name, value in self.changes.items():
            stored = base.index(name) is not None
            if value is REMOVED:
                count -= stored
            elif not stored:
                count += 1
        return count

    def pieces(self) -> Iterator[tuple[str, Any] | memoryview]:
        """The members in the order they are written: ``(name, value)`` for a changed or
        added one, a memoryview of the source for each run of unchanged ones. Members
        keep their source order; an added member goes to its place by name when the
        source is sorted by name, else after the last."""
        base = self.base
        events: list[tuple[int, int, str, Any]] = []
        for name, value in self.changes.items():
            i = base.index(name)
            if i is not None:
                events.append((i, 1, name, value))  # in place of member i (or its removal)
            elif value is not REMOVED:
                events.append((base.insertion_point(name), 0, name, value))  # before member i
        events.sort(key=lambda event: event[:3])
        position = 0
        for at, replaces, name, value in events:
            if at > position:
                yield base.run(position, at)
                position = at
            if value is not REMOVED:
                yield name, value
            if replaces:
                position = at + 1
        if position < len(base):
            yield base.run(position, len(base))

"""Reading a large metadata document without building its bulk.

A consolidated view of 50,000 members, or millions of small attribute values, parsed
into dicts and lists takes ten to twenty times the document's bytes and most of the
time an operation spends. :func:`load_document_keeping_raw` reads such a document
without building that bulk. The object holding the entries (a consolidated view) is
indexed in the document's bytes when it can be
(:func:`~zarrforge.metadata.raw_members.read_members`: no text of the whole document, no
object per entry); otherwise its entries are kept as
:class:`~zarrforge.metadata.raw_json.RawJSON` text, walked with json's C scanner one at
a time. Either way each entry is checked as JSON and no tree of it is kept. A large
top-level value is skipped whole by counting brackets (in numpy, 256 KiB at a time),
unchecked until it is first used. Everything else of the document is parsed, and
refused, as :func:`~zarrforge.metadata.json_io.load_document` parses and refuses it;
a document it does not read on this path (an error above all) is left to that function.

The same skipping lets a document over ``config.max_document_bytes`` be read when
what is over is one member set aside (a consolidated view): the rest is checked
against the limit, and the member is kept unread. That is measured in the bytes,
before anything is decoded or copied, so refusing a document over the limit for any
other reason costs a scan of it, not a copy (issue #41).
"""

from __future__ import annotations

import codecs
import functools
import json
import re
from collections.abc import Callable
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any, cast

import numpy as np

from .. import config
from ..errors import MetadataError
from .json_io import _LENIENT, _STRICT, _reject_constant, _text, check_size, load_document
from .raw_json import ABSENT_MEMBER, RawJSON
from .raw_members import MEMBER_NAME, SPACE, Unusual, container_end_in_bytes, member_name, read_members

#: documents smaller than this are parsed whole by :func:`load_document_keeping_raw`
RAW_MEMBERS_MIN_BYTES = 1 << 20
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_PLAIN_STRICT = json.JSONDecoder(parse_constant=_reject_constant)
_PLAIN_LENIENT = json.JSONDecoder()

#: ``decoder.scan_once(text, i)``: the value starting at ``text[i]`` and the index after it
#: (StopIteration where none starts there), the scanner ``JSONDecoder.__init__`` sets
Scanner = Callable[[str, int], tuple[Any, int]]


def _scanner(decoder: json.JSONDecoder) -> Scanner:
    # typeshed leaves scan_once out of JSONDecoder: an attribute of the instance, not of the class
    return cast(Scanner, decoder.scan_once)  # type: ignore[attr-defined]


def load_document_keeping_raw(
    data: bytes | str,
    *,
    key: str,
    at: tuple[str, ...],
    kept: tuple[str, ...],
    allow_nan: bool = False,
    raw_values: tuple[str, ...] = (),
) -> dict[str, Any]:
    """As :func:`load_document`, except that the object found through the member names
    ``at`` (``("consolidated_metadata", "metadata")``) is kept unbuilt: as a
    :class:`~zarrforge.metadata.raw_members.RawMembers` index over ``data`` (bytes only,
    every member an object), else as a dict of :class:`RawJSON` values; either way with
    each member's members ``kept`` parsed.

    For large documents whose bulk is one such object (a consolidated view of thousands of
    nodes): reading and writing back the document then builds no tree of their values.
    The names of the kept object are checked for duplicates; its values are not, until
    parsed. A document under ``RAW_MEMBERS_MIN_BYTES``, and anything the fast path
    does not read (an error above all), is parsed whole by :func:`load_document`.

    A document over ``config.max_document_bytes`` is read only if what is over is the
    top-level member ``at[0]``: that member's value is then set aside unparsed, as one
    :class:`RawJSON` with ``kept=None``, and the rest must be within
    the limit; otherwise it is refused as :func:`load_document` refuses it.

    ``raw_values`` names top-level members (``attributes``) whose value, an object or
    an array of ``RAW_MEMBERS_MIN_BYTES`` or more, is kept as one :class:`RawJSON`
    (``kept`` is ``{}`` for an object, ``None`` otherwise) without being parsed or
    checked: found by counting brackets, so its parse, and any error in it, waits for
    the first use.

    Parameters
    ----------
    data : bytes or str
        The document as stored.
    key : str
        Its store key, named by errors.
    at : tuple[str, ...]
        The member names leading to the object kept unbuilt (``()``: none).
    kept : tuple[str, ...]
        The members of each of its members that are parsed.
    allow_nan : bool
        Accept the ``NaN``, ``Infinity`` and ``-Infinity`` tokens.
    raw_values : tuple[str, ...]
        Top-level members whose large values are kept unparsed.

    Returns
    -------
    dict[str, Any]
        The document, with the kept object and values unbuilt.

    Raises
    ------
    zarrforge.errors.DocumentTooLargeError
        The document is over ``config.max_document_bytes`` (beyond what may be set aside).
    zarrforge.errors.MetadataError
        ``data`` is not a valid JSON object (as :func:`load_document`).

    Examples
    --------
    A small document is parsed whole:

    >>> load_document_keeping_raw(b'{"view": {"a": {}}}', key="zarr.json", at=("view",), kept=())
    {'view': {'a': {}}}

    A large one keeps the object at ``at`` unbuilt, even over the size limit:

    >>> view = {f"n{i:04d}": {"node_type": "group", "attributes": {"pad": "x" * 600}} for i in range(2000)}
    >>> data = dump_document({"zarr_format": 3, "view": view})
    >>> document = load_document_keeping_raw(data, key="zarr.json", at=("view",), kept=("node_type",))
    >>> document["zarr_format"], type(document["view"]).__name__, document["view"].kept(0)
    (3, 'RawMembers', {'node_type': 'group'})
    >>> with zarrforge.config.set(max_document_bytes=1000):
    ...     document = load_document_keeping_raw(data, key="zarr.json", at=("view",), kept=())
    >>> type(document["view"]).__name__, document["zarr_format"]
    ('RawJSON', 3)
    >>> from zarrforge.errors import DocumentTooLargeError
    >>> with zarrforge.config.set(max_document_bytes=1000):
    ...     try:
    ...         load_document_keeping_raw(data, key="zarr.json", at=(), kept=())
    ...     except DocumentTooLargeError as exc:
    ...         print(exc.limit)
    1000
    """
    limit = config.get().max_document_bytes
    if limit is not None and len(data) > limit and at:
        return _setting_aside(data, key=key, member=at[0], allow_nan=allow_nan, limit=limit)
    if len(data) < RAW_MEMBERS_MIN_BYTES:
        return load_document(data, key=key, allow_nan=allow_nan)
    if isinstance(data, str):  # stores give bytes; the readers below work on them
        data = data.encode("utf-8", "surrogatepass")
    if at:
        document = _indexing_members(
            data, key=key, at=at, kept=kept, allow_nan=allow_nan, raw_values=raw_values
        )
        if document is not None:
            return document
    return _reading_text(data, key=key, at=at, kept=kept, allow_nan=allow_nan, raw_values=raw_values)


def _reading_text(
    data: bytes,
    *,
    key: str,
    at: tuple[str, ...],
    kept: tuple[str, ...],
    allow_nan: bool,
    raw_values: tuple[str, ...],
) -> dict[str, Any]:
    """:func:`load_document_keeping_raw` on the document's text: the members at ``at``
    become :class:`RawJSON` values over it."""
    text = _text(data, key)
    scan = _scanner(_LENIENT if allow_nan else _STRICT)
    scan_raw = _scanner(_PLAIN_LENIENT if allow_nan else _PLAIN_STRICT)

    def large_value(i: int) -> RawJSON | None:
        """The container at ``i`` kept as text, if it is large."""
        end = _container_end(text, data, i)
        if end - i < RAW_MEMBERS_MIN_BYTES:
            return None
        return RawJSON(text, i, end, {} if text[i] == "{" else None)

    def members(start: int, path: tuple[str, ...]) -> tuple[dict[str, Any], int]:
        """The object whose ``{`` is at ``start``, and the index after its ``}``."""
        result: dict[str, Any] = {}
        i = _WHITESPACE.match(text, start + 1).end()  # type: ignore[union-attr]
        if text[i] == "}":
            return result, i + 1
        while True:
            if text[i] != '"':
                raise Unusual
            name, i = scanstring(text, i + 1, True)
            if name in result:
                raise Unusual  # the whole parse names the duplicate
            i = _WHITESPACE.match(text, i).end()  # type: ignore[union-attr]
            if text[i] != ":":
                raise Unusual
            i = _WHITESPACE.match(text, i + 1).end()  # type: ignore[union-attr]
            value: Any
            if not path:
                parsed, end = scan_raw(text, i)
                value = RawJSON(
                    text,
                    i,
                    end,
                    {n: parsed.get(n, ABSENT_MEMBER) for n in kept} if type(parsed) is dict else None,
                )
                i = end
            elif name == path[0] and text[i] == "{":
                value, i = members(i, path[1:])
            elif (
                name in raw_values
                and path == at
                and text[i] in "{["
                and (value := large_value(i)) is not None
            ):
                i = value.end
            else:
                value, i = scan(text, i)
            result[name] = value
            i = _WHITESPACE.match(text, i).end()  # type: ignore[union-attr]
            if text[i] == ",":
                i = _WHITESPACE.match(text, i + 1).end()  # type: ignore[union-attr]
            elif text[i] == "}":
                return result, i + 1
            else:
                raise Unusual

    try:
        start = _WHITESPACE.match(text).end()  # type: ignore[union-attr]
        if text[start] != "{" or not at:
            raise Unusual
        document, end = members(start, at)
        if _WHITESPACE.match(text, end).end() != len(text):  # type: ignore[union-attr]
            raise Unusual
    except (Unusual, ValueError, IndexError, StopIteration, RecursionError):
        return load_document(text, key=key, allow_nan=allow_nan)
    return document


_SCALAR = re.compile(
    rb'"(?:[^"\\]|\\.)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?'
    rb"|true|false|null|NaN|-?Infinity"
)


def _member_value(data: bytes, start: int, name: str) -> int:
    """The byte offset of the value of the first member ``name`` of the object opening
    at byte ``start`` (after whitespace), found in the bytes: the members before it are
    skipped (containers by counting brackets), unchecked; the rest of the document is
    checked when it is parsed. :class:`Unusual` if there is none."""
    i = SPACE.match(data, start).end()  # type: ignore[union-attr]
    if data[i] != 0x7B:
        raise Unusual
    i = SPACE.match(data, i + 1).end()  # type: ignore[union-attr]
    while True:
        found = MEMBER_NAME.match(data, i)
        if found is None:
            raise Unusual
        if member_name(found.group(1)) == name:
            return found.end()
        i = SPACE.match(data, _value_end(data, found.end())).end()  # type: ignore[union-attr]
        if data[i] != 0x2C:  # a comma; the object ended without the member otherwise
            raise Unusual
        i = SPACE.match(data, i + 1).end()  # type: ignore[union-attr]


def _value_end(data: bytes, i: int) -> int:
    """The byte offset after the JSON value at ``i`` (a container by counting brackets)."""
    if data[i] in b"{[":
        return container_end_in_bytes(data, i)
    scalar = _SCALAR.match(data, i)
    if scalar is None:
        raise Unusual
    return scalar.end()


def _object_at(data: bytes, start: int, path: tuple[str, ...]) -> int:
    """The byte offset of the ``{`` of the object reached from the object at ``start``
    through the member names ``path`` (:func:`_member_value` at each step)."""
    i = _member_value(data, start, path[0])
    if data[i] != 0x7B:
        raise Unusual
    return i if len(path) == 1 else _object_at(data, i, path[1:])


def _indexing_members(
    data: bytes,
    *,
    key: str,
    at: tuple[str, ...],
    kept: tuple[str, ...],
    allow_nan: bool,
    raw_values: tuple[str, ...],
) -> dict[str, Any] | None:
    """The document with the object at ``at`` read as :class:`RawMembers` in the bytes
    (:func:`~zarrforge.metadata.raw_members.read_members`): the text of the document is
    never built whole. The rest of the document is parsed with ``{}`` in its place.
    ``None`` where this path does not read the document."""
    scan_raw = _scanner(_PLAIN_LENIENT if allow_nan else _PLAIN_STRICT)
    try:
        start = _object_at(data, 0, at)
        members, end = read_members(data, start, kept=kept, scan=scan_raw)
    except (Unusual, IndexError):
        return None
    rest = data[:start] + b"{}" + data[end:]
    try:
        document = (
            load_document(rest, key=key, allow_nan=allow_nan)
            if len(rest) < RAW_MEMBERS_MIN_BYTES
            else _reading_text(rest, key=key, at=at, kept=kept, allow_nan=allow_nan, raw_values=raw_values)
        )
    except MetadataError:
        return None  # refused by the whole parse, whose message places the error in ``data``
    container: Any = document
    for name in at[:-1]:
        container = container.get(name) if type(container) is dict else None
    if type(container) is not dict or container.get(at[-1]) != {}:
        return None  # not where the bytes said: the text path decides
    container[at[-1]] = members
    return document


def _container_end(text: str, data: bytes, start: int) -> int:
    """The index in ``text`` after the container opening at ``start``, found without
    building it (:func:`container_end_in_bytes` on ``data``, ``text`` as UTF-8)."""
    ascii_only = len(data) == len(text)
    byte_start = start if ascii_only else len(text[:start].encode("utf-8"))
    byte_end = container_end_in_bytes(data, byte_start)
    if ascii_only:
        return byte_end
    codes = np.frombuffer(data, dtype=np.uint8, count=byte_end)
    return byte_end - int(np.count_nonzero((codes & 0xC0) == 0x80))  # continuation bytes


def _is_utf8(data: bytes, piece: int = 1 << 20) -> bool:
    """Is ``data`` valid UTF-8? Decoded a piece at a time, so that no text of the whole
    is ever built."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for offset in range(0, len(data), piece):
            decoder.decode(view[offset : offset + piece])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _setting_aside(
    data: bytes | str, *, key: str, member: str, allow_nan: bool, limit: int
) -> dict[str, Any]:
    """The document over the size limit read with the top-level ``member`` set aside
    (see :func:`load_document_keeping_raw`), or its refusal."""
    too_large = functools.partial(check_size, len(data), key=key, writing=False)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    # Measured in the bytes first, without decoding or copying them: a document that is
    # over the limit for another reason than the member is refused at the cost of a scan
    try:
        start = _member_value(data, 0, member)
        end = _value_end(data, start)
    except (Unusual, IndexError):
        too_large()
        raise AssertionError("unreachable") from None  # pragma: no cover
    if len(data) - (end - start) + len(b"null") > limit:
        too_large()
    if not _is_utf8(data):  # checked whole: the member set aside is written back as read
        too_large()
    rest = data[:start] + b"null" + data[end:]
    document = load_document(rest, key=key, allow_nan=allow_nan)
    if document.get(member, 0) is not None:  # the null put in its place is not where it was
        too_large()
    document[member] = RawJSON(data, start, end, None)
    return document

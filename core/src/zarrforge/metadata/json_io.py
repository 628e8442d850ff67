"""Reading and writing metadata documents as JSON.

Documents are untrusted: :func:`load_document` accepts only a JSON object,
rejects the non-standard tokens ``NaN``/``Infinity`` that Python's json module
would otherwise accept (unless the caller allows them: zarr-python writes them
into v2 and v3 attributes), rejects duplicate keys, and turns every failure into a
:class:`~zarrforge.errors.MetadataError` naming the store key.
:func:`dump_document` writes UTF-8 JSON with two-space indentation (objects
and lists of objects or lists one entry per line, lists of plain values on one
line; an object of more than 1,000 members, such as a large consolidated view,
one member per line, and values nested deeper than 32 levels on one line;
everything non-ASCII escaped when a string holds a lone surrogate, which
has no UTF-8 form), writes non-finite numbers inside ``attributes`` as the
tokens ``NaN``/``Infinity``/``-Infinity`` (as zarr-python 3 does: docs/formats.md
has the trade-off), and refuses values JSON cannot represent, naming the field
of a non-finite float anywhere else; :func:`check_new_attributes` refuses
non-finite attribute values a caller gives under
``config.non_finite_attributes="refuse"``;
:func:`check_document` only checks that a document can be written. Both refuse a
document over ``config.max_document_bytes`` (64 MiB by default) with
:class:`~zarrforge.errors.DocumentTooLargeError`: :func:`load_document` before
parsing it, :func:`dump_document` before anyone writes it (readers with the same
limit could not open it). :func:`dump_document_parts` gives the same document as
pieces: an object read as
:class:`~zarrforge.metadata.raw_members.RawMembers` is written with its unchanged
members as the bytes they were read in.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from json.encoder import c_make_encoder, encode_basestring, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

from .. import config
from ..errors import DocumentTooLargeError, MetadataError
from .raw_json import RawJSON
from .raw_members import REMOVED, EditedMembers, RawMembers


def check_size(size: int, *, key: str | None, writing: bool) -> None:
    """Refuse a document of ``size`` bytes over ``config.max_document_bytes``: on read
    (it could exhaust memory), and before it is written (readers could not open it).

    Parameters
    ----------
    size : int
        The document's size in bytes.
    key : str or None
        The store key of the document, named by the error.
    writing : bool
        The document is about to be written (rather than read).

    Raises
    ------
    zarrforge.errors.DocumentTooLargeError
        ``size`` is over ``config.max_document_bytes``.

    Examples
    --------
    Plugins import it as ``check_document_size``:

    >>> from zarrforge.errors import DocumentTooLargeError
    >>> check_document_size(1000, key="zarr.json", writing=True)  # within the limit: returns None
    >>> with zarrforge.config.set(max_document_bytes=100):
    ...     try:
    ...         check_document_size(1000, key="zarr.json", writing=False)
    ...     except DocumentTooLargeError as exc:
    ...         print(exc.key, exc.size, exc.limit)
    zarr.json 1000 100
    """
    limit = config.get().max_document_bytes
    if limit is None or size <= limit:
        return
    if writing:
        message = (
            f"the document would be {size} bytes, over the limit of {limit} bytes "
            "(zarrforge.config max_document_bytes) that readers apply; nothing was "
            "written, since it could not be reopened"
        )
    else:
        message = (
            f"document of {size} bytes exceeds the limit of {limit} bytes "
            "(zarrforge.config max_document_bytes); raise it to read this document"
        )
    raise DocumentTooLargeError(message, size=size, limit=limit, key=key)


def _reject_constant(token: str) -> Any:
    raise ValueError(f'non-standard JSON token {token!r} (use the string "{token}")')


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)  # in C; a key repeated makes the dict shorter than the pairs
    if len(result) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise ValueError(f"duplicate key {k!r}")
            seen.add(k)
    return result


# made once: json.loads with arguments builds a decoder per call
_STRICT = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
_LENIENT = json.JSONDecoder(object_pairs_hook=_no_duplicates)


def load_document(data: bytes | str, *, key: str, allow_nan: bool = False) -> dict[str, Any]:
    """The JSON object in ``data``; ``allow_nan`` accepts the ``NaN``/``Infinity`` tokens
    (for documents whose writers emit them, such as Zarr v2 attributes).

    Parameters
    ----------
    data : bytes or str
        The document as stored.
    key : str
        Its store key, named by errors.
    allow_nan : bool
        Accept the ``NaN``, ``Infinity`` and ``-Infinity`` tokens.

    Returns
    -------
    dict[str, Any]
        The document.

    Raises
    ------
    zarrforge.errors.DocumentTooLargeError
        ``data`` is over ``config.max_document_bytes``.
    zarrforge.errors.MetadataError
        ``data`` is not UTF-8, not valid JSON, or not a JSON object.

    Examples
    --------
    >>> load_document(b'{"zarr_format": 3, "node_type": "group"}', key="zarr.json")
    {'zarr_format': 3, 'node_type': 'group'}
    >>> load_document('{"scale": NaN}', key=".zattrs", allow_nan=True)
    {'scale': nan}
    >>> from zarrforge.errors import MetadataError
    >>> try:
    ...     load_document(b'{"a": 1, "a": 2}', key="zarr.json")
    ... except MetadataError as exc:
    ...     print(exc)
    in 'zarr.json': not valid JSON: duplicate key 'a'
    """
    text = _text(data, key)
    try:
        document = (_LENIENT if allow_nan else _STRICT).decode(text)
    except (ValueError, RecursionError) as exc:
        raise MetadataError(f"not valid JSON: {exc}", key=key) from exc
    if not isinstance(document, dict):
        raise MetadataError(f"the document must be a JSON object, got {type(document).__name__}", key=key)
    return document


def _text(data: bytes | str, key: str) -> str:
    check_size(len(data), key=key, writing=False)
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MetadataError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", key=key) from exc


# Python's indenting JSON encoder is pure Python, and writing metadata dominated the
# cost of creating small arrays. The layout is ours, and each leaf is written by the C
# string escaper or the int/float reprs json itself uses; anything else (subclasses,
# non-finite floats, types JSON has no form for) goes to json's encoder, for its output
# or its error.
_encode_utf8 = json.JSONEncoder(allow_nan=True, ensure_ascii=False).encode
_encode_ascii = json.JSONEncoder(allow_nan=True, ensure_ascii=True).encode
_INFINITIES = (math.inf, -math.inf)
# A bare token the encoders write for a non-finite float: not inside quotes, so the string
# "NaN" (a float fill value as the spec writes it) does not count
_TOKEN = re.compile(r"[\s:\[,](?:NaN|-?Infinity)[\s,\]\}]")
_TOKEN_BYTES = re.compile(_TOKEN.pattern.encode())
_CONTAINERS = (dict, list, tuple)


_INDENTED_LEVELS = 32  # nesting levels written one entry per line; deeper ones on one line
_MANY_MEMBERS = 1000  # an object with more members writes each on one line (C-encoded)
_END = object()
# leaves written by ``leaf`` whatever their value, without the container and memory checks
_PLAIN_LEAVES = frozenset({str, int, bool, float, type(None)})
# Extension objects (a codec list, a chunk grid) recur from document to document: their
# indented text is kept, found by their one-line C encoding, which fixes it (see _writer).
_REMEMBERED_CHARS = 400  # values whose one-line text is longer are written each time
_REMEMBERED_VALUES = 512  # the memory is emptied when it holds this many
# Documents whose members besides the attributes are this long on one line or shorter
# are written from a remembered frame around their attributes (see _writer)
_FRAMED_CHARS = 2000


def _writer(ascii_only: bool) -> Callable[[Any], list[Any]]:
    """A function writing a value as indented JSON (see :func:`dump_document`): the text
    in pieces, with a memoryview of the source for each run of unchanged members of an
    :class:`EditedMembers` (the caller joins and encodes the text between them)."""
    encode_str = encode_basestring_ascii if ascii_only else encode_basestring
    fallback = _encode_ascii if ascii_only else _encode_utf8

    def leaf(value: Any) -> str:
        kind = type(value)
        if kind is str:
            return encode_str(value)
        if kind is RawJSON:
            return value.text
        if kind is int:
            return int.__repr__(value)
        if kind is bool:
            return "true" if value else "false"
        if value is None:
            return "null"
        if kind is float:
            if value == value and value not in _INFINITIES:
                return float.__repr__(value)
            return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"
        return fallback(value)

    def key_text(key: Any) -> str:
        if type(key) is str:
            return encode_str(key)
        # json's rules for int, float, bool and None keys (and its TypeError for others)
        return encode_str(next(iter(json.loads(fallback({key: None})))))

    def flat(value: Any) -> str:
        """``value`` on one line, without recursion: a document nests as deep as the
        decoder read it, and three Python frames a level would stop far sooner."""
        parts: list[str] = []
        stack: list[tuple[Any, bool, list[bool]]] = []  # (items, is a dict, [first item?])

        def start(item: Any) -> None:
            if isinstance(item, dict):
                parts.append("{")
                stack.append((iter(item.items()), True, [True]))
            elif isinstance(item, _CONTAINERS):
                parts.append("[")
                stack.append((iter(item), False, [True]))
            else:
                parts.append(leaf(item))

        start(value)
        while stack:
            items, is_dict, first = stack[-1]
            item: Any = next(items, _END)
            if item is _END:
                parts.append("}" if is_dict else "]")
                stack.pop()
                continue
            if not first[0]:
                parts.append(", ")
            first[0] = False
            if is_dict:
                parts.append(key_text(item[0]) + ": ")
                start(item[1])
            else:
                start(item)
        return "".join(parts)

    def one_line(value: Any) -> str:
        if type(value) is RawJSON:
            return value.text
        try:
            return fallback(value)  # the C encoder
        except RecursionError:
            return flat(value)

    def write_edited(value: EditedMembers, indent: str, out: list[Any]) -> None:
        """An object read as :class:`RawMembers`, one member a line: its unchanged runs
        as the source's bytes (separators and all), the rest written here."""
        inner = indent + "  "
        many = len(value) > _MANY_MEMBERS  # laid out as the same object held in a dict
        separator = "{\n"
        for piece in value.pieces():
            out += (separator, inner)
            if type(piece) is memoryview:
                out.append(piece)
            else:
                out += (key_text(piece[0]), ": ")
                if many:
                    out.append(one_line(piece[1]))
                else:
                    write(piece[1], inner, out)
            separator = ",\n"
        out.append("{}" if separator == "{\n" else "\n" + indent + "}")

    remembered: dict[tuple[str, str], str] = {}
    one_line_of = _one_line_encoder(encode_str, fallback)

    def write_remembered(value: Any, indent: str, out: list[Any]) -> bool:
        """Append the indented JSON of ``value`` from the memory (written now and kept if
        new). The indented text is a function of the value's one-line text and the indent
        alone (containers by kind; leaves as the C encoder writes them, which is how
        :func:`leaf` writes them), so equal keys give equal output. ``False``: the value
        has no one-line text, or a long one; the caller writes it."""
        line = one_line_of(value)
        if line is None or len(line) > _REMEMBERED_CHARS:
            return False  # left to write(), which raises its own error where it must
        text = remembered.get((indent, line))
        if text is None:
            pieces: list[Any] = []
            write(value, indent, pieces, remember=False)
            text = "".join(pieces)
            if len(remembered) >= _REMEMBERED_VALUES:
                remembered.clear()
            remembered[(indent, line)] = text
        out.append(text)
        return True

    def write(value: Any, indent: str, out: list[Any], remember: bool = True) -> None:
        """Append the JSON of ``value`` to ``out``: joined once at the end, so that a large
        document exists once as text rather than once per level it is nested in.
        ``remember``: extension objects (and lists of them) come from the memory."""
        kind = type(value)
        if remember and _extension_like(value, kind) and write_remembered(value, indent, out):
            return
        if kind is EditedMembers or kind is RawMembers:
            write_edited(value if kind is EditedMembers else value.edited({}), indent, out)
        elif not isinstance(value, _CONTAINERS):
            out.append(leaf(value))
        elif len(indent) > 2 * _INDENTED_LEVELS:
            out.append(flat(value))  # deeper values go on one line
        elif isinstance(value, dict):
            if not value:
                out.append("{}")
                return
            inner = indent + "  "
            many = len(value) > _MANY_MEMBERS  # a consolidated view: one member a line
            separator = "{\n"
            for k, v in value.items():
                out += (separator, inner, key_text(k), ": ")
                if many:
                    out.append(one_line(v))
                elif type(v) in _PLAIN_LEAVES:  # most members: written here, not by a call
                    out.append(leaf(v))
                else:
                    write(v, inner, out, remember and k != "attributes")  # user data is not kept
                separator = ",\n"
            out.append("\n" + indent + "}")
        elif any(isinstance(v, _CONTAINERS) for v in value):  # a list or tuple of containers
            inner = indent + "  "
            separator = "[\n"
            for v in value:
                out += (separator, inner)
                write(v, inner, out, remember)
                separator = ",\n"
            out.append("\n" + indent + "]")
        else:
            out.append("[" + ", ".join([leaf(v) for v in value]) + "]")

    frames: dict[tuple[str, int], tuple[str, str]] = {}

    def framed(document: dict[str, Any]) -> tuple[str, str] | None:
        """The text of ``document`` before and after its attributes' value, from the
        memory of frames (written now and kept if new): documents that differ only in
        their attributes (a group's members created alike) share one. As for
        :func:`write_remembered`, the text of every other member is a function of its
        one-line text, so the frame is a function of the others' one-line text and the
        attributes' position. ``None``: no one-line text, or a long one."""
        position = list(document).index("attributes")
        others = {k: v for k, v in document.items() if k != "attributes"}
        line = one_line_of(others)
        if line is None or len(line) > _FRAMED_CHARS:
            return None
        frame = frames.get((line, position))
        if frame is None:
            before: list[Any] = ["{\n"]
            after: list[Any] = []
            for i, (k, v) in enumerate(others.items()):
                side = before if i < position else after
                if side is after or i:
                    side.append(",\n")
                side += ("  ", key_text(k), ": ")
                write(v, "  ", side)
            before += (",\n" if position else "", "  ", key_text("attributes"), ": ")
            after.append("\n}")
            frame = ("".join(before), "".join(after))
            if len(frames) >= _REMEMBERED_VALUES:
                frames.clear()
            frames[(line, position)] = frame
        return frame

    def document_pieces(value: Any) -> list[Any]:
        out: list[Any] = []
        if type(value) is dict and "attributes" in value and len(value) <= _MANY_MEMBERS:
            frame = framed(value)
            if frame is not None:
                out.append(frame[0])
                write(value["attributes"], "  ", out, remember=False)  # user data is not kept
                out.append(frame[1])
                return out
        write(value, "", out)
        return out

    return document_pieces


def _extension_like(value: Any, kind: type) -> bool:
    """Is ``value`` an extension object (``{"name": ...}``; v2's ``{"id": ...}``) or a
    list of them, whose indented text the writer remembers (see :data:`_REMEMBERED_CHARS`)?
    Found by their form, so that no large value (a consolidated view, a node's
    attributes) is ever encoded twice to look it up."""
    if kind is list and value:
        value = value[0]
        kind = type(value)
    return kind is dict and ("name" in value or "id" in value)


def _no_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _one_line_encoder(
    encode_str: Callable[[str], str], fallback: Callable[[Any], str]
) -> Callable[[Any], str | None]:
    """The C encoder's one-line text of a value, built once (``json.dumps`` builds it
    each call, which costs more than encoding a small value; ``fallback`` where Python
    has no C encoder); ``None`` for a value that is not plain JSON or nests too deep.
    These texts are keys of memories, whose callers then write the value themselves
    (and raise the errors it deserves)."""
    encode = fallback
    if c_make_encoder is not None:
        encoder = c_make_encoder(None, _no_json, encode_str, None, ": ", ", ", False, False, True)
        encode = lambda value: "".join(encoder(value, 0))  # noqa: E731

    def one_line(value: Any) -> str | None:
        try:
            return encode(value)
        except (TypeError, ValueError, RecursionError):
            return None

    return one_line


def _encoded(pieces: list[Any], encoding: str) -> list[bytes | memoryview]:
    """The written pieces as bytes: the text between source spans joined and encoded."""
    if memoryview not in map(type, pieces):  # the common case, checked at C speed
        return ["".join(pieces).encode(encoding)]
    parts: list[bytes | memoryview] = []
    text: list[str] = []
    for piece in pieces:
        if type(piece) is memoryview:
            if text:
                parts.append("".join(text).encode(encoding))
                text = []
            parts.append(piece)
        else:
            text.append(piece)
    if text:
        parts.append("".join(text).encode(encoding))
    return parts


_write_utf8 = _writer(ascii_only=False)
_write_ascii = _writer(ascii_only=True)
_one_line_utf8 = _one_line_encoder(encode_basestring, _encode_utf8)


def one_line_json(value: Any) -> str | None:
    """``value`` as one line of JSON by the C encoder, or ``None`` where it holds anything
    but plain JSON values (dicts, lists, tuples, str, int, float, bool, None), or nests
    too deep: a key for memories of what a value resolves to, equal only for values
    that write the same JSON (``1`` and ``True``, ``0.0`` and ``-0.0`` stay apart)."""
    return _one_line_utf8(value)


def dump_document(document: dict[str, Any], *, key: str | None = None) -> bytes:
    """UTF-8 JSON of ``document``; ``key`` (the store key it is for) goes into errors.

    Non-finite floats inside ``attributes`` (a node's, or a member's in a consolidated
    view) are written as the tokens ``NaN``, ``Infinity`` and ``-Infinity``, as
    zarr-python 3 writes them; anywhere else they are refused, naming the field.

    Parameters
    ----------
    document : dict[str, Any]
        The document.
    key : str or None
        The store key it is for, named by errors.

    Returns
    -------
    bytes
        The document's UTF-8 JSON.

    Raises
    ------
    zarrforge.errors.MetadataError
        The document holds what JSON cannot hold (or a non-finite float outside
        ``attributes``).
    zarrforge.errors.DocumentTooLargeError
        The document would be over ``config.max_document_bytes``.

    Examples
    --------
    >>> document = {"zarr_format": 3, "node_type": "group", "attributes": {"x": float("nan")}}
    >>> print(dump_document(document, key="zarr.json").decode())
    {
      "zarr_format": 3,
      "node_type": "group",
      "attributes": {
        "x": NaN
      }
    }
    >>> from zarrforge.errors import MetadataError
    >>> try:
    ...     dump_document({"fill_value": float("nan")}, key="zarr.json")
    ... except MetadataError as exc:
    ...     print(exc.key, exc.field)
    zarr.json fill_value
    """
    parts = dump_document_parts(document, key=key)
    return parts[0] if len(parts) == 1 else b"".join(parts)  # type: ignore[return-value]


def dump_document_parts(document: dict[str, Any], *, key: str | None = None) -> list[bytes | memoryview]:
    """:func:`dump_document` as the pieces whose concatenation it is: one ``bytes``,
    unless the document holds an object read as :class:`RawMembers`, whose unchanged
    members are then memoryviews of the bytes they were read from (for
    ``Store.set_parts``: the new document is never joined).

    Parameters
    ----------
    document : dict[str, Any]
        The document.
    key : str or None
        The store key it is for, named by errors.

    Returns
    -------
    list[bytes | memoryview]
        The pieces of the document's JSON, in order.

    Raises
    ------
    zarrforge.errors.MetadataError
        The document holds what JSON cannot hold (or a non-finite float outside
        ``attributes``).
    zarrforge.errors.DocumentTooLargeError
        The document would be over ``config.max_document_bytes``.

    Examples
    --------
    A plain document is one piece:

    >>> [type(part).__name__ for part in dump_document_parts({"zarr_format": 3})]
    ['bytes']

    One holding an object read as :class:`RawMembers` (a document of 1 MiB or more read by
    :func:`load_document_keeping_raw`) keeps its unchanged members as spans of the source:

    >>> view = {f"n{i:04d}": {"node_type": "group", "attributes": {"pad": "x" * 600}} for i in range(2000)}
    >>> data = dump_document({"zarr_format": 3, "view": view})
    >>> document = load_document_keeping_raw(data, key="zarr.json", at=("view",), kept=("node_type",))
    >>> document["view"] = document["view"].edited({"n0001": {"node_type": "array"}})
    >>> parts = dump_document_parts(document, key="zarr.json")
    >>> [type(part).__name__ for part in parts]
    ['bytes', 'memoryview', 'bytes', 'memoryview', 'bytes']
    >>> load_document(b"".join(parts), key="zarr.json")["view"]["n0001"]
    {'node_type': 'array'}
    """
    try:
        try:
            parts = _encoded(_write_utf8(document), "utf-8")
        except UnicodeEncodeError:
            # A lone surrogate (read from a "\ud800" escape) has no UTF-8 form: escape
            # everything non-ASCII instead, which reads back to the same strings.
            parts = _encoded(_write_ascii(document), "ascii")
    except (TypeError, ValueError, RecursionError) as exc:
        raise _unwritable(document, exc, key) from exc
    if len(parts) == 1:  # the common case, once (the regex only where a token may be)
        size, tokens = len(parts[0]), _may_hold_token(parts[0]) and _TOKEN_BYTES.search(parts[0]) is not None
    else:  # members kept as read are written as read: only what was written here is checked
        size = sum(len(part) for part in parts)
        tokens = any(
            type(part) is bytes and _may_hold_token(part) and _TOKEN_BYTES.search(part) for part in parts
        )
    if tokens:
        _refuse_non_finite_outside_attributes(document, key)  # rare: only then walk it
    check_size(size, key=key, writing=True)
    return parts


def _may_hold_token(data: bytes | memoryview) -> bool:
    """Whether ``data`` holds the letters of a non-finite token at all: a search for two
    words at C speed, where the token pattern costs a regex step at every separator (a
    memoryview is left to the regex)."""
    return type(data) is not bytes or b"NaN" in data or b"Infinity" in data


def _refuse_non_finite_outside_attributes(document: dict[str, Any], key: str | None) -> None:
    where = _non_finite_at(document, "", skip_attributes=True)
    if where is not None:
        field, value = where
        raise MetadataError(
            f"the value {value!r} cannot be written: metadata is JSON, which has no NaN or "
            'infinity (a fill value is written as the string "NaN"/"Infinity" by its '
            "data type; only attributes may hold them, as zarr-python writes them)",
            field=field or None,
            value=value,
            key=key,
        )


def check_new_attributes(values: dict[str, Any], *, field: str = "attributes") -> None:
    """Refuse non-finite numbers in attribute values a caller gives when
    ``config.non_finite_attributes`` is ``"refuse"`` (stores meant for strict-JSON
    readers such as tensorstore); values already stored are never checked, so a
    document holding them can still be changed."""
    if config.get().non_finite_attributes != "refuse":
        return
    where = _non_finite_at(values, field)
    if where is not None:
        found, value = where
        raise MetadataError(
            f"the value {value!r} is not allowed: zarrforge.config non_finite_attributes is "
            "'refuse' (strict JSON, for readers such as tensorstore); store a string or null, "
            "or set it to 'tokens' to write NaN/Infinity as zarr-python does",
            field=found,
            value=value,
        )


def _unwritable(document: Any, exc: Exception, key: str | None) -> MetadataError:
    return MetadataError(f"cannot be written as JSON: {exc}", key=key)


def _non_finite_at(
    value: Any, where: str, depth: int = 0, *, skip_attributes: bool = False
) -> tuple[str, float] | None:
    """The dotted path and value of the first non-finite float in ``value``, if any
    (``skip_attributes``: not looking inside members named ``attributes``)."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (where, value)
    if depth > 64:
        return None
    if type(value) is EditedMembers:  # only what changed was written as JSON here
        value = {name: member for name, member in value.changes.items() if member is not REMOVED}
    if isinstance(value, dict):
        items: Any = (
            (f"{where}.{k}" if where else str(k), v)
            for k, v in value.items()
            if not (skip_attributes and k == "attributes")
        )
    elif isinstance(value, (list, tuple)):
        items = ((f"{where}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for inner, item in items:
        found = _non_finite_at(item, inner, depth + 1, skip_attributes=skip_attributes)
        if found is not None:
            return found
    return None


def check_document(document: dict[str, Any]) -> None:
    """Raise :class:`MetadataError` if ``document`` cannot be written as JSON (as
    :func:`dump_document` writes it)."""
    try:
        data = _encode_ascii(document)
    except (TypeError, ValueError, RecursionError) as exc:
        raise _unwritable(document, exc, None) from exc
    if _TOKEN.search(data):
        _refuse_non_finite_outside_attributes(document, None)

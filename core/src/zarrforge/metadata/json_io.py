"""Reading and writing metadata documents as JSON.

Documents are untrusted: :func:`load_document` accepts only a JSON object,
rejects the non-standard tokens ``NaN``/``Infinity`` that Python's json module
would otherwise accept, rejects duplicate keys, and turns every failure into a
:class:`~zarrforge.errors.MetadataError` naming the store key.
:func:`dump_document` writes UTF-8 JSON with two-space indentation (objects
and lists of objects or lists one entry per line, lists of plain values on one
line; everything non-ASCII escaped when a string holds a lone surrogate, which
has no UTF-8 form), and refuses values JSON cannot represent;
:func:`check_document` only checks that a document can be written.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from ..errors import MetadataError

MAX_DOCUMENT_BYTES = 64 * 1024 * 1024


def _reject_constant(token: str) -> Any:
    raise ValueError(f"non-standard JSON token {token!r} (use the string \"{token}\")")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for k, v in pairs:
        if k in result:
            raise ValueError(f"duplicate key {k!r}")
        result[k] = v
    return result


def load_document(data: bytes, *, key: str, allow_nan: bool = False) -> dict[str, Any]:
    """The JSON object in ``data``; ``allow_nan`` accepts the ``NaN``/``Infinity`` tokens
    (for documents whose writers emit them, such as Zarr v2 attributes)."""
    if len(data) > MAX_DOCUMENT_BYTES:
        raise MetadataError(f"document of {len(data)} bytes exceeds the limit of "
                            f"{MAX_DOCUMENT_BYTES} bytes", key=key)
    try:
        text = data.decode("utf-8")
        document = json.loads(text, parse_constant=None if allow_nan else _reject_constant,
                              object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError as exc:
        raise MetadataError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", key=key) from exc
    except (ValueError, RecursionError) as exc:
        raise MetadataError(f"not valid JSON: {exc}", key=key) from exc
    if not isinstance(document, dict):
        raise MetadataError(f"the document must be a JSON object, got {type(document).__name__}",
                            key=key)
    return document


# The C-accelerated encoder (used when there is no indent) writes the leaves; Python's
# own indenting encoder is pure Python and dominated the cost of creating small arrays.
_encode_utf8 = json.JSONEncoder(allow_nan=False, ensure_ascii=False).encode
_encode_ascii = json.JSONEncoder(allow_nan=False, ensure_ascii=True).encode


def _indented(value: Any, indent: str, encode: Callable[[Any], str]) -> str:
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = indent + "  "
        entries = [f"{inner}{_key_text(k, encode)}: {_indented(v, inner, encode)}"
                   for k, v in value.items()]
        return "{\n" + ",\n".join(entries) + "\n" + indent + "}"
    if isinstance(value, (list, tuple)) and any(isinstance(v, (dict, list, tuple)) for v in value):
        inner = indent + "  "
        entries = [inner + _indented(v, inner, encode) for v in value]
        return "[\n" + ",\n".join(entries) + "\n" + indent + "]"
    return encode(value)


def _key_text(key: Any, encode: Callable[[Any], str]) -> str:
    if isinstance(key, str):
        return encode(key)
    # json's rules for int, float, bool and None keys (and its TypeError for others)
    return encode(next(iter(json.loads(encode({key: None})))))


def dump_document(document: dict[str, Any], *, key: str | None = None) -> bytes:
    """UTF-8 JSON of ``document``; ``key`` (the store key it is for) goes into errors."""
    try:
        try:
            return _indented(document, "", _encode_utf8).encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate (read from a "\ud800" escape) has no UTF-8 form: escape
            # everything non-ASCII instead, which reads back to the same strings.
            return _indented(document, "", _encode_ascii).encode("ascii")
    except (TypeError, ValueError, RecursionError) as exc:
        raise MetadataError(f"cannot be written as JSON: {exc}", key=key) from exc


def check_document(document: dict[str, Any]) -> None:
    """Raise :class:`MetadataError` if ``document`` cannot be written as JSON."""
    try:
        _encode_ascii(document)
    except (TypeError, ValueError, RecursionError) as exc:
        raise MetadataError(f"cannot be written as JSON: {exc}") from exc

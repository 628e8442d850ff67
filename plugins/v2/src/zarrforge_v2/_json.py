"""Reading and writing the JSON documents of a v2 hierarchy.

``.zarray`` and ``.zgroup`` are read with the core's strict loader (no
``NaN`` tokens, no duplicate keys). ``.zattrs`` and ``.zmetadata`` are read
leniently: zarr-python (2 and 3) writes attributes with Python's default
``allow_nan=True``, so real-world attributes hold bare ``NaN`` / ``Infinity``
tokens (xarray's ``_FillValue: NaN`` is the usual one). They are read as
floats and written back the same way.

Documents are written as zarr-python 3 writes them: two-space indentation,
ASCII-escaped, no trailing newline; ``.zmetadata`` on one line. A large ``.zmetadata``
is read with its entries indexed in its bytes, not parsed
(:func:`load_consolidated`), and written back with its unchanged entries as those
bytes (:func:`dump_parts`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeGuard

from zarrforge.errors import MetadataError
from zarrforge.plugin_api.formats import (
    EditedMembers,
    ParseMemo,
    RawJSON,
    RawMembers,
    check_document_size,
    load_document,
    load_document_keeping_raw,
)

#: consolidated documents this large are read with their ``metadata`` object indexed
LARGE_BYTES = 1 << 20
_LARGE_DOCUMENTS = ParseMemo(min_bytes=LARGE_BYTES)


def shared_parse(data: bytes, key: Any, parse: Callable[[bytes], Any]) -> Any:
    """``parse(data)``, or what it gave another reader of equal large bytes and ``key``
    in the same operation (:class:`ParseMemo`): the survey of a new node's path and the
    view update after it then hold one document, and resolve it once."""
    return _LARGE_DOCUMENTS.parse(data, key, parse)


def load_strict(data: bytes, *, key: str) -> dict[str, Any]:
    return load_document(data, key=key)


def load_lenient(data: bytes, *, key: str) -> dict[str, Any]:
    """A JSON object that may hold the ``NaN``/``Infinity``/``-Infinity`` tokens."""
    return load_document(data, key=key, allow_nan=True)


def load_consolidated(data: bytes, *, key: str) -> dict[str, Any]:
    """A ``.zmetadata`` document, read leniently. A large one keeps its ``metadata``
    object as a :class:`RawMembers` index over ``data`` (no object per entry; each entry
    parsed when its node opens)."""
    if len(data) < LARGE_BYTES:
        return load_lenient(data, key=key)
    document = load_document_keeping_raw(data, key=key, at=("metadata",), kept=(), allow_nan=True)
    entries = document.get("metadata")
    if isinstance(entries, dict) and any(type(v) is RawJSON for v in entries.values()):
        document = load_lenient(data, key=key)  # entries the index does not read: whole
    return document


def is_indexed(entries: Any) -> TypeGuard[RawMembers]:
    return type(entries) is RawMembers


def dump(
    document: dict[str, Any], *, allow_nan: bool = False, indent: int | None = 2, key: str | None = None
) -> bytes:
    """ASCII JSON of ``document`` (to be written at ``key``, named in errors when known);
    refused (before anything is written) when over ``config.max_document_bytes``, since
    readers could not open it."""
    try:
        data = json.dumps(document, indent=indent, allow_nan=allow_nan).encode("ascii")
    except (TypeError, ValueError, RecursionError) as exc:
        raise MetadataError(f"cannot be written as JSON: {exc}", key=key) from exc
    check_document_size(len(data), key=key, writing=True)
    return data


def dump_parts(
    document: dict[str, Any], *, allow_nan: bool, key: str | None = None
) -> bytes | list[bytes | memoryview]:
    """:func:`dump` on one line, of a document one of whose members may be an edited
    index (:class:`~zarrforge.plugin_api.EditedMembers`): its unchanged members
    are then the bytes they were read in (memoryviews), and the result is the list of
    pieces whose concatenation is the document (for ``Store.set_parts``)."""
    if not any(type(value) is EditedMembers for value in document.values()):
        return dump(document, allow_nan=allow_nan, indent=None, key=key)

    def encode(value: Any) -> str:
        return json.dumps(value, allow_nan=allow_nan)

    parts: list[bytes | memoryview] = []
    text = ["{"]
    try:
        for n, (name, value) in enumerate(document.items()):
            text.append((", " if n else "") + encode(name) + ": ")
            if type(value) is not EditedMembers:
                text.append(encode(value))
                continue
            text.append("{")
            for m, piece in enumerate(value.pieces()):
                text.append(", " if m else "")
                if type(piece) is memoryview:
                    parts += ("".join(text).encode("ascii"), piece)
                    text = []
                else:
                    text.append(encode(piece[0]) + ": " + encode(piece[1]))
            text.append("}")
        text.append("}")
    except (TypeError, ValueError, RecursionError) as exc:
        raise MetadataError(f"cannot be written as JSON: {exc}", key=key) from exc
    parts.append("".join(text).encode("ascii"))
    check_document_size(sum(len(part) for part in parts), key=key, writing=True)
    return parts

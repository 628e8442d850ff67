"""Reading and writing the JSON documents of a v2 hierarchy.

``.zarray`` and ``.zgroup`` are read with the core's strict loader (no
``NaN`` tokens, no duplicate keys). ``.zattrs`` and ``.zmetadata`` are read
leniently: zarr-python (2 and 3) writes attributes with Python's default
``allow_nan=True``, so real-world attributes hold bare ``NaN`` / ``Infinity``
tokens (xarray's ``_FillValue: NaN`` is the usual one). They are read as
floats and written back the same way.

Documents are written as zarr-python 3 writes them: two-space indentation,
ASCII-escaped, no trailing newline; ``.zmetadata`` on one line.
"""

from __future__ import annotations

import json
from typing import Any

from zarrforge.errors import MetadataError
from zarrforge.plugin_api import check_document_size, load_document


def load_strict(data: bytes, *, key: str) -> dict[str, Any]:
    return load_document(data, key=key)


def load_lenient(data: bytes, *, key: str) -> dict[str, Any]:
    """A JSON object that may hold the ``NaN``/``Infinity``/``-Infinity`` tokens."""
    return load_document(data, key=key, allow_nan=True)


def dump(document: dict[str, Any], *, allow_nan: bool = False, indent: int | None = 2,
         key: str | None = None) -> bytes:
    """ASCII JSON of ``document`` (to be written at ``key``, named in errors when known);
    refused (before anything is written) when over ``config.max_document_bytes``, since
    readers could not open it."""
    try:
        data = json.dumps(document, indent=indent, allow_nan=allow_nan).encode("ascii")
    except (TypeError, ValueError, RecursionError) as exc:
        raise MetadataError(f"cannot be written as JSON: {exc}", key=key) from exc
    check_document_size(len(data), key=key, writing=True)
    return data

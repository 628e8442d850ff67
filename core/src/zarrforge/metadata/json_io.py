"""Reading and writing metadata documents as JSON.

Documents are untrusted: :func:`load_document` accepts only a JSON object,
rejects the non-standard tokens ``NaN``/``Infinity`` that Python's json module
would otherwise accept, rejects duplicate keys, and turns every failure into a
:class:`~zarrforge.errors.MetadataError` naming the store key.
:func:`dump_document` writes UTF-8 JSON with two-space indentation, as
zarr-python does, and refuses values JSON cannot represent.
"""

from __future__ import annotations

import json
from typing import Any

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


def load_document(data: bytes, *, key: str) -> dict[str, Any]:
    if len(data) > MAX_DOCUMENT_BYTES:
        raise MetadataError(f"document of {len(data)} bytes exceeds the limit of "
                            f"{MAX_DOCUMENT_BYTES} bytes", key=key)
    try:
        text = data.decode("utf-8")
        document = json.loads(text, parse_constant=_reject_constant,
                              object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError as exc:
        raise MetadataError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", key=key) from exc
    except (ValueError, RecursionError) as exc:
        raise MetadataError(f"not valid JSON: {exc}", key=key) from exc
    if not isinstance(document, dict):
        raise MetadataError(f"the document must be a JSON object, got {type(document).__name__}",
                            key=key)
    return document


def dump_document(document: dict[str, Any]) -> bytes:
    try:
        return json.dumps(document, indent=2, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise MetadataError(f"cannot be written as JSON: {exc}") from exc

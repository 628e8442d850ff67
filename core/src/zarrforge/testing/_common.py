"""What the conformance suites share: how a metadata entry is named in test ids and
failure messages."""

from __future__ import annotations

import json
from typing import Any


def document_id(document: Any) -> str:
    """``name`` or ``name{"configuration":...}`` (compact, keys sorted) for an entry given
    as a string or as ``{"name": ..., "configuration": {...}}``."""
    if isinstance(document, str):
        return document
    text = json.dumps(document.get("configuration", {}), sort_keys=True, separators=(",", ":"))
    return f"{document.get('name')}{text if text != '{}' else ''}"


def entry_name(document: Any) -> str:
    """The ``name`` of an entry given as a string or a mapping."""
    return document if isinstance(document, str) else document["name"]

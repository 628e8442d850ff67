"""Helpers shared by the draft-2022 tests (imported as ``_draft_helpers``)."""

from __future__ import annotations

import json
from typing import Any

EDITOR_URI = "https://purl.org/zarr/spec/core/3.0"
ZARR_PYTHON_URI = "https://purl.org/zarr/spec/protocol/core/3.0"


def entry_point(dialect: str = "editor", **extra: Any) -> dict[str, Any]:
    uri = EDITOR_URI if dialect == "editor" else ZARR_PYTHON_URI
    return {
        "zarr_format": uri,
        "metadata_encoding": uri,
        "metadata_key_suffix": ".json",
        "extensions": [],
        **extra,
    }


def doc(store: Any, key: str) -> Any:
    return json.loads(store.get(key))

"""Fixtures of the draft-2022 tests: stores, and hierarchies written document by document."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# --import-mode=importlib puts no test directory on sys.path; the tests import _draft_helpers.
_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from _draft_helpers import entry_point  # noqa: E402

from zarrforge_draft2022 import dialects  # noqa: E402
from zarrforge_std.stores.memory import MemoryStore  # noqa: E402


@pytest.fixture(autouse=True)
def _default_dialect(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Every test starts from the built-in default dialect (no environment override)."""
    monkeypatch.delenv(dialects.ENV_VAR, raising=False)
    dialects.set_default_dialect(None)
    yield
    dialects.set_default_dialect(None)


@pytest.fixture
def hierarchy() -> Callable[..., MemoryStore]:
    """``hierarchy({"meta/root/a.array.json": {...}}, dialect="editor")``: a store holding
    the entry point of ``dialect`` (unless given) and the documents as JSON."""

    def make(documents: dict[str, Any], dialect: str = "editor") -> MemoryStore:
        store = MemoryStore()
        if "zarr.json" not in documents:
            store.set("zarr.json", json.dumps(entry_point(dialect)).encode())
        for key, document in documents.items():
            data = document if isinstance(document, bytes) else json.dumps(document).encode()
            store.set(key, data)
        return store

    return make

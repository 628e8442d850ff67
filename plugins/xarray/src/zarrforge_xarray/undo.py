"""Taking a failed write back out, for writes that create their group (a Dataset's, or a
DataTree's root) or new variables in an existing group: the keys below the path before
the write (:func:`keys_below`), then, on failure, every key below it that was not there
before, and the node's entry in the consolidated views above (:func:`remove_written`).
Keys of others are kept: only new keys go. Best effort: the write's own error is the one
reported."""

from __future__ import annotations

from typing import Any

import zarrforge
from zarrforge.hierarchy_api import open_node, refresh_consolidated


def keys_below(store: Any, path: str) -> set[str]:
    """The keys below ``path`` of ``store`` (a zarrforge store) now."""
    return set(store.list_prefix(f"{path}/" if path else ""))


def remove_written(store: Any, path: str, before: set[str]) -> None:
    """Delete every key below ``path`` that is not in ``before``, and take the node at
    ``path`` (a group or an array, if one was written) out of the consolidated views
    above it."""
    try:
        written = open_node(store, path, mode="r", use_consolidated=False)
    except zarrforge.errors.ZarrforgeError:
        written = None
    try:
        store.delete_many(sorted(keys_below(store, path) - before))
        if written is not None:
            refresh_consolidated(store, written.format, path, None)
    except zarrforge.errors.ZarrforgeError:
        pass

"""The hook implementations of zarrforge-extensions (entry-point group ``zarrforge.plugins``).

* ``zarrforge_node_opened``: checks each entry against the array it belongs to
  (one offset per dimension; statistics only on integer and float types),
  which the extensions' ``from_json`` cannot do since it does not see the array.
* ``zarrforge_map_selection``: ``zarrforge.offset`` turns logical coordinates
  into stored indices, for reads and writes.
* ``zarrforge_after_write``: ``zarrforge.array-statistics`` merges the written
  values into the stored statistics.

Each hook acts only on instances of its own extension classes, so entries that
are merely kept (unknown, ``must_understand: false``) never reach the logic.
"""

from __future__ import annotations

from typing import Any

import zarrforge

from .offset import Offset
from .array_statistics import ArrayStatistics, record_write, summarize


def _where(node: Any, entry: Any, inner: str) -> str:
    # By name (names are unique in the list), not identity: a concurrent metadata update
    # may have replaced the node's entries with equal new objects.
    index = next((i for i, e in enumerate(node.extensions) if e.name == entry.name), "?")
    return f"extensions[{index}].{inner}"


@zarrforge.hookimpl
def zarrforge_node_opened(node: Any) -> None:
    if not isinstance(node, zarrforge.Array):
        return
    for entry in node.extensions:
        if isinstance(entry, Offset):
            entry.check(node.shape, where=_where(node, entry, "configuration.offset"))
        elif isinstance(entry, ArrayStatistics):
            entry.check(node.dtype, where=_where(node, entry, "configuration"))


@zarrforge.hookimpl
def zarrforge_map_selection(array: Any, extension: Any, selection: Any, kind: str) -> Any:
    if not isinstance(extension, Offset):
        return None
    # The length was checked on open; check again, since set_extension() cannot.
    if len(extension.offset) != array.ndim:
        extension.check(array.shape, where=_where(array, extension, "configuration.offset"))
    return extension.map_selection(selection, kind, array.shape)


@zarrforge.hookimpl
def zarrforge_after_write(array: Any, extension: Any, selection: Any, kind: str,
                          values: Any) -> None:
    if isinstance(extension, ArrayStatistics):
        record_write(array, summarize(values))

"""The ``zf_example.units`` extension: the physical units of an array's (or group's) values.

Metadata (``must_understand`` false is the sensible choice: a reader that does
not know about units still reads the right numbers)::

    {"name": "zf_example.units", "must_understand": false,
     "configuration": {"units": "m/s"}}

``units`` is any non-empty string; this example does not interpret it.

Behaviour comes from the ``zarrforge_node_opened`` hook (:mod:`zf_example.hooks`):
every node opened or created with the extension is recorded in a
:class:`weakref.WeakKeyDictionary`, the way a plugin attaches state to nodes
without changing zarrforge's classes, and :func:`units_of` answers from it.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from zarrforge.abc.extension import Extension
from zarrforge.errors import MetadataError

NAME = "zf_example.units"


class Units(Extension):
    name = NAME
    node_types = frozenset({"array", "group"})

    def __init__(self, units: str) -> None:
        self.units = units

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Units:
        configuration = configuration or {}
        unknown = sorted(set(configuration) - {"units"})
        if unknown:
            raise MetadataError(
                f"unknown configuration key(s) {unknown}; valid: ['units']",
                field="configuration",
                value=configuration,
            )
        units = configuration.get("units")
        if not isinstance(units, str) or not units.strip():
            raise MetadataError(
                f"units must be a non-empty string, got {units!r}", field="configuration.units", value=units
            )
        return cls(units)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"units": self.units}}


# node -> the Units entry it was opened with. Weak keys: the record goes with the node.
_opened: weakref.WeakKeyDictionary[Any, Units] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def remember(node: Any) -> None:
    """Record the units of ``node`` (called by the hook when a node opens)."""
    entry = node.get_extension(NAME)
    with _lock:
        if isinstance(entry, Units):
            _opened[node] = entry
        else:
            _opened.pop(node, None)


def units_of(node: Any) -> str | None:
    """The units of an array or group, or ``None`` when it has none.

    Answers from what the hook recorded; if the node's entry changed since it
    was opened (``set_units``, ``set_extension``, ``remove_extension``), the
    record is brought up to date first, so the answer is never stale.
    """
    with _lock:
        recorded = _opened.get(node)
    if recorded is None or node.get_extension(NAME) is not recorded:
        remember(node)
        with _lock:
            recorded = _opened.get(node)
    return None if recorded is None else recorded.units


def set_units(node: Any, units: str, *, must_understand: bool = False) -> None:
    """Give ``node`` units (written to its metadata, ``must_understand: false`` by default)."""
    entry = Units.from_json(NAME, {"units": units})
    entry.must_understand = must_understand
    node.set_extension(entry)
    remember(node)

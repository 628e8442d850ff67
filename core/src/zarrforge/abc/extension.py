"""Contract for generic extensions (the ``extensions`` extension point, ZEP 10).

A generic extension is a named entry of a node's ``extensions`` list (arrays
and groups alike): a short-hand name or ``{"name", "configuration",
"must_understand"}``. An implementation provides:

* ``from_json(name, configuration)``: build and validate (raise
  :class:`~zarrforge.errors.MetadataError` naming the field, e.g.
  ``"configuration.offset"``); ``configuration`` is ``None`` for a short-hand
  name;
* ``to_json()``: the entry to write back (``must_understand`` is added by the
  core when the entry carries ``must_understand: false``);
* ``node_types``: where it may appear (``{"array"}``, ``{"group"}`` or both);
* ``validate(metadata)`` (optional): check the entry against the node it is on,
  before anything is written.

The core sets ``must_understand`` on the instance from the document. Behaviour
(acting when a node opens, mapping selections, after writes) is contributed
through the pluggy hooks of :mod:`zarrforge.hookspecs`, which receive the
extension instance.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar


class Extension(ABC):
    name: ClassVar[str]
    node_types: ClassVar[frozenset[str]] = frozenset({"array", "group"})
    must_understand: bool = True

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> "Extension":
        ...

    @abstractmethod
    def to_json(self) -> str | dict[str, Any]:
        ...

    def validate(self, metadata: Any) -> None:
        """Check the entry against the node's metadata model (e.g. one value per
        dimension); raise ``MetadataError`` with ``field`` inside the entry."""
        return None

    def __eq__(self, other: object) -> bool:
        return (type(other) is type(self) and other.to_json() == self.to_json()
                and other.must_understand == self.must_understand)

    def __hash__(self) -> int:
        return hash(repr(self.to_json()))

    def __repr__(self) -> str:
        return f"<extension {self.to_json()!r}>"

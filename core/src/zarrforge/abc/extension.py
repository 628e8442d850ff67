"""Contract for generic metadata extensions (the ``extensions`` extension point).

A generic extension is a named object attached to an array or group (ZEP 10's
``extensions`` list, or a top-level key of a v3 document). ``from_json``
receives the whole extension object as found in the document so that the
extension can validate its own configuration; ``to_json`` returns what is
written back. Behaviour (acting on open, on selections, after writes) is
contributed through the pluggy hooks in :mod:`zarrforge.hookspecs`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar


class Extension(ABC):
    name: ClassVar[str]

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, document: Any) -> "Extension":
        ...

    @abstractmethod
    def to_json(self) -> Any:
        ...

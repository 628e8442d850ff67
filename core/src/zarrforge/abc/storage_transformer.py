"""Contract for storage transformers (the ``storage_transformers`` extension point).

A storage transformer sits between an array and its store and is itself a
store: ``wrap(store)`` returns the store the array talks to. The array's
``storage_transformers`` list is applied in order, the first entry being
closest to the array.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from .store import Store


class StorageTransformer(ABC):
    name: ClassVar[str]

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> "StorageTransformer":
        ...

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        ...

    @abstractmethod
    def wrap(self, store: Store, array_prefix: str) -> Store:
        """The store seen by the array whose keys live under ``array_prefix``."""
